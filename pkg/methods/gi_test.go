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
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/manifold"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// giHeart returns the first n rows of the embedded heart data (LIBSVM's
// heart_scale, the same file as testdata/libsvm/heart_scale).
func giHeart(t testing.TB, n int) *dataio.Dataset {
	t.Helper()
	ds, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return ds.Subset(idx)
}

func giRandSym(rng *rand.Rand, d int) *mat.SymDense {
	e := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			e.SetSym(i, j, rng.NormFloat64())
		}
	}
	return e
}

// giFrob returns ⟨A, B⟩_F.
func giFrob(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	s := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s += a.At(i, j) * b.At(i, j)
		}
	}
	return s
}

func TestParseGIParam(t *testing.T) {
	for _, c := range []struct {
		in   string
		want giParam
		auto bool
	}{{"", 0, true}, {"auto", 0, true}, {"A", giIso, false}, {"iso", giIso, false}, {"b", giDiagDet, false}, {"diag-det", giDiagDet, false},
		{"C", giDiag, false}, {"diag", giDiag, false}, {"D", giFullDet, false}, {"full-det", giFullDet, false}, {"E", giFull, false}, {"full", giFull, false}} {
		got, auto, err := parseGIParam(c.in)
		if err != nil || got != c.want || auto != c.auto {
			t.Errorf("parseGIParam(%q) = %v, %v, %v; want %v, %v", c.in, got, auto, err, c.want, c.auto)
		}
	}
	if _, _, err := parseGIParam("F"); err == nil || !strings.Contains(err.Error(), "gi") {
		t.Errorf("parseGIParam(F): %v", err)
	}
	if in, err := Lookup("gi"); err != nil || in.Params[0] != "auto" {
		t.Errorf("Lookup(gi): params %v, %v; want the default, auto, first", in.Params, err)
	}
}

// TestGIAutoParam: D while its d(d+1)/2 parameters are at most n/20, A
// beyond; the boundary and the chessboard and heart cases.
func TestGIAutoParam(t *testing.T) {
	for _, c := range []struct {
		n, d int
		want giParam
		why  string
	}{
		{500, 2, giFullDet, "gi: parameterisation D chosen because its d(d+1)/2 = 3 free parameters are at most n/20 = 25 (d = 2, n = 500)"},
		{100, 2, giFullDet, "d(d+1)/2 = 3 free parameters are at most n/20 = 5 "},
		{120, 3, giFullDet, "d(d+1)/2 = 6 free parameters are at most n/20 = 6 "},
		{119, 3, giIso, "gi: parameterisation A chosen because D's d(d+1)/2 = 6 free parameters exceed n/20 = 5.95 (d = 3, n = 119)"},
		{100, 13, giIso, "D's d(d+1)/2 = 91 free parameters exceed n/20 = 5 "},
	} {
		p, why := giAutoParam(c.n, c.d)
		if p != c.want || !strings.Contains(why.String(), c.why) {
			t.Errorf("n = %d, d = %d: %v, %q; want %v, %q", c.n, c.d, p, why, c.want, c.why)
		}
	}
	// Through Tune: heart's 13 features on 60 rows take A, and say why.
	d := heartHead(t, 60)
	res, err := GISettings{Common: Common{C: 1}, Steps: 2}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Param != "A" || len(res.Notes) == 0 || !strings.HasPrefix(res.Notes[0].String(), "gi: parameterisation A chosen because D's d(d+1)/2 = 91") || res.Kernel.Gamma == 0 {
		t.Errorf("heart, auto: param %q, kernel %+v, notes %q; want A (isotropic) with the reason first", res.Param, res.Kernel, res.Notes)
	}
	// An explicit D is D, with no note about the choice.
	res, err = GISettings{Common: Common{C: 1}, Param: "D", Steps: 2}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Notes {
		if strings.Contains(n.String(), "chosen because") {
			t.Errorf("explicit D: note %q", n)
		}
	}
	if res.Param != "D" || len(res.Kernel.Q) != 13 {
		t.Errorf("explicit D: param %q, kernel %+v", res.Param, res.Kernel)
	}
}

func TestJaakkolaSigma(t *testing.T) {
	// Positives at 0 and 10, negatives at 3 and 4 (1-d): nearest-negative
	// distances 3 and 6, median 4.5.
	X := mat.NewDense(4, 1, []float64{0, 10, 3, 4})
	y := []float64{1, 1, -1, -1}
	s, err := jaakkolaSigma(X, y)
	if err != nil || math.Abs(s-4.5) > 1e-12 {
		t.Errorf("jaakkolaSigma = %g, %v; want 4.5", s, err)
	}
	// A positive point on top of a negative one is left out.
	X = mat.NewDense(3, 1, []float64{0, 2, 0})
	y = []float64{1, 1, -1}
	if s, err := jaakkolaSigma(X, y); err != nil || s != 2 {
		t.Errorf("jaakkolaSigma with a coincident pair = %g, %v; want 2", s, err)
	}
}

// giSetup solves the criterion at a random (non-isotropic) B on n heart rows.
func giSetup(t *testing.T, n int, margin solver.Margin, param giParam, eps float64) (*giProblem, *giState) {
	t.Helper()
	ds := giHeart(t, n)
	pr := &giProblem{X: ds.X, y: ds.Y, param: param, margin: margin, C: 2, s: solver.Settings{Eps: eps}}
	d := ds.Dim()
	rng := rand.New(rand.NewPCG(11, 1))
	sigma, err := jaakkolaSigma(ds.X, ds.Y)
	if err != nil {
		t.Fatal(err)
	}
	B := mat.NewSymDense(d, nil)
	for k := 0; k < d; k++ {
		B.SetSym(k, k, 1/sigma)
	}
	if !param.diagonal() {
		// Move away from the isotropic start so that every term of ξ matters.
		var a mat.SymDense
		a.ScaleSym(0.1, giRandSym(rng, d))
		if err := manifold.CongruenceStep(B, B, &a); err != nil {
			t.Fatal(err)
		}
	}
	st, err := pr.eval(context.Background(), B, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pr, st
}

// giFixedT is T at a metric Q with α and β held fixed: (Σβ_iK̃_ii - βᵀK̃β) ·
// (2Σα - αᵀYK̃Yα), K̃ = K_Q + νI. At Q it equals T and (envelope theorem) has
// the same gradient.
func giFixedT(pr *giProblem, st *giState, Q *mat.SymDense) float64 {
	g, err := kernel.NewGaussian(Q)
	if err != nil {
		panic(err)
	}
	K := g.Gram(pr.X)
	nu := pr.nu()
	n := len(pr.y)
	r2, w2 := 0.0, 0.0
	for i := 0; i < n; i++ {
		bi, ci := st.rad.Beta[i], st.svm.Coef[i]
		r2 += bi * (1 + nu)
		w2 += 2 * st.svm.Alpha[i]
		for j := 0; j < n; j++ {
			kij := K.At(i, j)
			if i == j {
				kij += nu
			}
			r2 -= bi * st.rad.Beta[j] * kij
			w2 -= ci * st.svm.Coef[j] * kij
		}
	}
	return r2 * w2
}

// giChartPoint returns e^{hE} B e^{hE}.
func giChartPoint(t *testing.T, B mat.Symmetric, E *mat.SymDense, h float64) *mat.SymDense {
	var a mat.SymDense
	a.ScaleSym(-h, E) // CongruenceStep applies e^{-S}
	out := mat.NewSymDense(B.SymmetricDim(), nil)
	if err := manifold.CongruenceStep(out, B, &a); err != nil {
		t.Fatal(err)
	}
	return out
}

func giSquared(B mat.Symmetric) *mat.SymDense {
	var q mat.SymDense
	q.SymOuterK(1, B)
	return &q
}

// TestGIGradFixedAlphaBeta checks G = ∂T/∂Q and ξ against central
// differences of T with α and β fixed (envelope theorem), to 1e-6.
func TestGIGradFixedAlphaBeta(t *testing.T) {
	for _, margin := range []solver.Margin{solver.L2, solver.Hard} {
		t.Run(margin.String(), func(t *testing.T) {
			pr, st := giSetup(t, 60, margin, giFull, 1e-10)
			Q := giSquared(st.B)
			if v := giFixedT(pr, st, Q); math.Abs(v-st.T) > 1e-8*st.T {
				t.Fatalf("fixed-α/β T = %.12g, solver's T = %.12g", v, st.T)
			}
			G := pr.gradQ(st)
			xi := chartGrad(st.B.(*mat.SymDense), G)
			rng := rand.New(rand.NewPCG(12, 1))
			for k := 0; k < 3; k++ {
				E := giRandSym(rng, Q.SymmetricDim())
				set := fdcheck.Settings{Step: 1e-5, Tol: 1e-6, Scale: fdcheck.ScaleEntryOrOne}
				// In Q directly.
				fdcheck.Deriv(t, "∂T/∂Q along E", func(h float64) float64 {
					var q mat.SymDense
					q.AddSym(Q, giScaled(h, E))
					return giFixedT(pr, st, &q)
				}, 0, giFrob(G, E), set)
				// In the chart A ↦ e^A B e^A.
				fdcheck.Deriv(t, "ξ along E", func(h float64) float64 {
					return giFixedT(pr, st, giSquared(giChartPoint(t, st.B, E, h)))
				}, 0, giFrob(xi, E), set)
			}
		})
	}
}

func giScaled(a float64, m *mat.SymDense) *mat.SymDense {
	var out mat.SymDense
	out.ScaleSym(a, m)
	return &out
}

// TestGIGradChain checks ξ against central differences of T(e^{hE} B e^{hE})
// with both QPs re-solved at ε = 1e-10, for every parameterisation's
// projected direction, on 60 rows of heart.
func TestGIGradChain(t *testing.T) {
	for _, margin := range []solver.Margin{solver.L2, solver.Hard} {
		for _, param := range []giParam{giIso, giDiag, giFull} {
			t.Run(fmt.Sprintf("%v/%v", margin, param), func(t *testing.T) {
				pr, st := giSetup(t, 60, margin, param, 1e-10)
				xi := chartGrad(st.B.(*mat.SymDense), pr.gradQ(st))
				rng := rand.New(rand.NewPCG(13, uint64(param)))
				E := giRandSym(rng, st.B.SymmetricDim())
				param.project(E, E)
				T := func(h float64) float64 {
					s, err := pr.eval(context.Background(), giChartPoint(t, st.B, E, h), nil)
					if err != nil {
						t.Fatal(err)
					}
					return s.T
				}
				// h = 1e-4 balances the O(h²) truncation against the QPs'
				// ~1e-11 relative accuracy in T (a missing term of ξ would be
				// off by O(1)).
				fdcheck.Deriv(t, fmt.Sprintf("dT/dh (T = %.6g)", st.T), T, 0, giFrob(xi, E),
					fdcheck.Settings{Step: 1e-4, Tol: 2e-5, Scale: fdcheck.ScaleEntryOrOne})
			})
		}
	}
}

// TestGIGradChainDiag is TestGIGradChain for the diagonal path's ξ
// (chartGradDiag of gradQDiag, projected): central differences of T along
// a projected diagonal direction, both QPs re-solved, on 60 heart rows, at
// a diagonal B away from the start (non-isotropic but for A).
func TestGIGradChainDiag(t *testing.T) {
	for _, margin := range []solver.Margin{solver.L2, solver.Hard} {
		for _, param := range []giParam{giIso, giDiagDet, giDiag} {
			t.Run(fmt.Sprintf("%v/%v", margin, param), func(t *testing.T) {
				pr, st0 := giSetup(t, 60, margin, param, 1e-10)
				d := st0.B.SymmetricDim()
				rng := rand.New(rand.NewPCG(15, uint64(param)))
				B := mat.NewSymDense(d, nil)
				b := make([]float64, d)
				f := math.Exp(0.2 * rng.NormFloat64())
				for k := range b {
					if param != giIso { // A: B stays a multiple of I
						f = math.Exp(0.2 * rng.NormFloat64())
					}
					b[k] = st0.B.At(k, k) * f
					B.SetSym(k, k, b[k])
				}
				st, err := pr.eval(context.Background(), B, nil)
				if err != nil {
					t.Fatal(err)
				}
				xi := chartGradDiag(b, pr.gradQDiag(st))
				param.projectDiag(xi)
				e := make([]float64, d)
				E := mat.NewSymDense(d, nil)
				for k := range e {
					e[k] = rng.NormFloat64()
				}
				param.projectDiag(e)
				dot := 0.0
				for k := range e {
					E.SetSym(k, k, e[k])
					dot += xi[k] * e[k]
				}
				T := func(h float64) float64 {
					s, err := pr.eval(context.Background(), giChartPoint(t, st.B, E, h), nil)
					if err != nil {
						t.Fatal(err)
					}
					return s.T
				}
				fdcheck.Deriv(t, fmt.Sprintf("dT/dh (T = %.6g)", st.T), T, 0, dot,
					fdcheck.Settings{Step: 1e-4, Tol: 2e-5, Scale: fdcheck.ScaleEntryOrOne})
			})
		}
	}
}

func TestGIProjections(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	a := giRandSym(rng, 3)
	for _, p := range []giParam{giIso, giDiagDet, giDiag, giFullDet, giFull} {
		var g mat.SymDense
		p.project(&g, a)
		off := math.Abs(g.At(0, 1)) + math.Abs(g.At(0, 2)) + math.Abs(g.At(1, 2))
		if p.diagonal() != (off == 0) {
			t.Errorf("%v: off-diagonal mass %g", p, off)
		}
		if tr := mat.Trace(&g); (p == giDiagDet || p == giFullDet) != (math.Abs(tr) < 1e-14) {
			t.Errorf("%v: trace %g", p, tr)
		}
		if p == giIso && (g.At(0, 0) != g.At(1, 1) || g.At(1, 1) != g.At(2, 2)) {
			t.Errorf("A: diagonal not constant: %v", mat.Formatted(&g))
		}
	}
}

func TestIRpropPlus(t *testing.T) {
	r := newIRpropPlus(1)
	g := mat.NewSymDense(1, []float64{2})
	steps := []float64{}
	for k := 0; k < 3; k++ {
		steps = append(steps, r.step(g, false).At(0, 0))
	}
	// Same sign: Δ0, then ×1.2 each step.
	want := []float64{giRpropDelta0, giRpropDelta0 * 1.2, giRpropDelta0 * 1.44}
	for k := range want {
		if math.Abs(steps[k]-want[k]) > 1e-15 {
			t.Errorf("step %d = %g, want %g", k, steps[k], want[k])
		}
	}
	// Sign change with a worse objective: revert the last step, halve Δ.
	g.SetSym(0, 0, -1)
	if s := r.step(g, true).At(0, 0); math.Abs(s+want[2]) > 1e-15 {
		t.Errorf("revert step = %g, want %g", s, -want[2])
	}
	// Then the derivative was zeroed: a plain step with Δ = 1.44Δ0/2.
	if s := r.step(g, false).At(0, 0); math.Abs(s+want[2]/2) > 1e-15 {
		t.Errorf("step after revert = %g, want %g", s, -want[2]/2)
	}
	// Sign change without a worse objective: no step.
	g.SetSym(0, 0, 1)
	if s := r.step(g, false).At(0, 0); s != 0 {
		t.Errorf("step at sign change, not worse = %g, want 0", s)
	}
}

// TestGITune runs every parameterisation on 100 heart rows and checks what
// the result carries: the criterion decreases, det B is fixed for B and D,
// the kernel spec matches Q = B², the trace is complete.
func TestGITune(t *testing.T) {
	t.Parallel()
	ds := giHeart(t, 100)
	d := ds.Dim()
	sigma, _ := jaakkolaSigma(ds.X, ds.Y)
	logDet0 := -float64(d) * math.Log(sigma)
	for _, p := range giParamLetters() {
		t.Run(p, func(t *testing.T) {
			var recorded int
			s := GISettings{Common: Common{C: 1, Recorder: func(Step) { recorded++ }}, Param: p, Steps: 25}
			res, st, err := s.run(context.Background(), ds)
			if err != nil {
				t.Fatal(err)
			}
			// On heart with C = 1, Jaakkola's σ is already close to the
			// isotropic optimum (A lowers T by 0.06%, 83.239 → 83.188); the
			// other parameterisations have shape to gain (≥ 5%).
			if p == "A" && !(res.CriterionEnd < res.CriterionStart) || p != "A" && !(res.CriterionEnd < 0.95*res.CriterionStart) {
				t.Errorf("criterion %g → %g: no decrease (of at least 5%% but for A)", res.CriterionStart, res.CriterionEnd)
			}
			// The result is the best iterate of the trace.
			lowest := res.Trace[0].Objective
			for _, st := range res.Trace {
				lowest = math.Min(lowest, st.Objective)
			}
			if res.CriterionEnd != lowest {
				t.Errorf("criterion end %g, lowest T of the trace %g", res.CriterionEnd, lowest)
			}
			if len(res.Trace) != res.Iter+1 || recorded != len(res.Trace) {
				t.Errorf("trace has %d steps, recorder %d, iterations %d", len(res.Trace), recorded, res.Iter)
			}
			if res.Trace[0].Objective != res.CriterionStart {
				t.Errorf("trace starts at %g, criterion start %g", res.Trace[0].Objective, res.CriterionStart)
			}
			if res.Solves != res.Iter+1 {
				t.Errorf("solves %d, want %d (C given: no grid search)", res.Solves, res.Iter+1)
			}
			if res.Method != "gi" || res.Param != p || res.Margin != solver.L2 || res.C != 1 || !strings.Contains(res.Init, "Jaakkola") {
				t.Errorf("result header %q %q %v %g %q", res.Method, res.Param, res.Margin, res.C, res.Init)
			}
			ld, err := manifold.LogDet(st.B)
			if err != nil {
				t.Fatal(err)
			}
			fixed := p == "B" || p == "D"
			if fixed && math.Abs(ld-logDet0) > 1e-10 {
				t.Errorf("log det B moved from %.15g to %.15g", logDet0, ld)
			}
			if !fixed && math.Abs(ld-logDet0) < 1e-3 {
				t.Errorf("log det B stayed at %g with the size free", ld)
			}
			// The kernel spec is Q = B², in the parameterisation's form.
			Q := giSquared(st.B)
			switch p {
			case "A":
				if math.Abs(2*res.Kernel.Gamma-Q.At(0, 0)) > 1e-12*Q.At(0, 0) || res.Kernel.Diag != nil || res.Kernel.Q != nil {
					t.Errorf("A: spec %+v, Q00 = %g", res.Kernel, Q.At(0, 0))
				}
			case "B", "C":
				for k, q := range res.Kernel.Diag {
					if math.Abs(q-Q.At(k, k)) > 1e-12*q {
						t.Errorf("%s: q_diag[%d] = %g, want %g", p, k, q, Q.At(k, k))
					}
				}
			default:
				for i := range res.Kernel.Q {
					for j := range res.Kernel.Q[i] {
						if math.Abs(res.Kernel.Q[i][j]-Q.At(i, j)) > 1e-12 {
							t.Errorf("%s: Q[%d][%d] = %g, want %g", p, i, j, res.Kernel.Q[i][j], Q.At(i, j))
						}
					}
				}
			}
			// At d ≤ 128 every parameterisation reports B d×d, no diagonal.
			if len(res.B) != d || res.BDiag != nil {
				t.Errorf("result B %d rows, BDiag %d numbers; want %d rows and none", len(res.B), len(res.BDiag), d)
			}
			for i := range res.B {
				for j := range res.B[i] {
					if res.B[i][j] != st.B.At(i, j) {
						t.Fatalf("result B differs from the state's B")
					}
				}
			}
			if res.CriterionEnd != st.T {
				t.Errorf("criterion end %g, state T %g", res.CriterionEnd, st.T)
			}
		})
	}
}

// TestGIStepsDecrease checks the first steps of the descent on heart: each of
// the first five steps (small, same-sign Rprop steps) lowers T. (A is left
// out: on heart its start is already at the isotropic optimum, where Rprop
// oscillates.)
func TestGIStepsDecrease(t *testing.T) {
	ds := giHeart(t, 120)
	for _, p := range []string{"B", "C", "D", "E"} {
		res, err := GISettings{Common: Common{C: 1}, Param: p, Steps: 5, Tol: -1}.tune(context.Background(), ds)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k < len(res.Trace); k++ {
			if !(res.Trace[k].Objective < res.Trace[k-1].Objective) {
				t.Errorf("%s: step %d: T %g → %g", p, k, res.Trace[k-1].Objective, res.Trace[k].Objective)
			}
		}
	}
}

// TestGIHardMarginNotSeparable: two identical points with different labels
// cannot be separated by any kernel; the hard margin must fail clearly.
func TestGIHardMarginNotSeparable(t *testing.T) {
	ds := giHeart(t, 40)
	idx := make([]int, 41)
	for i := range idx {
		idx[i] = i
	}
	idx[40] = 0
	bad := ds.Subset(idx)
	bad.Y[40] = -bad.Y[0]
	_, err := GISettings{Margin: "hard", Steps: 5}.tune(context.Background(), bad)
	var be *BreakdownError
	if !errors.As(err, &be) || be.Method != "gi" || be.Iter != 0 {
		t.Fatalf("error %v, want a gi BreakdownError at iteration 0", err)
	}
	if !errors.Is(err, solver.ErrNotSeparable) {
		t.Errorf("error %v does not wrap solver.ErrNotSeparable", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "gi: iteration 0: ") || !strings.Contains(msg, "soft margin (margin=l2)") {
		t.Errorf("message %q", msg)
	}
	// The setting it suggests is typed: a command line spells it as its flag.
	flag := func(s hint.Setting) string { return "--" + s.Key + " " + s.Value }
	if msg := hint.Spell(err, flag).Error(); !strings.HasPrefix(msg, "gi: iteration 0: ") || !strings.HasSuffix(msg, "soft margin (--margin l2)") {
		t.Errorf("spelled as flags: %q", msg)
	}
	// The L2 soft margin handles the same data.
	if _, err := (GISettings{Common: Common{C: 1}, Steps: 3}).tune(context.Background(), bad); err != nil {
		t.Errorf("L2 margin on the same data: %v", err)
	}
}

// TestGIStatus: the run converges when T stops changing (relative change
// below Tol for giConvergedRuns steps in a row), and is at its iteration
// limit otherwise.
func TestGIStatus(t *testing.T) {
	ds := giHeart(t, 100)
	res, err := GISettings{Common: Common{C: 1}, Param: "A", Steps: 200}.tune(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.Converged || res.Iter >= 200 {
		t.Fatalf("status %v after %d steps, want converged", res.Status, res.Iter)
	}
	tr := res.Trace
	for k := len(tr) - giConvergedRuns; k < len(tr); k++ {
		if rel := math.Abs(tr[k].Objective-tr[k-1].Objective) / tr[k-1].Objective; rel >= giDefaultTol {
			t.Errorf("converged, but step %d changed T by %g relative", tr[k].Iter, rel)
		}
	}
	res, err = GISettings{Common: Common{C: 1}, Param: "E", Steps: 4}.tune(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.IterationLimit || res.Iter != 4 {
		t.Errorf("status %v after %d steps, want iteration-limit after 4", res.Status, res.Iter)
	}
}

func TestGIBadOptions(t *testing.T) {
	ds := giHeart(t, 30)
	for _, s := range []GISettings{{Param: "Z"}, {Margin: "l1"}, {Common: Common{C: -1}}, {Common: Common{C: math.NaN()}}, {Steps: -2}} {
		if _, err := s.tune(context.Background(), ds); err == nil || !strings.HasPrefix(err.Error(), "gi: ") {
			t.Errorf("settings %+v: error %v", s, err)
		}
	}
}

func TestGICanceled(t *testing.T) {
	ds := giHeart(t, 60)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	rec := func(Step) {
		if n++; n == 3 {
			cancel()
		}
	}
	res, err := GISettings{Common: Common{C: 1, Recorder: rec}, Steps: 50, Tol: -1}.tune(ctx, ds)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res == nil || res.Status != status.Canceled {
		t.Errorf("result %+v, want status canceled", res)
	}
}

func TestGIDefaultC(t *testing.T) {
	if testing.Short() {
		t.Skip("grid search")
	}
	ds := giHeart(t, 80)
	res, err := GISettings{Steps: 3}.tune(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gridSearchCV(context.Background(), ds, Common{}, Space{})
	if err != nil {
		t.Fatal(err)
	}
	if res.C != g.C || !strings.Contains(res.Init, "grid search") || res.Solves != g.Solves+res.Iter+1 {
		t.Errorf("C = %g (grid %g), solves %d, init %q", res.C, g.C, res.Solves, res.Init)
	}
}

func TestGIRegistered(t *testing.T) {
	in, err := Lookup("gi")
	if err != nil {
		t.Fatal(err)
	}
	if in.Name != "gi" {
		t.Errorf("Lookup(gi).Name = %q", in.Name)
	}
	s, err := New("gi", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(GISettings); !ok || s.Name() != "gi" {
		t.Errorf("New(gi) = %#v (%s), want GISettings", s, s.Name())
	}
}

// BenchmarkGITune measures a 20-step gi run on all 270 heart rows (d = 13,
// C = 1 given, no grid search): per step a Gram matrix, warm-started SVM and
// radius QPs, ∂T/∂Q through kernel.GaussianGradQ on the support rows, the
// chart gradient and one congruence step. It reports the time per step.
func BenchmarkGITune(b *testing.B) {
	ds := giHeart(b, 270)
	for _, p := range []string{"A", "C", "D", "E"} {
		b.Run("param="+p, func(b *testing.B) {
			b.ReportAllocs()
			steps := 0
			for b.Loop() {
				res, err := GISettings{Common: Common{C: 1}, Param: p, Steps: 20, Tol: -1}.tune(context.Background(), ds)
				if err != nil {
					b.Fatal(err)
				}
				steps += res.Iter + 1
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps)/1e6, "ms/step")
		})
	}
}

// giWide returns the first n heart rows with d columns: heart's 13, then
// pseudo-random columns in [-1, 1] (seeded), or the first d of heart's.
func giWide(t testing.TB, n, d int) *dataio.Dataset {
	t.Helper()
	ds := giHeart(t, n)
	rng := rand.New(rand.NewPCG(21, uint64(d)))
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			if k < ds.Dim() {
				X.Set(i, k, ds.X.At(i, k))
			} else {
				X.Set(i, k, 2*rng.Float64()-1)
			}
		}
	}
	ds.X = X
	return ds
}

// TestGIDiagPathGradient: on the state a few full-path steps reach (B no
// longer isotropic for B and C), the diagonal path's projected ξ equals the
// full path's (chartGrad of the d×d G, projected) to 1e-12 relative, for A,
// B and C at d = 10 and 30.
func TestGIDiagPathGradient(t *testing.T) {
	for _, d := range []int{10, 30} {
		ds := giWide(t, 80, d)
		for _, p := range []giParam{giIso, giDiagDet, giDiag} {
			t.Run(fmt.Sprintf("d=%d/%v", d, p), func(t *testing.T) {
				_, st, err := GISettings{Common: Common{C: 1}, Param: p.String(), Steps: 4, Tol: -1, path: giPathFull}.run(context.Background(), ds)
				if err != nil {
					t.Fatal(err)
				}
				if p != giIso && st.B.At(0, 0) == st.B.At(1, 1) {
					t.Fatalf("B still isotropic after 4 steps")
				}
				pr := &giProblem{X: ds.X, y: ds.Y, param: p, margin: solver.L2, C: 1}
				var full mat.SymDense
				p.project(&full, chartGrad(st.B.(*mat.SymDense), pr.gradQ(st)))
				b := make([]float64, d)
				for k := range b {
					b[k] = st.B.At(k, k)
				}
				xi := chartGradDiag(b, pr.gradQDiag(st))
				p.projectDiag(xi)
				scale := 0.0
				for k := range xi {
					scale = math.Max(scale, math.Abs(full.At(k, k)))
				}
				if scale == 0 {
					t.Fatal("ξ = 0")
				}
				for k := range xi {
					if math.Abs(xi[k]-full.At(k, k)) > 1e-12*scale {
						t.Errorf("ξ_%d: diagonal path %.17g, full path %.17g", k, xi[k], full.At(k, k))
					}
				}
			})
		}
	}
}

// TestGIDiagPathRun: a whole run with the diagonal path forced gives the
// full path's trace of T to 1e-9 relative, the same number of steps and
// support vectors, the same B to 1e-9 and the same test accuracy, for A, B
// and C on 100 heart rows (d = 13); the off-diagonal iRprop+ state stays
// where the full path leaves it.
func TestGIDiagPathRun(t *testing.T) {
	all := giHeart(t, 270)
	train, test := giHeart(t, 100), all.Subset(giRange(100, 270))
	for _, p := range []string{"A", "B", "C"} {
		t.Run(p, func(t *testing.T) {
			var runs [2]*Result
			var states [2]*giState
			for i, path := range []int{giPathFull, giPathDiag} {
				s := GISettings{Common: Common{C: 1}, Param: p, Steps: 30, path: path}
				res, st, err := s.run(context.Background(), train)
				if err != nil {
					t.Fatal(err)
				}
				runs[i], states[i] = res, st
			}
			full, diag := runs[0], runs[1]
			if len(full.Trace) != len(diag.Trace) || full.Status != diag.Status {
				t.Fatalf("full path %d steps (%v), diagonal path %d (%v)", len(full.Trace), full.Status, len(diag.Trace), diag.Status)
			}
			for k := range full.Trace {
				f, g := full.Trace[k], diag.Trace[k]
				if math.Abs(f.Objective-g.Objective) > 1e-9*f.Objective || f.NSV != g.NSV || math.Abs(f.StepSize-g.StepSize) > 1e-9*f.StepSize {
					t.Errorf("step %d: full T %.15g #SV %d |S| %.15g, diagonal T %.15g #SV %d |S| %.15g", k, f.Objective, f.NSV, f.StepSize, g.Objective, g.NSV, g.StepSize)
				}
			}
			if k := len(full.Trace) - 1; k < 10 || full.Trace[k].Objective == full.Trace[0].Objective {
				t.Fatalf("the runs moved too little to compare (%d steps)", k)
			}
			d := train.Dim()
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					f, g := states[0].B.At(i, j), states[1].B.At(i, j)
					if math.Abs(f-g) > 1e-9*math.Abs(f) {
						t.Errorf("B[%d][%d]: full %.15g, diagonal %.15g", i, j, f, g)
					}
				}
			}
			for i, f := range full.Figures {
				if g := diag.Figures[i]; f.Name != g.Name || math.Abs(f.Value-g.Value) > 1e-9*math.Abs(f.Value) {
					t.Errorf("figure %s = %.15g, diagonal path %s = %.15g", f.Name, f.Value, g.Name, g.Value)
				}
			}
			accF, accD := giTestAccuracy(t, train, test, states[0]), giTestAccuracy(t, train, test, states[1])
			if accF != accD {
				t.Errorf("test accuracy: full path %g, diagonal path %g", accF, accD)
			}
			t.Logf("T %.6g → %.6g in %d steps, test accuracy %.4f", full.CriterionStart, full.CriterionEnd, full.Iter, accF)
		})
	}
}

func giRange(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// giTestAccuracy is the accuracy on test of the SVM at st.
func giTestAccuracy(t *testing.T, train, test *dataio.Dataset, st *giState) float64 {
	t.Helper()
	pr := &giProblem{param: giDiag}
	kern, err := pr.kernelOf(st.B)
	if err != nil {
		t.Fatal(err)
	}
	Kx := kern.Cross(test.X, train.X)
	right := 0
	for i, y := range test.Y {
		f := st.svm.Bias
		for j, c := range st.svm.Coef {
			f += c * Kx.At(i, j)
		}
		if f*y > 0 {
			right++
		}
	}
	return float64(right) / float64(len(test.Y))
}

// TestIRpropPlusDiag: on projected diagonal derivatives, stepDiag makes the
// steps step makes and leaves the same state (off-diagonal entries at Δ0,
// derivative 0, change 0), held whole or (newIRpropPlusDiag) on the
// diagonal only, whose full layout (the checkpoints') is the whole one's
// and loads back.
func TestIRpropPlusDiag(t *testing.T) {
	const d = 4
	full, diag, diagOnly := newIRpropPlus(d), newIRpropPlus(d), newIRpropPlusDiag(d)
	rng := rand.New(rand.NewPCG(22, 1))
	for k := 0; k < 12; k++ {
		g := make([]float64, d)
		G := mat.NewSymDense(d, nil)
		for i := range g {
			g[i] = rng.NormFloat64()
			G.SetSym(i, i, g[i])
		}
		worse := k%3 == 2
		S := full.step(G, worse)
		s := diag.stepDiag(g, worse)
		if s2 := diagOnly.stepDiag(g, worse); fmt.Sprint(s2) != fmt.Sprint(s) {
			t.Fatalf("step %d: diagonal-only %v, whole %v", k, s2, s)
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := 0.0
				if i == j {
					want = s[i]
				}
				if S.At(i, j) != want {
					t.Fatalf("step %d: S[%d][%d] = %g, stepDiag %g", k, i, j, S.At(i, j), want)
				}
			}
		}
		giParam(giDiagDet).project(S, S)
		giParam(giDiagDet).projectDiag(s)
		full.setLast(S)
		diag.setLastDiag(s)
		diagOnly.setLastDiag(s)
		want := fmt.Sprint(full.full())
		if got := fmt.Sprint(diag.full()); got != want {
			t.Fatalf("step %d: states differ:\n%v\n%v", k, want, got)
		}
		if got := fmt.Sprint(diagOnly.full()); got != want {
			t.Fatalf("step %d: diagonal-only state:\n%v\nwhole:\n%v", k, got, want)
		}
		back := newIRpropPlusDiag(d)
		if !back.setFull(full.full()) || fmt.Sprint(back.full()) != want {
			t.Fatalf("step %d: the full layout does not load back", k)
		}
	}
}

// TestGIPathsResumeEachOthersCheckpoints: a run of param C cut after k
// steps of one path and resumed on the other reads the kept state and ends
// where the first path does, T to 1e-9: the full path's layout (B d×d,
// iRprop+ over d(d+1)/2 entries, the layout of every state kept before the
// diagonal path) resumes on the diagonal path, as such a checkpoint does at
// d > 128, and the diagonal path's compact layout (giLoop.Diag: d numbers
// each) on the full path.
func TestGIPathsResumeEachOthersCheckpoints(t *testing.T) {
	train := giHeart(t, 120)
	spec := func(path int, cp *cutCheckpoint) GISettings {
		return GISettings{Param: "C", Steps: 12, Tol: -1, path: path, Common: Common{C: 1, Checkpoint: cp}}
	}
	for _, paths := range [][2]int{{giPathFull, giPathDiag}, {giPathDiag, giPathFull}} {
		t.Run(fmt.Sprint(paths), func(t *testing.T) {
			full := &cutCheckpoint{limit: 1 << 30}
			want, _, err := spec(paths[0], full).run(context.Background(), train)
			if err != nil {
				t.Fatal(err)
			}
			n := len(full.keys)
			if n < 6 {
				t.Fatalf("%d steps kept", n)
			}
			cut := &cutCheckpoint{limit: 1 << 30}
			for _, key := range full.keys[:n/2] {
				cut.Record(key, full.m[key])
			}
			got, _, err := spec(paths[1], cut).run(context.Background(), train)
			if err != nil {
				t.Fatal(err)
			}
			if cut.recalled < 1 {
				t.Fatalf("the resumed run read no kept outcome")
			}
			if len(got.Trace) != len(want.Trace) {
				t.Fatalf("trace %d steps, want %d", len(got.Trace), len(want.Trace))
			}
			for k := range want.Trace {
				if w, g := want.Trace[k].Objective, got.Trace[k].Objective; math.Abs(w-g) > 1e-9*w {
					t.Errorf("step %d: T %.15g, uninterrupted %.15g", k, g, w)
				}
			}
			if math.Abs(got.CriterionEnd-want.CriterionEnd) > 1e-9*want.CriterionEnd || want.CriterionEnd >= 0.95*want.CriterionStart {
				t.Errorf("criterion %g → %g, uninterrupted %g → %g", got.CriterionStart, got.CriterionEnd, want.CriterionStart, want.CriterionEnd)
			}
			t.Logf("%d steps kept, resumed after %d: T %.6g → %.6g", n, n/2, want.CriterionStart, want.CriterionEnd)
		})
	}
}

// TestGIDiagPathKeepsDiagonals: the diagonal path's kept state holds each
// B's diagonal and iRprop+'s d entries (giLoop.Diag), the full path's B d×d
// and d(d+1)/2 entries.
func TestGIDiagPathKeepsDiagonals(t *testing.T) {
	const d = 5
	st := &giState{B: isoDiagB(d, 2), T: 1}
	for _, diag := range []bool{false, true} {
		rp := newIRpropPlus(d)
		if diag {
			rp = newIRpropPlusDiag(d)
		}
		ls := giLoopState(Common{Checkpoint: &cutCheckpoint{}}, &giProblem{param: giDiag, diag: diag}, rp, func(l *giLoop, load bool) {
			if !load {
				l.cur, l.best = st, st
			}
		})
		l := ls.save().(giLoop)
		nb, nr := d*d, d*(d+1)/2
		if diag {
			nb, nr = d, d
		}
		if l.Diag != diag || len(l.Cur.B) != nb || len(l.Delta) != nr || len(l.Prev) != nr || len(l.Last) != nr || l.Cur.B[0] != 0.5 {
			t.Errorf("diagonal path %v: Diag %v, %d numbers of B (B_00 %g), %d of iRprop+; want %d and %d", diag, l.Diag, len(l.Cur.B), l.Cur.B[0], len(l.Delta), nb, nr)
		}
	}
}

// TestGIDiagPathResultIsTheDiagonal: above 128 features the diagonal path's
// result carries B's diagonal (BDiag, d numbers) and no d×d B, binary and in
// every pair of a 3-class run: the diagonal the forced full path's B has (to
// 1e-9; its off-diagonal exactly 0), and the kernel's q_diag_k = b_k² (C) or
// γ = b²/2 (A) exactly, as the kernel is made from it.
func TestGIDiagPathResultIsTheDiagonal(t *testing.T) {
	t.Parallel()
	const d = 140
	bin := giWide(t, 60, d)
	three := giWide(t, 60, d)
	three.Y, three.Class, three.ClassLabels = nil, make([]int, 60), []string{"a", "b", "c"}
	for i := range three.Class {
		three.Class[i] = i % 3
		three.X.Set(i, 20+i%3, three.X.At(i, 20+i%3)+1.5) // a feature of its own
	}
	check := func(t *testing.T, p string, diag, full *Result) {
		t.Helper()
		if diag.B != nil || len(diag.BDiag) != d {
			t.Fatalf("diagonal path: B %d rows, BDiag %d numbers; want none and %d", len(diag.B), len(diag.BDiag), d)
		}
		if len(full.B) != d || full.BDiag != nil {
			t.Fatalf("full path: B %d rows, BDiag %d numbers; want %d and none", len(full.B), len(full.BDiag), d)
		}
		if lo, hi := slices.Min(diag.BDiag), slices.Max(diag.BDiag); p == "C" && lo == hi {
			t.Fatalf("b_k = %g for every k: B did not leave the start", lo)
		}
		for k, b := range diag.BDiag {
			if f := full.B[k][k]; math.Abs(b-f) > 1e-9*f {
				t.Errorf("b_%d: diagonal path %.15g, full path's B %.15g", k, b, f)
			}
			for j, f := range full.B[k] {
				if j != k && f != 0 {
					t.Fatalf("full path's B[%d][%d] = %g, not diagonal", k, j, f)
				}
			}
			switch p {
			case "A":
				if g := b * b / 2; diag.Kernel.Gamma != g {
					t.Errorf("γ %.17g, b_%d²/2 = %.17g", diag.Kernel.Gamma, k, g)
				}
			case "C":
				if q := diag.Kernel.Diag[k]; q != b*b {
					t.Errorf("q_diag[%d] = %.17g, b_%d² = %.17g", k, q, k, b*b)
				}
			}
		}
	}
	for _, p := range []string{"A", "C"} {
		t.Run(p, func(t *testing.T) {
			var runs [2]*Result
			for i, path := range []int{0, giPathFull} { // 0: the default, diagonal at d = 140
				res, err := Tune(context.Background(), GISettings{Common: Common{C: 1}, Param: p, Steps: 8, Tol: -1, path: path}, bin)
				if err != nil {
					t.Fatal(err)
				}
				runs[i] = res
			}
			check(t, p, runs[0], runs[1])
		})
	}
	t.Run("3 classes", func(t *testing.T) {
		var runs [2]*Result
		for i, path := range []int{0, giPathFull} {
			res, err := Tune(context.Background(), GISettings{Common: Common{C: 1}, Param: "C", Steps: 8, Tol: -1, path: path}, three)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Pairs) != 3 || res.B != nil || res.BDiag != nil {
				t.Fatalf("path %d: %d pairs, B %d rows, BDiag %d numbers at the top; want 3 and none", path, len(res.Pairs), len(res.B), len(res.BDiag))
			}
			runs[i] = res
		}
		for k := range runs[0].Pairs {
			check(t, "C", runs[0].Pairs[k].Result, runs[1].Pairs[k].Result)
		}
	})
}
