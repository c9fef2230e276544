package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// BOSettings configure Bayesian optimisation of the svm baseline's k-fold
// CV accuracy (the same folds from the same seed, the same solver
// settings) over grid.py's box, log2 C ∈ [-5, 15] and log2 γ ∈ [-15, 3]
// (Snoek, Larochelle & Adams, "Practical Bayesian Optimization of Machine
// Learning Algorithms", NIPS 2012): a Gaussian process with the Matérn 5/2
// covariance (one length scale per dimension, signal and noise variance by
// maximum marginal likelihood, refitted after every evaluation) models the
// CV error; the next point maximises expected improvement over the box.
// The first points are a Latin hypercube; all random choices draw from
// Seed. The best evaluated point is returned, ties as the grid breaks them.
// gp.go holds the GP.
//   - Param "iso" (the default): the isotropic Gaussian exp(-γ‖x-z‖²),
//     over (log2 C, log2 γ), 5 initial points.
//   - Param "ard": one γ_j per feature, exp(-Σ γ_j (x_j-z_j)²), over
//     (log2 C, log2 γ_1..d), each log2 γ_j on the box's γ range, d + 2
//     initial points (at most half the budget) — the competitor of spd:diag,
//     gi and lccp. It refuses more than BOARDMaxFeatures features.
//   - Budget: the number of CV evaluations, the initial points included;
//     0 means 30.
//   - C > 0 fixes C: the search is over the kernel only.
//   - On more than GridRows rows (default 5,000) the CV runs on a
//     stratified subset of that many rows, as svm's grid does first.
//   - Space: the user's box, log2 C and log2 γ between each grid's begin
//     and end (its step is not used); grid.py's box where one is zero.
type BOSettings struct {
	Common
	Space
	Param  string
	Budget int
}

const (
	defaultBOBudget = 30
	boInitISO       = 5
	// boStream is the PCG stream of bo's random choices ("bo").
	boStream = 0x626f
)

// BOARDMaxFeatures is the most features bo:ard takes. Its GP models
// 1 + d dimensions with a length scale each; a GP's expected improvement
// is known to work on fewer than about 20 dimensions (Frazier, "A Tutorial
// on Bayesian Optimization", 2018, §1), and with the default 30
// evaluations more dimensions leave fewer points than length scales to
// learn.
const BOARDMaxFeatures = 19

// Name returns "bo".
func (BOSettings) Name() string { return "bo" }

// Check refuses an unknown parameterisation, a negative budget, a budget
// smaller than the initial points, and shared settings out of range.
func (s BOSettings) Check() error {
	if err := s.Common.check("bo"); err != nil {
		return err
	}
	if err := s.Space.check("bo", s.C); err != nil {
		return err
	}
	if err := checkChoice("bo", "param", s.Param, boInfo.Params, ""); err != nil {
		return err
	}
	if err := checkBudget("bo", s.Budget, defaultBOBudget); err != nil {
		return err
	}
	if s.Budget != 0 && s.Budget < boInitISO+1 {
		return optErr("bo", "budget", s.Budget, fmt.Sprintf("at least %d: %d initial points and one chosen by expected improvement (0 for the default %d)", boInitISO+1, boInitISO, defaultBOBudget))
	}
	return nil
}

// WithBase returns s with the shared settings c.
func (s BOSettings) WithBase(c Common) Spec { s.Common = c; return s }

// boInfo is bo's entry in the registry (All).
var boInfo = Info{
	Name: "bo", Summary: hint.T("Bayesian optimisation: GP (Matérn 5/2) and expected improvement over grid.py's box, ", hint.S("budget", ""), " k-fold CV evaluations"),
	Params: []string{"iso", "ard"}, Margins: []string{"l1"}, marginWhy: "a baseline of the L1 soft margin, as svm",
	OptIn: true,
	build: func(p, _ string) Spec { return BOSettings{Param: p} },
}

// PeakBytes: one evaluation at a time (bo:ard's with its own squared
// distances) on at most GridRows rows; then the final fit's cache; and the
// GP over every point seen: its covariance and Cholesky factor (two
// budget×budget matrices, small at the default budget of 30) and each
// point's coordinates and outcome.
func (s BOSettings) PeakBytes(n, d int) int64 {
	b := s.budget()
	return peak(n, d, newMemModel(s.Common).points(n, s.Common)) + 2*sq(b) + int64(b)*(searchPointBytes+fl*int64(d+1))
}

func (s BOSettings) budget() int {
	if s.Budget == 0 {
		return defaultBOBudget
	}
	return s.Budget
}

func (s BOSettings) param() string {
	if s.Param == "" {
		return "iso"
	}
	return s.Param
}

// checkFeatures refuses more than BOARDMaxFeatures features for bo:ard
// (CheckFeatures).
func (s BOSettings) checkFeatures(d int) error {
	if s.param() == "ard" && d > BOARDMaxFeatures {
		return boDimError(d)
	}
	return nil
}

// boDimError is bo:ard's refusal of too many features.
func boDimError(d int) error {
	return fmt.Errorf("bo:ard refuses %d features, more than %d: its Gaussian process models C and one gamma per feature, %d dimensions, and expected improvement on a GP is known to work below about 20 (Frazier 2018); use bo (one gamma) or fewer features",
		d, BOARDMaxFeatures, d+1)
}

// Tune runs Bayesian optimisation on the (already normalised) training
// part: the initial design is iteration 0, then one point chosen by
// expected improvement per iteration; the trace's objective is the best CV
// accuracy so far. The run ends Converged when the budget is spent.
func (s BOSettings) tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	return tuneSearch(ctx, s, train, s.search)
}

// search returns bo on train: the initial design the first batch, then one
// point by expected improvement per batch (boProposer).
func (s BOSettings) search(train *dataio.Dataset) (*searchCV, error) {
	ard := s.param() == "ard"
	d := train.Dim()
	if ard && d > BOARDMaxFeatures {
		return nil, boDimError(d)
	}
	cvRows, note := cvTrain(train, s.Common)
	cm := s.Common
	cm.cvWorkers = new(cvPool) // one set of buffers for every point
	ev, err := newIsoEval(cvRows, cm)
	if err != nil {
		return nil, fmt.Errorf("bo: %w", err)
	}
	if ard {
		ev.X, ev.ard = cvRows.Features(), true
	}
	fixedC := s.C > 0
	nk := 1
	if ard {
		nk = d
	}
	dim := nk
	if !fixedC {
		dim++
	}
	budget := s.budget()
	nInit := boInitISO
	if ard {
		nInit = max(boInitISO, min(dim+1, budget/2))
	}
	cLo, cHi, gLo, gHi := s.box()
	p := &boProposer{b: &bayes{dim: dim, rng: rand.New(rand.NewPCG(s.Seed, boStream))}, nInit: nInit,
		fixedLog2C: math.Log2(s.C), fixedC: fixedC, cLo: cLo, cHi: cHi, gLo: gLo, gHi: gHi}
	sc := &searchCV{method: "bo", ev: ev, iters: budget - nInit + 1, rec: s.Recorder, prop: p,
		budget: budget, points: pointStage("bo", budget, ev.plan.k(), cvRows.Len())}
	sc.init = func() string {
		what := "(log2 C, log2 gamma)"
		switch {
		case ard && fixedC:
			what = fmt.Sprintf("log2 gamma_1..%d (C = %g fixed)", d, s.C)
		case ard:
			what = fmt.Sprintf("(log2 C, log2 gamma_1..%d)", d)
		case fixedC:
			what = fmt.Sprintf("log2 gamma (C = %g fixed)", s.C)
		}
		box := "grid.py's box"
		if s.Log2C.IsSet() || s.Log2Gamma.IsSet() {
			box = "the user's box " + strings.TrimSuffix(s.describeBox(), " (the user's box)")
		}
		return fmt.Sprintf("GP (Matérn 5/2, ML-II) and expected improvement over %s on %s, %d Latin-hypercube points then %d by EI, seed %d; the best by %d-fold CV%s",
			what, box, nInit, sc.evals-nInit, s.Seed, ev.plan.k(), note) + weightsNote(s.Common)
	}
	return sc, nil
}

// boProposer proposes bo's points: the start is nInit points of a Latin
// hypercube of the unit box, then one point per iteration by expected
// improvement of the GP fitted to every point seen (it models the CV
// error). A point u of the unit box is (log2 C, log2 γ...) in the box
// (grid.py's or the user's), log2 C fixed when C is.
type boProposer struct {
	b       *bayes
	nInit   int
	pending [][]float64 // the last batch's points in the unit box, not yet in the GP

	fixedC             bool
	fixedLog2C         float64
	cLo, cHi, gLo, gHi float64
}

func (p *boProposer) propose(it int, seen []cvPoint, _ cvPoint) (batch, error) {
	for i, u := range p.pending {
		p.b.add(u, 1-seen[len(seen)-len(p.pending)+i].Accuracy()) // the GP models the CV error
	}
	if it == 0 {
		p.pending = p.b.latinHypercube(p.nInit)
	} else {
		u, err := p.b.propose()
		if err != nil {
			return batch{}, err
		}
		p.pending = [][]float64{u}
	}
	var out batch
	for _, u := range p.pending {
		lc, k := p.fixedLog2C, u
		if !p.fixedC {
			lc, k = p.cLo+(p.cHi-p.cLo)*u[0], u[1:]
		}
		lg := make([]float64, len(k))
		for j, v := range k {
			lg[j] = p.gLo + (p.gHi-p.gLo)*v
		}
		out.points = append(out.points, newPoint(lc, lg))
	}
	return out, nil
}

// evalARD returns the CV point at log2 C with one log2 γ_j per feature:
// the kernel exp(-Σ γ_j (x_j-z_j)²) is exp(-‖x'-z'‖²) of the rows scaled by
// √γ_j.
func (e *isoEval) evalARD(ctx context.Context, p cvPoint) (cvPoint, int, error) {
	n, d := e.X.Dims()
	xs := mat.NewDense(n, d, nil)
	for j := range d {
		s := math.Sqrt(math.Exp2(p.Log2Gamma[j]))
		for i := range n {
			xs.Set(i, j, e.X.At(i, j)*s)
		}
	}
	D := kernel.SquaredDistances(xs)
	e2 := *e // the kernel is the scaling's: its checkpoint keys name it
	if e.cm.cvKey != "" {
		e2.cm.cvKey += "/ard-" + newHasher().f(p.Log2Gamma...).sum()
	}
	cnt, ns, err := e2.counts(ctx, cvGroup{D: D, Gamma: 1, Cs: []float64{p.C}})
	if err != nil {
		return cvPoint{}, ns, fmt.Errorf("cross-validation at C = 2^%.4g: %w", p.Log2C, err)
	}
	p.Correct, p.Total = cnt[0][0], e.plan.tested()
	return p, ns, nil
}
