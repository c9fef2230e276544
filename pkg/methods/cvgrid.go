package methods

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// LIBSVM grid.py's default grid: log2 C from -5 to 15 and log2 γ from 3 down
// to -15, both in steps of 2 (γ in LIBSVM's convention exp(-γ‖x-z‖²)).
var (
	gridLog2C     = []float64{-5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15}
	gridLog2Gamma = []float64{3, 1, -1, -3, -5, -7, -9, -11, -13, -15}
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
		ev.setDistances(g.train.Features())
	} else {
		ev.X = g.train.Features()
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
