package solver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/status"
)

func TestKKTRandom(t *testing.T) {
	type tc struct {
		name   string
		n, d   int
		gamma  float64
		cp, cn float64
		s      Settings
	}
	cases := []tc{
		{"rbf-C1", 120, 5, 0.5, 1, 1, Settings{Eps: 1e-6}},
		{"rbf-C1-noshrink", 120, 5, 0.5, 1, 1, Settings{Eps: 1e-6, NoShrinking: true}},
		{"rbf-C100-weighted", 150, 3, 2, 100, 10, Settings{Eps: 1e-6}},
		{"rbf-tiny-cache", 200, 4, 1, 10, 10, Settings{Eps: 1e-6, CacheBytes: 1}},
		{"rbf-inf", 80, 4, 1, math.Inf(1), math.Inf(1), Settings{Eps: 1e-6}},
		{"rbf-mixed-inf", 80, 4, 0.3, 5, math.Inf(1), Settings{Eps: 1e-6}},
		{"rbf-default-eps", 300, 6, 0.2, 2, 2, Settings{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := mixture(c.n, c.d, 1.5, uint64(c.n))
			q := gram(x, rbf(c.gamma))
			pr := Problem{Q: q, Y: y, Cp: c.cp, Cn: c.cn}
			r, err := Solve(context.Background(), pr, c.s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != status.Converged {
				t.Fatalf("status %v", r.Status)
			}
			eps := c.s.Eps
			if eps == 0 {
				eps = 1e-3
			}
			kkt(t, q, pr, r, eps)
		})
	}
}

// Shrinking and a cache too small for two columns of the active set must not
// change the answer.
func TestShrinkingAndCacheAgree(t *testing.T) {
	x, y := mixture(400, 5, 1, 3)
	q := gram(x, rbf(0.7))
	pr := Problem{Q: q, Y: y, Cp: 4, Cn: 4}
	var objs []float64
	for _, s := range []Settings{
		{Eps: 1e-8, NoShrinking: true},
		{Eps: 1e-8},
		{Eps: 1e-8, CacheBytes: 8 * 1000},
	} {
		r, err := Solve(context.Background(), pr, s)
		if err != nil || r.Status != status.Converged {
			t.Fatalf("%+v: %v %v", s, r.Status, err)
		}
		kkt(t, q, pr, r, 1e-8)
		objs = append(objs, r.Obj)
	}
	for _, o := range objs[1:] {
		if relDiff(o, objs[0]) > 1e-10 {
			t.Errorf("objectives differ: %v", objs)
		}
	}
}

// Hard margin, linear kernel on the line: x = 0 (−1), 2 (+1), 3 (+1). The
// maximal-margin separator is f(x) = x - 1 (w = 1, ρ = 1), with α = (½, ½, 0)
// so w = Σ y_i α_i x_i = 1 and ‖w‖² = Σα = 1, Obj = -½.
func TestHardMarginAnalytic(t *testing.T) {
	x := [][]float64{{0}, {2}, {3}}
	y := []float64{-1, 1, 1}
	r, err := TrainSVC(context.Background(), gram(x, linear), y, SVCParams{Margin: Hard}, Settings{Eps: 1e-10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, 0.5, 0}
	for i := range want {
		if math.Abs(r.Alpha[i]-want[i]) > 1e-9 {
			t.Errorf("α = %v, want %v", r.Alpha, want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"ρ", r.Rho, 1}, {"bias", r.Bias, -1}, {"‖w‖²", r.W2, 1}, {"obj", r.Obj, -0.5}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.12g, want %g", c.name, c.got, c.want)
		}
	}
	if r.NSV != 2 || r.NBSV != 0 {
		t.Errorf("NSV, NBSV = %d, %d, want 2, 0", r.NSV, r.NBSV)
	}
	// Decision values on the training points: f = x - 1.
	f := make([]float64, 3)
	for i := range x {
		for j := range x {
			f[i] += linear(x[i], x[j]) * r.Coef[j]
		}
		f[i] += r.Bias
		if math.Abs(f[i]-(x[i][0]-1)) > 1e-9 {
			t.Errorf("f(%g) = %g, want %g", x[i][0], f[i], x[i][0]-1)
		}
	}
}

// Without duplicates, a linear kernel on the line with labels +, -, + cannot
// be separated either: α grows steadily and the iteration limit reports it.
func TestHardMarginNotSeparableLinear(t *testing.T) {
	q := gram([][]float64{{0}, {1}, {2}}, linear)
	r, err := TrainSVC(context.Background(), q, []float64{1, -1, 1}, SVCParams{Margin: Hard}, Settings{MaxIter: 20000}, nil)
	if !errors.Is(err, ErrNotSeparable) || r.Status != status.IterationLimit {
		t.Fatalf("status %v, err = %v, want iteration-limit and ErrNotSeparable", r.Status, err)
	}
	if sumOf(r.Alpha) < 1000 {
		t.Errorf("Σα = %g: expected it to grow without bound", sumOf(r.Alpha))
	}
}

// L2 with C = +Inf is ν = 0, the hard margin, and must end the same way on
// data that cannot be separated (it ran to the iteration limit with no error).
func TestL2InfiniteCIsHardMargin(t *testing.T) {
	q := gram([][]float64{{0}, {1}, {2}}, linear)
	y := []float64{1, -1, 1}
	_, err := TrainSVC(context.Background(), q, y, SVCParams{Margin: L2, C: math.Inf(1)}, Settings{MaxIter: 20000}, nil)
	if !errors.Is(err, ErrNotSeparable) {
		t.Fatalf("err = %v, want ErrNotSeparable", err)
	}
	// On separable data it is the hard-margin solution (x = 0 (−1), 2, 3 (+1):
	// α = (½, ½, 0), see TestHardMarginAnalytic).
	r, err := TrainSVC(context.Background(), gram([][]float64{{0}, {2}, {3}}, linear), []float64{-1, 1, 1},
		SVCParams{Margin: L2, C: math.Inf(1)}, Settings{Eps: 1e-10}, nil)
	if err != nil || math.Abs(r.Alpha[0]-0.5) > 1e-9 || math.Abs(r.Alpha[1]-0.5) > 1e-9 || math.Abs(r.Alpha[2]) > 1e-9 {
		t.Errorf("separable: α = %v, %v; want (½, ½, 0)", r.Alpha, err)
	}
}

func TestHardMarginNotSeparable(t *testing.T) {
	x := [][]float64{{0, 0}, {1, 0}, {0, 1}, {0, 1}}
	y := []float64{1, -1, 1, -1} // the point (0,1) carries both labels
	for _, k := range []struct {
		name string
		f    func(a, b []float64) float64
	}{{"rbf", rbf(1)}, {"linear", linear}} {
		t.Run(k.name, func(t *testing.T) {
			_, err := TrainSVC(context.Background(), gram(x, k.f), y, SVCParams{Margin: Hard}, Settings{}, nil)
			if !errors.Is(err, ErrNotSeparable) {
				t.Fatalf("err = %v, want ErrNotSeparable", err)
			}
		})
	}
}

// For the L2 margin with K + νI, ‖w‖² = Σα = -2·Obj at the optimum, and the
// problem equals a hard margin on K + νI.
func TestL2Margin(t *testing.T) {
	x, y := mixture(150, 4, 1, 11)
	q := gram(x, rbf(0.5))
	const C = 3.0
	r, err := TrainSVC(context.Background(), q, y, SVCParams{Margin: L2, C: C}, Settings{Eps: 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sumOf(r.Alpha)
	if relDiff(r.W2, sum) > 1e-7 || relDiff(-2*r.Obj, sum) > 1e-7 {
		t.Errorf("‖w‖² = %.10g, Σα = %.10g, -2·Obj = %.10g, want equal", r.W2, sum, -2*r.Obj)
	}
	if r.NBSV != 0 {
		t.Errorf("NBSV = %d, want 0 for L2", r.NBSV)
	}
	// Independent check: hard margin on the shifted dense matrix.
	qs := &dense{n: q.n, a: append([]float64(nil), q.a...)}
	for i := range qs.n {
		qs.a[i*qs.n+i] += 1 / C
	}
	h, err := TrainSVC(context.Background(), qs, y, SVCParams{Margin: Hard}, Settings{Eps: 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(h.Obj, r.Obj) > 1e-9 {
		t.Errorf("L2 obj %.12g, hard margin on K+I/C obj %.12g", r.Obj, h.Obj)
	}
	kkt(t, qs, Problem{Q: qs, Y: y, Cp: math.Inf(1), Cn: math.Inf(1)},
		Result{Alpha: r.Alpha, G: gradOf(qs, y, r.Alpha), Obj: r.Obj, Rho: r.Rho, Gap: r.Gap}, 1e-9)
}

func gradOf(q *dense, y, a []float64) []float64 {
	g := make([]float64, q.n)
	for i := range g {
		g[i] = -1
		for j := range g {
			g[i] += y[i] * y[j] * q.at(i, j) * a[j]
		}
	}
	return g
}

func TestRadiusKnown(t *testing.T) {
	s3 := math.Sqrt(3)
	for _, c := range []struct {
		name string
		x    [][]float64
		k    func(a, b []float64) float64
		nu   float64
		want float64
	}{
		{"two-points-linear", [][]float64{{1, 2}, {4, 6}}, linear, 0, 25.0 / 4},
		// exp(-γ‖a-b‖²) = e^{-1}: R² = (2 - 2e^{-1})/4.
		{"two-points-rbf", [][]float64{{0}, {1}}, rbf(1), 0, (1 - math.Exp(-1)) / 2},
		// Equilateral triangle of side 2: R² = 4/3; the centre point inside
		// does not change it.
		{"triangle", [][]float64{{0, 0}, {2, 0}, {1, s3}, {1, s3 / 3}}, linear, 0, 4.0 / 3},
		// Square of side 2 plus interior points: R² = 2.
		{"square", [][]float64{{0, 0}, {2, 0}, {0, 2}, {2, 2}, {1, 1}, {0.5, 1.5}}, linear, 0, 2},
		// K + νI on n = 3 orthogonal-like points: an RBF far apart has
		// K ≈ I, then K + νI ≈ (1+ν)I and R² = (1+ν)(1 - 1/n).
		{"far-rbf-nu", [][]float64{{0}, {100}, {200}}, rbf(1), 0.5, 1.5 * (1 - 1.0/3)},
		// The L1 kernel (only conditionally PD) on the line: K̃ = -|x-z|
		// gives feature-space distance² 2|a-b|; two points 0 and 3: R² = 6/4.
		{"l1-two", [][]float64{{0}, {3}}, l1kernel, 0, 6.0 / 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Radius(context.Background(), gram(c.x, c.k), c.nu, Settings{Eps: 1e-12}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.R2-c.want) > 1e-9*(1+c.want) {
				t.Errorf("R² = %.12g, want %.12g", r.R2, c.want)
			}
			s := sumOf(r.Beta)
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("Σβ = %g", s)
			}
		})
	}
}

// The radius of random points: every point lies inside the ball, the support
// points on its surface.
func TestRadiusBall(t *testing.T) {
	x, _ := mixture(200, 3, 0, 5)
	q := gram(x, rbf(0.3))
	r, err := Radius(context.Background(), q, 0, Settings{Eps: 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// ‖φ(x_i) - c‖² = K_ii - 2(Kβ)_i + βᵀKβ.
	bkb := 0.0
	kb := make([]float64, q.n)
	for i := range q.n {
		for j := range q.n {
			kb[i] += q.at(i, j) * r.Beta[j]
		}
		bkb += r.Beta[i] * kb[i]
	}
	for i := range q.n {
		d2 := q.Diag(i) - 2*kb[i] + bkb
		if d2 > r.R2+1e-8 {
			t.Errorf("point %d at distance² %g outside R² = %g", i, d2, r.R2)
		}
		if r.Beta[i] > 0 && d2 < r.R2-1e-6 {
			t.Errorf("support point %d (β = %g) at distance² %g inside R² = %g", i, r.Beta[i], d2, r.R2)
		}
	}
}

func TestWarmStart(t *testing.T) {
	x, y := mixture(500, 5, 1, 9)
	q := gram(x, rbf(0.5))
	ctx := context.Background()
	s := Settings{Eps: 1e-6}
	r1, err := TrainSVC(ctx, q, y, SVCParams{C: 1}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	cold, err := TrainSVC(ctx, q, y, SVCParams{C: 1.2}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := TrainSVC(ctx, q, y, SVCParams{C: 1.2}, s, r1.Alpha) // feasible: bounds grew
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(cold.Obj, warm.Obj) > 1e-6 {
		t.Errorf("warm obj %.10g, cold %.10g", warm.Obj, cold.Obj)
	}
	if warm.Iter >= cold.Iter {
		t.Errorf("warm start took %d iterations, cold %d", warm.Iter, cold.Iter)
	}
	// From the optimum itself: converged at once.
	again, err := TrainSVC(ctx, q, y, SVCParams{C: 1.2}, s, cold.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	if again.Iter > 0 || relDiff(again.Obj, cold.Obj) > 1e-12 {
		t.Errorf("restart at the optimum: %d iterations, obj %.12g vs %.12g", again.Iter, again.Obj, cold.Obj)
	}
	// Radius warm start.
	rc, _ := Radius(ctx, q, 0, s, nil)
	rw, err := Radius(ctx, q, 0, s, rc.Beta)
	if err != nil || rw.Iter > 0 || relDiff(rc.R2, rw.R2) > 1e-12 {
		t.Errorf("radius restart: %d iterations, R² %g vs %g, %v", rw.Iter, rw.R2, rc.R2, err)
	}
}

func TestWarmStartInfeasible(t *testing.T) {
	q := gram([][]float64{{0}, {1}, {2}}, linear)
	y := []float64{1, -1, 1}
	for _, a0 := range [][]float64{
		{1, 0, 0},   // yᵀα ≠ 0
		{2, 2, 0},   // beyond C = 1
		{-1, -1, 0}, // negative
		{math.NaN(), 0, 0},
	} {
		_, err := Solve(context.Background(), Problem{Q: q, Y: y, Cp: 1, Cn: 1, Alpha0: a0}, Settings{})
		if !errors.Is(err, ErrInfeasible) {
			t.Errorf("α0 = %v: err = %v, want ErrInfeasible", a0, err)
		}
	}
}

// An indefinite matrix (the L1 kernel -Σ|x-z| is only conditionally PD, and a
// random symmetric matrix is not PD at all) must still terminate with the KKT
// conditions met.
func TestNonPSDTerminates(t *testing.T) {
	x, y := mixture(150, 4, 1, 21)
	t.Run("l1-kernel", func(t *testing.T) {
		q := gram(x, l1kernel)
		pr := Problem{Q: q, Y: y, Cp: 1, Cn: 1}
		r, err := Solve(context.Background(), pr, Settings{Eps: 1e-6})
		if err != nil || r.Status != status.Converged {
			t.Fatalf("%v %v", r.Status, err)
		}
		kkt(t, q, pr, r, 1e-6)
	})
	t.Run("indefinite", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		n := 60
		q := &dense{n: n, a: make([]float64, n*n)}
		for i := range n {
			for j := i; j < n; j++ {
				v := rng.NormFloat64()
				q.a[i*n+j], q.a[j*n+i] = v, v
			}
		}
		pr := Problem{Q: q, Y: y[:n], Cp: 1, Cn: 1}
		r, err := Solve(context.Background(), pr, Settings{Eps: 1e-6})
		if err != nil || r.Status != status.Converged {
			t.Fatalf("%v %v", r.Status, err)
		}
		kkt(t, q, pr, r, 1e-6)
	})
}

func TestCancel(t *testing.T) {
	x, y := mixture(300, 5, 1, 4)
	q := gram(x, rbf(0.5))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Solve(ctx, Problem{Q: q, Y: y, Cp: 1, Cn: 1}, Settings{})
	if !errors.Is(err, context.Canceled) || r.Status != status.Canceled {
		t.Fatalf("status %v, err %v; want canceled", r.Status, err)
	}
	_, err = TrainSVC(ctx, q, y, SVCParams{C: 1}, Settings{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("TrainSVC err %v; want canceled", err)
	}
	// Cancelled before the gradient of a warm start was built: no result
	// (it returned the warm start with G = 0 and an objective from G = 0).
	warm, err := TrainSVC(context.Background(), q, y, SVCParams{C: 1}, Settings{Eps: 1e-3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err = Solve(ctx, Problem{Q: q, Y: y, Cp: 1, Cn: 1, Alpha0: warm.Alpha}, Settings{})
	if !errors.Is(err, context.Canceled) || r.Status != status.Canceled || r.Alpha != nil || r.G != nil {
		t.Errorf("cancelled warm start: status %v, err %v, len(α) %d, len(G) %d; want canceled and no α, G",
			r.Status, err, len(r.Alpha), len(r.G))
	}
}

// A cancellation that arrives during the run is seen at the shrinking cadence.
func TestCancelDuring(t *testing.T) {
	x, y := mixture(600, 5, 0.5, 4)
	q := gram(x, rbf(4))
	ctx, cancel := context.WithCancel(context.Background())
	cm := &cancelAfter{dense: q, n: 50, cancel: cancel}
	r, err := Solve(ctx, Problem{Q: cm, Y: y, Cp: 1000, Cn: 1000}, Settings{Eps: 1e-9, CacheBytes: 1})
	if !errors.Is(err, context.Canceled) || r.Status != status.Canceled {
		t.Fatalf("status %v, err %v; want canceled", r.Status, err)
	}
	if r.Iter == 0 {
		t.Fatal("cancelled before the first iteration: the test wants a cancellation during the run")
	}
	g := gradOf(q, y, r.Alpha)
	for i, a := range r.Alpha {
		if a < 0 || a > 1000 {
			t.Fatalf("α[%d] = %g infeasible after cancel", i, a)
		}
		if math.Abs(g[i]-r.G[i]) > 1e-8*(1+math.Abs(g[i])) {
			t.Fatalf("G[%d] = %.12g after cancel, recomputed %.12g", i, r.G[i], g[i])
		}
	}
}

// cancelAfter cancels its context after n column computations.
type cancelAfter struct {
	*dense
	n      int
	cancel func()
}

func (c *cancelAfter) Column(i int, idx []int, dst []float64) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	c.dense.Column(i, idx, dst)
}

func TestIterationLimit(t *testing.T) {
	x, y := mixture(200, 5, 1, 8)
	q := gram(x, rbf(0.5))
	pr := Problem{Q: q, Y: y, Cp: 10, Cn: 10}
	r, err := Solve(context.Background(), pr, Settings{MaxIter: 7})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != status.IterationLimit || r.Iter != 7 {
		t.Fatalf("status %v after %d iterations, want iteration-limit after 7", r.Status, r.Iter)
	}
	sum := 0.0
	for i, a := range r.Alpha {
		sum += y[i] * a
		if a < 0 || a > 10 {
			t.Fatalf("α[%d] = %g infeasible", i, a)
		}
	}
	if math.Abs(sum) > 1e-12 || r.Obj >= 0 {
		t.Errorf("yᵀα = %g, obj = %g: want 0 and a decrease", sum, r.Obj)
	}
}

func TestNaNKernel(t *testing.T) {
	q := gram([][]float64{{0}, {1}, {2}, {3}}, linear)
	q.a[1*4+2], q.a[2*4+1] = math.NaN(), math.NaN()
	_, err := Solve(context.Background(), Problem{Q: q, Y: []float64{1, -1, 1, -1}, Cp: 1, Cn: 1}, Settings{})
	if !errors.Is(err, ErrNaN) {
		t.Fatalf("err = %v, want ErrNaN", err)
	}
}

func TestInvalid(t *testing.T) {
	q := gram([][]float64{{0}, {1}}, linear)
	ctx := context.Background()
	// Each error says what was being done (solve QP, train SVM) or is a
	// sentinel; none starts with the package's name.
	for name, f := range map[string]func() error{
		"label": func() error {
			_, e := Solve(ctx, Problem{Q: q, Y: []float64{1, 2}, Cp: 1, Cn: 1}, Settings{})
			return e
		},
		"C":       func() error { _, e := Solve(ctx, Problem{Q: q, Y: []float64{1, -1}}, Settings{}); return e },
		"eps":     func() error { _, e := Solve(ctx, Problem{Q: q, Cp: 1}, Settings{Eps: -1}); return e },
		"one-cls": func() error { _, e := TrainSVC(ctx, q, []float64{1, 1}, SVCParams{C: 1}, Settings{}, nil); return e },
		"svc-C":   func() error { _, e := TrainSVC(ctx, q, []float64{1, -1}, SVCParams{C: 0}, Settings{}, nil); return e },
		"delta":   func() error { _, e := Solve(ctx, Problem{Q: q, Cp: 1, Delta: 5}, Settings{}); return e },
	} {
		err := f()
		if err == nil || !(strings.HasPrefix(err.Error(), "solve QP: ") || strings.HasPrefix(err.Error(), "train SVM: ") || errors.Is(err, ErrInfeasible)) {
			t.Errorf("%s: err = %v, want one saying what was being done", name, err)
		}
	}
}

func TestParseMargin(t *testing.T) {
	for _, s := range []string{"l1", "l2", "hard"} {
		m, err := ParseMargin(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseMargin(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMargin("L3"); err == nil {
		t.Error("ParseMargin(L3) succeeded")
	}
}

// Decision reproduces the decision values computed entry by entry.
func TestDecision(t *testing.T) {
	x, y := mixture(60, 3, 2, 17)
	q := gram(x, rbf(0.4))
	r, err := TrainSVC(context.Background(), q, y, SVCParams{C: 2}, Settings{Eps: 1e-8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	test, _ := mixture(7, 3, 2, 18)
	cross := mat.NewDense(len(test), len(x), nil)
	for i := range test {
		for j := range x {
			cross.Set(i, j, rbf(0.4)(test[i], x[j]))
		}
	}
	f := Decision(nil, cross, r.Coef, r.Bias)
	// An empty (not nil) dst is allocated too, as the doc and gonum say.
	if g := Decision([]float64{}, cross, r.Coef, r.Bias); len(g) != len(test) || g[0] != f[0] {
		t.Errorf("Decision with an empty dst = %v, want %v", g, f)
	}
	for i := range test {
		want := r.Bias
		for j := range x {
			want += r.Coef[j] * cross.At(i, j)
		}
		if math.Abs(f[i]-want) > 1e-12 {
			t.Errorf("f[%d] = %g, want %g", i, f[i], want)
		}
	}
	// On the training points the free SVs sit on the margin: y f = 1.
	train := Decision(nil, denseOf(q), r.Coef, r.Bias)
	for i, a := range r.Alpha {
		if a > 1e-6 && a < 2-1e-6 && math.Abs(y[i]*train[i]-1) > 1e-6 {
			t.Errorf("free SV %d: y f = %g, want 1", i, y[i]*train[i])
		}
	}
}

func denseOf(q *dense) *mat.Dense { return mat.NewDense(q.n, q.n, q.a) }

// The L1 kernel -Σ|x-z| (K_ii = 0, conditionally PD) separates distinct
// points: the hard margin converges and meets the KKT conditions.
func TestHardMarginL1Kernel(t *testing.T) {
	x, y := mixture(80, 3, 1, 23)
	q := gram(x, l1kernel)
	r, err := TrainSVC(context.Background(), q, y, SVCParams{Margin: Hard}, Settings{Eps: 1e-8}, nil)
	if err != nil || r.Status != status.Converged {
		t.Fatalf("%v %v", r.Status, err)
	}
	inf := math.Inf(1)
	kkt(t, q, Problem{Q: q, Y: y, Cp: inf, Cn: inf},
		Result{Alpha: r.Alpha, G: gradOf(q, y, r.Alpha), Obj: r.Obj, Rho: r.Rho, Gap: r.Gap}, 1e-8)
	if relDiff(r.W2, sumOf(r.Alpha)) > 1e-6 {
		t.Errorf("‖w‖² = %g, Σα = %g", r.W2, sumOf(r.Alpha))
	}
}

// Warm start at the same C from the solution for a nearby kernel (what the
// tuning methods do): many α start at the upper bound, so Ḡ is built from
// the start, and the result equals a cold solve.
func TestWarmStartNearbyKernel(t *testing.T) {
	x, y := mixture(400, 4, 1, 31)
	ctx := context.Background()
	s := Settings{Eps: 1e-7}
	prev, err := TrainSVC(ctx, gram(x, rbf(0.5)), y, SVCParams{C: 1}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if prev.NBSV == 0 {
		t.Fatal("test needs bounded SVs")
	}
	q := gram(x, rbf(0.55))
	cold, err := TrainSVC(ctx, q, y, SVCParams{C: 1}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := TrainSVC(ctx, q, y, SVCParams{C: 1}, s, prev.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(cold.Obj, warm.Obj) > 1e-8 {
		t.Errorf("warm obj %.12g, cold %.12g", warm.Obj, cold.Obj)
	}
	if warm.Iter >= cold.Iter {
		t.Errorf("warm start took %d iterations, cold %d", warm.Iter, cold.Iter)
	}
	pr := Problem{Q: q, Y: y, Cp: 1, Cn: 1}
	kkt(t, q, pr, Result{Alpha: warm.Alpha, G: gradOf(q, y, warm.Alpha), Obj: warm.Obj, Rho: warm.Rho, Gap: warm.Gap}, 1e-7)
}

// Stopped by the limit after shrinking has run: the gradient returned is the
// exact full gradient (reconstructed), and α is feasible.
func TestIterationLimitAfterShrinking(t *testing.T) {
	x, y := mixture(300, 4, 0.5, 12)
	q := gram(x, rbf(4))
	pr := Problem{Q: q, Y: y, Cp: 1000, Cn: 1000}
	full, err := Solve(context.Background(), pr, Settings{Eps: 1e-9})
	if err != nil || full.Iter < 1500 {
		t.Fatalf("test needs a long solve: %d iterations, %v", full.Iter, err)
	}
	r, err := Solve(context.Background(), pr, Settings{Eps: 1e-9, MaxIter: 1200})
	if err != nil || r.Status != status.IterationLimit {
		t.Fatalf("%v %v", r.Status, err)
	}
	g := gradOf(q, y, r.Alpha)
	obj := 0.0
	for i := range g {
		if math.Abs(g[i]-r.G[i]) > 1e-8*(1+math.Abs(g[i])) {
			t.Fatalf("G[%d] = %.12g, recomputed %.12g", i, r.G[i], g[i])
		}
		obj += r.Alpha[i] * (g[i] - 1) / 2
	}
	if relDiff(obj, r.Obj) > 1e-9 || r.Obj < full.Obj {
		t.Errorf("obj %.12g (recomputed %.12g), optimum %.12g", r.Obj, obj, full.Obj)
	}
	if r.Gap <= 1e-9 || full.Gap > 1e-9 {
		t.Errorf("gap %g after the limit, %g at convergence; want > eps and ≤ eps", r.Gap, full.Gap)
	}
}

// A warm start clipped from a larger C is feasible for the smaller one and
// reaches the cold objective in fewer iterations.
func TestClipWarmStart(t *testing.T) {
	x, y := mixture(400, 5, 1, 41)
	q := gram(x, rbf(0.5))
	ctx := context.Background()
	s := Settings{Eps: 1e-7}
	big, err := TrainSVC(ctx, q, y, SVCParams{C: 4}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	a0 := ClipWarmStart(nil, big.Alpha, y, 2, 2)
	sum := 0.0
	for i, a := range a0 {
		if a < 0 || a > 2 {
			t.Fatalf("α0[%d] = %g outside [0, 2]", i, a)
		}
		sum += y[i] * a
	}
	if math.Abs(sum) > 1e-12 {
		t.Fatalf("yᵀα0 = %g", sum)
	}
	// In place gives the same point; a dst of the wrong length is the
	// caller's mistake and panics with a message (it was an index panic).
	inPlace := append([]float64(nil), big.Alpha...)
	ClipWarmStart(inPlace, inPlace, y, 2, 2)
	for i := range a0 {
		if inPlace[i] != a0[i] {
			t.Fatalf("in place: α0[%d] = %g, want %g", i, inPlace[i], a0[i])
		}
	}
	func() {
		defer func() {
			if msg, _ := recover().(string); !strings.HasPrefix(msg, "solver: len(dst)") {
				t.Errorf("short dst: panic %q, want a solver message", msg)
			}
		}()
		ClipWarmStart(make([]float64, 3), big.Alpha, y, 2, 2)
	}()
	cold, err := TrainSVC(ctx, q, y, SVCParams{C: 2}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := TrainSVC(ctx, q, y, SVCParams{C: 2}, s, a0)
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(cold.Obj, warm.Obj) > 1e-8 || warm.Iter >= cold.Iter {
		t.Errorf("warm: obj %.12g in %d iterations; cold: %.12g in %d", warm.Obj, warm.Iter, cold.Obj, cold.Iter)
	}
}

// The generic form: random linear term, Δ ≠ 0, mixed labels, per-variable
// bounds (some infinite), with and without shrinking and a warm start.
func TestGenericProblemKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 6 {
		n := 50 + 40*trial
		x, y := mixture(n, 3, 1, uint64(100+trial))
		q := gram(x, rbf(0.5+0.3*float64(trial)))
		p := make([]float64, n)
		c := make([]float64, n)
		for i := range n {
			p[i] = -2*rng.Float64() + 0.5
			c[i] = 0.2 + 3*rng.Float64()
			if i%7 == 0 {
				c[i] = math.Inf(1)
			}
		}
		delta := 1.5 * float64(trial%3-1) // -1.5, 0, 1.5
		pr := Problem{Q: q, Y: y, P: p, C: c, Delta: delta}
		for _, s := range []Settings{{Eps: 1e-7}, {Eps: 1e-7, NoShrinking: true}} {
			r, err := Solve(context.Background(), pr, s)
			if err != nil || r.Status != status.Converged {
				t.Fatalf("trial %d %+v: %v %v", trial, s, r.Status, err)
			}
			kkt(t, q, pr, r, 1e-7)
			// Restart from the solution: nothing left to do.
			pw := pr
			pw.Alpha0 = r.Alpha
			w, err := Solve(context.Background(), pw, s)
			if err != nil || w.Iter != 0 || relDiff(w.Obj, r.Obj) > 1e-12 {
				t.Errorf("trial %d restart: %d iterations, obj %g vs %g, %v", trial, w.Iter, w.Obj, r.Obj, err)
			}
		}
	}
}

// Degenerate sizes: one point has radius 0; two points of opposite labels
// have the analytic hard margin α = 2/‖a-b‖².
func TestTinyProblems(t *testing.T) {
	ctx := context.Background()
	r, err := Radius(ctx, gram([][]float64{{3, 4}}, linear), 0, Settings{}, nil)
	if err != nil || r.R2 != 0 || r.Beta[0] != 1 {
		t.Errorf("one point: R² = %g, β = %v, %v", r.R2, r.Beta, err)
	}
	s, err := TrainSVC(ctx, gram([][]float64{{1, 1}, {2, 3}}, linear), []float64{1, -1}, SVCParams{Margin: Hard}, Settings{Eps: 1e-12}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// ‖a-b‖² = 5: α = 2/5 each, ‖w‖² = 4/5.
	if math.Abs(s.Alpha[0]-0.4) > 1e-12 || math.Abs(s.Alpha[1]-0.4) > 1e-12 || math.Abs(s.W2-0.8) > 1e-12 {
		t.Errorf("two points: α = %v, ‖w‖² = %g", s.Alpha, s.W2)
	}
}

// A separable problem that needs many iterations (diabetes_scale, RBF γ = 2:
// svm-train needs 25986): when the first limit is hit the iterate already
// separates the classes, so the hard margin goes on (warm-started) to the
// optimum; with an explicit MaxIter the same certificate makes it an
// IterationLimit, not ErrNotSeparable.
func TestHardMarginSlowButSeparable(t *testing.T) {
	t.Parallel()
	x, y := readLIBSVM(t, filepath.Join(testdataDir, "libsvm", "diabetes_scale"))
	q := gram(x, rbf(2))
	inf := math.Inf(1)
	pr := Problem{Q: q, Y: y, Cp: inf, Cn: inf}
	ctx := context.Background()
	s := Settings{Eps: 1e-5}
	direct, err := Solve(ctx, pr, s)
	if err != nil || direct.Status != status.Converged || direct.Iter < 20000 {
		t.Fatalf("direct: %v after %d iterations, %v", direct.Status, direct.Iter, err)
	}
	r, err := solveHard(ctx, pr, s, 15000)
	if err != nil || r.Status != status.Converged || r.Iter <= 15000 {
		t.Fatalf("continued: %v after %d iterations, %v", r.Status, r.Iter, err)
	}
	if relDiff(r.Obj, direct.Obj) > 1e-8 {
		t.Errorf("continued obj %.12g, direct %.12g", r.Obj, direct.Obj)
	}
	lim, err := TrainSVC(ctx, q, y, SVCParams{Margin: Hard}, Settings{Eps: 1e-5, MaxIter: 15000}, nil)
	if err != nil || lim.Status != status.IterationLimit {
		t.Errorf("explicit limit: %v, %v; want iteration-limit and no error", lim.Status, err)
	}
}

// The kernel package's column evaluators (through idx after shrinking) and
// its precomputed matrix give the solver the same problem as the dense test
// matrix.
func TestKernelPackageMatrices(t *testing.T) {
	x, y := mixture(300, 6, 1, 51)
	const gamma = 0.3
	ref, err := TrainSVC(context.Background(), gram(x, rbf(gamma)), y, SVCParams{C: 5}, Settings{Eps: 1e-8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := kernel.NewGaussianIso(gamma)
	if err != nil {
		t.Fatal(err)
	}
	X := toDense(x)
	for name, k := range map[string]kernel.Matrix{
		"rows":        g.Rows(X),
		"precomputed": kernel.Precomputed(g.Gram(X)),
	} {
		for _, s := range []Settings{{Eps: 1e-8}, {Eps: 1e-8, CacheBytes: 1}} {
			r, err := TrainSVC(context.Background(), k, y, SVCParams{C: 5}, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if relDiff(r.Obj, ref.Obj) > 1e-10 || math.Abs(r.Rho-ref.Rho) > 1e-7 || r.NSV != ref.NSV {
				t.Errorf("%s %+v: obj %.12g ρ %.10g nSV %d; dense: %.12g %.10g %d", name, s, r.Obj, r.Rho, r.NSV, ref.Obj, ref.Rho, ref.NSV)
			}
		}
	}
}

// String names the statuses and the margins and prints any other value as a
// number (a negative one indexed the name table and panicked).
func TestStatusAndMarginStrings(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{status.Converged.String(), "converged"},
		{status.Failure.String(), "failure"},
		{status.Status(9).String(), "Status(9)"},
		{status.Status(-1).String(), "Status(-1)"},
		{Hard.String(), "hard"},
		{Margin(-1).String(), "Margin(-1)"},
	} {
		if c.got != c.want {
			t.Errorf("String() = %q, want %q", c.got, c.want)
		}
	}
}

// SVCResult.F, read off the gradient, is the decision function Σ_j Coef_j
// K_ij + Bias on the training points, with K also for the L2 margin.
func TestSVCDecisionValues(t *testing.T) {
	x, y := mixture(200, 4, 1.5, 61)
	q := gram(x, rbf(0.4))
	for _, p := range []SVCParams{{Margin: L1, C: 3}, {Margin: L2, C: 0.7}, {Margin: Hard}} {
		r, err := TrainSVC(context.Background(), q, y, p, Settings{Eps: 1e-6}, nil)
		if err != nil {
			t.Fatalf("%v: %v", p.Margin, err)
		}
		for i := range y {
			f := r.Bias
			for j, c := range r.Coef {
				f += c * q.at(i, j)
			}
			if math.Abs(r.F[i]-f) > 1e-10*(1+math.Abs(f)) {
				t.Fatalf("%v: F[%d] = %.15g, Σ_j Coef_j K_ij + b = %.15g", p.Margin, i, r.F[i], f)
			}
		}
	}
}
