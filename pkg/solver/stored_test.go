package solver

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// hidden is a kernel.Matrix that hides its kernel.Stored: the cache then
// copies its columns (Column) as it does for any matrix.
type hidden struct{ kernel.Matrix }

// TestStoredColumnsSameBits: a solve on a matrix held in memory
// (kernel.PrecomputedSquare, kernel.Stored: the cache fills its columns in
// one pass from the stored ones and initGradient reads them in place) gives
// every α, decision value, ρ and objective to the last bit and the same
// iterations as the same solve with the columns copied through Column; from
// α = 0 and from warm starts (whose gradient initGradient forms), with and
// without shrinking, in double and single precision, and for the problem of
// all labels +1 (Radius: no signs).
func TestStoredColumnsSameBits(t *testing.T) {
	x, y := mixture(400, 5, 1.5, 11)
	d := gram(x, rbf(0.3))
	K := mat.NewDense(d.n, d.n, d.a)
	stored := kernel.PrecomputedSquare(K)
	if _, ok := stored.(kernel.Stored); !ok {
		t.Fatal("PrecomputedSquare is not kernel.Stored")
	}
	plain := hidden{stored}
	if _, ok := kernel.Matrix(plain).(kernel.Stored); ok {
		t.Fatal("hidden still answers kernel.Stored")
	}
	ctx := context.Background()
	same := func(t *testing.T, what string, a, b []float64) {
		t.Helper()
		if len(a) != len(b) {
			t.Fatalf("%s: %d against %d values", what, len(a), len(b))
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s[%d]: %v stored against %v copied", what, i, a[i], b[i])
			}
		}
	}
	for _, s := range []Settings{
		{},
		{NoShrinking: true},
		{Precision: Single},
	} {
		var prev []float64
		for _, C := range []float64{0.5, 4, 64, 1024, 16, 1} { // down too: warm starts with α at the new bound (Ḡ)
			var warm []float64
			if prev != nil {
				warm = ClipWarmStart(nil, prev, y, C, C)
			}
			a, err := TrainSVC(ctx, stored, y, SVCParams{C: C}, s, warm)
			if err != nil {
				t.Fatal(err)
			}
			b, err := TrainSVC(ctx, plain, y, SVCParams{C: C}, s, warm)
			if err != nil {
				t.Fatal(err)
			}
			same(t, "alpha", a.Alpha, b.Alpha)
			same(t, "f", a.F, b.F)
			same(t, "rho, obj", []float64{a.Rho, a.Obj, a.W2}, []float64{b.Rho, b.Obj, b.W2})
			if a.Iter != b.Iter || a.NSV != b.NSV || a.NBSV != b.NBSV {
				t.Fatalf("C = %g %+v: %d iterations, %d/%d SVs stored against %d, %d/%d copied", C, s, a.Iter, a.NSV, a.NBSV, b.Iter, b.NSV, b.NBSV)
			}
			if warm != nil && a.Iter == 0 {
				t.Fatalf("C = %g: a warm start that needed no iteration tests nothing", C)
			}
			prev = a.Alpha
		}
	}
	// All labels +1 (no signing: the radius problem, here with a box that
	// binds, Σβ = 1 and β ≤ 0.02), from the first point, then warm from its
	// β for another linear term.
	p := make([]float64, d.n)
	for i := range p {
		p[i] = -d.Diag(i) / 2
	}
	var warm []float64
	const cp = 0.02
	for _, scale := range []float64{1, 1.3} { // the second from the first's β
		p := append([]float64(nil), p...)
		for i := range p {
			p[i] *= scale
			p[i] += 0.01 * scale * float64(i%7)
		}
		a, err := Solve(ctx, Problem{Q: stored, P: p, Delta: 1, Cp: cp, Alpha0: warm}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Solve(ctx, Problem{Q: plain, P: p, Delta: 1, Cp: cp, Alpha0: warm}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		same(t, "beta", a.Alpha, b.Alpha)
		same(t, "obj", []float64{a.Obj}, []float64{b.Obj})
		if a.Iter != b.Iter || a.Iter == 0 {
			t.Fatalf("radius, p·%g: %d iterations stored against %d copied", scale, a.Iter, b.Iter)
		}
		bound := 0
		for _, v := range a.Alpha {
			if v == cp {
				bound++
			}
		}
		if warm != nil && bound == 0 {
			t.Fatalf("radius, p·%g: no β at the bound: the warm start's Ḡ is not tested", scale)
		}
		warm = a.Alpha
	}
}
