package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// HalvingSettings configure successive halving over LIBSVM grid.py's grid
// (Jamieson & Talwalkar 2016), as scikit-learn's HalvingGridSearchCV runs
// it with its defaults: training rows are the resource, factor 3,
// min_resources "exhaust", no aggressive elimination. Round i scores the
// surviving (C, γ) points by the svm baseline's k-fold CV (the same folds
// from the same seed, the same solver settings) with each fold's training
// and test rows subsampled to r_i = 3^i r_0 of the n rows
// (_SubsampleMetaSplitter: a plain random draw, from Seed); the best third
// (rounded up) goes on. r_0 is the largest that lets the rounds needed to
// bring 110 points to one end on n rows, but at least 2·k·2 (two rows per
// fold and class); there are as many rounds as both allow, so on few rows
// the last round keeps several points and scores them on fewer than n
// rows. The answer is the last round's best, ties as the grid breaks them.
// The isotropic Gaussian and the L1 soft margin, as svm; C > 0 fixes C
// and halves over the 10 γ. Space, the user's grid (grid.py's -log2c and
// -log2g), replaces grid.py's 110 points; r_0 and the rounds follow from
// the number of its points.
type HalvingSettings struct {
	Common
	Space
}

const (
	halvingFactor = 3
	// halvingStream is the PCG stream of the rounds' subsamples ("halv").
	halvingStream = 0x68616c76
)

// Name returns "halving".
func (HalvingSettings) Name() string { return "halving" }

// Check refuses shared settings out of range.
func (s HalvingSettings) Check() error {
	if err := s.Common.check("halving"); err != nil {
		return err
	}
	return s.Space.check("halving", s.C)
}

// WithBase returns s with the shared settings c.
func (s HalvingSettings) WithBase(c Common) Spec { s.Common = c; return s }

// halvingInfo is halving's entry in the registry (All).
var halvingInfo = Info{
	Name: "halving", Summary: "successive halving over grid.py's grid (scikit-learn's HalvingGridSearchCV: training rows as the resource, factor 3)",
	Params: []string{"iso"}, Margins: []string{"l1"}, marginWhy: "a baseline of the L1 soft margin, as svm",
	OptIn: true,
	build: func(string, string) Spec { return HalvingSettings{} },
}

// PeakBytes: the squared distances of all n rows and one fold job per
// worker on them (the last round may use all rows), or the final fit's
// cache; above denseCVRows, the bounded-memory route's jobs and the squared
// distances of the subset that gives γ_h.
func (s HalvingSettings) PeakBytes(n, d int) int64 {
	m := newMemModel(s.Common)
	if n <= denseCVRows {
		return peak(n, d, max(m.denseGrid(n), m.cacheOf(n)))
	}
	sub := min(n, max(defaultGridRows, s.gridRows()))
	return peak(n, d, max(sq(sub)+m.rowsJobs(n, d, len(s.log2Gammas())), m.finalFit(n, d)))
}

// halvingGrid words the candidates' grid for the Init.
func (s HalvingSettings) halvingGrid() string {
	if !s.Log2C.IsSet() && !s.Log2Gamma.IsSet() {
		return "grid.py's grid"
	}
	return s.describe()
}

// halvingSchedule returns scikit-learn's schedule for nCand candidates on
// n rows with k folds: the rows of the first round and the number of
// rounds (HalvingGridSearchCV, min_resources="exhaust", factor 3).
func halvingSchedule(nCand, n, k int) (r0, rounds int) {
	floorLog := func(x int) int { // the largest p with 3^p ≤ x
		p := 0
		for v := halvingFactor; v <= x; v *= halvingFactor {
			p++
		}
		return p
	}
	required := 1 + floorLog(nCand)
	r0 = 2 * k * 2 // "smallest": n_splits·2, times the classes
	pow := 1
	for range required - 1 {
		pow *= halvingFactor
	}
	r0 = max(r0, n/pow) // "exhaust"
	if r0 > n {
		return n, 1
	}
	return r0, min(1+floorLog(n/r0), required)
}

// Tune runs successive halving on the (already normalised) training part:
// round i is iteration i (the first the start), its objective the round's
// best CV accuracy.
func (s HalvingSettings) Tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	start := time.Now()
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := checkTrain("halving", train); err != nil {
		return nil, err
	}
	plan, err := newCVPlanOf(train, s.Common)
	cm := s.Common
	cm.cvWorkers = new(cvPool) // one set of buffers for every round
	if err != nil {
		return nil, fmt.Errorf("halving: %w", err)
	}
	// Up to denseCVRows rows, the n×n squared distances once; on more, the
	// bounded-memory route (cvGroup with X) and γ_h, the tie rule's
	// moderate kernel, from a stratified subset of GridRows rows.
	var D *mat.SymDense
	var X mat.Matrix
	var lgH float64
	if n := train.Len(); n <= denseCVRows {
		D = kernel.SquaredDistances(train.X)
		lgH = math.Log2(moderateGamma(D))
	} else {
		X = train.X
		sub := train.Subset(stratifiedSubsetOf(train, min(n, max(defaultGridRows, s.gridRows())), s.Seed))
		lgH = math.Log2(moderateGamma(kernel.SquaredDistances(sub.X)))
	}
	lCs := slices.Clone(s.log2Cs())
	slices.Sort(lCs) // each γ's Cs ascend (warm starts)
	if s.C > 0 {
		lCs = []float64{math.Log2(s.C)}
	}
	var cands []cvPoint
	for _, lg := range s.log2Gammas() {
		for _, lc := range lCs {
			cands = append(cands, cvPoint{Log2C: lc, Log2Gamma: []float64{lg}})
		}
	}
	n := train.Len()
	r0, rounds := halvingSchedule(len(cands), n, plan.k())
	rng := rand.New(rand.NewPCG(s.Seed, halvingStream))
	evals, solves, rows := 0, 0, 0
	var best cvPoint
	var first float64
	round := func(ctx context.Context, i int) (Step, error) {
		rows = min(r0*int(math.Pow(halvingFactor, float64(i))), n)
		p := subsamplePlan(plan, float64(rows)/float64(n), rng)
		total := 0
		for _, te := range p.test {
			total += len(te)
		}
		// One group per γ, its Cs ascending (warm starts up the C).
		var groups []cvGroup
		var idx [][]int // idx[g][c]: the candidate of group g's c-th C
		for gi, c := range cands {
			lg := c.Log2Gamma[0]
			if len(groups) == 0 || groups[len(groups)-1].Gamma != math.Exp2(lg) {
				groups = append(groups, cvGroup{D: D, X: X, Gamma: math.Exp2(lg)})
				idx = append(idx, nil)
			}
			g := len(groups) - 1
			groups[g].Cs = append(groups[g].Cs, math.Exp2(c.Log2C))
			idx[g] = append(idx[g], gi)
		}
		order := make([]int, len(groups))
		for g := range order {
			order[g] = g
		}
		correct, ns, err := cvCounts(ctx, groups, order, cvSetOf(train), p, cm, func(int) string { return "" })
		solves += ns
		if err != nil {
			return Step{}, fmt.Errorf("round %d on %d rows: %w", i+1, rows, err)
		}
		evals += len(cands)
		for g := range groups {
			for c, ci := range idx[g] {
				cands[ci].Correct, cands[ci].Total = correct[g][c], total
			}
		}
		ranked := slices.Clone(cands)
		slices.SortStableFunc(ranked, func(p, q cvPoint) int {
			switch {
			case p.better(q, lgH):
				return -1
			case q.better(p, lgH):
				return 1
			}
			return 0
		})
		best = ranked[0]
		if i == 0 {
			first = best.Accuracy()
		}
		// The survivors keep the grid's order (γ descending, C ascending),
		// so that each γ's Cs still ascend.
		keep := ranked[:(len(ranked)+halvingFactor-1)/halvingFactor]
		cands = slices.DeleteFunc(cands, func(c cvPoint) bool {
			return !slices.ContainsFunc(keep, func(k cvPoint) bool { return k.Log2C == c.Log2C && k.Log2Gamma[0] == c.Log2Gamma[0] })
		})
		return Step{Objective: best.Accuracy()}, nil
	}
	var trace []Step
	dr := driver{
		method: "halving", stop: stopRule{MaxIter: rounds - 1},
		record: tracer(start, &trace, s.Recorder),
		init:   func(ctx context.Context) (Step, error) { return round(ctx, 0) },
		iterate: func(ctx context.Context, it int) (move, error) {
			st, err := round(ctx, it)
			return move{Step: st}, err
		},
	}
	out, err := dr.run(ctx)
	if err != nil {
		return nil, err
	}
	if out.Status == status.IterationLimit {
		out.Status = status.Converged
	}
	res := &Result{
		Method: "halving", Param: "iso",
		Kernel:         kernel.Spec{Kind: kernel.KindGaussian, Gamma: math.Exp2(best.Log2Gamma[0])},
		Margin:         solver.L1,
		C:              math.Exp2(best.Log2C),
		Status:         out.Status,
		Iter:           rounds,
		Solves:         solves,
		Criterion:      fmt.Sprintf("%d-fold CV accuracy", plan.k()),
		CriterionStart: first,
		CriterionEnd:   best.Accuracy(),
		Init: fmt.Sprintf("successive halving over %s, factor 3: %d rounds from %d of the %d rows (folds' rows subsampled, seed %d), the last on %d rows; the best by %d-fold CV on them",
			s.halvingGrid(), rounds, r0, n, s.Seed, rows, plan.k()) + weightsNote(s.Common),
		Figures: []Figure{
			{Name: "cv accuracy", Value: best.Accuracy()},
			{Name: "log2 C", Value: best.Log2C},
			{Name: "log2 gamma", Value: best.Log2Gamma[0]},
			{Name: "cv evaluations", Value: float64(evals)},
			{Name: "rows in the last round", Value: float64(rows)},
		},
		Trace:   trace,
		Elapsed: time.Since(start),
	}
	noteShared(res, cvSetOf(train))
	return res, nil
}
