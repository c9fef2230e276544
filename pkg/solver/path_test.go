package solver

import (
	"context"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// asResult is r as Solve's Result (G from the decision values: for the
// L1 margin F_i = y_i(G_i + 1) - ρ), for kkt.
func asResult(r SVCResult, y []float64) Result {
	g := make([]float64, len(y))
	for i := range g {
		g[i] = y[i]*(r.F[i]+r.Rho) - 1
	}
	return Result{Alpha: r.Alpha, G: g, Rho: r.Rho, Obj: r.Obj, Iter: r.Iter, Status: r.Status, Gap: r.Gap}
}

// Every solve of a path is a solve of its C to the tolerance (the KKT
// conditions checked against the matrix, not the solver's own gradient),
// with the objective of a fresh solve, up and down the Cs, with class
// weights and with a cache too small for the problem; and after the first
// C it computes fewer kernel columns than warm-started TrainSVC.
func TestSVCPathSolvesEachC(t *testing.T) {
	x, y := mixture(400, 5, 1, 11)
	q := gram(x, rbf(0.5))
	ctx := context.Background()
	Cs := []float64{0.125, 0.5, 2, 8, 32, 128, 512, 32, 1}
	for _, c := range []struct {
		name   string
		wp, wn float64
		s      Settings
	}{
		{"plain", 0, 0, Settings{Eps: 1e-6}},
		{"weighted", 2, 0.5, Settings{Eps: 1e-6}},
		{"tiny-cache", 0, 0, Settings{Eps: 1e-6, CacheBytes: 1}},
		{"default-eps", 0, 0, Settings{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewSVCPath(q, y, c.wp, c.wn, c.s)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			eps := c.s.Eps
			if eps == 0 {
				eps = 1e-3
			}
			var prev []float64
			pathCols, warmCols := 0, 0
			for k, C := range Cs {
				got, err := p.Train(ctx, C)
				if err != nil {
					t.Fatal(err)
				}
				if got.Status != status.Converged {
					t.Fatalf("C = %g: status %v", C, got.Status)
				}
				pr := Problem{Q: q, Y: y, Cp: C, Cn: C}
				if c.wp != 0 {
					pr.Cp, pr.Cn = C*c.wp, C*c.wn
				}
				kkt(t, q, pr, asResult(got, y), eps)
				fresh, err := TrainSVC(ctx, q, y, SVCParams{C: C, WeightPos: c.wp, WeightNeg: c.wn}, c.s, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Both are within eps of the optimum in the KKT gap: their
				// objectives agree to about eps times the objective's scale.
				if d := math.Abs(got.Obj - fresh.Obj); d > 10*eps*(1+math.Abs(fresh.Obj)) {
					t.Errorf("C = %g: path objective %.10g, fresh %.10g", C, got.Obj, fresh.Obj)
				}
				if k > 0 && Cs[k] > Cs[k-1] { // the old α is feasible for TrainSVC's warm start
					pathCols += got.Columns
					{
						warm, err := TrainSVC(ctx, q, y, SVCParams{C: C, WeightPos: c.wp, WeightNeg: c.wn}, c.s, prev)
						if err != nil {
							t.Fatal(err)
						}
						warmCols += warm.Columns
					}
				}
				prev = got.Alpha
			}
			if pathCols >= warmCols {
				t.Errorf("the path computed %d kernel columns after its first C, warm-started solves %d (ascending Cs only)", pathCols, warmCols)
			}
		})
	}
}

// A path's next solve at the same C starts at the optimum with its
// gradient: no iteration and no kernel column, where a warm start from the
// same α computes a column per support vector for its gradient.
func TestSVCPathKeepsGradient(t *testing.T) {
	x, y := mixture(300, 4, 1, 5)
	q := gram(x, rbf(1))
	ctx := context.Background()
	s := Settings{Eps: 1e-6}
	p, err := NewSVCPath(q, y, 0, 0, s)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first, err := p.Train(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Train(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	if again.Iter != 0 || again.Columns != 0 || again.Entries != 0 {
		t.Errorf("restart at the optimum: %d iterations, %d columns, %d entries; want none", again.Iter, again.Columns, again.Entries)
	}
	if again.Obj != first.Obj || again.Rho != first.Rho {
		t.Errorf("restart changed the solution: obj %.17g → %.17g, ρ %.17g → %.17g", first.Obj, again.Obj, first.Rho, again.Rho)
	}
	warm, err := TrainSVC(ctx, q, y, SVCParams{C: 4}, s, first.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	if warm.Columns < first.NSV {
		t.Errorf("a warm start computed %d columns for %d support vectors", warm.Columns, first.NSV)
	}
}

// A path refuses what TrainSVC refuses.
func TestSVCPathInvalid(t *testing.T) {
	x, y := mixture(20, 2, 1, 1)
	q := gram(x, rbf(1))
	if _, err := NewSVCPath(q, make([]float64, 20), 0, 0, Settings{}); err == nil {
		t.Error("labels 0 accepted")
	}
	one := make([]float64, 20)
	for i := range one {
		one[i] = 1
	}
	if _, err := NewSVCPath(q, one, 0, 0, Settings{}); err == nil {
		t.Error("one class accepted")
	}
	if _, err := NewSVCPath(q, y, -1, 0, Settings{}); err == nil {
		t.Error("negative weight accepted")
	}
	p, err := NewSVCPath(q, y, 0, 0, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, C := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := p.Train(context.Background(), C); err == nil {
			t.Errorf("C = %g accepted", C)
		}
	}
}
