package methods

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// LIBSVM grid.py's default grid: log2 C from -5 to 15 and log2 γ from 3 down
// to -15, both in steps of 2 (γ in LIBSVM's convention exp(-γ‖x-z‖²)).
var (
	gridLog2C     = []float64{-5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15}
	gridLog2Gamma = []float64{3, 1, -1, -3, -5, -7, -9, -11, -13, -15}
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

// gridResult is the outcome of gridSearchCV: the chosen (C, γ) with γ in
// LIBSVM's convention, its k-fold CV accuracy, and the number of SVM solves.
type gridResult struct {
	C, Gamma, Accuracy float64
	Solves             int
	// Subset is the number of rows the full grid ran on when the training
	// part was larger than Common.GridRows (0: it ran on all rows); Coarse
	// is that run's choice, refined on all rows (see gridProposer).
	Subset int
	Coarse *gridResult
	// credit is the time another job spent on this search when it was
	// read from a GridMemo (less this job's wait for it), 0 otherwise.
	credit time.Duration
}

// note returns what a method's Init says about a large-data grid search,
// "" when the full grid ran on all rows.
func (g gridResult) note(n int) string {
	if g.Coarse == nil {
		return ""
	}
	return fmt.Sprintf(" (large data: the grid on a stratified subset of %d of the %d rows chose C = 2^%g, gamma = 2^%g; then the 3×3 region around it, log2 step 1, on all rows)",
		g.Subset, n, math.Log2(g.Coarse.C), math.Log2(g.Coarse.Gamma))
}

// The helpers of this file return errors without the "" prefix:
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

// subSym returns the symmetric matrix f(A[idx, idx]).
func subSym(A mat.Symmetric, idx []int, f func(float64) float64) *mat.SymDense {
	m := len(idx)
	out := mat.NewSymDense(m, nil)
	raw := out.RawSymmetric()
	for a, i := range idx {
		row := raw.Data[a*raw.Stride:]
		for b := a; b < m; b++ {
			v := A.At(i, idx[b])
			if f != nil {
				v = f(v)
			}
			row[b] = v
		}
	}
	return out
}

// subCross returns the matrix f(A[rows, cols]).
func subCross(A mat.Matrix, rows, cols []int, f func(float64) float64) *mat.Dense {
	out := mat.NewDense(len(rows), len(cols), nil)
	for a, i := range rows {
		row := out.RawRowView(a)
		for b, j := range cols {
			v := A.At(i, j)
			if f != nil {
				v = f(v)
			}
			row[b] = v
		}
	}
	return out
}

func pick(y []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for k, i := range idx {
		out[k] = y[i]
	}
	return out
}

// countPositive returns the number of labels y_i > 0.
func countPositive(y []float64) int {
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	return pos
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
// w multiplies C for the +1 and the -1 class (class weights; 0 means 1).
func foldSweep(ctx context.Context, km kernel.Matrix, decide decider, ytr, yte, Cs []float64, margin solver.Margin, w [2]float64, s solver.Settings, keep bool) (correct []int, solves int, err error) {
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
	for c, C := range Cs {
		if c > 0 && margin == solver.L1 && unbounded {
			// No α reached the previous C: that α is optimal for every
			// larger C, and the warm-started solve would stop at once
			// with the same α and decisions. Reuse the counts.
			correct[c] = correct[c-1]
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
		if solveHook != nil {
			solveHook(ctx, C, &res)
		}
		decide(dec, res.Coef, res.Bias)
		for i, v := range dec {
			if (v > 0) == (yte[i] > 0) {
				correct[c]++
			}
		}
	}
	return correct, solves, nil
}

// solveHook, when set (by tests and the measurements of BENCHMARKS.md),
// sees every solve of a fold sweep, with its C and the context of its job
// (cvCounts puts a solveTag in it: the γ, the fold and the rows the round
// cross-validates).
// It is called from the sweeps' goroutines at once.
var solveHook func(ctx context.Context, C float64, r *solver.SVCResult)

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

// gridSearchCV is the baseline's model selection: an isotropic Gaussian
// exp(-γ‖x-z‖²) with (C, γ) chosen by k-fold cross-validation (cm.Folds,
// default 5) over LIBSVM grid.py's default grid (log2 C = -5..15 step 2,
// log2 γ = 3..-15 step -2), or the user's grid sp; with cm.C > 0 only γ
// is searched.
//
// The squared-distance matrix is computed once; each (γ, fold) job builds its
// fold's Gram sub-matrices by one exp pass and sweeps C upwards, warm-starting
// each solve from the previous α. Jobs run on cm.Workers goroutines; the
// folds are drawn once from cm.Seed and shared by every grid point.
//
// Ties (equal numbers of correct CV predictions) are broken deterministically
// towards a moderate kernel: the γ closest (in log2) to the heuristic γ_h at
// which the median off-diagonal kernel value is e⁻², then the smaller C. On
// data where the CV surface is flat (Weston's toy problem) this keeps the
// choice away from the degenerate corners K ≈ 11ᵀ and K ≈ I, from which a
// kernel-learning method cannot move (docs/design.md "spd: the margin criterion
// and its start").
func gridSearchCV(ctx context.Context, train *dataio.Dataset, cm Common, sp Space) (gridResult, error) {
	if cm.Grids != nil {
		return cm.Grids.search(train, cm, sp, func() (gridResult, error) { return gridSearch(ctx, train, cm, sp) })
	}
	return gridSearch(ctx, train, cm, sp)
}

// gridSearch is gridSearchCV without the memo, on the one search loop
// (searchCV): the grid is one round, and on large data the refinement a
// second (gridProposer). Its errors are its callers' to name.
func gridSearch(ctx context.Context, train *dataio.Dataset, cm Common, sp Space) (gridResult, error) {
	sc, err := newGridSearch(train, cm, sp)
	if err != nil {
		return gridResult{}, err
	}
	if _, err := sc.loop(ctx, func(Step) {}); err != nil {
		return gridResult{}, err
	}
	res := gridResult{C: sc.best.C, Gamma: sc.best.Gamma, Accuracy: sc.best.Accuracy(), Solves: sc.solves}
	if len(sc.rounds) > 1 {
		c := sc.rounds[0]
		res.Subset = c.rows
		res.Coarse = &gridResult{C: c.best.C, Gamma: c.best.Gamma, Accuracy: c.best.Accuracy(), Solves: c.solves}
	}
	return res, nil
}

// newGridSearch returns svm's grid search on train: the grid on all rows,
// or, on more than GridRows rows, on a subset and then the refinement.
func newGridSearch(train *dataio.Dataset, cm Common, sp Space) (*searchCV, error) {
	g := &gridProposer{train: train, cm: cm, sp: sp}
	rows := train
	if m := cm.gridRows(); m > 0 && train.Len() > m {
		g.m = m
		rows = train.Subset(stratifiedSubsetOf(train, m, cm.Seed))
	}
	ev, err := newIsoEval(rows, cm)
	if err != nil {
		if g.m > 0 {
			return nil, fmt.Errorf("on a subset of %d rows: %w", g.m, err)
		}
		return nil, err
	}
	g.ev = ev
	sc := &searchCV{method: "svm", prop: g, iters: 1, bare: true}
	if g.m > 0 {
		sc.iters = 2
	}
	return sc, nil
}

// gridProposer proposes svm's grid: round 0 is the whole grid (γ
// descending, each γ's Cs ascending for the warm starts) on all rows, or,
// on more than m = GridRows rows, on a stratified random subset of m rows
// (drawn from cm.Seed); then round 1, on large data, refines on all rows,
// by the protocol LIBSVM's authors give for large data (Hsu, Chang & Lin,
// "A Practical Guide to Support Vector Classification", §8): "a
// better-region-only grid search on the complete data set", k-fold CV on
// all rows over the 3×3 points at log2 distance 1 around the subset's
// choice (C alone fixed when cm.C > 0), which may step one point beyond
// grid.py's bounds. The guide does not fix the region; 3×3 at the grid's
// half step is our choice. Ties as in gridSearchCV (γ_h from all rows).
// The accuracy returned is the refinement's, on all rows. With the γ
// descending, the tie rule's "the earlier of equals" is grid.py's larger
// γ (as pickGrid, grid_ref_test.go, the tests' reference, picks).
//
// With the user's grid (sp) the region is the 3×3 points at half the
// user's step around the subset's choice, kept within the user's
// [begin, end] on each axis it set (a point beyond it is left out): the
// answer lies in the user's box, on the grid or half way between two of
// its points. --grid-rows -1 runs the user's grid alone on all rows.
type gridProposer struct {
	train *dataio.Dataset
	cm    Common
	sp    Space
	m     int
	ev    *isoEval // round 0's rows; nil once it is done
}

func (g *gridProposer) propose(it int, _ []cvPoint, best cvPoint) (batch, error) {
	if it == 0 {
		Cs, gammas := g.sp.axes(g.cm.C)
		n := g.ev.plan.tested()
		stage := Stage{Key: "grid", Name: fmt.Sprintf("grid search: %d×%d points, %d-fold CV on %d rows", len(gammas), len(Cs), g.ev.plan.k(), n),
			Weight: cvWeight(len(gammas)*len(Cs), g.ev.plan.k(), n)}
		what := "grid search: "
		if g.m > 0 {
			what = fmt.Sprintf("on a subset of %d rows: %s", g.m, what)
		}
		return batch{points: gridPoints(gammas, Cs), round: &cvRound{ev: g.ev, rows: n, what: what, stage: stage}}, nil
	}
	return g.refinement(best)
}

// refinement is the second round on large data, around the subset's
// choice c.
func (g *gridProposer) refinement(c cvPoint) (batch, error) {
	Cs := g.sp.Log2C.refine(c.Log2C, 1, true)
	if g.cm.C > 0 {
		Cs = []float64{g.cm.C}
	}
	gammas := g.sp.Log2Gamma.refine(c.Log2Gamma[0], 1, false)
	plan, err := newCVPlanOf(g.train, g.cm)
	if err != nil {
		return batch{}, err
	}
	// The subset's γ_h: the bounded-memory route (cvGroup) holds no n×n
	// matrix (the median of a random sample of the pairs, not of all).
	cm := g.cm
	cm.cvKey = dataKey(g.train, cm)
	ev := &isoEval{cs: cvSetOf(g.train), plan: plan, log2GammaH: g.ev.log2GammaH, cm: cm}
	g.ev = nil // the subset's distances are done with
	if g.train.Len() <= denseCVRows {
		ev.D = kernel.SquaredDistances(g.train.X)
		ev.log2GammaH = math.Log2(moderateGamma(ev.D))
	} else {
		ev.X = g.train.X
	}
	stage := Stage{Key: "refine", Name: fmt.Sprintf("refinement: %d×%d points around the subset's choice, %d-fold CV on all %d rows", len(gammas), len(Cs), plan.k(), g.train.Len()),
		Weight: cvWeight(len(gammas)*len(Cs), plan.k(), g.train.Len())}
	return batch{points: gridPoints(gammas, Cs), round: &cvRound{ev: ev, rows: g.train.Len(), what: "on all rows: grid search: ", stage: stage}}, nil
}

// axes returns the grid's Cs, ascending (foldSweep warm-starts up them),
// or the fixed C alone when C > 0, and its γs, descending (the tie rule's
// earlier of equals is grid.py's larger γ).
func (sp Space) axes(C float64) (Cs, gammas []float64) {
	for _, l := range sp.log2Cs() {
		Cs = append(Cs, math.Exp2(l))
	}
	slices.Sort(Cs)
	if C > 0 {
		Cs = []float64{C}
	}
	for _, l := range sp.log2Gammas() {
		gammas = append(gammas, math.Exp2(l))
	}
	slices.SortFunc(gammas, func(a, b float64) int { return cmp.Compare(b, a) })
	return Cs, gammas
}

// gridPoints returns the grid gammas × Cs, γ-major, each C as given.
func gridPoints(gammas, Cs []float64) []cvPoint {
	out := make([]cvPoint, 0, len(gammas)*len(Cs))
	for _, gamma := range gammas {
		for _, C := range Cs {
			out = append(out, cvPoint{Log2C: math.Log2(C), Log2Gamma: []float64{math.Log2(gamma)}, C: C, Gamma: gamma})
		}
	}
	return out
}

// defaultGridRows is Common.GridRows's default: the most training rows the
// full grid runs on. At n = 20,000 (mixture, d = 20) one fold of the full
// grid took over 10 CPU-minutes, its solves at γ ≤ 2⁻⁹ and C ≥ 2¹¹ up to
// 4.5 million SMO iterations each, and the whole grid did not finish in 28
// minutes on 2 cores, and on a 10,000-row subset it ran over 15 minutes; at
// 5,000 rows of the a1a-like set it takes about a minute (BENCHMARKS.md).
// 5,000 keeps the full grid for issue 11's 5,000-row goal.
const defaultGridRows = 5_000

// gridSubsetStream is the PCG stream of the large-data grid's subset (gridProposer) ("grid").
const gridSubsetStream = 0x67726964

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

// pickInt returns v[idx].
func pickInt(v []int, idx []int) []int {
	out := make([]int, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

// stratifiedSubsetOf is stratifiedSubset for a data set: for multi-class
// data, each class's share kept by dataio.Partitions' stratification (the
// same seed and stream).
func stratifiedSubsetOf(train *dataio.Dataset, m int, seed uint64) []int {
	if !train.MultiClass() {
		return stratifiedSubset(train.Y, m, seed)
	}
	sp, err := dataio.Partitions(train.Strata(), dataio.PartitionOptions{TrainSize: m, TestSize: train.Len() - m, Stratified: true}, seed^gridSubsetStream)
	if err != nil {
		return stratifiedSubset(train.Strata(), m, seed) // unreachable: m < n
	}
	return sp[0].Train
}

// classRows returns the rows labelled positive and the others, ascending.
func classRows(y []float64) (pos, neg []int) {
	for i, v := range y {
		if v > 0 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	return pos, neg
}

// stratifiedSubset returns m of the rows labelled y (m < len(y)), drawn at
// random from seed (stream gridSubsetStream) with each class's share kept
// (largest remainders round; every class keeps a row when m allows),
// ascending.
func stratifiedSubset(y []float64, m int, seed uint64) []int {
	pos, neg := classRows(y)
	np := int(math.Round(float64(m) * float64(len(pos)) / float64(len(y))))
	np = min(max(np, min(1, len(pos)), m-len(neg)), len(pos), m-min(1, len(neg)))
	rng := rand.New(rand.NewPCG(seed, gridSubsetStream))
	out := make([]int, 0, m)
	for _, part := range []struct {
		rows []int
		k    int
	}{{pos, np}, {neg, m - np}} {
		p := rng.Perm(len(part.rows))
		for _, i := range p[:part.k] {
			out = append(out, part.rows[i])
		}
	}
	slices.Sort(out)
	return out
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

// moderateGamma returns the LIBSVM γ at which the median off-diagonal value
// of exp(-γ D) is e⁻², D a matrix of squared distances: γ = 2 / median(D_ij),
// i < j. It returns 1 when all points coincide.
func moderateGamma(D mat.Symmetric) float64 {
	med := medianOffDiag(D)
	if !(med > 0) || math.IsInf(med, 0) {
		return 1
	}
	return 2 / med
}

// medianOffDiag returns the median of A_ij over i < j.
func medianOffDiag(A mat.Symmetric) float64 { return kernel.MedianOffDiag(A) }

// selectC picks C from Cs by k-fold cross-validation (cm.Folds, default 5,
// folds drawn from cm.Seed) for the fixed kernel matrix K of the training
// part, with the given margin (for the L2 margin C enters as K + I/C). It
// is one round of the one search loop (searchCV, scored by cvCounts), its
// points differing only in C, so that the grid's tie rule
// (cvPoint.better) gives ties to the smaller C (the smoother decision
// function). It returns the chosen C, its CV accuracy and the number of
// SVM solves.
//
// On more than cm.GridRows rows (default 5,000) the cross-validation runs
// on a stratified random subset of that many rows (stratifiedSubset; the
// folds index K's rows, nothing is copied), as the grid search does
// (gridProposer), without its refinement: one C of a short list is
// well chosen on 5,000 rows, and on all 20,000 lccp's choice at θ0 did
// not finish in 19 minutes. The accuracy is then the subset's.
func selectC(ctx context.Context, K mat.Symmetric, y []float64, Cs []float64, margin solver.Margin, cm Common) (C, acc float64, solves int, err error) {
	n := len(y)
	if K.SymmetricDim() != n {
		panic("methods: selectC: kernel matrix and labels differ in size")
	}
	if len(Cs) == 0 {
		return 0, 0, 0, errors.New("selectC: no candidate C")
	}
	plan, err := selectCPlan(y, cm)
	if err != nil {
		return 0, 0, 0, err
	}
	sorted := slices.Clone(Cs)
	slices.Sort(sorted) // ascending: foldSweep warm-starts up the Cs
	pts := make([]cvPoint, len(sorted))
	for i, c := range sorted {
		pts[i] = cvPoint{Log2C: math.Log2(c), Log2Gamma: []float64{0}, C: c}
	}
	ev := &isoEval{K: K, margin: margin, cs: cvSet{y: y}, plan: plan, cm: cm}
	round := &cvRound{ev: ev, rows: plan.tested(), what: "cross-validation, ", stage: selectCStage(n, len(Cs), cm)}
	sc := &searchCV{method: "selectC", iters: 1, bare: true,
		prop: proposerFunc(func(it int, _ []cvPoint, _ cvPoint) (batch, error) {
			return batch{points: pts, round: round}, nil
		})}
	if _, err := sc.loop(ctx, func(Step) {}); err != nil {
		return 0, 0, 0, err
	}
	return sc.best.C, sc.best.Accuracy(), sc.solves, nil
}

// selectCPlan is selectC's folds: of all rows labelled y, or, on more than
// cm.GridRows, of a stratified subset of them, its folds indexing all rows
// (ascending stays ascending: the subset ascends).
func selectCPlan(y []float64, cm Common) (cvPlan, error) {
	m := cm.gridRows()
	if m <= 0 || len(y) <= m {
		return newCVPlan(y, cm)
	}
	rows := stratifiedSubset(y, m, cm.Seed)
	plan, err := newCVPlan(pick(y, rows), cm)
	if err != nil {
		return cvPlan{}, err
	}
	for f := range plan.train {
		for _, part := range [][]int{plan.train[f], plan.test[f]} {
			for i, r := range part {
				part[i] = rows[r]
			}
		}
	}
	return plan, nil
}

// median returns the median of v (the mean of the two middle values when
// len(v) is even), reordering v; NaN for an empty v.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}
