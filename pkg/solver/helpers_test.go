package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// dense is a kernel.Matrix over a full symmetric n×n array (test helper until
// and independently of the kernel package).
type dense struct {
	n int
	a []float64 // row-major
}

func (d *dense) Len() int            { return d.n }
func (d *dense) Diag(i int) float64  { return d.a[i*d.n+i] }
func (d *dense) at(i, j int) float64 { return d.a[i*d.n+j] }
func (d *dense) Column(i int, idx []int, dst []float64) {
	row := d.a[i*d.n : (i+1)*d.n]
	if idx == nil {
		copy(dst, row[:len(dst)])
		return
	}
	for k, j := range idx {
		dst[k] = row[j]
	}
}

// gram builds a dense kernel matrix from rows with k.
func gram(x [][]float64, k func(a, b []float64) float64) *dense {
	n := len(x)
	d := &dense{n: n, a: make([]float64, n*n)}
	for i := range n {
		for j := i; j < n; j++ {
			v := k(x[i], x[j])
			d.a[i*n+j], d.a[j*n+i] = v, v
		}
	}
	return d
}

func sqdist(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		t := a[k] - b[k]
		s += t * t
	}
	return s
}

func rbf(gamma float64) func(a, b []float64) float64 {
	return func(a, b []float64) float64 { return math.Exp(-gamma * sqdist(a, b)) }
}

func linear(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

func l1kernel(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s -= math.Abs(a[k] - b[k])
	}
	return s
}

// mixture draws n points in d dimensions from two Gaussians (means ±sep/2 on
// every axis, unit variance), labels ±1, deterministically from seed.
func mixture(n, d int, sep float64, seed uint64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([][]float64, n)
	y := make([]float64, n)
	for i := range n {
		y[i] = 1
		if rng.IntN(2) == 0 {
			y[i] = -1
		}
		x[i] = make([]float64, d)
		for k := range x[i] {
			x[i][k] = y[i]*sep/2/math.Sqrt(float64(d)) + rng.NormFloat64()
		}
	}
	return x, y
}

// readLIBSVM reads a committed LIBSVM file through dataio (dense rows,
// labels ±1: for these ±1 files dataio keeps svm-train's signs).
func readLIBSVM(t testing.TB, path string) ([][]float64, []float64) {
	t.Helper()
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil {
		t.Fatalf("test data (committed under testdata/): %v", err)
	}
	x := make([][]float64, d.Len())
	for i := range x {
		x[i] = append([]float64(nil), d.X.RawRowView(i)...)
	}
	return x, d.Y
}

// kkt checks feasibility, the returned gradient and the stopping criterion
// m(α) - M(α) ≤ eps (Keerthi et al.'s KKT gap, as LIBSVM defines it) against
// an independent O(n²) computation with the dense matrix.
func kkt(t *testing.T, q *dense, pr Problem, r Result, eps float64) {
	t.Helper()
	n := q.n
	yv := func(i int) float64 {
		if pr.Y == nil {
			return 1
		}
		return pr.Y[i]
	}
	pv := func(i int) float64 {
		if pr.P == nil {
			return -1
		}
		return pr.P[i]
	}
	cv := func(i int) float64 {
		switch {
		case pr.C != nil:
			return pr.C[i]
		case yv(i) > 0:
			return pr.Cp
		}
		return pr.Cn
	}
	sum, obj := 0.0, 0.0
	up, low := math.Inf(-1), math.Inf(1)
	for i := range n {
		a := r.Alpha[i]
		if a < 0 || a > cv(i) {
			t.Fatalf("α[%d] = %g outside [0, %g]", i, a, cv(i))
		}
		sum += yv(i) * a
		g := pv(i)
		for j := range n {
			g += yv(i) * yv(j) * q.at(i, j) * r.Alpha[j]
		}
		if math.Abs(g-r.G[i]) > 1e-9*(1+math.Abs(g)) {
			t.Fatalf("G[%d] = %.12g, recomputed %.12g", i, r.G[i], g)
		}
		obj += a * (g + pv(i)) / 2
		v := -yv(i) * g
		if (yv(i) > 0 && a < cv(i)) || (yv(i) < 0 && a > 0) { // I_up
			up = max(up, v)
		}
		if (yv(i) > 0 && a > 0) || (yv(i) < 0 && a < cv(i)) { // I_low
			low = min(low, v)
		}
	}
	if math.Abs(sum-pr.Delta) > 1e-9*(1+math.Abs(pr.Delta)) {
		t.Errorf("yᵀα = %.12g, want Δ = %g", sum, pr.Delta)
	}
	if math.Abs(obj-r.Obj) > 1e-9*(1+math.Abs(obj)) {
		t.Errorf("Obj = %.12g, recomputed %.12g", r.Obj, obj)
	}
	if up-low > eps {
		t.Errorf("KKT gap m(α) - M(α) = %g > eps = %g", up-low, eps)
	}
	if math.Abs(r.Gap-max(up-low, 0)) > 1e-9*(1+math.Abs(up)) {
		t.Errorf("Result.Gap = %g, recomputed %g", r.Gap, up-low)
	}
	// -ρ lies between m(α) and M(α) (up to the gap): it is the multiplier
	// of yᵀα = Δ, v_i = -y_i G_i = -ρ on free variables.
	if -r.Rho < min(up, low)-eps || -r.Rho > max(up, low)+eps {
		t.Errorf("-ρ = %g outside [m, M] = [%g, %g]", -r.Rho, up, low)
	}
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1e-300, math.Max(math.Abs(a), math.Abs(b)))
}
