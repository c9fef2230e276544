package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// lccpToy returns n points in d dimensions whose label depends on the first
// two features only (the others are noise), separable when gap > 0.
func lccpToy(n, d int, gap float64, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; {
		row := make([]float64, d)
		for k := range row {
			row[k] = rng.NormFloat64()
		}
		s := row[0] + 0.5*row[1]
		if math.Abs(s) < gap {
			continue
		}
		y[i] = 1
		if s < 0 {
			y[i] = -1
		}
		X.SetRow(i, row)
		i++
	}
	return X, y
}

// TestLCCPWeightedL1 checks the O(n)-per-feature sorted sum against the dense
// kernel.L1GradTheta with the weight matrix vvᵀ (θ = 1, so both are
// Σ_ij v_iv_j|x_ik - x_jk|), with ties in the data and signed weights.
func TestLCCPWeightedL1(t *testing.T) {
	X, y := lccpToy(37, 4, 0, 1)
	// Ties: copy some values.
	X.Set(5, 0, X.At(6, 0))
	X.Set(7, 2, X.At(9, 2))
	X.Set(8, 2, X.At(9, 2))
	p := newLCCPProblem(X, y, false, solver.L2, 1, solver.Settings{})
	rng := rand.New(rand.NewPCG(2, 2))
	v := make([]float64, 37)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	got := make([]float64, 4)
	p.weightedL1(got, v)
	var C mat.SymDense
	C.SymOuterK(1, mat.NewDense(37, 1, v))
	want := make([]float64, 4)
	kernel.L1GradTheta(want, X, []float64{1, 1, 1, 1}, &C)
	for k := range got {
		if relErr(got[k], want[k]) > 1e-12 {
			t.Errorf("feature %d: sorted sum %.15g, kernel.L1GradTheta %.15g", k, got[k], want[k])
		}
	}
}

// TestLCCPGradients checks ∂‖w‖²/∂θ and ∂R²/∂θ (multi and single θ, L2 and
// hard margins) by central differences of the QP optimal values.
func TestLCCPGradients(t *testing.T) {
	ctx := context.Background()
	X, y := lccpToy(40, 3, 0.3, 3)
	set := solver.Settings{Eps: 1e-11}
	for _, tc := range []struct {
		name   string
		single bool
		margin solver.Margin
		C      float64
		phi    []float64
	}{
		{"multi-l2", false, solver.L2, 2, []float64{0.7, 1.3, 2.1}},
		{"single-l2", true, solver.L2, 0.5, []float64{0.8}},
		{"multi-hard", false, solver.Hard, 0, []float64{1, 0.5, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newLCCPProblem(X, y, tc.single, tc.margin, tc.C, set)
			K, err := p.gram(tc.phi)
			if err != nil {
				t.Fatal(err)
			}
			gw := make([]float64, len(tc.phi))
			gr := make([]float64, len(tc.phi))
			if _, _, err := p.margin2(ctx, K, gw); err != nil {
				t.Fatal(err)
			}
			if _, _, err := p.radius(ctx, kernel.Precomputed(K), nil, gr); err != nil {
				t.Fatal(err)
			}
			// y = (‖w‖², R²) at θ, each QP solved from a cold start: no bias
			// from warm starts.
			at := func(y, ph []float64) {
				K, err := p.gram(ph)
				if err != nil {
					t.Fatal(err)
				}
				p.alpha = nil
				if y[0], _, err = p.margin2(ctx, K, nil); err != nil {
					t.Fatal(err)
				}
				if y[1], _, err = p.radius(ctx, kernel.Precomputed(K), nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			steps := make([]float64, len(tc.phi))
			for j, v := range tc.phi {
				steps[j] = 1e-5 * v
			}
			jac := mat.NewDense(2, len(tc.phi), nil)
			jac.SetRow(0, gw)
			jac.SetRow(1, gr)
			fdcheck.Jacobian(t, "", at, tc.phi, jac, fdcheck.Settings{
				Steps: steps, Scale: fdcheck.ScaleEntry,
				Label: func(i, j int) string { return fmt.Sprintf("%s/∂θ[%d]", []string{"∂‖w‖²", "∂R²"}[i], j) },
			})
			for j := range tc.phi {
				if gw[j] < 0 || gr[j] > 0 {
					t.Errorf("θ[%d]: ‖w‖² must grow and R² shrink with θ: got %g, %g", j, gw[j], gr[j])
				}
			}
		})
	}
}

// TestLCCPSurrogateGradient checks the gradient of the inner convex problem
// log R²(e^s) + e^sᵀg by central differences in s = log θ.
func TestLCCPSurrogateGradient(t *testing.T) {
	ctx := context.Background()
	X, y := lccpToy(35, 4, 0, 4)
	p := newLCCPProblem(X, y, false, solver.L2, 1, solver.Settings{Eps: 1e-11})
	s := []float64{0.1, -0.4, 0.8, 0}
	g := []float64{0.3, 0.05, 0.9, 0.2}
	grad := make([]float64, 4)
	if _, _, err := p.surrogate(ctx, s, g, grad); err != nil {
		t.Fatal(err)
	}
	f := func(ss []float64) float64 {
		p.beta = nil
		v, _, err := p.surrogate(ctx, ss, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	fdcheck.Grad(t, "∂F/∂s", f, s, grad, fdcheck.Settings{Step: 1e-5, Tol: 1e-6, Scale: fdcheck.ScaleEntryOrOne})
}

// TestLCCPRadiusColumns: the surrogate's radius QP on columns computed on
// demand from X/θ gives the β and R² of the QP on the Gram matrix to the
// last bit, cold and warm-started (the entries are the same l1dist values).
func TestLCCPRadiusColumns(t *testing.T) {
	ctx := context.Background()
	X, y := lccpToy(60, 5, 0, 6)
	p := newLCCPProblem(X, y, false, solver.L2, 1, solver.Settings{Eps: 1e-6})
	var beta0 []float64
	for _, phi := range [][]float64{{1, 1, 1, 1, 1}, {0.5, 2, 1, 3, 0.7}, {0.6, 2, 1.1, 3, 0.7}} {
		K, err := p.gram(phi)
		if err != nil {
			t.Fatal(err)
		}
		k, err := kernel.NewL1(p.thetaOf(phi))
		if err != nil {
			t.Fatal(err)
		}
		r2g, bg, err := p.radius(ctx, kernel.Precomputed(K), beta0, nil)
		if err != nil {
			t.Fatal(err)
		}
		r2c, bc, err := p.radius(ctx, k.Rows(X), beta0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r2g != r2c || !slices.Equal(bg, bc) {
			t.Errorf("φ = %v: R² %.17g (Gram), %.17g (columns); β equal: %v", phi, r2g, r2c, slices.Equal(bg, bc))
		}
		beta0 = bg
	}
}

// TestLCCPSurrogateConvex checks the convexity the procedure relies on
// (Boughorbel §3.2: log R² convex in θ) along random segments in θ.
func TestLCCPSurrogateConvex(t *testing.T) {
	ctx := context.Background()
	X, y := lccpToy(30, 3, 0, 5)
	p := newLCCPProblem(X, y, false, solver.L2, 1, solver.Settings{Eps: 1e-11})
	rng := rand.New(rand.NewPCG(5, 5))
	logR2 := func(theta []float64) float64 {
		K, err := p.gram(theta)
		if err != nil {
			t.Fatal(err)
		}
		r2, _, err := p.radius(ctx, kernel.Precomputed(K), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return math.Log(r2)
	}
	for trial := 0; trial < 20; trial++ {
		a, b := make([]float64, 3), make([]float64, 3)
		for k := range a {
			a[k] = math.Exp(2 * rng.NormFloat64())
			b[k] = math.Exp(2 * rng.NormFloat64())
		}
		m := make([]float64, 3)
		for k := range m {
			m[k] = (a[k] + b[k]) / 2
		}
		if fm, fa, fb := logR2(m), logR2(a), logR2(b); fm > (fa+fb)/2+1e-9 {
			t.Errorf("log R² not midpoint-convex: f(mid) = %g > (%g + %g)/2", fm, fa, fb)
		}
	}
}

// TestLCCPCentredKernel checks that the centred kernel
// k̃(x,z) = k(x,z) - k(x,x0) - k(z,x0) + k(x0,x0) (PSD) gives the same R² as the
// plain conditionally positive definite kernel, with and without ν, and the
// same ‖w‖² = Σα for the SVM (L2 and hard margins).
func TestLCCPCentredKernel(t *testing.T) {
	ctx := context.Background()
	X, y := lccpToy(40, 3, 0.2, 6)
	k, _ := kernel.NewL1([]float64{0.5, 1, 2})
	K := kernel.Precomputed(k.Gram(X))
	set := solver.Settings{Eps: 1e-10}
	for _, x0 := range []int{0, 17} {
		Kc := kernel.Centred(K, x0)
		for _, nu := range []float64{0, 0.5} {
			a, err := solver.Radius(ctx, K, nu, set, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := solver.Radius(ctx, Kc, nu, set, nil)
			if err != nil {
				t.Fatal(err)
			}
			if relErr(a.R2, b.R2) > 1e-8 {
				t.Errorf("x0 = row %d, ν = %g: R² plain %.12g, centred %.12g", x0, nu, a.R2, b.R2)
			}
		}
		for _, m := range []solver.Margin{solver.L2, solver.Hard} {
			a, err := solver.TrainSVC(ctx, K, y, solver.SVCParams{Margin: m, C: 1}, set, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := solver.TrainSVC(ctx, Kc, y, solver.SVCParams{Margin: m, C: 1}, set, nil)
			if err != nil {
				t.Fatal(err)
			}
			var sa, sb float64
			for i := range a.Alpha {
				sa += a.Alpha[i]
				sb += b.Alpha[i]
			}
			if relErr(sa, sb) > 1e-7 {
				t.Errorf("x0 = row %d, %v margin: ‖w‖² = Σα plain %.12g, centred %.12g", x0, m, sa, sb)
			}
		}
	}
}

func loadIDA(t testing.TB, name string, realisation int) (train, test *dataio.Dataset) {
	t.Helper()
	d, err := dataio.Load("../../testdata/ida/"+name, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Splits) <= realisation {
		t.Fatalf("%s has %d realisations", name, len(d.Splits))
	}
	sp := d.Splits[realisation]
	return d.Subset(sp.Train), d.Subset(sp.Test)
}

// TestLCCPMonotone runs the LCCP on the first IDA breast-cancer and banana
// realisations and checks that J never increases (CCCP, Theorem 1) and that
// the run is reported as it went.
func TestLCCPMonotone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name, param string
		C           float64
	}{{"breast-cancer", "multi", 1}, {"breast-cancer", "single", 1}, {"banana", "multi", 10}} {
		t.Run(tc.name+"-"+tc.param, func(t *testing.T) {
			train, _ := loadIDA(t, tc.name, 0)
			if tc.name == "banana" {
				train = train.Subset(seq(150))
			}
			var steps []Step
			// Eps = 1e-3 is what the CLI passes (LIBSVM's default); the LCCP
			// must still tighten its own QPs enough for a monotone J.
			rec := func(s Step) { steps = append(steps, s) }
			res, err := LCCPSettings{Common: Common{C: tc.C, Eps: 1e-3, Recorder: rec}, Param: tc.param, MaxIter: 40}.tune(ctx, train)
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) < 2 || len(steps) != len(res.Trace) {
				t.Fatalf("%d steps recorded, trace %d", len(steps), len(res.Trace))
			}
			for i := 1; i < len(steps); i++ {
				if steps[i].Objective > steps[i-1].Objective*(1+1e-9) {
					t.Errorf("J increased at step %d: %.12g → %.12g", i, steps[i-1].Objective, steps[i].Objective)
				}
			}
			for _, n := range res.Notes {
				if strings.Contains(n.String(), "increased") {
					t.Errorf("note: %s", n)
				}
			}
			if !(res.CriterionEnd < res.CriterionStart) {
				t.Errorf("J %.6g → %.6g: no decrease", res.CriterionStart, res.CriterionEnd)
			}
			if res.Kernel.Kind != kernel.KindL1 || len(res.Kernel.Theta) != train.Dim() || res.Margin != solver.L2 || res.C != tc.C {
				t.Errorf("result kernel %+v margin %v C %g", res.Kernel, res.Margin, res.C)
			}
			if tc.param == "single" {
				for _, v := range res.Kernel.Theta {
					if v != res.Kernel.Theta[0] {
						t.Errorf("single θ: %v", res.Kernel.Theta)
						break
					}
				}
			}
			t.Logf("J %.6g → %.6g in %d steps (%v), θ = %.3g", res.CriterionStart, res.CriterionEnd, res.Iter, res.Status, res.Kernel.Theta)
		})
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestLCCPHardMargin: separable data run with the hard margin; data with a
// point repeated under both labels fail with ErrNotSeparable.
func TestLCCPHardMargin(t *testing.T) {
	ctx := context.Background()
	X, y := lccpToy(40, 3, 0.3, 7)
	ds := &dataio.Dataset{Name: "toy", X: X, Y: y}
	res, err := LCCPSettings{Margin: "hard", MaxIter: 30}.tune(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.CriterionEnd < res.CriterionStart) || res.Margin != solver.Hard {
		t.Errorf("hard margin: J %.6g → %.6g, margin %v", res.CriterionStart, res.CriterionEnd, res.Margin)
	}
	// The relevant features 1–2 should end with smaller θ (larger weight 1/θ)
	// than the noise feature 3.
	if th := res.Kernel.Theta; !(th[0] < th[2] && th[1] < th[2]) {
		t.Errorf("θ = %v: want the noise feature 3 widest", th)
	}
	X2 := mat.DenseCopyOf(X)
	X2.SetRow(1, X.RawRowView(0))
	y2 := append([]float64(nil), y...)
	y2[1] = -y2[0]
	_, err = LCCPSettings{Margin: "hard"}.tune(ctx, &dataio.Dataset{Name: "dup", X: X2, Y: y2})
	if !errors.Is(err, solver.ErrNotSeparable) {
		t.Fatalf("non-separable data, hard margin: err = %v, want ErrNotSeparable", err)
	}
	if !strings.Contains(err.Error(), "lccp") {
		t.Errorf("error %q does not name the method", err)
	}
}

func TestLCCPOptions(t *testing.T) {
	ctx := context.Background()
	X, y := lccpToy(30, 2, 0, 8)
	ds := &dataio.Dataset{Name: "toy", X: X, Y: y}
	for _, s := range []LCCPSettings{{Param: "diag"}, {Margin: "l1"}, {Common: Common{C: -2}}} {
		if _, err := s.tune(ctx, ds); err == nil || !strings.HasPrefix(err.Error(), "lccp: ") {
			t.Errorf("settings %+v: error %v, want one starting \"lccp: \"", s, err)
		}
	}
	// C chosen by cross-validation when not given.
	res, err := LCCPSettings{Common: Common{Seed: 3}, MaxIter: 5}.tune(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	onGrid := false
	for _, c := range lccpCGrid() {
		onGrid = onGrid || c == res.C
	}
	if !onGrid || !strings.Contains(res.Init, "cross-validation") {
		t.Errorf("C = %g, init %q", res.C, res.Init)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (LCCPSettings{Common: Common{C: 1}}).tune(cctx, ds); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

// BenchmarkLCCPWeightedL1 compares the O(nd log n)-once, O(nd)-per-call sorted
// sum of a rank-one weighted L1 gradient with the dense O(n²d)
// kernel.L1GradTheta.
func BenchmarkLCCPWeightedL1(b *testing.B) {
	X, y := lccpToy(400, 9, 0, 1)
	p := newLCCPProblem(X, y, false, solver.L2, 1, solver.Settings{})
	v := make([]float64, 400)
	for i := range v {
		v[i] = y[i] * float64(i%7)
	}
	dst := make([]float64, 9)
	b.Run("sorted", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.weightedL1(dst, v)
		}
	})
	b.Run("dense", func(b *testing.B) {
		var C mat.SymDense
		C.SymOuterK(1, mat.NewDense(400, 1, v))
		theta := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}
		b.ReportAllocs()
		for b.Loop() {
			kernel.L1GradTheta(dst, X, theta, &C)
		}
	})
}

// BenchmarkLCCPTune measures a whole LCCP run (C given) on the first IDA
// breast-cancer realisation (200×9).
func BenchmarkLCCPTune(b *testing.B) {
	train, _ := loadIDA(b, "breast-cancer", 0)
	for b.Loop() {
		if _, err := (LCCPSettings{Common: Common{C: 1}}).tune(context.Background(), train); err != nil {
			b.Fatal(err)
		}
	}
}
