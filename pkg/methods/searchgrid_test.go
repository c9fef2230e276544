package methods

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// TestSearchGrid: SearchGrid scores every point of the user's grid once,
// keeps the most correct, and breaks ties by the grid's rule (γ nearest γ_h
// in log2, then the smaller C), the rule selectC and svm's grid use.
func TestSearchGrid(t *testing.T) {
	d := heartHead(t, 80)
	var sp Space
	if err := sp.Log2C.Set("16,20,2"); err != nil {
		t.Fatal(err)
	}
	if err := sp.Log2Gamma.Set("-1,-15,-2"); err != nil {
		t.Fatal(err)
	}
	s := SVMSettings{Space: sp}
	h := math.Log2(moderateGamma(kernel.SquaredDistances(d.X)))
	// All points tie: the γ of the grid nearest γ_h, the smallest C.
	calls := 0
	g, err := SearchGrid(context.Background(), s, []*dataio.Dataset{d}, func(_ context.Context, C, gamma float64) (int, int, error) {
		calls++
		return 7, 10, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	nearest, best := 0.0, math.Inf(1)
	for l := -1.0; l >= -15; l -= 2 {
		if dist := math.Abs(l - h); dist < best-1e-9 {
			nearest, best = l, dist
		}
	}
	if calls != 3*8 || g.C != math.Exp2(16) || g.Gamma != math.Exp2(nearest) || g.Accuracy() != 0.7 {
		t.Errorf("all tied (γ_h = 2^%.3g): %d calls, chose (%g, 2^%g) at %g; want 24 calls, (2^16, 2^%g) at 0.7",
			h, calls, g.C, math.Log2(g.Gamma), g.Accuracy(), nearest)
	}
	// One best point wins whatever its distance.
	g, err = SearchGrid(context.Background(), s, []*dataio.Dataset{d}, func(_ context.Context, C, gamma float64) (int, int, error) {
		if C == math.Exp2(20) && gamma == math.Exp2(-15) {
			return 9, 10, nil
		}
		return 7, 10, nil
	})
	if err != nil || g.C != math.Exp2(20) || g.Gamma != math.Exp2(-15) || g.Correct != 9 || g.Total != 10 {
		t.Errorf("one best point: %+v, %v; want (2^20, 2^-15) with 9 of 10", g, err)
	}
	// The scorer's error comes back as it is; a grid with a fixed C is refused.
	boom := errors.New("boom")
	if _, err := SearchGrid(context.Background(), s, []*dataio.Dataset{d}, func(context.Context, float64, float64) (int, int, error) { return 0, 0, boom }); err != boom {
		t.Errorf("scorer's error: %v, want it as it is", err)
	}
	s.C = 1
	var oe *OptionError
	if _, err := SearchGrid(context.Background(), s, []*dataio.Dataset{d}, nil); !errors.As(err, &oe) || oe.Option != "log2c" {
		t.Errorf("C grid with a fixed C: %v, want an OptionError on log2c", err)
	}
}
