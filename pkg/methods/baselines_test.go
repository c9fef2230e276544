package methods

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// Random search's draws are a function of the seed: the same seed gives
// the same 60 points, another seed others; all lie in grid.py's box, and a
// fixed C fixes log2 C.
func TestRandomDrawsFromSeed(t *testing.T) {
	a, b, c := randomDraws(7, 60, 0, Space{}), randomDraws(7, 60, 0, Space{}), randomDraws(8, 60, 0, Space{})
	if !slices.Equal(a, b) {
		t.Fatal("seed 7 drew different points on two calls")
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 7 and 8 drew the same points")
	}
	for i, p := range a {
		if p[0] < -5 || p[0] > 15 || p[1] < -15 || p[1] > 3 {
			t.Fatalf("draw %d = %v outside [-5, 15] × [-15, 3]", i, p)
		}
	}
	// Uniform: the mean of 60 draws of log2 C is within 4 standard errors
	// (20/√12/√60 = 0.75) of the box's centre 5.
	mean := 0.0
	for _, p := range a {
		mean += p[0] / 60
	}
	if math.Abs(mean-5) > 3 {
		t.Errorf("mean log2 C of 60 draws = %.3g, want about 5", mean)
	}
	for _, p := range randomDraws(7, 5, 4, Space{}) {
		if p[0] != 2 {
			t.Fatalf("C = 4 fixed: drew log2 C = %g, want 2", p[0])
		}
	}
}

// checkChosen asserts that res's CV accuracy is the grid's at its (C, γ)
// (gridCounts on the same folds from the same seed: the svm baseline's
// accuracy at that point) and, to within one row (the solver's tolerance
// at a large C), the plain k-fold CV's (coldCV: the kernel package's Gram,
// cold solves).
func checkChosen(t *testing.T, res *Result, n int) {
	t.Helper()
	d := heartHead(t, n)
	cm := Common{Seed: 3}
	plan, err := newCVPlan(d.Y, cm)
	if err != nil {
		t.Fatal(err)
	}
	got := res.CriterionEnd * float64(n)
	grid, _, err := gridCounts(context.Background(), kernel.SquaredDistances(d.X), d, plan, []float64{res.Kernel.Gamma}, []float64{res.C}, cm)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-float64(grid[0][0])) > 1e-9 {
		t.Errorf("%s: CV accuracy at C = %g, γ = %g is %g/%d, the grid's %d", res.Method, res.C, res.Kernel.Gamma, got, n, grid[0][0])
	}
	if cold := coldCV(t, d, plan, res.Kernel.Gamma, res.C, solver.Settings{}); math.Abs(got-float64(cold)) > 1 {
		t.Errorf("%s: CV accuracy at C = %g, γ = %g is %g/%d, the plain CV's %d", res.Method, res.C, res.Kernel.Gamma, got, n, cold)
	}
}

func TestRandomTune(t *testing.T) {
	d := heartHead(t, 100)
	s := RandomSettings{Common: Common{Seed: 3}, Budget: 20}
	res, err := s.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iter != 20 || len(res.Trace) != 20 || res.Figures[3].Value != 20 {
		t.Fatalf("budget 20: %d iterations, %d trace steps, %g evaluations", res.Iter, len(res.Trace), res.Figures[3].Value)
	}
	// The chosen point is a draw, and no draw scores more.
	draws := randomDraws(3, 20, 0, Space{})
	if !slices.ContainsFunc(draws, func(p [2]float64) bool { return p[0] == math.Log2(res.C) && p[1] == math.Log2(res.Kernel.Gamma) }) {
		t.Fatalf("chosen (log2 C, log2 γ) = (%g, %g) is not one of the draws", math.Log2(res.C), math.Log2(res.Kernel.Gamma))
	}
	checkChosen(t, res, 100)
	// The trace is the best so far: it never falls, and ends at the answer.
	for i := 1; i < len(res.Trace); i++ {
		if res.Trace[i].Objective < res.Trace[i-1].Objective {
			t.Fatalf("trace falls at step %d: %g after %g", i, res.Trace[i].Objective, res.Trace[i-1].Objective)
		}
	}
	if res.Trace[19].Objective != res.CriterionEnd || res.CriterionStart != res.Trace[0].Objective {
		t.Errorf("trace ends at %g, start %g; criterion %g → %g", res.Trace[19].Objective, res.Trace[0].Objective, res.CriterionStart, res.CriterionEnd)
	}
	if res.Solves < 20 || res.Solves > 100 {
		t.Errorf("%d SVM solves for 20 evaluations of 5 folds, want 20..100", res.Solves)
	}
}

// scikit-learn's HalvingGridSearchCV schedule for the 110 grid points (or
// 10 γ with C fixed) with 5 folds: r_0 = max(20, n/3^(rounds needed - 1)),
// rounds = min(1 + ⌊log₃(n/r_0)⌋, 1 + ⌊log₃ candidates⌋).
func TestHalvingSchedule(t *testing.T) {
	for _, c := range []struct{ cand, n, r0, rounds int }{
		{110, 100, 20, 2},    // 20, 60 rows
		{110, 189, 20, 3},    // 20, 60, 180
		{110, 5000, 61, 5},   // 61, 183, 549, 1647, 4941
		{10, 100, 20, 2},     // C fixed: 20, 60
		{110, 12, 12, 1},     // fewer rows than r_0: one round on all
		{110, 20000, 246, 5}, // 20000/81
	} {
		r0, rounds := halvingSchedule(c.cand, c.n, 5)
		if r0 != c.r0 || rounds != c.rounds {
			t.Errorf("halvingSchedule(%d, %d, 5) = (%d, %d), want (%d, %d)", c.cand, c.n, r0, rounds, c.r0, c.rounds)
		}
	}
}

func TestHalvingTune(t *testing.T) {
	d := heartHead(t, 189)
	s := HalvingSettings{Common: Common{Seed: 3}}
	res, err := s.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	// 110 points on 20 rows, the best 37 on 60, the best 13 on 180.
	if res.Iter != 3 || res.Figures[3].Value != 110+37+13 || res.Figures[4].Value != 180 {
		t.Fatalf("%d rounds, %g evaluations, last on %g rows; want 3, 160, 180", res.Iter, res.Figures[3].Value, res.Figures[4].Value)
	}
	if !slices.Contains(gridLog2C, math.Log2(res.C)) || !slices.Contains(gridLog2Gamma, math.Log2(res.Kernel.Gamma)) {
		t.Fatalf("chose C = %g, γ = %g: not a grid point", res.C, res.Kernel.Gamma)
	}
	again, err := s.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if again.C != res.C || again.Kernel.Gamma != res.Kernel.Gamma || again.Solves != res.Solves {
		t.Errorf("the same seed chose (%g, %g) with %d solves, then (%g, %g) with %d", res.C, res.Kernel.Gamma, res.Solves, again.C, again.Kernel.Gamma, again.Solves)
	}
}

func TestBOTune(t *testing.T) {
	t.Parallel()
	d := heartHead(t, 100)
	s := BOSettings{Common: Common{Seed: 3}, Budget: 15}
	res, err := s.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iter != 15 || len(res.Trace) != 11 { // the 5 initial points are step 0
		t.Fatalf("budget 15: %d evaluations, %d trace steps; want 15 and 11", res.Iter, len(res.Trace))
	}
	checkChosen(t, res, 100)
	again, _ := s.tune(context.Background(), d)
	if again.C != res.C || again.Kernel.Gamma != res.Kernel.Gamma {
		t.Errorf("the same seed chose (%g, %g), then (%g, %g)", res.C, res.Kernel.Gamma, again.C, again.Kernel.Gamma)
	}
	// The search is at least as good as its own initial design.
	if res.CriterionEnd < res.Trace[0].Objective {
		t.Errorf("best %g below the initial design's %g", res.CriterionEnd, res.Trace[0].Objective)
	}
}

func TestBOARD(t *testing.T) {
	d := heartHead(t, 80)
	res, err := BOSettings{Common: Common{Seed: 3}, Param: "ard", Budget: 10}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Param != "ard" || len(res.Kernel.Diag) != d.Dim() || res.Iter != 10 {
		t.Fatalf("bo:ard: param %q, %d kernel weights, %d evaluations; want ard, %d, 10", res.Param, len(res.Kernel.Diag), res.Iter, d.Dim())
	}
	for j, q := range res.Kernel.Diag {
		if l := math.Log2(q / 2); l < -15-1e-9 || l > 3+1e-9 {
			t.Errorf("γ_%d = 2^%g outside the box", j+1, l)
		}
	}
	// One feature more than BOARDMaxFeatures: refused before any work,
	// saying how many and why.
	wide := &dataio.Dataset{X: mat.NewDense(10, BOARDMaxFeatures+1, nil), Y: make([]float64, 10)}
	for i := range wide.Y {
		wide.Y[i] = float64(2*(i%2) - 1)
		for j := range BOARDMaxFeatures + 1 {
			wide.X.Set(i, j, float64(i*j%7))
		}
	}
	_, err = BOSettings{Param: "ard"}.tune(context.Background(), wide)
	if err == nil || !strings.Contains(err.Error(), "bo:ard refuses 20 features, more than 19") || !strings.Contains(err.Error(), "21 dimensions") {
		t.Errorf("bo:ard on 20 features: %v", err)
	}
}

func TestBaselineChecks(t *testing.T) {
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{RandomSettings{Budget: -1}, "random: budget -1: want a number of CV evaluations between 1 and 100000 (0 for the default 60)"},
		{BOSettings{Budget: -2}, "bo: budget -2: want a number of CV evaluations between 1 and 100000 (0 for the default 30)"},
		{BOSettings{Budget: 5}, "bo: budget 5: want at least 6: 5 initial points and one chosen by expected improvement (0 for the default 30)"},
		{BOSettings{Param: "full"}, `bo: param "full": want iso, ard`},
		{HalvingSettings{Common: Common{Folds: 1}}, "halving: folds 1: want at least 2 (0 for the default 5)"},
	} {
		err := c.s.Check()
		var oe *OptionError
		if !errors.As(err, &oe) || err.Error() != c.want {
			t.Errorf("%#v: %v, want %q", c.s, err, c.want)
		}
	}
}

// The baselines are registered but opt-in: compare's default list is the
// six methods it had before them.
func TestDefaultsLeaveOutBaselines(t *testing.T) {
	if got := Defaults(); !slices.Equal(got, []string{"svm", "spd", "gi", "lccp", "rcsc", "twolevel"}) {
		t.Errorf("Defaults() = %v", got)
	}
	if got := Names(); !slices.Equal(got[6:], []string{"random", "halving", "bo"}) {
		t.Errorf("Names() = %v", got)
	}
}
