package methods

// More than two classes (our extension: the five papers are binary). The
// svm baseline chooses one (C, γ) for all the binary SVMs by multi-class
// cross-validation accuracy, each fold predicting as the final model will
// (one-vs-one: LIBSVM's vote, as grid.py on multi-class data; one-vs-rest:
// the largest decision value); every other method tunes one kernel per
// binary subproblem on its training rows (tuneMultiClass: a pair's two
// classes one-vs-one, every row one-vs-rest), and the final model combines
// them.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// PairResult is one binary subproblem's tuning in a multi-class run: its
// two sides (Positive is +1: a pair's first class in LIBSVM's order, or the
// class against the rest, Negative then "not CLASS"), its training rows and
// the method's result on them.
type PairResult struct {
	Positive string  `json:"class_pos"`
	Negative string  `json:"class_neg"`
	Rows     int     `json:"rows"`
	Result   *Result `json:"result"`
}

// tuneMultiClass tunes s on multi-class training data (already normalised)
// under its scheme (dataio.Dataset.Multiclass). The cross-validated
// searches (svm, random, halving, bo: cvSearch) run once on all rows: one
// (C, γ) by multi-class CV accuracy. Every other method runs once per
// binary subproblem (dataio.Dataset.
// Subproblems: the pairs (i, j), i < j in LIBSVM's label order, on that
// pair's rows, one-vs-one; each class against the rest on every row,
// one-vs-rest; Sub gives the data, its first side = +1), up to Workers at
// once, each with its share of the workers (results do not depend on
// them). The result's Pairs hold every subproblem's result; its own fields
// summarise them: the first one's kernel, margin and C, the worst status,
// the summed iterations and solves, the mean criterion, the wall time. A
// subproblem whose method fails fails the whole: the error names it.
func tuneMultiClass(ctx context.Context, s Spec, train *dataio.Dataset) (*Result, error) {
	if !train.MultiClass() {
		return s.tune(ctx, train)
	}
	if _, ok := s.(cvSearch); ok { // one (C, γ) for all, by multi-class CV
		return s.tune(ctx, train)
	}
	start := time.Now()
	k := train.NumClasses()
	for c, n := range train.ClassSizes() {
		if n == 0 {
			return nil, fmt.Errorf("%s: class %q has no training rows", s.Name(), train.ClassLabels[c])
		}
	}
	idx := train.Subproblems()
	base := s.Base()
	conc := min(base.workers(), len(idx))
	per := base
	per.Workers = max(1, base.workers()/conc)
	per.Recorder = nil // the subproblems' steps interleave; progress is per subproblem
	per.Progress = nil // each its own, summed into one stage below
	ps := s.WithBase(per)
	prog, frac := base.Progress, make([]float64, len(idx))
	prog.Announce(subproblemStage(s.Name(), train, idx, conc, base.kernelRows()))
	prog.Begin("subproblems", progressParts*len(idx), "", 0)
	// pairDone sets subproblem p's share done, under mu.
	pairDone := func(p int, f float64, detail string) {
		frac[p] = max(frac[p], f)
		sum := 0.0
		for _, v := range frac {
			sum += v
		}
		prog.Step(int(progressParts*sum), detail)
	}
	out := make([]PairResult, len(idx))
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	sem := make(chan struct{}, conc)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	done := 0
	for p, sp := range idx {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[p] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			sub := train.Sub(sp)
			psp := ps.WithBase(ps.Base().within(fmt.Sprintf("subproblem %d", p))) // its checkpoint's keys its own
			if prog != nil {
				b := psp.Base()
				name := dataio.SubName(train.ClassLabels, sp)
				b.Progress = NewProgress(func(e Event) {
					mu.Lock()
					pairDone(p, e.Fraction(), name+": "+e.Name())
					mu.Unlock()
				})
				psp = ps.WithBase(b)
			}
			res, err := tunePairSafely(ctx, psp, sub)
			if err == nil {
				err = res.Status.Err()
			}
			if err != nil {
				errs[p] = fmt.Errorf("%s: %w", dataio.SubName(train.ClassLabels, sp), err)
				cancel()
				return
			}
			out[p] = PairResult{Positive: sub.Labels.Positive, Negative: sub.Labels.Negative, Rows: sub.Len(), Result: res}
			mu.Lock()
			if prog != nil {
				pairDone(p, 1, "")
			}
			done++
			base.record(Step{Iter: done, Objective: res.CriterionEnd, Elapsed: time.Since(start)})
			mu.Unlock()
		}()
	}
	wg.Wait()
	// The first failure in subproblem order that is not a cancellation
	// (which another subproblem's failure causes), else the cancellation.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return combinePairs(s.Name(), k, train.Multiclass, out, time.Since(start)), nil
}

// tunePairSafely runs a method on one pair and turns a panic into an error.
func tunePairSafely(ctx context.Context, s Spec, train *dataio.Dataset) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error: %v", s.Name(), p)
		}
	}()
	res, err = tuneBinary(ctx, s, train)
	if err == nil && res == nil {
		err = fmt.Errorf("%s: returned no result", s.Name())
	}
	return res, err
}

// combinePairs summarises the subproblems' results into one Result (see
// tuneMultiClass).
func combinePairs(method string, k int, scheme string, pairs []PairResult, elapsed time.Duration) *Result {
	first := pairs[0].Result
	r := &Result{
		Method: method, Param: first.Param, Kernel: first.Kernel, Margin: first.Margin, C: first.C,
		Status: status.Converged, Elapsed: elapsed, Criterion: first.Criterion, Pairs: pairs,
		Init: fmt.Sprintf("one-vs-one: %d classes, %d tunings, one per pair of classes on its training rows (our extension: the paper is binary); prediction by LIBSVM's vote", k, len(pairs)),
	}
	over, unit := "the pairs", "pairs"
	if scheme == dataio.OneVsRest {
		r.Init = fmt.Sprintf("one-vs-rest: %d classes, %d tunings, one per class against the rest on all training rows (our extension: the paper is binary); prediction by the largest decision value", k, len(pairs))
		over, unit = "the classes", "classes"
	}
	// A note that every subproblem gives alike (gi's choice of
	// parameterisation on 45 pairs) is said once for all of them, one
	// that several give once with their number and the first of them.
	type noteOf struct {
		text  hint.Text
		first PairResult
		n     int
	}
	var notes []*noteOf
	seen := map[string]*noteOf{}
	for _, p := range pairs {
		pr := p.Result
		if pr.Status != status.Converged {
			r.Status = pr.Status
		}
		r.Iter += pr.Iter
		r.Solves += pr.Solves
		r.Credit += pr.Credit
		r.CriterionStart += pr.CriterionStart / float64(len(pairs))
		r.CriterionEnd += pr.CriterionEnd / float64(len(pairs))
		for _, n := range pr.Notes {
			key := n.String()
			if e := seen[key]; e != nil {
				e.n++
				continue
			}
			e := &noteOf{text: n, first: p, n: 1}
			seen[key] = e
			notes = append(notes, e)
		}
	}
	for _, e := range notes {
		var prefix string
		switch {
		case e.n == len(pairs) && e.n > 1:
			prefix = fmt.Sprintf("all %d %s: ", e.n, unit)
		case e.n > 1:
			prefix = fmt.Sprintf("%d of the %d %s (the first %q vs %q): ", e.n, len(pairs), unit, e.first.Positive, e.first.Negative)
		default:
			prefix = fmt.Sprintf("%q vs %q: ", e.first.Positive, e.first.Negative)
		}
		r.Notes = append(r.Notes, append(hint.T(prefix), e.text...))
	}
	if r.Criterion != "" {
		r.Criterion = "mean over " + over + " of " + r.Criterion
	}
	return r
}

// PeakBytesMultiClass estimates the peak memory of tuneMultiClass with s
// on multi-class data of d features whose classes have sizes rows, learnt
// by scheme: the cross-validated searches' on all rows (one-vs-one, with a
// dense-route job holding the largest pair's matrices, not the fold's:
// foldSweepPairsD); for the other methods the
// runtime once plus, for the Workers largest subproblems (as many run at
// once), each one's work on its rows (a pair's two classes, or all rows
// one-vs-rest).
func PeakBytesMultiClass(s Spec, sizes []int, d int, scheme string) int64 {
	n := 0
	for _, v := range sizes {
		n += v
	}
	if _, ok := s.(cvSearch); ok && len(sizes) >= 3 && scheme != dataio.OneVsRest {
		// One (C, γ) for all pairs by one-vs-one CV: a dense-route job
		// holds one pair's matrices at a time (foldSweepPairsD).
		top := slices.Sorted(slices.Values(sizes))
		b := s.Base()
		b.pairShare = float64(top[len(top)-1]+top[len(top)-2]) / float64(n)
		return PeakBytes(s.WithBase(b), n, d)
	}
	if _, ok := s.(cvSearch); ok || len(sizes) < 3 {
		return PeakBytes(s, n, d)
	}
	var each []int64
	for _, sp := range dataio.Subproblems(len(sizes), scheme) {
		rows := n
		if sp.Neg != dataio.Rest {
			rows = sizes[sp.Pos] + sizes[sp.Neg]
		}
		each = append(each, liveBytes(s, rows, d)-RuntimeBytes)
	}
	slices.Sort(each)
	slices.Reverse(each)
	conc := min(s.Base().workers(), len(each))
	total := int64(RuntimeBytes)
	for _, b := range each[:conc] {
		total += b
	}
	return withHeadroom(total)
}

// CheckMemoryMultiClass is CheckMemory for tuneMultiClass on multi-class
// data (PeakBytesMultiClass); the refusal's MaxN is the most rows, in the
// same class proportions, within the bound (maxRowsMultiClass).
func CheckMemoryMultiClass(s Spec, sizes []int, d int, scheme string, limit int64) error {
	if limit <= 0 {
		return nil
	}
	n := 0
	for _, v := range sizes {
		n += v
	}
	need := PeakBytesMultiClass(s, sizes, d, scheme)
	if need <= limit {
		return nil
	}
	mm := newMemModel(s.Base())
	return &MemoryError{Method: s.Name(), N: n, D: d, Need: need, Max: limit, MaxN: maxRowsMultiClass(s, sizes, d, scheme, limit), Workers: mm.workers, CacheBytes: mm.cache}
}

// scaledSizes returns the class sizes scaled to about m rows in all, each
// class at least one row.
func scaledSizes(sizes []int, n, m int) []int {
	out := make([]int, len(sizes))
	for c, v := range sizes {
		out[c] = max(1, int(int64(v)*int64(m)/int64(n)))
	}
	return out
}

// maxRowsMultiClass is MaxRows for multi-class data: the largest number of
// rows (at most 10⁷), in the class proportions of sizes, on which
// PeakBytesMultiClass stays within limit; 0 when not even one row a class
// does.
func maxRowsMultiClass(s Spec, sizes []int, d int, scheme string, limit int64) int {
	n := 0
	for _, v := range sizes {
		n += v
	}
	return largestFit(len(sizes), func(m int) bool {
		return PeakBytesMultiClass(s, scaledSizes(sizes, n, m), d, scheme) <= limit
	})
}

// foldSweepMulti is foldSweep for multi-class data: on one fold, for every
// binary subproblem of scheme (dataio.Subproblems: a pair (i, j) trained on
// the fold's training rows of the two classes, class i = +1, i's rows then
// j's as LIBSVM orders them; or class c = +1 against the rest on all of
// them) it trains for every C of Cs in turn, warm-started as foldSweep
// does, and predicts the fold's test rows as the final model will
// (dataio.Combine: LIBSVM's vote, or the largest decision value); it
// returns the correct predictions per C and the solves. Ktr is the fold's
// training Gram (ctr its rows' classes), Kte its test-by-training matrix
// (cte the test rows' classes). A subproblem of which the fold's training
// part holds one side only predicts that side (f = ±1 everywhere); with
// neither, the second (as f = 0 does).
func foldSweepMulti(ctx context.Context, Ktr, Kte *mat.Dense, ctr, cte []int, k int, scheme string, w [][2]float64, Cs []float64, s solver.Settings) (correct []int, solves int, err error) {
	nte := len(cte)
	sub := func(rows []int) (kernel.Matrix, decider) {
		Kp, Ktep := Ktr, Kte
		if len(rows) != len(ctr) { // a pair: its rows of the fold's matrices
			Kp = mat.NewDense(len(rows), len(rows), nil)
			Ktep = mat.NewDense(max(nte, 1), len(rows), nil)
			for a, ra := range rows {
				for b, rb := range rows {
					Kp.Set(a, b, Ktr.At(ra, rb))
				}
				for t := 0; t < nte; t++ {
					Ktep.Set(t, a, Kte.At(t, ra))
				}
			}
		}
		return kernel.PrecomputedSquare(Kp), func(dst, coef []float64, bias float64) {
			if nte > 0 {
				solver.Decision(dst, Ktep, coef, bias)
			}
		}
	}
	return foldSweepSubproblems(ctx, sub, ctr, cte, k, scheme, w, Cs, s)
}

// foldSweepPairsD is foldSweepMulti one-vs-one on the dense route without
// the fold's matrices (issue 44: its training Gram is 5,600² entries, 251
// MB per worker at 7,000 rows, where a pair needs its two classes' block):
// each pair's matrix is computed from the squared distances D (held
// packed: isoEval.setDistances) as foldKernels computes the fold's, exp(-γ
// D_ij) of the upper triangle in
// the fold's row order, so that every entry has the bits it had in the
// fold's Gram; its test-by-training matrix likewise, but only the columns
// of the rows that are a support vector at some C of the sweep (the
// others multiply a zero coefficient, and are left 0: the same sums). The
// pair's matrices are kept in kp and ktep, grown when too short and
// returned for the next fold.
func foldSweepPairsD(ctx context.Context, D *kernel.Packed, gamma float64, tr, te []int, ctr, cte []int, k int, scheme string, w [][2]float64, Cs []float64, s solver.Settings, kp, ktep []float64) (correct []int, solves int, kpBuf, ktepBuf []float64, err error) {
	nte := len(te)
	sub := func(rows []int) (kernel.Matrix, decider) {
		m := len(rows)
		kp = grow(kp, m*m)
		for x, ra := range rows {
			row := kp[x*m:]
			i := tr[ra]
			di := D.Row(i) // (i, j) for j ≥ i
			for y := x; y < m; y++ {
				var v float64
				if j := tr[rows[y]]; j >= i {
					v = di[j-i]
				} else {
					v = D.At(j, i)
				}
				row[y] = math.Exp(-gamma * v)
			}
		}
		kernel.MirrorUpper(kp, m, m)
		ktep = grow(ktep, max(nte, 1)*m)
		clear(ktep)
		Ktep := mat.NewDense(max(nte, 1), m, ktep[:max(nte, 1)*m])
		done := make([]bool, m) // test columns computed
		return kernel.PrecomputedSquare(mat.NewDense(m, m, kp[:m*m])), func(dst, coef []float64, bias float64) {
			if nte == 0 {
				return
			}
			for a, c := range coef {
				if c == 0 || done[a] {
					continue
				}
				done[a] = true
				j := tr[rows[a]]
				for t, i := range te {
					ktep[t*m+a] = math.Exp(-gamma * D.At(i, j))
				}
			}
			solver.Decision(dst, Ktep, coef, bias)
		}
	}
	correct, solves, err = foldSweepSubproblems(ctx, sub, ctr, cte, k, scheme, w, Cs, s)
	return correct, solves, kp, ktep, err
}

// foldSweepMultiRows is foldSweepMulti on the bounded-memory route: the
// fold's rows tr (classes ctr) and test rows te (classes cte) of the
// isotropic Gaussian prepared on all rows of X, each subproblem's matrix
// read through kernel.Sub and its test decisions one column over its
// support vectors (rowsFold).
func foldSweepMultiRows(ctx context.Context, X mat.Matrix, gamma float64, tr, te, ctr, cte []int, k int, scheme string, w [][2]float64, Cs []float64, s solver.Settings) (correct []int, solves int, err error) {
	all := isoRows(X, gamma)
	sub := func(rows []int) (kernel.Matrix, decider) {
		pr := make([]int, len(rows))
		for a, r := range rows {
			pr[a] = tr[r]
		}
		return rowsFoldOf(all, pr, te)
	}
	return foldSweepSubproblems(ctx, sub, ctr, cte, k, scheme, w, Cs, s)
}

// foldSweepSubproblems is foldSweepMulti's sweep with each subproblem's
// kernel matrix and test decider from sub, given the subproblem's rows
// (indices into the fold's training rows, LIBSVM's order).
func foldSweepSubproblems(ctx context.Context, sub func(rows []int) (kernel.Matrix, decider), ctr, cte []int, k int, scheme string, w [][2]float64, Cs []float64, s solver.Settings) (correct []int, solves int, err error) {
	idx := dataio.Subproblems(k, scheme)
	nte := len(cte)
	// dec[c][p] are subproblem p's decision values on the test rows at Cs[c].
	dec := make([][][]float64, len(Cs))
	for c := range dec {
		dec[c] = make([][]float64, len(idx))
	}
	for p, sp := range idx {
		var rows []int
		if sp.Neg == dataio.Rest {
			rows = make([]int, len(ctr))
			for r := range rows {
				rows[r] = r
			}
		} else {
			for _, cl := range []int{sp.Pos, sp.Neg} {
				for r, v := range ctr {
					if v == cl {
						rows = append(rows, r)
					}
				}
			}
		}
		ytr := make([]float64, len(rows))
		npos := 0
		for q, r := range rows {
			ytr[q] = -1
			if ctr[r] == sp.Pos {
				ytr[q] = 1
				npos++
			}
		}
		if npos == 0 || npos == len(rows) {
			v := -1.0
			if npos > 0 {
				v = 1
			}
			for c := range Cs {
				dec[c][p] = slices.Repeat([]float64{v}, nte)
			}
			continue
		}
		km, decide := sub(rows)
		var alpha []float64
		unbounded := false
		for c, C := range Cs {
			if c > 0 && unbounded {
				dec[c][p] = dec[c-1][p]
				continue
			}
			par := solver.SVCParams{Margin: solver.L1, C: C}
			if w != nil { // class weights: subproblem p's (SubproblemWeights)
				par.WeightPos, par.WeightNeg = w[p][0], w[p][1]
			}
			res, err := solver.TrainSVC(ctx, km, ytr, par, s, alpha)
			solves++
			if err != nil {
				return nil, solves, err
			}
			alpha = res.Alpha
			unbounded = res.NBSV == 0 && res.Status == status.Converged
			d := make([]float64, nte)
			decide(d, res.Coef, res.Bias)
			dec[c][p] = d
		}
	}
	correct = make([]int, len(Cs))
	for c := range Cs {
		for t, pred := range dataio.Combine(dec[c], k, scheme) {
			if pred == cte[t] {
				correct[c]++
			}
		}
	}
	return correct, solves, nil
}

// progressParts is the parts of a stage per subproblem (TuneMultiClass
// reports the subproblems' shares done in thousandths).
const progressParts = 1000

// subproblemStage is the stage of a multi-class tuning: every subproblem
// of idx, conc at once, each weighing 100 solves on its rows (at most
// kernelRows; 0: no limit): a rough guess of a kernel-learning method's
// run (tens of iterations of a few solves' worth each, iterationStage),
// which only weighs the subproblems against the final fit.
func subproblemStage(method string, train *dataio.Dataset, idx []dataio.Subproblem, conc, kernelRows int) Stage {
	sizes := train.ClassSizes()
	var w float64
	for _, p := range idx {
		n := train.Len()
		if p.Neg != dataio.Rest {
			n = sizes[p.Pos] + sizes[p.Neg]
		}
		if kernelRows > 0 {
			n = min(n, kernelRows)
		}
		w += 100 * sq64(n)
	}
	return Stage{Key: "subproblems", Name: fmt.Sprintf("%s on %d subproblems, up to %d at once", method, len(idx), conc), Weight: w}
}
