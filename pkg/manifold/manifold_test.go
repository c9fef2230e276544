package manifold

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
	"gonum.org/v1/gonum/mat"
)

// randSym returns a random symmetric matrix with N(0, scale²) entries.
func randSym(rng *rand.Rand, n int, scale float64) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, scale*rng.NormFloat64())
		}
	}
	return a
}

// randSPD returns a random SPD matrix with condition number about cond.
func randSPD(rng *rand.Rand, n int, cond float64) *mat.SymDense {
	var q mat.QR
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	q.Factorize(g)
	var u mat.Dense
	q.QTo(&u)
	a := mat.NewSymDense(n, nil)
	for k := 0; k < n; k++ {
		l := math.Pow(cond, float64(k)/float64(max(n-1, 1))) * (0.5 + rng.Float64())
		col := mat.NewVecDense(n, nil)
		col.CopyVec(u.ColView(k))
		a.SymRankOne(a, l, col)
	}
	return a
}

func maxDiff(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

func det(a mat.Matrix) float64 { return mat.Det(a) }

func TestIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 3, 7, 20} {
		for _, cond := range []float64{1, 1e2, 1e6} {
			t.Run(fmt.Sprintf("d=%d/cond=%g", n, cond), func(t *testing.T) {
				a := randSPD(rng, n, cond)
				scale := mat.Norm(a, math.Inf(1))
				tol := 1e-12 * cond * float64(n)

				var l, e mat.SymDense
				if err := matLog(&l, a); err != nil {
					t.Fatal(err)
				}
				if err := matExp(&e, &l); err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(&e, a) / scale; d > tol {
					t.Errorf("matExp(matLog A) - A = %g relative", d)
				}

				var s mat.SymDense
				if err := matSqrt(&s, a); err != nil {
					t.Fatal(err)
				}
				var s2 mat.Dense
				s2.Mul(&s, &s)
				if d := maxDiff(&s2, a) / scale; d > tol {
					t.Errorf("matSqrt(A)² - A = %g relative", d)
				}

				var is mat.SymDense
				if err := InvSqrt(&is, a); err != nil {
					t.Fatal(err)
				}
				var p mat.Dense
				p.Mul(&is, &s)
				if d := maxDiff(&p, eye(n)); d > 1e-12*math.Sqrt(cond)*float64(n) {
					t.Errorf("InvSqrt(A)·matSqrt(A) - I = %g", d)
				}

				ld, err := LogDet(a)
				if err != nil {
					t.Fatal(err)
				}
				if want := math.Log(det(a)); math.Abs(ld-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("LogDet = %g, want %g", ld, want)
				}
				if tr := trace(&l); math.Abs(tr-ld) > 1e-9*math.Max(1, math.Abs(ld)) {
					t.Errorf("tr log A = %g, log det A = %g", tr, ld)
				}
			})
		}
	}
}

func eye(n int) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		a.SetSym(i, i, 1)
	}
	return a
}

func TestKnownValues(t *testing.T) {
	// diag(4, 9): sqrt = diag(2, 3); a rotation of it keeps the eigenvalues.
	a := mat.NewSymDense(2, []float64{4, 0, 0, 9})
	var s mat.SymDense
	if err := matSqrt(&s, a); err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(&s, mat.NewSymDense(2, []float64{2, 0, 0, 3})); d > 1e-14 {
		t.Errorf("matSqrt(diag(4,9)) off by %g: %v", d, mat.Formatted(&s))
	}
	// exp([[0, x], [x, 0]]) = [[cosh x, sinh x], [sinh x, cosh x]].
	x := 0.7
	var e mat.SymDense
	if err := matExp(&e, mat.NewSymDense(2, []float64{0, x, x, 0})); err != nil {
		t.Fatal(err)
	}
	want := mat.NewSymDense(2, []float64{math.Cosh(x), math.Sinh(x), math.Sinh(x), math.Cosh(x)})
	if d := maxDiff(&e, want); d > 1e-14 {
		t.Errorf("matExp off by %g", d)
	}
	// distance between multiples of I: √d |log(b/a)|.
	dist, err := distance(eye(3), mat.NewSymDense(3, []float64{math.E, 0, 0, 0, math.E, 0, 0, 0, math.E}))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(dist-math.Sqrt(3)) > 1e-14 {
		t.Errorf("distance(I, eI) = %g, want √3", dist)
	}
}

func TestNotSPD(t *testing.T) {
	indefinite := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // eigenvalues 3, -1
	singular := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	nan := mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})
	ops := map[string]func(a mat.Symmetric) error{
		"Sqrt":    func(a mat.Symmetric) error { var d mat.SymDense; return matSqrt(&d, a) },
		"InvSqrt": func(a mat.Symmetric) error { var d mat.SymDense; return InvSqrt(&d, a) },
		"Log":     func(a mat.Symmetric) error { var d mat.SymDense; return matLog(&d, a) },
		"ExpMap":  func(a mat.Symmetric) error { var d mat.SymDense; return expMap(&d, a, eye(2)) },
		"Distance": func(a mat.Symmetric) error {
			_, err := distance(a, eye(2))
			return err
		},
		"LogDet": func(a mat.Symmetric) error { _, err := LogDet(a); return err },
	}
	for name, op := range ops {
		for _, c := range []struct {
			name string
			a    *mat.SymDense
			want error
		}{{"indefinite", indefinite, ErrNotSPD}, {"singular", singular, ErrNotSPD}, {"nan", nan, ErrNotFinite}} {
			err := op(c.a)
			if !errors.Is(err, c.want) {
				t.Errorf("%s(%s): error %v, want %v", name, c.name, err, c.want)
			}
		}
	}
	// matExp accepts any finite symmetric matrix, and refuses NaN.
	var e mat.SymDense
	if err := matExp(&e, indefinite); err != nil {
		t.Errorf("matExp(indefinite): %v", err)
	}
	if err := matExp(&e, nan); !errors.Is(err, ErrNotFinite) {
		t.Errorf("matExp(NaN): %v", err)
	}
}

func isSPD(a mat.Symmetric) bool {
	var c mat.Cholesky
	return c.Factorize(a)
}

func TestExpMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	for _, n := range []int{2, 5, 12} {
		q := randSPD(rng, n, 100)
		tv := randSym(rng, n, 1)

		// SPD preserved, even for a large tangent vector (the eigenvalues
		// of exp(Q^-½ T Q^-½) span e^±20 here).
		var hi mat.SymDense
		if err := InvSqrt(&hi, q); err != nil {
			t.Fatal(err)
		}
		var mt mat.SymDense
		congruence(&mt, &hi, tv)
		big := 20 / mat.Norm(&mt, 2)
		for _, scale := range []float64{1, big, -big} {
			var big mat.SymDense
			big.ScaleSym(scale, tv)
			var p mat.SymDense
			if err := expMap(&p, q, &big); err != nil {
				t.Fatal(err)
			}
			if !isSPD(&p) {
				t.Errorf("d=%d: expMap(Q, %g T) is not SPD", n, scale)
			}
		}

		// E_Q(0) = Q and d/dt E_Q(tT)|0 = T (central differences).
		var p0 mat.SymDense
		if err := expMap(&p0, q, mat.NewSymDense(n, nil)); err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(&p0, q); d > 1e-10*mat.Norm(q, math.Inf(1)) {
			t.Errorf("d=%d: E_Q(0) - Q = %g", n, d)
		}
		// Entry by entry to 1e-6/n, so that the largest row sum of the
		// difference stays within 1e-6.
		curve := func(y, x []float64) {
			var tx, p mat.SymDense
			tx.ScaleSym(x[0], tv)
			if err := expMap(&p, q, &tx); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					y[i*n+j] = p.At(i, j)
				}
			}
		}
		dt := mat.NewDense(n*n, 1, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				dt.Set(i*n+j, 0, tv.At(i, j))
			}
		}
		fdcheck.Jacobian(t, fmt.Sprintf("d=%d: dE_Q(tT)/dt at 0", n), curve, []float64{0}, dt, fdcheck.Settings{
			Step: 1e-5, Tol: 1e-6 / float64(n), Scale: fdcheck.ScaleOne,
			Label: func(i, _ int) string { return fmt.Sprintf(", entry [%d,%d]", i/n, i%n) },
		})

		// Curve.At agrees with expMap.
		c, err := NewCurve(q, tv)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []float64{0, 0.3, -2} {
			var a, b, st mat.SymDense
			c.At(&a, s)
			st.ScaleSym(s, tv)
			if err := expMap(&b, q, &st); err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(&a, &b) / mat.Norm(&b, math.Inf(1)); d > 1e-11 {
				t.Errorf("d=%d: Curve.At(%g) differs from expMap by %g", n, s, d)
			}
		}

		// The geodesic has constant speed: d(Q, E_Q(tT)) = t ‖Q^-½ T Q^-½‖_F.
		var hinv mat.SymDense
		if err := InvSqrt(&hinv, q); err != nil {
			t.Fatal(err)
		}
		var m mat.SymDense
		congruence(&m, &hinv, tv)
		speed := mat.Norm(&m, 2)
		for _, s := range []float64{0.5, 1.5} {
			var p mat.SymDense
			c.At(&p, s)
			dist, err := distance(q, &p)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(dist-s*speed) > 1e-8*(1+s*speed) {
				t.Errorf("d=%d: distance along geodesic %g, want %g", n, dist, s*speed)
			}
		}
	}
}

func TestLogMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for _, n := range []int{1, 3, 9} {
		q := randSPD(rng, n, 20)
		p := randSPD(rng, n, 20)
		var l, back mat.SymDense
		if err := logMap(&l, q, p); err != nil {
			t.Fatal(err)
		}
		if err := expMap(&back, q, &l); err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(&back, p) / mat.Norm(p, math.Inf(1)); d > 1e-11 {
			t.Errorf("d=%d: expMap(Q, logMap(Q, P)) - P = %g relative", n, d)
		}
		// ‖log_Q P‖_Q = d(Q, P).
		ll, err := inner(q, &l, &l)
		if err != nil {
			t.Fatal(err)
		}
		dist, err := distance(q, p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(math.Sqrt(ll)-dist) > 1e-10*(1+dist) {
			t.Errorf("d=%d: ‖log_Q P‖_Q = %g, distance %g", n, math.Sqrt(ll), dist)
		}
		// At Q = I the inner product is Frobenius.
		u, v := randSym(rng, n, 1), randSym(rng, n, 1)
		got, err := inner(eye(n), u, v)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want += u.At(i, j) * v.At(i, j)
			}
		}
		if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("d=%d: inner(I, U, V) = %g, want %g", n, got, want)
		}
	}
	if _, err := inner(mat.NewSymDense(2, []float64{1, 2, 2, 1}), eye(2), eye(2)); !errors.Is(err, ErrNotSPD) {
		t.Errorf("inner at an indefinite point: %v", err)
	}
}

// TestRiemannianGrad checks the defining property of the Riemannian
// gradient, ⟨grad, V⟩_Q = tr(G V) for every tangent vector V, and that a step
// along it (T = -η QGQ) differs from the Euclidean step of Laanaya's eq. 22.
func TestRiemannianGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	n := 4
	q := randSPD(rng, n, 10)
	g := randSym(rng, n, 1)
	var rg mat.SymDense
	riemannianGrad(&rg, q, g)
	for trial := 0; trial < 5; trial++ {
		v := randSym(rng, n, 1)
		got, err := inner(q, &rg, v)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want += g.At(i, j) * v.At(i, j)
			}
		}
		if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
			t.Errorf("⟨QGQ, V⟩_Q = %g, tr(GV) = %g", got, want)
		}
	}
	const eta = 0.01
	var a, c, rstep, estep mat.SymDense
	rstep.ScaleSym(-eta, &rg)
	estep.ScaleSym(-eta, g)
	if err := expMap(&a, q, &rstep); err != nil {
		t.Fatal(err)
	}
	if err := expMap(&c, q, &estep); err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(&a, &c); d < 1e-6 {
		t.Errorf("the Riemannian step equals the Euclidean step (diff %g)", d)
	}
}

func TestCongruenceStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	for _, n := range []int{2, 3, 8} {
		b := randSPD(rng, n, 50)
		s := randSym(rng, n, 0.5)
		var sf mat.SymDense
		ProjectTraceFree(&sf, s)
		if tr := trace(&sf); math.Abs(tr) > 1e-14 {
			t.Fatalf("trace-free projection has trace %g", tr)
		}
		ld0, _ := LogDet(b)
		cur := mat.NewSymDense(n, nil)
		cur.CopySym(b)
		// Many trace-free steps, each re-drawn: det stays fixed. (Steps are
		// kept small enough that B stays well conditioned: log det of a
		// matrix with condition number κ is only known to about ε κ.)
		for k := 0; k < 30; k++ {
			ProjectTraceFree(&sf, randSym(rng, n, 0.1/math.Sqrt(float64(n))))
			if err := CongruenceStep(cur, cur, &sf); err != nil {
				t.Fatal(err)
			}
		}
		ld1, err := LogDet(cur)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ld1-ld0) > 1e-10 {
			t.Errorf("d=%d: log det moved by %g under trace-free steps", n, ld1-ld0)
		}
		// A general step scales det by e^{-2 tr S}.
		var nb mat.SymDense
		if err := CongruenceStep(&nb, b, s); err != nil {
			t.Fatal(err)
		}
		ld2, _ := LogDet(&nb)
		if want := ld0 - 2*trace(s); math.Abs(ld2-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("d=%d: log det after step %g, want %g", n, ld2, want)
		}
		// Equals e^{-S} B e^{-S} from matExp and congruence.
		var ms, e, want mat.SymDense
		ms.ScaleSym(-1, s)
		if err := matExp(&e, &ms); err != nil {
			t.Fatal(err)
		}
		congruence(&want, &e, b)
		if d := maxDiff(&nb, &want); d > 1e-10*mat.Norm(&want, math.Inf(1)) {
			t.Errorf("d=%d: CongruenceStep differs from e^{-S}Be^{-S} by %g", n, d)
		}
	}
}

func TestDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	for _, n := range []int{2, 6} {
		a := randSPD(rng, n, 30)
		b := randSPD(rng, n, 30)
		dab, err := distance(a, b)
		if err != nil {
			t.Fatal(err)
		}
		dba, _ := distance(b, a)
		if math.Abs(dab-dba) > 1e-10*dab {
			t.Errorf("d=%d: distance not symmetric: %g vs %g", n, dab, dba)
		}
		// Rounding only: at most 1.3e-14 over 400 random A of condition 30.
		if d0, _ := distance(a, a); d0 > 1e-12 {
			t.Errorf("d=%d: d(A, A) = %g", n, d0)
		}
		// Invariance under congruence with a general invertible M.
		m := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		cong := func(x mat.Symmetric) *mat.SymDense {
			var t1, t2 mat.Dense
			t1.Mul(m, x)
			t2.Mul(&t1, m.T())
			var s mat.SymDense
			Symmetrize(&s, &t2)
			return &s
		}
		dm, err := distance(cong(a), cong(b))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(dm-dab) > 1e-7*dab {
			t.Errorf("d=%d: distance %g changed to %g under congruence", n, dab, dm)
		}
		// Triangle inequality with a third point.
		c := randSPD(rng, n, 30)
		dac, _ := distance(a, c)
		dcb, _ := distance(c, b)
		if dab > dac+dcb+1e-10 {
			t.Errorf("d=%d: triangle inequality fails", n)
		}
	}
}

func TestProjections(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	n := 4
	a := randSym(rng, n, 1)
	tr := trace(a)
	var iso, dg, tf, dtf mat.SymDense
	ProjectIsotropic(&iso, a)
	ProjectDiagonal(&dg, a)
	ProjectTraceFree(&tf, a)
	ProjectDiagonalTraceFree(&dtf, a)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			wantIso, wantDg, wantTf, wantDtf := 0.0, 0.0, a.At(i, j), 0.0
			if i == j {
				wantIso = tr / float64(n)
				wantDg = a.At(i, i)
				wantTf -= tr / float64(n)
				wantDtf = a.At(i, i) - tr/float64(n)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"iso", iso.At(i, j), wantIso}, {"diag", dg.At(i, j), wantDg}, {"tracefree", tf.At(i, j), wantTf}, {"diagtracefree", dtf.At(i, j), wantDtf}} {
				if math.Abs(c.got-c.want) > 1e-15 {
					t.Errorf("%s[%d,%d] = %g, want %g", c.name, i, j, c.got, c.want)
				}
			}
		}
	}
	// Orthogonal projections are idempotent and may alias.
	for _, p := range []func(dst *mat.SymDense, a mat.Symmetric){ProjectIsotropic, ProjectDiagonal, ProjectTraceFree, ProjectDiagonalTraceFree} {
		var once mat.SymDense
		p(&once, a)
		twice := mat.NewSymDense(n, nil)
		twice.CopySym(&once)
		p(twice, twice)
		if d := maxDiff(&once, twice); d > 1e-15 {
			t.Errorf("projection not idempotent under aliasing: %g", d)
		}
		// Orthogonality: ⟨A - P(A), P(A)⟩_F = 0.
		var r mat.Dense
		r.Sub(a, &once)
		ip := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				ip += r.At(i, j) * once.At(i, j)
			}
		}
		if math.Abs(ip) > 1e-14 {
			t.Errorf("projection not orthogonal: ⟨A-P(A), P(A)⟩ = %g", ip)
		}
	}
}

func TestAliasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	a := randSPD(rng, 3, 10)
	var want mat.SymDense
	if err := matSqrt(&want, a); err != nil {
		t.Fatal(err)
	}
	b := mat.NewSymDense(3, nil)
	b.CopySym(a)
	if err := matSqrt(b, b); err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(b, &want); d > 1e-15 {
		t.Errorf("matSqrt(b, b) differs by %g", d)
	}
	defer func() {
		if recover() == nil {
			t.Error("a 2×2 dst for a 3×3 result did not panic")
		}
	}()
	_ = matSqrt(mat.NewSymDense(2, nil), a)
}

func BenchmarkSPDSqrt(b *testing.B) {
	for _, n := range []int{2, 10, 50, 200} {
		b.Run(fmt.Sprintf("d=%d", n), func(b *testing.B) {
			a := randSPD(rand.New(rand.NewPCG(1, 2)), n, 100)
			dst := mat.NewSymDense(n, nil)
			b.ReportAllocs()
			for b.Loop() {
				if err := matSqrt(dst, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExpMap(b *testing.B) {
	for _, n := range []int{2, 10, 50} {
		b.Run(fmt.Sprintf("d=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 3))
			q := randSPD(rng, n, 100)
			tv := randSym(rng, n, 0.1)
			dst := mat.NewSymDense(n, nil)
			b.ReportAllocs()
			for b.Loop() {
				if err := expMap(dst, q, tv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOverflowIsAnError: an exponential that overflows float64 is an error
// wrapping ErrNotFinite, never a matrix of Inf or NaN returned as a success.
func TestOverflowIsAnError(t *testing.T) {
	big := mat.NewSymDense(2, []float64{800, 1, 1, 0}) // e^800 overflows
	ops := map[string]func() error{
		"Exp": func() error { var d mat.SymDense; return matExp(&d, big) },
		"ExpMap": func() error {
			var d mat.SymDense
			return expMap(&d, eye(2), mat.NewSymDense(2, []float64{1500, 1, 1, 0}))
		},
		"CongruenceStep": func() error {
			var d mat.SymDense
			return CongruenceStep(&d, eye(2), mat.NewSymDense(2, []float64{-400, 0, 0, 1}))
		},
	}
	for name, op := range ops {
		if err := op(); !errors.Is(err, ErrNotFinite) {
			t.Errorf("%s overflowing: error %v, want ErrNotFinite", name, err)
		}
	}
	// Just below the threshold the result is finite and no error.
	var e mat.SymDense
	if err := matExp(&e, mat.NewSymDense(1, []float64{709})); err != nil || math.Abs(e.At(0, 0)-math.Exp(709)) > 1e-15*math.Exp(709) {
		t.Errorf("matExp(709) = %v, %v; want %v", e.At(0, 0), err, math.Exp(709))
	}
}

// BenchmarkCurveAt is the cost of one line-search point on a prepared
// geodesic (spd evaluates many per step).
func BenchmarkCurveAt(b *testing.B) {
	for _, n := range []int{10, 50} {
		b.Run(fmt.Sprintf("d=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 4))
			c, err := NewCurve(randSPD(rng, n, 100), randSym(rng, n, 0.1))
			if err != nil {
				b.Fatal(err)
			}
			dst := mat.NewSymDense(n, nil)
			b.ReportAllocs()
			for b.Loop() {
				c.At(dst, 0.5)
			}
		})
	}
}
