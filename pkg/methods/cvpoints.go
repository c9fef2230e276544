package methods

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// The practitioners' baselines (random, halving, bo) evaluate (C, γ) points
// one by one or a few at a time, not a whole grid: this file is their CV
// machinery, built from the grid's (foldKernels, foldSweep, the folds of
// newCVPlan), so that an accuracy here is the grid's accuracy at the same
// point: the same folds from the same seed, the same solver settings, the
// same count of correct predictions.

// cvGroup is one kernel and the Cs evaluated with it. With D set, the
// kernel is exp(-γ D), D a matrix of squared distances of the rows (for
// bo:ard, of the rows scaled per feature, with γ = 1), and each fold's
// matrices are cut from it (foldKernels). With D nil it is the isotropic
// Gaussian exp(-γ‖x-z‖²) on the rows X, computed column by column through
// the solver's bounded cache (the bounded-memory route of large data, see
// denseCVRows): no n×n or fold-sized matrix is ever held. Cs ascend
// (foldSweep warm-starts up them).
//
// With K set, the kernel is the fixed matrix K of the rows (lccp's and
// rcsc's choice of C; Gamma unused), each fold's matrices cut from it
// (foldSub), its SVMs trained with Margin (for the L2 margin C enters as
// K + I/C); every other group trains with the L1 margin.
type cvGroup struct {
	D      *mat.SymDense
	P      *kernel.Packed // D held packed (one-vs-one multi-class data)
	X      mat.Matrix
	K      mat.Symmetric
	Margin solver.Margin
	Gamma  float64
	Cs     []float64
}

// denseCVRows is the most training rows whose cross-validation holds the
// n×n squared distances and each fold's Gram matrix (the dense route, as
// fast as it gets: one exp pass per fold and γ). On more rows the searches
// take the bounded-memory route (cvGroup with X): each fold's solves read
// kernel columns from the rows through the solver's cache (LIBSVM's -m),
// and each test row's decision value is one column over the support
// vectors. At 8,000 rows the dense route's matrices are 0.5 GB; at 32,561
// (Adult's size) they would be 8.5 GB.
const denseCVRows = 8_000

// counts is the CV of one group on the evaluator's rows and folds.
func (e *isoEval) counts(ctx context.Context, g cvGroup) ([][]int, int, error) {
	return cvCounts(ctx, []cvGroup{g}, []int{0}, e.cs, e.plan, e.cm, func(int) string { return "" })
}

// cvSetOf is the cvSet of a training part: its binary labels, or its
// classes and scheme. Every search scores multi-class data as svm's grid
// does, by the final model's multi-class prediction (LIBSVM's vote, or the
// largest decision value one-vs-rest) with one (C, γ) for all its SVMs.
func cvSetOf(train *dataio.Dataset) cvSet {
	if train.MultiClass() {
		return cvSet{class: train.Class, k: train.NumClasses(), scheme: train.Multiclass}
	}
	return cvSet{y: train.Y}
}

// len is the number of rows scored.
func (c cvSet) len() int {
	if c.class != nil {
		return len(c.class)
	}
	return len(c.y)
}

// cvSet is what the folds are scored on: binary labels y, or, for
// multi-class data, the classes (0..k-1) and the scheme (dataio.OneVsOne or
// OneVsRest) by which the final model combines its SVMs.
type cvSet struct {
	y      []float64
	class  []int
	k      int
	scheme string
}

// cvCounts is the one worker pool of every cross-validated search (svm's
// grid, random, halving, bo; lccp's and rcsc's choice of C): it returns correct[g][c], the number of test
// rows predicted correctly over the folds of plan by group g's kernel and
// its c-th C, and the number of SVM solves. Jobs (one group, one fold) are
// fed groups in the given order and run on cm.Workers goroutines; the
// counts are sums of integers, so the result does not depend on the order
// they finish in. The first error cancels the rest; it is prefixed with
// label(g) and the fold.
func cvCounts(ctx context.Context, groups []cvGroup, order []int, cs cvSet, plan cvPlan, cm Common, label func(g int) string) (correct [][]int, solves int, err error) {
	nf := len(plan.test)
	correct = make([][]int, len(groups))
	for g := range groups {
		correct[g] = make([]int, len(groups[g].Cs))
	}
	type job struct{ g, f int }
	jobs := make(chan job)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		done     int
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := cm.settings()
	s.Workers = 1 // the jobs run in parallel, each on one core
	cw, err := cs.weights(cm)
	if err != nil {
		return nil, 0, err
	}
	var wb [2]float64 // binary data's weights (0: none)
	if cw != nil && cs.class == nil {
		wb = cw[0]
	}
	maxTrain, maxTest := 0, 0
	for f := range nf {
		maxTrain = max(maxTrain, len(plan.train[f]))
		maxTest = max(maxTest, len(plan.test[f]))
	}
	dense := false
	for _, gr := range groups {
		dense = dense || gr.D != nil || gr.P != nil
	}
	// One-vs-one on the dense route: each pair's matrices from the packed
	// distances, not the fold's Gram (foldSweepPairsD).
	pairsD := false
	for _, gr := range groups {
		pairsD = pairsD || gr.P != nil
	}
	pairsD = pairsD && cs.class != nil && cs.scheme != dataio.OneVsRest
	keys := cvJobKeys(groups, plan, cm) // each job's checkpoint key (nil: none)
	for w := 0; w < min(cm.workers(), len(groups)*nf); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One workspace per worker: the column buffers of a solve
			// serve the next one instead of 100 MB being allocated and
			// zeroed per solve at n = 5,000.
			// So are the fold matrices' buffers: at n = 20,000 each
			// job's are 2.5 GB, and fresh ones per job left the old
			// ones for the collector, which let the heap (and the
			// RSS) run 4.6 GB above the live data, over --mem-mb. A
			// search that calls cvCounts once per point keeps them
			// from one call to the next (cm.cvWorkers): fresh ones
			// per point let random's resident set at 32,561 rows run
			// 185 MB over the collector's limit.
			wk := cm.cvWorkers.get()
			defer cm.cvWorkers.put(wk)
			s := s
			s.Workspace = wk.ws
			ktr, kte := wk.ktr, wk.kte
			if dense && !pairsD {
				ktr = grow(ktr, maxTrain*maxTrain)[:0]
				kte = grow(kte, maxTest*maxTrain)[:0]
			}
			defer func() { wk.ktr, wk.kte = ktr, kte }()
			for jb := range jobs {
				gr := groups[jb.g]
				tr, te := plan.train[jb.f], plan.test[jb.f]
				ctx := ctx
				if solveHook != nil {
					ctx = context.WithValue(ctx, solveTagKey{}, solveTag{Gamma: gr.Gamma, Fold: jb.f, Rows: plan.tested()})
				}
				var (
					cnt []int
					ns  int
					err error
					kj  cvJob
				)
				switch {
				case keys != nil && cm.recall(keys[jb.g][jb.f], &kj) && len(kj.Correct) == len(gr.Cs): // done before a resume
					cnt, ns = kj.Correct, kj.Solves
				case gr.K != nil: // a fixed kernel matrix (binary labels)
					Ktr, Kte := foldSub(gr.K, tr, te)
					cnt, ns, err = foldSweep(ctx, kernel.PrecomputedSquare(Ktr), denseDecider(Kte),
						pick(cs.y, tr), pick(cs.y, te), gr.Cs, gr.Margin, wb, s, false)
				case pairsD: // one-vs-one: each pair's matrices from P, no fold Gram
					cnt, ns, ktr, kte, err = foldSweepPairsD(ctx, gr.P, gr.Gamma, tr, te, pickInt(cs.class, tr), pickInt(cs.class, te), cs.k, cs.scheme, cw, gr.Cs, s, ktr, kte)
				case gr.D == nil && cs.class != nil: // bounded memory, every subproblem
					cnt, ns, err = foldSweepMultiRows(ctx, gr.X, gr.Gamma, tr, te, pickInt(cs.class, tr), pickInt(cs.class, te), cs.k, cs.scheme, cw, gr.Cs, s)
				case gr.D == nil: // bounded memory: columns from the rows
					km, decide := rowsFold(gr.X, gr.Gamma, tr, te)
					cnt, ns, err = foldSweep(ctx, km, decide, pick(cs.y, tr), pick(cs.y, te), gr.Cs, solver.L1, wb, s, true)
				case cs.class != nil: // multi-class: every subproblem, combined as the final model
					var Ktr, Kte *mat.Dense
					Ktr, Kte, ktr, kte = foldKernels(gr.D, tr, te, gr.Gamma, ktr, kte)
					cnt, ns, err = foldSweepMulti(ctx, Ktr, Kte, pickInt(cs.class, tr), pickInt(cs.class, te), cs.k, cs.scheme, cw, gr.Cs, s)
				default:
					var Ktr, Kte *mat.Dense
					Ktr, Kte, ktr, kte = foldKernels(gr.D, tr, te, gr.Gamma, ktr, kte)
					cnt, ns, err = foldSweep(ctx, kernel.PrecomputedSquare(Ktr), denseDecider(Kte),
						pick(cs.y, tr), pick(cs.y, te), gr.Cs, solver.L1, wb, s, false)
				}
				if keys != nil && err == nil && kj.Correct == nil {
					err = cm.keep(keys[jb.g][jb.f], cvJob{Correct: cnt, Solves: ns})
				}
				mu.Lock()
				solves += ns
				done++
				if cm.jobs {
					cm.Progress.Step(done, "")
				}
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("%sfold %d: %w", label(jb.g), jb.f+1, err)
						cancel()
					}
				} else {
					for c, v := range cnt {
						correct[jb.g][c] += v
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, g := range order {
		for f := 0; f < nf; f++ {
			select {
			case jobs <- job{g, f}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, solves, firstErr
	}
	return correct, solves, nil
}

// decider sets dst to a fold's decision values on its test rows for the
// coefficients coef (y_j α_j, by the fold's training rows) and the bias.
type decider func(dst, coef []float64, bias float64)

// foldDecider is how foldSweep gets a fold's decision values on its test
// rows: one solution at a time after its solve (one), or, when all is
// set, every solution of the sweep at once after the last solve (all
// returns one slice of decision values per solution, in their order).
type foldDecider struct {
	one decider
	all func(sols []svCoef) [][]float64
}

// svCoef is a solution's support vectors (indices into the fold's
// training rows, ascending), their coefficients y_j α_j and the bias.
type svCoef struct {
	sv   []int
	coef []float64
	bias float64
}

// compactCoef returns the support vectors of coef (its non-zero entries)
// and the bias.
func compactCoef(coef []float64, bias float64) svCoef {
	out := svCoef{bias: bias}
	for j, v := range coef {
		if v != 0 {
			out.sv = append(out.sv, j)
			out.coef = append(out.coef, v)
		}
	}
	return out
}

// denseDecider decides from the fold's test-by-training kernel matrix.
func denseDecider(Kte *mat.Dense) foldDecider {
	return foldDecider{one: func(dst, coef []float64, bias float64) { solver.Decision(dst, Kte, coef, bias) }}
}

// rowsFold returns one fold's kernel matrix and decider on the
// bounded-memory route: the isotropic Gaussian exp(-γ‖x-z‖²) prepared once
// on all rows of X (kernel.Rows: the sparse route on sparse data), the
// fold's training rows tr read through kernel.Sub, and the test rows'
// decision values of a sweep's solutions after it, one kernel column per
// test row over the support vectors of them all (rowsDecideAll). Nothing
// of size n×n, or fold-sized, is held: the solver's cache bounds the
// memory.
func rowsFold(X mat.Matrix, gamma float64, tr, te []int) (kernel.Matrix, foldDecider) {
	all := isoRows(X, gamma)
	return kernel.Sub(all, tr), foldDecider{all: rowsDecideAll(all, tr, te)}
}

// rowsDecideAll returns the decision values Σ_j coef_j K(x_t, x_j) + b of
// each solution on the test rows te, all rows prepared as all, the
// solutions' support vectors indices into tr. Each test row takes one
// kernel column over the union of the solutions' support vectors, where
// one per solution (rowsFoldOf's decider) took as many columns as there
// are solutions: on the sparse route a column's cost is the scatter of
// the test row over the range of rows asked for, whatever their number
// (at 32,561 rows of w8a the decisions were 30 % of the refinement's
// time, one column per test row and C). Every entry of a column has the
// same bits whichever rows are asked for (kernel.Matrix.Column), and each
// solution's are gathered in its own order, so every decision value is
// the one rowsFoldOf's decider computes, to the last bit.
func rowsDecideAll(all kernel.Matrix, tr, te []int) func(sols []svCoef) [][]float64 {
	return func(sols []svCoef) [][]float64 {
		// pos[j]: the place of training row j in the union, -1 if none.
		pos := make([]int, len(tr))
		for j := range pos {
			pos[j] = -1
		}
		for _, s := range sols {
			for _, j := range s.sv {
				pos[j] = 0
			}
		}
		var union []int
		for j, p := range pos {
			if p == 0 {
				pos[j] = len(union)
				union = append(union, tr[j])
			}
		}
		at := make([][]int, len(sols)) // each solution's places in the union
		most := 0
		for k, s := range sols {
			at[k] = make([]int, len(s.sv))
			for q, j := range s.sv {
				at[k][q] = pos[j]
			}
			most = max(most, len(s.sv))
		}
		out := make([][]float64, len(sols))
		for k := range out {
			out[k] = make([]float64, len(te))
		}
		col := make([]float64, len(union))
		buf := make([]float64, most)
		for t, i := range te {
			if len(union) > 0 {
				all.Column(i, union, col)
			}
			for k, s := range sols {
				if len(s.sv) == 0 {
					out[k][t] = s.bias
					continue
				}
				b := buf[:len(s.sv)]
				for q, p := range at[k] {
					b[q] = col[p]
				}
				out[k][t] = floats.Dot(b, s.coef) + s.bias
			}
		}
		return out
	}
}

// isoRows prepares the rows of X for the columns of exp(-γ‖x-z‖²).
func isoRows(X mat.Matrix, gamma float64) kernel.Matrix {
	g, err := kernel.NewGaussianIso(gamma)
	if err != nil { // γ > 0 and finite on every grid and box
		panic(fmt.Sprintf("methods: isoRows: %v", err))
	}
	return g.Rows(X)
}

// rowsFoldOf is rowsFold on rows already prepared (isoRows).
func rowsFoldOf(all kernel.Matrix, tr, te []int) (kernel.Matrix, decider) {
	decide := func(dst, coef []float64, bias float64) {
		var sv []int
		var c []float64
		for j, v := range coef {
			if v != 0 {
				sv = append(sv, tr[j])
				c = append(c, v)
			}
		}
		col := make([]float64, len(sv))
		for t, i := range te {
			if len(sv) == 0 {
				dst[t] = bias
				continue
			}
			all.Column(i, sv, col)
			dst[t] = floats.Dot(col, c) + bias
		}
	}
	return kernel.Sub(all, tr), decide
}

// cvPoint is one evaluated point of a search: log2 C, the log2 γ of each
// kernel parameter (one for the isotropic kernel, one per feature for
// bo:ard), and its CV count of correct predictions out of total.
type cvPoint struct {
	Log2C     float64
	Log2Gamma []float64
	// C and Gamma are the values solved with: 2^Log2C and 2^Log2Gamma[0]
	// (newPoint), or svm's grid's exactly as it has them (a fixed C).
	C, Gamma float64
	Correct  int
	Total    int
}

// newPoint returns the candidate (log2 C, log2 γ...), not yet scored.
func newPoint(log2C float64, log2Gamma []float64) cvPoint {
	return cvPoint{Log2C: log2C, Log2Gamma: log2Gamma, C: math.Exp2(log2C), Gamma: math.Exp2(log2Gamma[0])}
}

// Accuracy returns the point's CV accuracy.
func (p cvPoint) Accuracy() float64 { return float64(p.Correct) / float64(p.Total) }

// better reports whether p beats q by the grid's rule (grid.py's, pickGrid in the tests): more
// correct predictions; on a tie the kernel nearer the moderate γ_h in log2
// (the mean log2 γ for bo:ard), then the smaller C. Points of equal
// accuracy, distance and C keep the earlier one (q).
func (p cvPoint) better(q cvPoint, log2GammaH float64) bool {
	if p.Correct*q.Total != q.Correct*p.Total {
		return p.Correct*q.Total > q.Correct*p.Total
	}
	dp, dq := math.Abs(meanOf(p.Log2Gamma)-log2GammaH), math.Abs(meanOf(q.Log2Gamma)-log2GammaH)
	if math.Abs(dp-dq) > 1e-9 {
		return dp < dq
	}
	return p.Log2C < q.Log2C
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// isoEval scores (log2 C, log2 γ) points on one training part by k-fold
// CV: the rows, their folds, the squared distances (computed once) and γ_h,
// the tie rule's moderate kernel. With D nil the kernel is computed from
// the rows X (the bounded-memory route, cvGroup); with ard, X is the rows
// bo:ard scales per feature, one log2 γ each. With K set the kernel is
// that fixed matrix of the rows, trained with margin (selectC: the points
// differ only in C, one log2 γ of 0 for all, so the tie rule is the
// smaller C). With score set, a point is scored by the caller's criterion
// instead of the cross-validation (SearchGrid): D, X, K, cs and plan are
// unused.
type isoEval struct {
	D          *mat.SymDense
	P          *kernel.Packed // D held packed (setDistances)
	X          mat.Matrix
	K          mat.Symmetric
	margin     solver.Margin
	ard        bool
	score      GridScorer
	cs         cvSet
	plan       cvPlan
	log2GammaH float64
	cm         Common
}

// newIsoEval returns the evaluator of the rows of train: their folds from
// cm.Seed, their squared distances (computed once) and γ_h from them.
func newIsoEval(train *dataio.Dataset, cm Common) (*isoEval, error) {
	plan, err := newCVPlanOf(train, cm)
	if err != nil {
		return nil, err
	}
	cm.cvKey = dataKey(train, cm)
	e := &isoEval{cs: cvSetOf(train), plan: plan, cm: cm}
	e.setDistances(train.Features())
	return e, nil
}

// setDistances sets the squared distances of the rows X, computed once,
// and γ_h from their median: packed (half the memory: 196 MB instead of
// 392 MB at 7,000 rows) on one-vs-one multi-class data, whose pairs read
// them entry by entry (foldSweepPairsD), in full otherwise (a fold's Gram
// is a block of them). The entries are the same bits either way.
func (e *isoEval) setDistances(X mat.Matrix) {
	if e.cs.class != nil && e.cs.scheme != dataio.OneVsRest {
		e.P = kernel.SquaredDistancesPacked(X)
		e.log2GammaH = math.Log2(gammaOfMedian(e.P.MedianOffDiag()))
		return
	}
	e.D = kernel.SquaredDistances(X)
	e.log2GammaH = math.Log2(moderateGamma(e.D))
}

// point returns p scored alone (one cvCounts call) and the solves.
func (e *isoEval) point(ctx context.Context, p cvPoint) (cvPoint, int, error) {
	if e.ard {
		return e.evalARD(ctx, p)
	}
	if e.score != nil {
		var err error
		if p.Correct, p.Total, err = e.score(ctx, p.C, p.Gamma); err != nil {
			return cvPoint{}, 0, err
		}
		return p, 0, nil
	}
	cnt, ns, err := e.counts(ctx, cvGroup{D: e.D, P: e.P, X: e.X, Gamma: p.Gamma, Cs: []float64{p.C}})
	if err != nil {
		return cvPoint{}, ns, fmt.Errorf("cross-validation at C = 2^%.4g, gamma = 2^%.4g: %w", p.Log2C, p.Log2Gamma[0], err)
	}
	p.Correct, p.Total = cnt[0][0], e.plan.tested()
	return p, ns, nil
}

// together returns the isotropic points pts scored in one cvCounts call,
// a group per run of equal γ (its Cs in the order given: ascending, for
// the warm starts), and the solves.
func (e *isoEval) together(ctx context.Context, pts []cvPoint) ([]cvPoint, int, error) {
	var groups []cvGroup
	var idx [][]int // idx[g][c]: the point of group g's c-th C
	for i, p := range pts {
		if len(groups) == 0 || groups[len(groups)-1].Gamma != p.Gamma {
			groups = append(groups, cvGroup{D: e.D, P: e.P, X: e.X, K: e.K, Margin: e.margin, Gamma: p.Gamma})
			idx = append(idx, nil)
		}
		g := len(groups) - 1
		groups[g].Cs = append(groups[g].Cs, p.C)
		idx[g] = append(idx[g], i)
	}
	// The small γ go first: their solves take the most SMO iterations at
	// large C, and a long job left for the end would keep one core idle.
	// The counts are sums of integers, so the order changes nothing else.
	order := make([]int, len(groups))
	for g := range order {
		order[g] = g
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(groups[a].Gamma, groups[b].Gamma) })
	label := func(g int) string { return fmt.Sprintf("gamma = 2^%g, ", math.Log2(groups[g].Gamma)) }
	if e.K != nil {
		label = func(int) string { return "" } // one kernel: no γ to name
	}
	correct, ns, err := cvCounts(ctx, groups, order, e.cs, e.plan, e.cm, label)
	if err != nil {
		return nil, ns, err
	}
	out := slices.Clone(pts)
	total := e.plan.tested()
	for g := range groups {
		for c, i := range idx[g] {
			out[i].Correct, out[i].Total = correct[g][c], total
		}
	}
	return out, ns, nil
}

// tested is the number of rows the plan's folds test: every row, or a
// round's subsample of them.
func (p cvPlan) tested() int {
	total := 0
	for _, te := range p.test {
		total += len(te)
	}
	return total
}

// subsamplePlan returns plan with each fold's training and test rows
// subsampled to the fraction frac (at least one row each), as
// scikit-learn's _SubsampleMetaSplitter does for successive halving: a
// plain random draw (not stratified) of ⌊frac·len⌋ rows from rng, kept
// ascending.
func subsamplePlan(plan cvPlan, frac float64, rng *rand.Rand) cvPlan {
	if frac >= 1 {
		return plan
	}
	draw := func(rows []int) []int {
		k := max(1, int(frac*float64(len(rows))))
		p := rng.Perm(len(rows))[:k]
		out := make([]int, k)
		for i, j := range p {
			out[i] = rows[j]
		}
		slices.Sort(out)
		return out
	}
	out := cvPlan{train: make([][]int, len(plan.train)), test: make([][]int, len(plan.test))}
	for f := range plan.train {
		out.train[f] = draw(plan.train[f])
		out.test[f] = draw(plan.test[f])
	}
	return out
}

// cvPool keeps cvCounts' worker buffers (a solver workspace and the dense
// route's fold matrices) between calls; a nil pool makes fresh ones.
type cvPool struct {
	mu   sync.Mutex
	free []*cvWorker
}

type cvWorker struct {
	ws       *solver.Workspace
	ktr, kte []float64
}

func (p *cvPool) get() *cvWorker {
	if p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if k := len(p.free); k > 0 {
			w := p.free[k-1]
			p.free = p.free[:k-1]
			return w
		}
	}
	return &cvWorker{ws: new(solver.Workspace)}
}

func (p *cvPool) put(w *cvWorker) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.free = append(p.free, w)
	p.mu.Unlock()
}
