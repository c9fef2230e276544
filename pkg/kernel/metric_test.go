package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func TestSpecFromMetric(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    [][]float64
		want Spec
	}{
		{"isotropic", [][]float64{{0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}}, Spec{Kind: KindGaussian, Gamma: 0.1}},
		{"one feature", [][]float64{{3}}, Spec{Kind: KindGaussian, Gamma: 1.5}},
		{"diagonal", [][]float64{{1, 0}, {0, 4}}, Spec{Kind: KindGaussian, Diag: []float64{1, 4}}},
		{"full", [][]float64{{2, 1}, {1, 2}}, Spec{Kind: KindGaussian, Q: [][]float64{{2, 1}, {1, 2}}}},
		// 2⁻³⁹ ≈ 1.8e-12 apart, within 1e-12 of the largest entry 4:
		// accepted and symmetrised to the mean.
		{"rounding", [][]float64{{4, 1 + 0x1p-39}, {1, 4}}, Spec{Kind: KindGaussian, Q: [][]float64{{4, 1 + 0x1p-40}, {1 + 0x1p-40, 4}}}},
	} {
		got, err := SpecFromMetric(tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: spec %+v, want %+v", tc.name, got, tc.want)
		}
		// The spec is one FromSpec accepts, with the same metric.
		k, err := FromSpec(got)
		if err != nil {
			t.Errorf("%s: FromSpec(%+v): %v", tc.name, got, err)
			continue
		}
		// Every entry, exactly: (q_ij + q_ji)/2, γ = q/2 and 2γ are exact in
		// binary for these values.
		d := len(tc.q)
		m := k.(*Gaussian).Metric(d)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				if want := (tc.q[i][j] + tc.q[j][i]) / 2; m.At(i, j) != want {
					t.Errorf("%s: metric[%d][%d] = %v, want %v", tc.name, i, j, m.At(i, j), want)
				}
			}
		}
	}
}

func TestSpecFromMetricErrors(t *testing.T) {
	// Not symmetric: the first pair, 0-based, with both values.
	_, err := SpecFromMetric([][]float64{{2, 1, 0}, {1, 2, 0.5}, {0, 0.25, 2}})
	var se *SymmetryError
	if !errors.As(err, &se) || se.I != 1 || se.J != 2 || se.A != 0.5 || se.B != 0.25 || se.Op != "check metric" {
		t.Fatalf("asymmetric Q: error %#v, want a SymmetryError at [1][2] = 0.5 vs 0.25", err)
	}
	if want := "check metric: q is not symmetric: q[1][2] = 0.5 but q[2][1] = 0.25"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}

	for _, tc := range []struct {
		name     string
		q        [][]float64
		min, max float64
	}{
		{"indefinite", [][]float64{{1, 2}, {2, 1}}, -1, 3},
		{"negative diagonal", [][]float64{{1, 0}, {0, -0.5}}, -0.5, 1},
		{"singular", [][]float64{{1, 1}, {1, 1}}, 0, 2},
		{"ill-conditioned", [][]float64{{1, 0}, {0, 1e-13}}, 1e-13, 1},
	} {
		_, err := SpecFromMetric(tc.q)
		var ne *NotSPDError
		if !errors.As(err, &ne) || !errors.Is(err, ErrNotSPD) {
			t.Errorf("%s: error %v, want a NotSPDError wrapping ErrNotSPD", tc.name, err)
			continue
		}
		if math.Abs(ne.Min-tc.min) > 1e-15 || math.Abs(ne.Max-tc.max) > 1e-15 {
			t.Errorf("%s: eigenvalues [%g, %g], want [%g, %g]", tc.name, ne.Min, ne.Max, tc.min, tc.max)
		}
	}
	// Well-conditioned enough: λ_min/λ_max = 1e-11 is accepted.
	if s, err := SpecFromMetric([][]float64{{1, 0}, {0, 1e-11}}); err != nil || s.Diag[1] != 1e-11 {
		t.Errorf("diag(1, 1e-11): %+v, %v", s, err)
	}

	for _, tc := range []struct {
		name string
		q    [][]float64
	}{
		{"empty", nil},
		{"ragged", [][]float64{{1, 0}, {0}}},
		{"NaN", [][]float64{{1, math.NaN()}, {math.NaN(), 1}}},
	} {
		if _, err := SpecFromMetric(tc.q); err == nil || !strings.HasPrefix(err.Error(), "check metric: ") {
			t.Errorf("%s: error %v, want one starting \"check metric: \"", tc.name, err)
		}
	}
}

// TestFromSpecSymmetryError: FromSpec shares the symmetry check.
func TestFromSpecSymmetryError(t *testing.T) {
	_, err := FromSpec(Spec{Kind: KindGaussian, Q: [][]float64{{1, 0.5}, {0, 1}}})
	var se *SymmetryError
	if !errors.As(err, &se) || se.Op != "build kernel" || se.I != 0 || se.J != 1 || se.A != 0.5 || se.B != 0 {
		t.Fatalf("error %#v, want a SymmetryError at [0][1]", err)
	}
	if want := "build kernel: q is not symmetric: q[0][1] = 0.5 but q[1][0] = 0"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	// The tolerance is relative to the largest entry: 1e-9 off in a matrix
	// whose largest entry is 1e4 passes, 1e-7 does not.
	if _, err := FromSpec(Spec{Kind: KindGaussian, Q: [][]float64{{1e4, 1}, {1 + 1e-9, 1}}}); err != nil {
		t.Errorf("asymmetry 1e-9 at scale 1e4: %v", err)
	}
	if _, err := FromSpec(Spec{Kind: KindGaussian, Q: [][]float64{{1e4, 1}, {1 + 1e-7, 1}}}); !errors.As(err, &se) {
		t.Errorf("asymmetry 1e-7 at scale 1e4: %v, want a SymmetryError", err)
	}
}

func TestGaussianEigenvalues(t *testing.T) {
	iso, _ := NewGaussianIso(0.25)
	diag, _ := NewGaussianDiag([]float64{4, 1, 9})
	full, _ := NewGaussian(mat.NewSymDense(2, []float64{2, 1, 1, 2}))
	for _, tc := range []struct {
		name string
		g    *Gaussian
		d    int
		want []float64
	}{
		{"iso", iso, 3, []float64{0.5, 0.5, 0.5}},
		{"diag", diag, 3, []float64{1, 4, 9}},
		{"full", full, 2, []float64{1, 3}},
	} {
		ev, err := tc.g.Eigenvalues(tc.d)
		if err != nil || !floats.EqualApprox(ev, tc.want, 1e-14) {
			t.Errorf("%s: eigenvalues %v, %v; want %v", tc.name, ev, err, tc.want)
		}
	}
	if q, _ := diag.QDiag(); q[0] != 4 {
		t.Errorf("Eigenvalues sorted the kernel's own weights: %v", q)
	}

	// A random full Q: ascending, summing to the trace, multiplying to the
	// determinant.
	rng := rand.New(rand.NewPCG(7, 1))
	q := randSPD(rng, 6, 2)
	g, err := NewGaussian(q)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := g.Eigenvalues(6)
	if err != nil {
		t.Fatal(err)
	}
	var tr float64
	for k := 0; k < 6; k++ {
		tr += q.At(k, k)
	}
	prod := 1.0
	for k, v := range ev {
		prod *= v
		if k > 0 && v < ev[k-1] {
			t.Fatalf("eigenvalues %v not ascending", ev)
		}
	}
	if math.Abs(floats.Sum(ev)-tr) > 1e-12*tr || math.Abs(prod-mat.Det(q)) > 1e-10*math.Abs(prod) {
		t.Errorf("eigenvalues %v: sum %g (trace %g), product %g (det %g)", ev, floats.Sum(ev), tr, prod, mat.Det(q))
	}
}

func TestGaussianFactor(t *testing.T) {
	// Q = [[4, 2], [2, 3]] = LLᵀ with L = [[2, 0], [1, √2]].
	g, err := NewGaussian(mat.NewSymDense(2, []float64{4, 2, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	L := g.Factor(2)
	want := mat.NewDense(2, 2, []float64{2, 0, 1, math.Sqrt2})
	if !mat.EqualApprox(L, want, 1e-15) {
		t.Errorf("L = %v, want %v", mat.Formatted(L), mat.Formatted(want))
	}

	// For every kind: LLᵀ = Q, and k_Q(x, z) = exp(-½‖Lᵀx - Lᵀz‖²).
	const d = 5
	rng := rand.New(rand.NewPCG(7, 2))
	iso, _ := NewGaussianIso(0.3)
	diag, _ := NewGaussianDiag([]float64{0.5, 0, 2, 1, 0.1}) // a zero weight drops feature 2
	full, _ := NewGaussian(randSPD(rng, d, 0.5))
	for name, g := range map[string]*Gaussian{"iso": iso, "diag": diag, "full": full} {
		L := g.Factor(d)
		var llt mat.Dense
		llt.Mul(L, L.T())
		if !mat.EqualApprox(&llt, g.Metric(d), 1e-13) {
			t.Errorf("%s: LLᵀ = %v, want Q = %v", name, mat.Formatted(&llt), mat.Formatted(g.Metric(d)))
		}
		for trial := 0; trial < 5; trial++ {
			x, z := make([]float64, d), make([]float64, d)
			for k := range x {
				x[k], z[k] = rng.NormFloat64(), rng.NormFloat64()
			}
			var lx, lz mat.VecDense
			lx.MulVec(L.T(), mat.NewVecDense(d, x))
			lz.MulVec(L.T(), mat.NewVecDense(d, z))
			lx.SubVec(&lx, &lz)
			mapped := math.Exp(-0.5 * mat.Dot(&lx, &lx))
			if got := g.Eval(x, z); math.Abs(got-mapped) > 1e-14 {
				t.Errorf("%s: k(x, z) = %.17g, exp(-½‖Lᵀ(x-z)‖²) = %.17g", name, got, mapped)
			}
		}
	}
}
