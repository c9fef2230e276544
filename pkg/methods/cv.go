package methods

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

const (
	defaultFolds = 5
	// cvStream is the PCG stream of the cross-validation folds, distinct
	// from the streams other consumers draw from the same seed.
	cvStream = 0x6376 // "cv"
	// heuristicMedianK is the median off-diagonal kernel value the moderate
	// start aims at (docs/design.md "spd: the margin criterion and its start"):
	// e⁻², about 1/d on z-scored data.
	heuristicMedianK = 0.1353352832366127 // math.Exp(-2)
)

// The helpers of this file return errors without a method prefix:
// each method wraps them with its own ("svm: grid search: ...").

// cvPlan is a k-fold split of n rows: test[f] and train[f] partition 0..n-1.
type cvPlan struct {
	train, test [][]int
}

// newCVPlan draws the folds of the rows labelled y once from cm.Seed
// (shared by every grid point, so accuracies at different points are paired).
// The folds are stratified (dataio.StratifiedKFold: each class shuffled and
// dealt round-robin), as LIBSVM's svm-train -v, and so grid.py, draws them for
// classification: every fold's training part holds both classes whenever each
// class has at least two rows.
func newCVPlan(y []float64, cm Common) (cvPlan, error) {
	n := len(y)
	k := cm.Folds
	if k == 0 {
		k = defaultFolds
	}
	if k < 2 {
		return cvPlan{}, fmt.Errorf("cross-validation needs at least 2 folds, got %d", k)
	}
	if n < k {
		return cvPlan{}, fmt.Errorf("%d-fold cross-validation needs at least %d rows, got %d", k, k, n)
	}
	if pos := countPositive(y); pos == 0 || pos == n {
		return cvPlan{}, fmt.Errorf("cross-validation needs both classes (%d positive, %d negative)", pos, n-pos)
	}
	folds := dataio.StratifiedKFold(y, k, cm.Seed, cvStream)
	p := cvPlan{train: make([][]int, len(folds)), test: make([][]int, len(folds))}
	for f, fo := range folds {
		p.train[f], p.test[f] = fo.Train, fo.Test
	}
	return p, nil
}

// foldSweep trains on one fold's training part for every C of Cs in turn
// (ascending, so the previous α is feasible and warm-starts the next solve;
// for the L2 margin scaled, l2WarmStart; with keep, for the L1 margin, the
// solver's state is kept from one C to the next, solver.SVCPath: its
// gradient, scaled α and kernel-column cache)
// and returns the number of correctly predicted test rows for each C and the
// number of SVM solves. A training part with one class only (possible when a
// class has a single row, which stratification cannot spread) predicts that
// class for every C, without a solve, as LIBSVM does.
//
// With decide.all set (the bounded-memory route, rowsFold) the test rows'
// decision values of every C are computed at once after the last solve,
// from one kernel column per test row over the support vectors of all the
// Cs, with the same bits as one column per C (rowsDecideAll).
//
// w multiplies C for the +1 and the -1 class (class weights; 0 means 1).
func foldSweep(ctx context.Context, km kernel.Matrix, decide foldDecider, ytr, yte, Cs []float64, margin solver.Margin, w [2]float64, s solver.Settings, keep bool) (correct []int, solves int, err error) {
	correct = make([]int, len(Cs))
	if pos := countPositive(ytr); pos == 0 || pos == len(ytr) {
		same := 0
		for _, v := range yte {
			if (v > 0) == (pos > 0) {
				same++
			}
		}
		for c := range correct {
			correct[c] = same
		}
		return correct, 0, nil
	}
	var path *solver.SVCPath
	if margin == solver.L1 && keep {
		if path, err = solver.NewSVCPath(km, ytr, w[0], w[1], s); err != nil {
			return nil, 0, err
		}
		defer path.Close()
	}
	var alpha, start []float64
	var w2 float64     // the last solve's ‖w‖² (L2)
	unbounded := false // the last solve's α has no entry at its bound C
	dec := make([]float64, len(yte))
	// With decide.all: the solutions kept for the decisions after the
	// sweep, the one each C uses (sol[c]), and what the hook is told.
	var (
		sols  []svCoef
		sol   []int
		hooks []deferredHook
	)
	for c, C := range Cs {
		if c > 0 && margin == solver.L1 && unbounded {
			// No α reached the previous C: that α is optimal for every
			// larger C, and the warm-started solve would stop at once
			// with the same α and decisions. Reuse the counts.
			correct[c] = correct[c-1]
			if decide.all != nil {
				sol = append(sol, sol[c-1])
			}
			continue
		}
		var alpha0 []float64
		switch {
		case margin == solver.L1:
			alpha0 = alpha
		case margin == solver.L2 && alpha != nil:
			start = l2WarmStart(start, alpha, w2, Cs[c-1], C)
			alpha0 = start
		}
		var res solver.SVCResult
		t0 := time.Now()
		if path != nil {
			res, err = path.Train(ctx, C)
		} else {
			res, err = solver.TrainSVC(ctx, km, ytr, solver.SVCParams{Margin: margin, C: C, WeightPos: w[0], WeightNeg: w[1]}, s, alpha0)
		}
		solves++
		if err != nil {
			return nil, solves, err
		}
		switch margin {
		case solver.L1:
			alpha = res.Alpha
			unbounded = res.NBSV == 0 && res.Status == status.Converged
		case solver.L2:
			alpha, w2 = res.Alpha, res.W2
		}
		t1 := time.Now()
		if decide.all != nil {
			sol = append(sol, len(sols))
			sols = append(sols, compactCoef(res.Coef, res.Bias))
			if solveHook != nil {
				hooks = append(hooks, deferredHook{C: C, res: res, solve: t1.Sub(t0)})
			}
			continue
		}
		decide.one(dec, res.Coef, res.Bias)
		for i, v := range dec {
			if (v > 0) == (yte[i] > 0) {
				correct[c]++
			}
		}
		if solveHook != nil {
			solveHook(ctx, C, &res, t1.Sub(t0), time.Since(t1))
		}
	}
	if len(sols) > 0 {
		t1 := time.Now()
		decs := decide.all(sols)
		perSol := make([]int, len(sols))
		for k, d := range decs {
			for i, v := range d {
				if (v > 0) == (yte[i] > 0) {
					perSol[k]++
				}
			}
		}
		for c := range Cs {
			correct[c] = perSol[sol[c]]
		}
		if solveHook != nil {
			each := time.Since(t1) / time.Duration(len(hooks))
			for _, h := range hooks {
				solveHook(ctx, h.C, &h.res, h.solve, each)
			}
		}
	}
	return correct, solves, nil
}

// deferredHook is a solve's report to solveHook, made after the sweep's
// decisions (foldDecider.all).
type deferredHook struct {
	C     float64
	res   solver.SVCResult
	solve time.Duration
}

// solveHook, when set (by tests and the measurements of BENCHMARKS.md),
// sees every solve of a fold sweep, with its C, the context of its job
// (cvCounts puts a solveTag in it: the γ, the fold and the rows the round
// cross-validates), the solve's wall time and that of the decision values
// on the fold's test rows that follow it (with foldDecider.all, after
// the sweep: the time of the sweep's decisions divided evenly among its
// solves).
// It is called from the sweeps' goroutines at once.
var solveHook func(ctx context.Context, C float64, r *solver.SVCResult, solve, decide time.Duration)

// solveTag says which job of cvCounts a solve belongs to (solveHook).
type solveTag struct {
	Gamma      float64
	Fold, Rows int
}

type solveTagKey struct{}

// l2WarmStart returns in dst the start of an L2-margin solve at C from the
// solution α at the next smaller C0 (w2 = αᵀ(YKY + I/C0)α, its ‖w‖²). Every
// α ≥ 0 with yᵀα = 0 is feasible for every C (the L2 margin has no upper
// bound), and on data that K + I/C does not separate α grows like C as
// ν = 1/C falls, so the scaled tα, t = C/C0, is much the closer start: on
// the a1a-like set at n = 1,000 with lccp's L1 kernel at θ0, one fold's
// solve at C = 2⁷ took 4.5 million SMO iterations from α and 0.23 million
// from 4α. Where α has settled (separable data) the scaled start overshoots,
// so t is whichever of C/C0 and 1 gives the lower dual objective
// f(tα) = ½t²αᵀQα - tΣα, Q = YKY + I/C, with αᵀQα = w2 + (1/C - 1/C0)‖α‖²
// (O(n), from the previous solve). The solution is the same (unique: ν > 0),
// only the path to it is shorter.
func l2WarmStart(dst, alpha []float64, w2, C0, C float64) []float64 {
	if len(dst) != len(alpha) {
		dst = make([]float64, len(alpha))
	}
	t := 1.0
	if r := C / C0; r > 0 && !math.IsInf(r, 0) {
		quad := w2 + (1/C-1/C0)*floats.Dot(alpha, alpha)
		sum := floats.Sum(alpha)
		f := func(t float64) float64 { return t*t*quad/2 - t*sum }
		if f(r) < f(1) {
			t = r
		}
	}
	for i, a := range alpha {
		dst[i] = t * a
	}
	return dst
}

// newCVPlanOf is newCVPlan for a data set: binary data by its labels,
// multi-class data stratified by class (every class at least 2 rows).
func newCVPlanOf(train *dataio.Dataset, cm Common) (cvPlan, error) {
	if !train.MultiClass() {
		return newCVPlan(train.Y, cm)
	}
	k := cm.Folds
	if k == 0 {
		k = defaultFolds
	}
	if n := train.Len(); n < k {
		return cvPlan{}, fmt.Errorf("%d-fold cross-validation needs at least %d rows, got %d", k, k, n)
	}
	folds := dataio.StratifiedKFold(train.Strata(), k, cm.Seed, cvStream)
	p := cvPlan{train: make([][]int, len(folds)), test: make([][]int, len(folds))}
	for f, fo := range folds {
		p.train[f], p.test[f] = fo.Train, fo.Test
	}
	return p, nil
}

// foldKernels returns one fold's kernel matrices for the isotropic Gaussian
// exp(-γ D) of the squared distances D: the training part's Gram
// exp(-γ D[tr, tr]) stored in full (both triangles, for
// kernel.PrecomputedSquare) and the test-by-training matrix exp(-γ D[te, tr]).
// D must hold both triangles (kernel.SquaredDistances does), and tr must
// ascend (the folds' rows do). Each entry is math.Exp(-γ·D_ij), the upper
// triangle computed and mirrored, so both triangles are exactly equal.
// The matrices are stored in ktr and kte, grown when too short, and the
// buffers are returned for the next fold (every entry is overwritten).
func foldKernels(D *mat.SymDense, tr, te []int, gamma float64, ktr, kte []float64) (Ktr, Kte *mat.Dense, ktrBuf, kteBuf []float64) {
	raw := D.RawSymmetric()
	m := len(tr)
	ktr = grow(ktr, m*m)
	for a, i := range tr {
		drow := raw.Data[i*raw.Stride:]
		krow := ktr[a*m:]
		for b := a; b < m; b++ {
			krow[b] = math.Exp(-gamma * drow[tr[b]])
		}
	}
	kernel.MirrorUpper(ktr, m, m)
	kte = grow(kte, len(te)*m)
	for a, i := range te {
		drow := raw.Data[i*raw.Stride:]
		krow := kte[a*m:]
		for b, j := range tr {
			krow[b] = math.Exp(-gamma * drow[j])
		}
	}
	Ktr = mat.NewDense(m, m, ktr)
	if len(te) == 0 {
		return Ktr, &mat.Dense{}, ktr, kte
	}
	return Ktr, mat.NewDense(len(te), m, kte), ktr, kte
}

// foldSub returns one fold's matrices of the kernel matrix K: the training
// part's K[tr, tr] in full storage (both triangles, read as rows through
// kernel.PrecomputedSquare) and the test-by-training K[te, tr]. tr must
// ascend (the folds' rows do). Only K's upper triangle is read. Through
// kernel.Precomputed of the upper triangle, each SMO column read half its
// entries down a column (a cache line per entry): at n = 20,000 lccp's
// choice of C spent 1 ms per SMO iteration there.
func foldSub(K mat.Symmetric, tr, te []int) (Ktr, Kte *mat.Dense) {
	sd, ok := K.(*mat.SymDense)
	if !ok {
		return mat.DenseCopyOf(subSym(K, tr, nil)), subCross(K, te, tr, nil)
	}
	raw := sd.RawSymmetric()
	at := func(i, j int) float64 {
		if i > j {
			i, j = j, i
		}
		return raw.Data[i*raw.Stride+j]
	}
	m := len(tr)
	ktr := make([]float64, m*m)
	for a, i := range tr {
		src := raw.Data[i*raw.Stride:]
		row := ktr[a*m:]
		for b := a; b < m; b++ {
			row[b] = src[tr[b]]
		}
	}
	kernel.MirrorUpper(ktr, m, m)
	Ktr = mat.NewDense(m, m, ktr)
	if len(te) == 0 {
		return Ktr, &mat.Dense{}
	}
	kte := make([]float64, len(te)*m)
	for a, i := range te {
		row := kte[a*m:]
		for b, j := range tr {
			row[b] = at(i, j)
		}
	}
	return Ktr, mat.NewDense(len(te), m, kte)
}

// grow returns buf resliced to length k, or a new slice when its capacity
// is short (the contents are not kept).
func grow(buf []float64, k int) []float64 {
	if cap(buf) >= k {
		return buf[:k]
	}
	return make([]float64, k)
}
