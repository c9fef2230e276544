package methods

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// TestLog2GridSet: grid.py's begin,end,step, end included when a step
// reaches it, negative steps, and the refusals.
func TestLog2GridSet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
		err  string
	}{
		{in: "-5,15,2", want: gridLog2C},
		{in: "3,-15,-2", want: gridLog2Gamma},
		{in: "-1,4,2", want: []float64{-1, 1, 3}}, // 4 is not reached
		{in: "0,1,0.25", want: []float64{0, 0.25, 0.5, 0.75, 1}},
		{in: "2,2,1", want: []float64{2}},
		{in: "1,-3", want: []float64{1, -1, -3}}, // step 2 towards end
		{in: " -1 , 1 , 1 ", want: []float64{-1, 0, 1}},
		{in: "-1,3,0", err: "step 0"},
		{in: "3,-15,2", err: "leads away from end"},
		{in: "-5,15,-2", err: "leads away from end"},
		{in: "1,999,0.5", err: "more than 1000"},
		{in: "1,2000,1", err: "within ±1000"},
		{in: "1,x,1", err: `"x" is not a number`},
		{in: "1,NaN,1", err: "not a number"},
		{in: "1", err: "want begin,end,step"},
		{in: "1,2,3,4", err: "want begin,end,step"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var g Log2Grid
			err := g.Set(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Set(%q) = %v, want an error with %q", tc.in, err, tc.err)
				}
				if g.IsSet() {
					t.Errorf("a refused value set the grid: %v", g)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Points(nil); !slices.Equal(got, tc.want) {
				t.Errorf("Points = %v, want %v", got, tc.want)
			}
			var again Log2Grid
			if err := again.Set(g.String()); err != nil || again != g {
				t.Errorf("String %q does not read back: %v, %v", g.String(), again, err)
			}
		})
	}
	if got := (Log2Grid{}).Points(gridLog2C); !slices.Equal(got, gridLog2C) {
		t.Errorf("the zero grid's points are %v, want the default", got)
	}
}

// TestSpaceBox: random and bo search the box between begin and end, in
// either order; grid.py's box without a grid.
func TestSpaceBox(t *testing.T) {
	var sp Space
	if a, b, c, d := sp.box(); a != -5 || b != 15 || c != -15 || d != 3 {
		t.Errorf("default box %v %v %v %v", a, b, c, d)
	}
	_ = sp.Log2C.Set("3,-1,-1")
	_ = sp.Log2Gamma.Set("-4,-2,1")
	for _, p := range randomDraws(1, 200, 0, sp) {
		if p[0] < -1 || p[0] > 3 || p[1] < -4 || p[1] > -2 {
			t.Fatalf("draw %v outside [-1, 3] × [-4, -2]", p)
		}
	}
	if got, want := randomDraws(5, 60, 0, Space{}), randomDraws(5, 60, 0, Space{Log2C: Log2Grid{-5, 15, 2}, Log2Gamma: Log2Grid{3, -15, -2}}); !slices.Equal(got, want) {
		t.Error("grid.py's box given by hand draws other points than the default")
	}
}

// TestBaselinesStayInTheUsersSpace: halving picks a point of the user's
// grid, bo a point of the user's box.
func TestBaselinesStayInTheUsersSpace(t *testing.T) {
	d := heartHead(t, 80)
	sp := Space{Log2C: Log2Grid{-1, 3, 2}, Log2Gamma: Log2Grid{-2, -6, -2}}
	ctx := context.Background()
	h, err := HalvingSettings{Common: Common{Seed: 1, Workers: 1}, Space: sp}.tune(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if lc, lg := math.Log2(h.C), math.Log2(h.Kernel.Gamma); !slices.Contains([]float64{-1, 1, 3}, lc) || !slices.Contains([]float64{-2, -4, -6}, lg) {
		t.Errorf("halving chose log2 C = %g, log2 γ = %g, off the grid", lc, lg)
	}
	b, err := BOSettings{Common: Common{Seed: 1, Workers: 1}, Space: sp, Budget: 8}.tune(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if lc, lg := math.Log2(b.C), math.Log2(b.Kernel.Gamma); lc < -1-1e-9 || lc > 3+1e-9 || lg < -6-1e-9 || lg > -2+1e-9 {
		t.Errorf("bo chose log2 C = %g, log2 γ = %g, outside [-1, 3] × [-6, -2]", lc, lg)
	}
	if !strings.Contains(b.Init, "the user's box [-1, 3] × [-6, -2]") {
		t.Errorf("bo's Init does not name the box: %s", b.Init)
	}
}

// TestSubproblemWeights: balanced weights n / (k · n_c) per class, per
// pair one-vs-one; one-vs-rest each SVM balanced as a binary problem;
// --weight-pos on multi-class data refused.
func TestSubproblemWeights(t *testing.T) {
	y := []float64{1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1} // 3 against 9
	w, err := cvSet{y: y}.weights(Common{ClassWeight: ClassBalanced})
	if err != nil || len(w) != 1 || w[0] != [2]float64{2, 12.0 / 18} {
		t.Errorf("binary balanced = %v, %v, want [2 0.667]", w, err)
	}
	if w, _ := (cvSet{y: y}).weights(Common{WeightPos: 3}); w[0] != [2]float64{3, 1} {
		t.Errorf("--weight-pos 3 gives %v", w)
	}
	if w, _ := (cvSet{y: y}).weights(Common{}); w != nil {
		t.Errorf("no weights gives %v", w)
	}
	class := []int{0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2} // 2, 4, 6 of 12
	w, err = cvSet{class: class, k: 3}.weights(Common{ClassWeight: ClassBalanced})
	want := [][2]float64{{2, 1}, {2, 2.0 / 3}, {1, 2.0 / 3}} // (0,1), (0,2), (1,2)
	if err != nil || !slices.Equal(w, want) {
		t.Errorf("one-vs-one balanced = %v, %v, want %v", w, err, want)
	}
	w, _ = cvSet{class: class, k: 3, scheme: dataio.OneVsRest}.weights(Common{ClassWeight: ClassBalanced})
	if want := [][2]float64{{3, 0.6}, {1.5, 0.75}, {1, 1}}; !slices.Equal(w, want) {
		t.Errorf("one-vs-rest balanced = %v, want %v", w, want)
	}
	if _, err := (cvSet{class: class, k: 3}).weights(Common{WeightPos: 2}); err == nil || !strings.Contains(err.Error(), "for two classes") {
		t.Errorf("--weight-pos on 3 classes: %v", err)
	}
}

// TestClassWeightsRefused: the methods without per-class C refuse class
// weights, naming the option; the searches take them.
func TestClassWeightsRefused(t *testing.T) {
	for _, in := range All {
		spec := in.build("", "").WithBase(Common{ClassWeight: ClassBalanced})
		err := spec.Check()
		honours := slices.Contains(weightedSearches, in.Name)
		var oe *OptionError
		switch {
		case honours && err != nil:
			t.Errorf("%s refuses class weights: %v", in.Name, err)
		case !honours && (err == nil || !asOption(err, &oe) || oe.Option != "class-weight"):
			t.Errorf("%s: Check = %v, want a refusal of class-weight", in.Name, err)
		}
	}
	for _, c := range []Common{{WeightPos: -1}, {ClassWeight: "inverse"}, {ClassWeight: ClassBalanced, WeightNeg: 2}} {
		if err := (SVMSettings{Common: c}).Check(); err == nil {
			t.Errorf("svm accepts %+v", c)
		}
	}
}

func asOption(err error, oe **OptionError) bool {
	e, ok := err.(*OptionError)
	*oe = e
	return ok
}

// TestUserGridRefinement: on more than GridRows rows the refinement around
// the subset's choice steps half the user's step and stays in the user's
// box; the default grid's refinement is as before (log2 step 1).
func TestUserGridRefinement(t *testing.T) {
	d := heartHead(t, 80)
	sp := Space{Log2C: Log2Grid{-1, 3, 2}, Log2Gamma: Log2Grid{-2, -6, -2}}
	g, err := gridSearchCV(context.Background(), d, Common{Seed: 1, Workers: 1, GridRows: 50}, sp)
	if err != nil {
		t.Fatal(err)
	}
	if g.Coarse == nil {
		t.Fatal("no refinement on 80 rows with GridRows 50")
	}
	lc, lg := math.Log2(g.C), math.Log2(g.Gamma)
	if lc < -1 || lc > 3 || lg < -6 || lg > -2 || math.Abs(lc-math.Round(lc)) > 1e-9 || math.Abs(lg-math.Round(lg)) > 1e-9 {
		t.Errorf("refined choice log2 C = %g, log2 γ = %g: outside [-1, 3] × [-6, -2] or off the half-step lattice", lc, lg)
	}
	if got := (Log2Grid{}).refine(15, 1, true); len(got) != 3 || got[2] != math.Exp2(16) {
		t.Errorf("the default refinement around 2^15 = %v, want 2^14, 2^15, 2^16", got)
	}
	if got := (Log2Grid{-5, 15, 2}).refine(15, 1, true); len(got) != 2 {
		t.Errorf("a user's grid's refinement around its end = %v, want 2 values", got)
	}
}
