package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestWilcoxonMatchesScipy checks the normal approximation against p-values
// computed once with Debian's scipy 1.10.1, method="approx"
// (testdata/wilcoxon/make_reference.py). Every reference case has ties or
// zero differences, so the default test (scipy's method="auto") uses the
// approximation there too and must give the same p, except on at most
// ExactTiesMaxN pairs, which scipy 1.15's "auto" and WilcoxonSignedRank
// test exactly over the signs of the mid-ranks (TestWilcoxonExactWithTies).
func TestWilcoxonMatchesScipy(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/wilcoxon/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases map[string]struct {
			X, Y      []float64
			Statistic float64
			Pvalue    float64
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 5 {
		t.Fatalf("reference has %d cases, want ≥ 5", len(ref.Cases))
	}
	for name, c := range ref.Cases {
		t.Run(name, func(t *testing.T) {
			w := WilcoxonApprox(c.X, c.Y)
			auto := WilcoxonSignedRank(c.X, c.Y)
			if len(c.X) <= ExactTiesMaxN {
				d := make([]float64, len(c.X))
				for i := range d {
					d[i] = c.X[i] - c.Y[i]
				}
				if want := bruteTiedP(d); !auto.Exact || math.Abs(auto.P-want) > 1e-15 || auto.Statistic != w.Statistic {
					t.Errorf("auto %+v, want exact p = %v (ties or zeros in at most %d pairs)", auto, want, ExactTiesMaxN)
				}
			} else if auto != w || auto.Exact {
				t.Errorf("auto %+v, want the approximation %+v (ties or zeros)", auto, w)
			}
			if w.Statistic != c.Statistic {
				t.Errorf("statistic = %v, scipy %v", w.Statistic, c.Statistic)
			}
			if math.Abs(w.P-c.Pvalue) > 1e-12*math.Max(1, c.Pvalue) {
				t.Errorf("p = %.17g, scipy %.17g", w.P, c.Pvalue)
			}
			// The test is symmetric in its arguments.
			if w2 := WilcoxonSignedRank(c.Y, c.X); math.Abs(w2.P-auto.P) > 1e-15 {
				t.Errorf("p(y,x) = %v != p(x,y) = %v", w2.P, auto.P)
			}
		})
	}
}

func TestWilcoxonScaledAccuracies(t *testing.T) {
	// The same data as percentages and as fractions k/100 must give the same
	// test: float differences of fractions tie where the integers tie.
	x := []float64{80, 82, 79, 85, 90, 70, 76, 81, 88, 84}
	y := []float64{78, 80, 80, 81, 86, 72, 70, 80, 85, 83}
	xs, ys := make([]float64, len(x)), make([]float64, len(y))
	for i := range x {
		xs[i], ys[i] = x[i]/100, y[i]/100
	}
	a, b := WilcoxonSignedRank(x, y), WilcoxonSignedRank(xs, ys)
	if a.Statistic != b.Statistic || math.Abs(a.P-b.P) > 1e-12 {
		t.Fatalf("percent: %+v, fractions: %+v", a, b)
	}
}

func TestWilcoxonAllZero(t *testing.T) {
	w := WilcoxonSignedRank([]float64{1, 2, 3}, []float64{1, 2, 3})
	if w.N != 0 || !math.IsNaN(w.P) {
		t.Fatalf("got %+v, want N=0 and NaN p", w)
	}
}
