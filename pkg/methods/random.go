package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

// RandomSettings configure random search (Bergstra & Bengio, "Random
// Search for Hyper-Parameter Optimization", JMLR 2012): Budget points
// (log2 C, log2 γ) drawn uniformly from LIBSVM grid.py's box, log2 C ∈
// [-5, 15] and log2 γ ∈ [-15, 3], each scored by the svm baseline's k-fold
// CV accuracy (the same folds from the same seed, the same solver
// settings); the best is returned, ties broken as the grid breaks them
// (the γ nearest the median heuristic, then the smaller C, then the
// earlier draw). The isotropic Gaussian and the L1 soft margin, as svm.
//   - Budget: the number of CV evaluations; 0 means 60, Bergstra &
//     Bengio's figure: 60 draws hold a point of the best 5% of the box
//     with probability 95%.
//   - C > 0 fixes C and draws γ only.
//   - On more than GridRows rows (default 5,000) the CV runs on a
//     stratified subset of that many rows, as svm's grid does first.
//   - Space: the user's box, log2 C and log2 γ between each grid's begin
//     and end (its step is not used); grid.py's box where one is zero.
type RandomSettings struct {
	Common
	Space
	Budget int
}

// Grid.py's box, the domain of random search and bo.
const (
	boxLog2CMin, boxLog2CMax         = -5.0, 15.0
	boxLog2GammaMin, boxLog2GammaMax = -15.0, 3.0
)

const (
	defaultRandomBudget = 60
	// randomStream is the PCG stream of random search's draws ("rand").
	randomStream = 0x72616e64
)

// Name returns "random".
func (RandomSettings) Name() string { return "random" }

// Check refuses a negative budget and shared settings out of range.
func (s RandomSettings) Check() error {
	if err := s.Common.check("random"); err != nil {
		return err
	}
	if err := s.Space.check("random", s.C); err != nil {
		return err
	}
	return checkBudget("random", s.Budget, defaultRandomBudget)
}

// MaxBudget bounds the CV evaluations of random and bo, as MaxPartitions
// bounds a run's partitions (issue 42, item 13): a budget is drawn or
// remembered whole (random's points, bo's Gaussian process over every point
// seen), so that a budget of 1e12 is an out-of-memory crash, not a long run.
// 100,000 evaluations of a 5-fold CV are 500,000 SVM solves, more than any
// published tuning budget by three orders of magnitude.
const MaxBudget = 100_000

// checkBudget refuses a budget below 0 or above MaxBudget (0 is the
// default def).
func checkBudget(method string, b, def int) error {
	if b < 0 || b > MaxBudget {
		return optErr(method, "budget", b, fmt.Sprintf("a number of CV evaluations between 1 and %d (0 for the default %d)", MaxBudget, def))
	}
	return nil
}

// searchPointBytes is what a point search holds of each point it
// evaluates: its coordinates, its CV outcome (searchCV.seen) and its step of
// the trace.
const searchPointBytes = 256

// WithBase returns s with the shared settings c.
func (s RandomSettings) WithBase(c Common) Spec { s.Common = c; return s }

// randomInfo is random's entry in the registry (All).
var randomInfo = Info{
	Name: "random", Summary: hint.T("random search (Bergstra & Bengio 2012): ", hint.S("budget", ""), " (C, γ) draws from grid.py's box, the best by k-fold CV"),
	Params: []string{"iso"}, Margins: []string{"l1"}, marginWhy: "a baseline of the L1 soft margin, as svm",
	OptIn: true,
	build: func(string, string) Spec { return RandomSettings{} },
}

// PeakBytes: one evaluation at a time on at most GridRows rows; then the
// final fit's cache.
func (s RandomSettings) PeakBytes(n, d int) int64 {
	return peak(n, d, newMemModel(s.Common).points(n, s.Common)) + int64(s.budget())*searchPointBytes
}

// points returns the peak of the point-by-point CV of random and bo: the
// squared distances of the rows the CV runs on (at most GridRows) and one
// fold job per worker, or the final fit's cache on all n rows.
func (m memModel) points(n int, c Common) int64 {
	k := n
	if r := c.gridRows(); r > 0 && n > r {
		k = r
	}
	return max(sq(k)+int64(min(m.workers, m.folds))*m.foldJob(k), m.cacheOf(n))
}

func (s RandomSettings) budget() int {
	if s.Budget == 0 {
		return defaultRandomBudget
	}
	return s.Budget
}

// randomDraws returns the budget points (log2 C, log2 γ) random search
// evaluates, drawn from seed (PCG stream randomStream): each log2 C then
// log2 γ uniform on the box; with C > 0 given, log2 C is fixed and only
// log2 γ is drawn. The box is grid.py's, or the user's (sp).
func randomDraws(seed uint64, budget int, C float64, sp Space) [][2]float64 {
	rng := rand.New(rand.NewPCG(seed, randomStream))
	cLo, cHi, gLo, gHi := sp.box()
	out := make([][2]float64, budget)
	for i := range out {
		lc := math.Log2(C)
		if C == 0 {
			lc = cLo + (cHi-cLo)*rng.Float64()
		}
		out[i] = [2]float64{lc, gLo + (gHi-gLo)*rng.Float64()}
	}
	return out
}

// cvTrain returns the rows a point-by-point CV runs on: all of train, or a
// stratified subset of GridRows rows (drawn as the grid's), and the note
// an Init says of it.
func cvTrain(train *dataio.Dataset, cm Common) (*dataio.Dataset, string) {
	if m := cm.gridRows(); m > 0 && train.Len() > m {
		return train.Subset(stratifiedSubsetOf(train, m, cm.Seed)), cm.subsetNote(train.Len())
	}
	return train, ""
}

// Tune runs random search on the (already normalised) training part: one
// CV evaluation per iteration, the trace's objective the best CV accuracy
// so far. The run ends Converged when the budget is spent (the budget is
// its stopping rule).
func (s RandomSettings) tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	return tuneSearch(ctx, s, train, s.search)
}

// search returns random search on train: one draw per batch.
func (s RandomSettings) search(train *dataio.Dataset) (*searchCV, error) {
	cvRows, note := cvTrain(train, s.Common)
	cm := s.Common
	cm.cvWorkers = new(cvPool) // one set of buffers for every point
	ev, err := newIsoEval(cvRows, cm)
	if err != nil {
		return nil, fmt.Errorf("random: %w", err)
	}
	draws := randomDraws(s.Seed, s.budget(), s.C, s.Space)
	sc := &searchCV{method: "random", ev: ev, iters: len(draws), rec: s.Recorder,
		budget: len(draws), points: pointStage("random", len(draws), ev.plan.k(), cvRows.Len()),
		prop: proposerFunc(func(it int, _ []cvPoint, _ cvPoint) (batch, error) {
			return batch{points: []cvPoint{newPoint(draws[it][0], []float64{draws[it][1]})}}, nil
		}),
		init: func() string {
			return fmt.Sprintf("%d draws of (log2 C, log2 gamma) uniform on %s, seed %d; the best by %d-fold CV%s", len(draws), s.describeBox(), s.Seed, ev.plan.k(), note) + weightsNote(s.Common)
		},
	}
	return sc, nil
}

// k returns the number of folds of the plan.
func (p cvPlan) k() int { return len(p.test) }
