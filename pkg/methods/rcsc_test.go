package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// rcscToy returns n×d Gaussian data whose two classes differ in mean, with
// the rows of class -1 first when sorted is true and shuffled otherwise.
func rcscToy(n, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		y[i] = -1
		if i >= n*2/5 {
			y[i] = 1
		}
		for k := 0; k < d; k++ {
			X.Set(i, k, rng.NormFloat64()+0.8*y[i]*float64(k%2))
		}
	}
	return X, y
}

// rcscLiteral builds B, W (eq. 9–10, rows assumed sorted: the first n1 rows
// are class -1) and returns J of eq. 12 with an explicit inverse of C, and the
// gradient of eq. 16 with K' = -K ∘ D, all exactly as printed in the paper.
func rcscLiteral(t *testing.T, K, D *mat.SymDense, y []float64, lambda float64) (J, dJ float64) {
	t.Helper()
	n := len(y)
	n1 := 0
	for _, v := range y {
		if v < 0 {
			n1++
		}
	}
	n2 := n - n1
	one := func(first bool, k int) *mat.VecDense { // 1_n^{+k} or 1_n^{-k}
		v := mat.NewVecDense(n, nil)
		for i := 0; i < k; i++ {
			if first {
				v.SetVec(i, 1)
			} else {
				v.SetVec(n-1-i, 1)
			}
		}
		return v
	}
	ones := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		ones.SetVec(i, 1)
	}
	p1, p2 := one(true, n1), one(false, n2)
	B := mat.NewDense(n, n, nil)
	for _, c := range []struct {
		v  *mat.VecDense
		nc int
	}{{p1, n1}, {p2, n2}} {
		u := mat.NewVecDense(n, nil)
		u.AddScaledVec(u, 1/float64(c.nc), c.v)
		u.AddScaledVec(u, -1/float64(n), ones)
		var o mat.Dense
		o.Outer(float64(c.nc)/float64(n), u, u)
		B.Add(B, &o)
	}
	W := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		W.Set(i, i, 1)
	}
	var o1, o2 mat.Dense
	o1.Outer(1/float64(n1), p1, p1)
	o2.Outer(1/float64(n2), p2, p2)
	W.Sub(W, &o1)
	W.Sub(W, &o2)
	W.Scale(1/math.Sqrt(float64(n)), W)

	var C, Cinv, WKW, tmp mat.Dense
	tmp.Mul(W, K)
	WKW.Mul(&tmp, W)
	C.CloneFrom(&WKW)
	for i := 0; i < n; i++ {
		C.Set(i, i, C.At(i, i)+lambda)
	}
	if err := Cinv.Inverse(&C); err != nil {
		t.Fatalf("explicit inverse of C: %v", err)
	}
	// M = W C⁻¹ W, A = M K B.
	var M, MK, A mat.Dense
	tmp.Mul(W, &Cinv)
	M.Mul(&tmp, W)
	MK.Mul(&M, K)
	A.Mul(&MK, B)
	// K' = -K ∘ D; A' = -M K' M K B + M K' B.
	Kp := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			Kp.Set(i, j, -K.At(i, j)*D.At(i, j))
		}
	}
	var MKp, t1, t2, Ap mat.Dense
	MKp.Mul(&M, Kp)
	t1.Mul(&MKp, &MK)
	t1.Mul(&t1, B)
	t2.Mul(&MKp, B)
	Ap.Sub(&t2, &t1)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			J += (B.At(i, j) - A.At(i, j)) * K.At(i, j)
			dJ += (B.At(i, j)-A.At(i, j))*Kp.At(i, j) - Ap.At(i, j)*K.At(i, j)
		}
	}
	return J / lambda, dJ / lambda
}

// rcscShuffle returns the rows of X and y in a fixed random order.
func rcscShuffle(X *mat.Dense, y []float64) (*mat.Dense, []float64) {
	n, d := X.Dims()
	perm := rand.New(rand.NewPCG(9, 9)).Perm(n)
	Xp := mat.NewDense(n, d, nil)
	yp := make([]float64, n)
	for i, j := range perm {
		Xp.SetRow(i, X.RawRowView(j))
		yp[i] = y[j]
	}
	return Xp, yp
}

func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

func isoGram(t *testing.T, X mat.Matrix, gamma float64) *mat.SymDense {
	t.Helper()
	k, err := kernel.NewGaussianIso(gamma)
	if err != nil {
		t.Fatal(err)
	}
	return k.Gram(X)
}

// rcscSolvers are rcscCrit's two ways of solving with K + nλI: a Cholesky
// factor (n ≤ rcscDirectMax) and conjugate gradients (above). The tests of
// the criterion and its gradient run both on their small problems.
var rcscSolvers = []struct {
	name      string
	iterative bool
}{{"cholesky", false}, {"cg", true}}

// rcscUse makes cr solve the given way and, for CG, checks at the end of
// the test that every evaluation was by CG (no fallback to the factor).
func rcscUse(t testing.TB, cr *rcscCrit, iterative bool) {
	t.Helper()
	cr.iterative = iterative
	if iterative {
		t.Cleanup(func() {
			if cr.fallbacks > 0 || cr.cgIter == 0 {
				t.Errorf("CG: %d of %d evaluations fell back to the Cholesky factor, %d CG iterations", cr.fallbacks, cr.evals, cr.cgIter)
			}
		})
	}
}

// TestRCSCCriterionLiteral checks J (eq. 12) and ∂J/∂γ (eq. 16) of the fast
// rank-two form against the paper's formulas built literally with an
// explicit inverse, on class-sorted rows, for several λ and γ.
func TestRCSCCriterionLiteral(t *testing.T) {
	X, y := rcscToy(30, 4, 1)
	for _, sv := range rcscSolvers {
		t.Run(sv.name, func(t *testing.T) {
			for _, lambda := range []float64{1e-5, 1e-3, 0.1} {
				for _, gamma := range []float64{0.05, 0.3, 2} {
					p, err := newRCSCProblem(X, y, false, lambda)
					if err != nil {
						t.Fatal(err)
					}
					rcscUse(t, p.crit, sv.iterative)
					grad := make([]float64, 1)
					J, err := p.eval([]float64{gamma}, grad)
					if err != nil {
						t.Fatal(err)
					}
					Jl, dJl := rcscLiteral(t, isoGram(t, X, gamma), kernel.SquaredDistances(X), y, lambda)
					if e := relErr(J, Jl); e > 1e-8 {
						t.Errorf("λ=%g γ=%g: J = %.12g, literal eq. 12 = %.12g (rel err %.2g)", lambda, gamma, J, Jl, e)
					}
					if e := relErr(grad[0], dJl); e > 1e-6 {
						t.Errorf("λ=%g γ=%g: ∂J/∂γ = %.12g, literal eq. 16 = %.12g (rel err %.2g)", lambda, gamma, grad[0], dJl, e)
					}
				}
			}
		})
	}
}

// TestRCSCCriterionInputSpace checks eq. 12 (after Woodbury) against the
// definition J = Tr((λI + S_w)⁻¹ S_b) of eq. 11 with eqs. 1–2 computed in
// input space, for the linear kernel K = XXᵀ (feature map φ(x) = x).
func TestRCSCCriterionInputSpace(t *testing.T) {
	// Shuffled rows, so this also covers unsorted labels.
	Xp, yp := rcscShuffle(rcscToy(25, 3, 2))
	n, d := Xp.Dims()
	lambda := 0.01
	var K mat.SymDense
	K.SymOuterK(1, Xp)
	var J [2]float64
	for k, sv := range rcscSolvers {
		cr, err := newRCSCCrit(yp, lambda)
		if err != nil {
			t.Fatal(err)
		}
		rcscUse(t, cr, sv.iterative)
		if J[k], err = cr.value(&K, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Direct: S_b = (1/n) Σ_c n_c (m_c - m)(m_c - m)ᵀ, S_w = (1/n) Σ_i (x_i - m_ci)(x_i - m_ci)ᵀ.
	m := make([]float64, d)
	mc := [2][]float64{make([]float64, d), make([]float64, d)}
	var nc [2]float64
	for i := 0; i < n; i++ {
		c := 0
		if yp[i] > 0 {
			c = 1
		}
		nc[c]++
		for k := 0; k < d; k++ {
			m[k] += Xp.At(i, k) / float64(n)
			mc[c][k] += Xp.At(i, k)
		}
	}
	for c := 0; c < 2; c++ {
		for k := range mc[c] {
			mc[c][k] /= nc[c]
		}
	}
	Sb := mat.NewDense(d, d, nil)
	Sw := mat.NewDense(d, d, nil)
	for c := 0; c < 2; c++ {
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				Sb.Set(a, b, Sb.At(a, b)+nc[c]/float64(n)*(mc[c][a]-m[a])*(mc[c][b]-m[b]))
			}
		}
	}
	for i := 0; i < n; i++ {
		c := 0
		if yp[i] > 0 {
			c = 1
		}
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				Sw.Set(a, b, Sw.At(a, b)+(Xp.At(i, a)-mc[c][a])*(Xp.At(i, b)-mc[c][b])/float64(n))
			}
		}
	}
	for a := 0; a < d; a++ {
		Sw.Set(a, a, Sw.At(a, a)+lambda)
	}
	var inv, prod mat.Dense
	if err := inv.Inverse(Sw); err != nil {
		t.Fatal(err)
	}
	prod.Mul(&inv, Sb)
	want := mat.Trace(&prod)
	for k, sv := range rcscSolvers {
		if e := relErr(J[k], want); e > 1e-9 {
			t.Errorf("%s: J = %.12g, Tr((λI+S_w)⁻¹S_b) in input space = %.12g (rel err %.2g)", sv.name, J[k], want, e)
		}
	}
}

// TestRCSCGradK checks ∂J/∂K = (1/λ)(I - MK)B(I - KM) entry by entry by
// central differences on symmetric perturbations of K.
func TestRCSCGradK(t *testing.T) {
	X, y := rcscToy(20, 3, 4)
	K := isoGram(t, X, 0.4)
	lambda := 1e-3
	for _, sv := range rcscSolvers {
		t.Run(sv.name, func(t *testing.T) {
			cr, err := newRCSCCrit(y, lambda)
			if err != nil {
				t.Fatal(err)
			}
			rcscUse(t, cr, sv.iterative)
			G := mat.NewSymDense(20, nil)
			if _, err := cr.value(K, G); err != nil {
				t.Fatal(err)
			}
			// Coordinate p moves entry ij[p] of K and its mirror, so the
			// analytic derivative is 2G_ij off the diagonal.
			entries := [][2]int{{0, 0}, {0, 1}, {3, 17}, {10, 10}, {5, 19}, {12, 13}}
			f := func(x []float64) float64 {
				Kp := mat.NewSymDense(20, nil)
				Kp.CopySym(K)
				for p, ij := range entries {
					Kp.SetSym(ij[0], ij[1], K.At(ij[0], ij[1])+x[p])
				}
				v, err := cr.value(Kp, nil)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			want := make([]float64, len(entries))
			for p, ij := range entries {
				want[p] = G.At(ij[0], ij[1])
				if ij[0] != ij[1] {
					want[p] *= 2 // K_ij and K_ji move together
				}
			}
			// Measured agreement 2e-10–5e-8 relative; the old bound, 1e-5·|J| in
			// absolute terms, let an entry of 0.12 be off by 6e-4 relative.
			fdcheck.Grad(t, "∂J/∂K", f, make([]float64, len(entries)), want, fdcheck.Settings{
				Tol: 1e-6, Scale: fdcheck.ScaleEntry,
				Label: func(_, p int) string { return fmt.Sprintf("[%d,%d]", entries[p][0], entries[p][1]) },
			})
		})
	}
}

// TestRCSCGradGamma checks ∂J/∂γ (iso) and ∂J/∂γ_k (diag, through
// kernel.GaussianGradDiag) by central differences.
func TestRCSCGradGamma(t *testing.T) {
	X, y := rcscToy(40, 5, 5)
	for _, tc := range []struct {
		name  string
		diag  bool
		gamma []float64
	}{
		{"iso", false, []float64{0.2}},
		{"iso-small", false, []float64{0.01}},
		{"diag", true, []float64{0.1, 0.5, 0.02, 0.3, 1.2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, sv := range rcscSolvers {
				for _, lambda := range []float64{1e-5, 1e-2} {
					p, err := newRCSCProblem(X, y, tc.diag, lambda)
					if err != nil {
						t.Fatal(err)
					}
					rcscUse(t, p.crit, sv.iterative)
					grad := make([]float64, len(tc.gamma))
					if _, err := p.eval(tc.gamma, grad); err != nil {
						t.Fatal(err)
					}
					f := func(g []float64) float64 {
						v, err := p.eval(g, nil)
						if err != nil {
							t.Fatal(err)
						}
						return v
					}
					steps := make([]float64, len(tc.gamma))
					for k, g := range tc.gamma {
						steps[k] = 1e-6 * g
					}
					fdcheck.Grad(t, fmt.Sprintf("%s λ=%g ∂J/∂γ", sv.name, lambda), f, tc.gamma, grad,
						fdcheck.Settings{Steps: steps, Scale: fdcheck.ScaleEntry})
				}
			}
		})
	}
}

// TestRCSCUnsortedRows checks that J on shuffled rows equals J on class-sorted
// rows (B and W from class indicators), and that the paper's literal blocks
// (eq. 9–10, valid only for sorted rows) give a different, wrong value there.
func TestRCSCUnsortedRows(t *testing.T) {
	X, y := rcscToy(30, 3, 6)
	lambda, gamma := 1e-4, 0.3
	p, _ := newRCSCProblem(X, y, false, lambda)
	Jsorted, err := p.eval([]float64{gamma}, nil)
	if err != nil {
		t.Fatal(err)
	}
	Xp, yp := rcscShuffle(X, y)
	if sort.SliceIsSorted(yp, func(a, b int) bool { return yp[a] < yp[b] }) {
		t.Fatal("permutation left the rows sorted")
	}
	pp, _ := newRCSCProblem(Xp, yp, false, lambda)
	Jperm, err := pp.eval([]float64{gamma}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(Jsorted, Jperm); e > 1e-9 {
		t.Errorf("J on shuffled rows %.12g differs from sorted rows %.12g (rel err %.2g)", Jperm, Jsorted, e)
	}
	Jlit, _ := rcscLiteral(t, isoGram(t, Xp, gamma), kernel.SquaredDistances(Xp), yp, lambda)
	if relErr(Jlit, Jsorted) < 1e-3 {
		t.Errorf("the literal sorted-row blocks on shuffled rows gave the right J (%.6g): the test data do not exercise the ordering", Jlit)
	}
}

// TestRCSCCriterionLimits checks J at the two ends of the γ range: K → I gives
// J = Tr(B)/λ = 1/(nλ) exactly (every point orthogonal; PB = 0), and K → 11ᵀ
// gives J → 0 (all points coincide in feature space).
func TestRCSCCriterionLimits(t *testing.T) {
	_, y := rcscToy(30, 2, 7)
	n := len(y)
	lambda := 1e-5
	I := mat.NewSymDense(n, nil)
	ones := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		I.SetSym(i, i, 1)
		for j := i; j < n; j++ {
			ones.SetSym(i, j, 1)
		}
	}
	for _, sv := range rcscSolvers {
		cr, _ := newRCSCCrit(y, lambda)
		rcscUse(t, cr, sv.iterative)
		J, err := cr.value(I, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 / (float64(n) * lambda); relErr(J, want) > 1e-10 {
			t.Errorf("%s: J(K = I) = %.12g, want 1/(nλ) = %.12g", sv.name, J, want)
		}
		J, err = cr.value(ones, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(J) > 1e-6 {
			t.Errorf("%s: J(K = 11ᵀ) = %g, want 0", sv.name, J)
		}
	}
}

// TestRCSCSolversAgree checks that conjugate gradients (the path for
// n > rcscDirectMax) and the Cholesky factor give the same J, ∂J/∂γ and
// robust ascent: J to 1e-11 relative and the gradient to 1e-7 of its
// largest component, at γ from a near-constant to a near-diagonal kernel,
// evaluated in turn on one criterion so that each CG solve starts from the
// previous one's solution (the ascent's warm start); and the ascent on heart
// to the same iterations and γ.
func TestRCSCSolversAgree(t *testing.T) {
	t.Parallel()
	heart := loadHeart(t)
	X, y := heart.X, heart.Y
	for _, diag := range []bool{false, true} {
		var p [2]*rcscProblem
		for k, sv := range rcscSolvers {
			var err error
			if p[k], err = newRCSCProblem(X, y, diag, rcscLambda); err != nil {
				t.Fatal(err)
			}
			rcscUse(t, p[k].crit, sv.iterative)
		}
		_, d := X.Dims()
		for _, g := range []float64{0.01, 0.3, 0.05, 0.051, 2, 0.002} {
			gamma := []float64{g}
			if diag {
				gamma = make([]float64, d)
				for k := range gamma {
					gamma[k] = g * (0.5 + float64(k%3)/2)
				}
			}
			var J [2]float64
			var grad [2][]float64
			for k := range p {
				grad[k] = make([]float64, len(gamma))
				var err error
				if J[k], err = p[k].eval(gamma, grad[k]); err != nil {
					t.Fatal(err)
				}
			}
			if e := relErr(J[0], J[1]); e > 1e-11 {
				t.Errorf("diag=%v γ=%g: J %.15g (Cholesky), %.15g (CG), rel err %.2g", diag, g, J[0], J[1], e)
			}
			scale := floats.Norm(grad[0], math.Inf(1)) // a component may be ~0
			for k := range grad[0] {
				if e := math.Abs(grad[0][k]-grad[1][k]) / scale; e > 1e-7 {
					t.Errorf("diag=%v γ=%g: ∂J/∂γ[%d] %.12g (Cholesky), %.12g (CG), rel err %.2g", diag, g, k, grad[0][k], grad[1][k], e)
				}
			}
		}
	}
	g0, err := rcscGamma0(X)
	if err != nil {
		t.Fatal(err)
	}
	var runs [2]rcscRun
	for k, sv := range rcscSolvers {
		p, err := newRCSCProblem(X, y, false, rcscLambda)
		if err != nil {
			t.Fatal(err)
		}
		rcscUse(t, p.crit, sv.iterative)
		if runs[k], err = rcscRobust(context.Background(), p, []float64{g0}, RCSCSettings{}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if runs[0].iter != runs[1].iter || relErr(runs[0].gamma[0], runs[1].gamma[0]) > 1e-9 || relErr(runs[0].j, runs[1].j) > 1e-12 {
		t.Errorf("robust ascent: Cholesky γ %.12g, J %.15g in %d iterations; CG γ %.12g, J %.15g in %d",
			runs[0].gamma[0], runs[0].j, runs[0].iter, runs[1].gamma[0], runs[1].j, runs[1].iter)
	}
}

func loadHeart(t testing.TB) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nz, err := dataio.FitNormalizer(dataio.ZScore, d.X)
	if err != nil {
		t.Fatal(err)
	}
	return nz.ApplyDataset(d)
}

// TestRCSCAscent runs both schedules and both parameterisations on heart and
// checks that the robust ascent increases J monotonically and that the
// paper's schedule takes exactly its N steps with η(t) = η0(1 - t/N).
func TestRCSCAscent(t *testing.T) {
	t.Parallel()
	heart := loadHeart(t)
	ctx := context.Background()
	for _, tc := range []struct{ param, mode string }{{"iso", "robust"}, {"diag", "robust"}, {"iso", "paper"}} {
		t.Run(tc.param+"-"+tc.mode, func(t *testing.T) {
			var steps []Step
			rec := func(s Step) { steps = append(steps, s) }
			rs := RCSCSettings{Common: Common{C: 1, Recorder: rec}, Param: tc.param, Schedule: tc.mode}
			if tc.param == "diag" {
				rs.MaxIter = 30
			}
			res, err := rs.tune(ctx, heart)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Trace) != len(steps) || len(steps) < 2 {
				t.Fatalf("trace has %d steps, recorder saw %d", len(res.Trace), len(steps))
			}
			if res.Kernel.Kind != kernel.KindGaussian {
				t.Errorf("kernel kind %q", res.Kernel.Kind)
			}
			switch tc.mode {
			case "robust":
				if !(res.CriterionEnd > res.CriterionStart*1.01) {
					t.Errorf("robust ascent: J %.6g → %.6g, want an increase", res.CriterionStart, res.CriterionEnd)
				}
				for i := 1; i < len(steps); i++ {
					if steps[i].Objective < steps[i-1].Objective {
						t.Errorf("robust ascent decreased J at step %d: %.10g → %.10g", i, steps[i-1].Objective, steps[i].Objective)
					}
				}
			case "paper":
				if len(steps) != rcscN+1 || res.Iter != rcscN {
					t.Errorf("paper schedule: %d steps (iter %d), want N+1 = %d", len(steps), res.Iter, rcscN+1)
				}
				for i := 1; i < len(steps); i++ {
					if want := rcscEta0 * (1 - float64(i-1)/rcscN); relErr(steps[i].StepSize, want) > 1e-12 {
						t.Errorf("paper step %d: η = %g, want %g", i, steps[i].StepSize, want)
					}
				}
			}
			t.Logf("%s/%s: J %.6g → %.6g in %d iterations, status %v, kernel %+v", tc.param, tc.mode, res.CriterionStart, res.CriterionEnd, res.Iter, res.Status, res.Kernel)
		})
	}
}

// TestRCSCTuneChoosesC runs the whole method (C by cross-validation) and
// checks the chosen C is on the grid and the result is well formed.
func TestRCSCTuneChoosesC(t *testing.T) {
	t.Parallel()
	heart := loadHeart(t)
	res, err := RCSCSettings{Common: Common{Seed: 1}}.tune(context.Background(), heart)
	if err != nil {
		t.Fatal(err)
	}
	onGrid := false
	for _, c := range rcscCGrid() {
		onGrid = onGrid || c == res.C
	}
	if !onGrid || res.Solves == 0 {
		t.Errorf("C = %g (on grid: %v) after %d solves", res.C, onGrid, res.Solves)
	}
	if !(res.Kernel.Gamma > 0) || res.Method != "rcsc" || res.Margin != solver.L1 || res.Status != status.Converged {
		t.Errorf("result %+v", res)
	}
}

func TestRCSCErrors(t *testing.T) {
	heart := loadHeart(t)
	ctx := context.Background()
	// rcsc has only the L1 margin (no Margin field): the old {Margin: "l2"}
	// row is the command line's check now.
	for _, s := range []RCSCSettings{{Param: "full"}, {Schedule: "fast"}, {Common: Common{C: -1}}} {
		if _, err := s.tune(ctx, heart); err == nil || !strings.HasPrefix(err.Error(), "rcsc: ") {
			t.Errorf("settings %+v: error %v, want one starting \"rcsc: \"", s, err)
		}
	}
	one := heart.Subset([]int{0, 1, 2})
	one.Y = []float64{1, 1, -1}
	if _, err := (RCSCSettings{Common: Common{C: 1}}).tune(ctx, one); !errors.Is(err, errRCSCClass) {
		t.Errorf("a class with one row: error %v, want errRCSCClass", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for _, mode := range []string{"robust", "paper"} {
		if _, err := (RCSCSettings{Common: Common{C: 1}, Schedule: mode}).tune(cctx, heart); !errors.Is(err, context.Canceled) {
			t.Errorf("%s, cancelled context: error %v, want context.Canceled", mode, err)
		}
	}
}

// BenchmarkRCSCEval measures one evaluation of J and ∂J/∂γ (iso: O(n²) plus
// the n³/3 Cholesky of C; diag adds the O(n²d) Laplacian-trick gradient).
func BenchmarkRCSCEval(b *testing.B) {
	for _, n := range []int{200, 500} {
		for _, diag := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/iso", n)
			if diag {
				name = fmt.Sprintf("n=%d/diag", n)
			}
			b.Run(name, func(b *testing.B) {
				X, y := rcscToy(n, 10, 1)
				p, err := newRCSCProblem(X, y, diag, rcscLambda)
				if err != nil {
					b.Fatal(err)
				}
				gamma := []float64{0.1}
				if diag {
					gamma = make([]float64, 10)
					for k := range gamma {
						gamma[k] = 0.1
					}
				}
				grad := make([]float64, len(gamma))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.eval(gamma, grad); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestRCSCPaperBreakdown checks that a paper step making γ ≤ 0 is reported
// at the iteration of that step: the first here, where J falls past its
// interior maximum (γ = 0.5 on these 10-feature data) and λ = 1e-9 makes the
// absolute step η0 ∂J/∂γ 10⁴ times the paper's. (It was reported at
// iteration 0.)
func TestRCSCPaperBreakdown(t *testing.T) {
	X, y := rcscToy(30, 10, 8)
	p, err := newRCSCProblem(X, y, false, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	grad := []float64{0}
	if _, err := p.eval([]float64{0.5}, grad); err != nil || !(0.5+rcscEta0*grad[0] <= 0) {
		t.Fatalf("test data: ∂J/∂γ(0.5) = %g (err %v), want a first step past 0", grad[0], err)
	}
	run, err := rcscPaper(context.Background(), p, []float64{0.5}, RCSCSettings{}, time.Now())
	if err == nil || run.iter != 1 || len(run.trace) != 1 {
		t.Errorf("err %v at iteration %d after %d recorded steps, want a breakdown at iteration 1 after the start", err, run.iter, len(run.trace))
	}
}
