package methods

// More than two classes (our extension: the five papers are binary). The
// svm baseline chooses one (C, γ) for all pairs of classes by multi-class
// cross-validation accuracy, each fold voting one-vs-one as LIBSVM predicts
// (grid.py on multi-class data); every other method tunes one kernel per
// pair of classes on that pair's training rows (TuneOneVsOne), and the final
// model votes.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// PairResult is one pair's tuning in a one-vs-one multi-class run: its two
// classes (Positive is +1, LIBSVM's first), its training rows and the
// method's result on them.
type PairResult struct {
	Positive string  `json:"class_pos"`
	Negative string  `json:"class_neg"`
	Rows     int     `json:"rows"`
	Result   *Result `json:"result"`
}

// pairIndex lists the pairs of k classes in LIBSVM's order (model.PairIndex).
func pairIndex(k int) [][2]int {
	var p [][2]int
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			p = append(p, [2]int{i, j})
		}
	}
	return p
}

// TuneOneVsOne tunes s on multi-class training data (already normalised).
// The svm baseline runs once on all rows (SVMSettings.Tune: one (C, γ) by
// multi-class CV accuracy). Every other method runs once per pair of
// classes (i, j), i < j in LIBSVM's label order, on that pair's rows
// (dataio.Dataset.Pair: class i = +1), up to Workers pairs at once, each
// with its share of the workers (results do not depend on them). The
// result's Pairs hold every pair's result; its own fields summarise them:
// the first pair's kernel, margin and C, the worst status, the summed
// iterations and solves, the mean criterion, the wall time. A pair whose
// method fails fails the whole: the error names the pair.
func TuneOneVsOne(ctx context.Context, s Spec, train *dataio.Dataset) (*Result, error) {
	if !train.MultiClass() {
		return s.Tune(ctx, train)
	}
	if _, ok := s.(SVMSettings); ok {
		return s.Tune(ctx, train)
	}
	start := time.Now()
	k := train.NumClasses()
	for c, n := range train.ClassSizes() {
		if n == 0 {
			return nil, fmt.Errorf("%s: class %q has no training rows", s.Name(), train.ClassLabels[c])
		}
	}
	idx := pairIndex(k)
	base := s.Base()
	conc := min(base.workers(), len(idx))
	per := base
	per.Workers = max(1, base.workers()/conc)
	per.Recorder = nil // the pairs' steps interleave; progress is per pair
	ps := s.WithBase(per)
	out := make([]PairResult, len(idx))
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	sem := make(chan struct{}, conc)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	done := 0
	for p, ij := range idx {
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
			sub := train.Pair(ij[0], ij[1])
			res, err := tunePairSafely(ctx, ps, sub)
			if err == nil {
				err = res.Status.Err()
			}
			if err != nil {
				errs[p] = fmt.Errorf("classes %q and %q: %w", train.ClassLabels[ij[0]], train.ClassLabels[ij[1]], err)
				cancel()
				return
			}
			out[p] = PairResult{Positive: train.ClassLabels[ij[0]], Negative: train.ClassLabels[ij[1]], Rows: sub.Len(), Result: res}
			mu.Lock()
			done++
			base.record(Step{Iter: done, Objective: res.CriterionEnd, Elapsed: time.Since(start)})
			mu.Unlock()
		}()
	}
	wg.Wait()
	// The first failure in pair order that is not a cancellation (which
	// another pair's failure causes), else the cancellation.
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
	return combinePairs(s.Name(), k, out, time.Since(start)), nil
}

// tunePairSafely runs a method on one pair and turns a panic into an error.
func tunePairSafely(ctx context.Context, s Spec, train *dataio.Dataset) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error: %v", s.Name(), p)
		}
	}()
	res, err = s.Tune(ctx, train)
	if err == nil && res == nil {
		err = fmt.Errorf("%s: returned no result", s.Name())
	}
	return res, err
}

// combinePairs summarises the pairs' results into one Result (see
// TuneOneVsOne).
func combinePairs(method string, k int, pairs []PairResult, elapsed time.Duration) *Result {
	first := pairs[0].Result
	r := &Result{
		Method: method, Param: first.Param, Kernel: first.Kernel, Margin: first.Margin, C: first.C,
		Status: status.Converged, Elapsed: elapsed, Criterion: first.Criterion, Pairs: pairs,
		Init: fmt.Sprintf("one-vs-one: %d classes, %d tunings, one per pair of classes on its training rows (our extension: the paper is binary); prediction by LIBSVM's vote", k, len(pairs)),
	}
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
			r.Notes = append(r.Notes, fmt.Sprintf("%q vs %q: %s", p.Positive, p.Negative, n))
		}
	}
	if r.Criterion != "" {
		r.Criterion = "mean over the pairs of " + r.Criterion
	}
	return r
}

// PeakBytesOneVsOne estimates the peak memory of TuneOneVsOne with s on
// multi-class data of d features whose classes have sizes rows: the svm
// baseline's on all rows; for the other methods the runtime once plus, for
// the Workers largest pairs (as many run at once), each pair's work on its
// rows.
func PeakBytesOneVsOne(s Spec, sizes []int, d int) int64 {
	n := 0
	for _, v := range sizes {
		n += v
	}
	if _, ok := s.(SVMSettings); ok || len(sizes) < 3 {
		return s.PeakBytes(n, d)
	}
	var each []int64
	for _, ij := range pairIndex(len(sizes)) {
		each = append(each, s.PeakBytes(sizes[ij[0]]+sizes[ij[1]], d)-RuntimeBytes)
	}
	slices.Sort(each)
	slices.Reverse(each)
	conc := min(s.Base().workers(), len(each))
	total := int64(RuntimeBytes)
	for _, b := range each[:conc] {
		total += b
	}
	return total
}

// CheckMemoryOneVsOne is CheckMemory for TuneOneVsOne on multi-class data
// (PeakBytesOneVsOne); the refusal's MaxN is for the binary problem.
func CheckMemoryOneVsOne(s Spec, sizes []int, d int, limit int64) error {
	if limit <= 0 {
		return nil
	}
	n := 0
	for _, v := range sizes {
		n += v
	}
	need := PeakBytesOneVsOne(s, sizes, d)
	if need <= limit {
		return nil
	}
	mm := newMemModel(s.Base())
	return &MemoryError{Method: s.Name(), N: n, D: d, Need: need, Max: limit, MaxN: MaxRows(s, d, limit), Workers: mm.workers, CacheBytes: mm.cache}
}

// foldSweepMulti is foldSweep for multi-class data: on one fold, for every
// pair of classes (i, j) it trains on the fold's training rows of the two
// classes (class i = +1; i's rows, then j's, as LIBSVM orders them) for
// every C of Cs in turn, warm-started as foldSweep does, and predicts the
// fold's test rows by LIBSVM's vote; it returns the correct predictions per
// C and the solves. Ktr is the fold's training Gram (ctr its rows' classes),
// Kte its test-by-training matrix (cte the test rows' classes). A pair of
// which the fold's training part holds one class only predicts that class;
// with neither, the second (as f = 0 does).
func foldSweepMulti(ctx context.Context, Ktr, Kte *mat.Dense, ctr, cte []int, k int, Cs []float64, s solver.Settings) (correct []int, solves int, err error) {
	idx := pairIndex(k)
	nte := len(cte)
	// dec[c][p] are pair p's decision values on the test rows at Cs[c].
	dec := make([][][]float64, len(Cs))
	for c := range dec {
		dec[c] = make([][]float64, len(idx))
	}
	for p, ij := range idx {
		var rows []int
		for _, cl := range ij {
			for r, v := range ctr {
				if v == cl {
					rows = append(rows, r)
				}
			}
		}
		ytr := make([]float64, len(rows))
		npos := 0
		for q, r := range rows {
			ytr[q] = -1
			if ctr[r] == ij[0] {
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
		Kp := mat.NewDense(len(rows), len(rows), nil)
		Ktep := mat.NewDense(max(nte, 1), len(rows), nil)
		for a, ra := range rows {
			for b, rb := range rows {
				Kp.Set(a, b, Ktr.At(ra, rb))
			}
			for t := 0; t < nte; t++ {
				Ktep.Set(t, a, Kte.At(t, ra))
			}
		}
		var alpha []float64
		unbounded := false
		for c, C := range Cs {
			if c > 0 && unbounded {
				dec[c][p] = dec[c-1][p]
				continue
			}
			res, err := solver.TrainSVC(ctx, kernel.PrecomputedSquare(Kp), ytr, solver.SVCParams{Margin: solver.L1, C: C}, s, alpha)
			solves++
			if err != nil {
				return nil, solves, err
			}
			alpha = res.Alpha
			unbounded = res.NBSV == 0 && res.Status == status.Converged
			d := make([]float64, nte)
			if nte > 0 {
				solver.Decision(d, Ktep, res.Coef, res.Bias)
			}
			dec[c][p] = d
		}
	}
	correct = make([]int, len(Cs))
	votes := make([]int, k)
	for c := range Cs {
		for t := 0; t < nte; t++ {
			clear(votes)
			for p, ij := range idx {
				if dec[c][p][t] > 0 {
					votes[ij[0]]++
				} else {
					votes[ij[1]]++
				}
			}
			best := 0
			for q := 1; q < k; q++ {
				if votes[q] > votes[best] {
					best = q
				}
			}
			if best == cte[t] {
				correct[c]++
			}
		}
	}
	return correct, solves, nil
}
