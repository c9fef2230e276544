package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/manifold"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// GISettings configure gi, described below. The zero value of every field
// means its default.
//
// gi is the method of Glasmachers & Igel (2005), "Gradient-based adaptation
// of general Gaussian kernels", Neural Computation 17(10).
//
// Kernel (their eq. 1.1): k_B(x, z) = exp(-½‖B(x-z)‖²), B SPD, i.e. the
// canonical Q = B². Criterion: the radius-margin quotient T = R²‖w‖²
// (their eq. 3.1, (R/γ)² with γ = 1/‖w‖), with the hard margin, as the paper,
// or the L2 soft margin of Chapelle et al. (2002), both R² and ‖w‖² taken with
// K + νI, ν = 1/C. The gradient comes from the envelope theorem:
//
//	∂T/∂K_ij = -‖w‖² β_iβ_j - R² α_iα_j y_iy_j
//
// (docs/design.md "gi: the radius-margin gradient"), pushed through
// kernel.GaussianGradQ to G = ∂T/∂Q and then into the exponential chart
// A ↦ e^A B e^A at A = 0 (their eqs. 2.1–2.3):
//
//	ξ = ∂T/∂A = B²G + G B² + 2 B G B.
//
// ξ is projected onto the subspace of the parameterisation (their Table 1,
// GISettings.Param):
//
//	A  iso       B = λI                  ξ → (tr ξ/d) I
//	B  diag-det  B diagonal, det fixed   ξ → diag(ξ) - (tr ξ/d) I
//	C  diag      B diagonal              ξ → diag(ξ)
//	D  full-det  det B fixed             ξ → ξ - (tr ξ/d) I
//	E  full      none                    ξ → ξ
//
// and the step is B ← e^{-S} B e^{-S} with S from iRprop+ (Igel & Hüsken 2003)
// individual step sizes on the entries of the projected ξ, S projected again,
// so that for B and D tr S = 0 and det B stays fixed. The paper's "constant
// trace" is tr A = 0, i.e. det B constant (docs/design.md "gi: the
// radius-margin gradient").
//
// For A, B and C above d = 128 (giDiagPathMinDim) the step works on B's
// diagonal alone (giDescent.stepDiag: ξ_kk = 4 b_k² G_kk, O(m²d), and
// B ← diag(b_k e^{-2s_k})), with the full path's numbers to rounding: at 778
// features it is what lets gi run at all.
//
// The start is isotropic, B = I/σ with σ Jaakkola's heuristic: the median
// over positive points of the distance to the nearest negative point (§3).
//
// The start B = I/σ is the same for every parameterisation; GISettings
// holds the parameterisation, margin, step limit and tolerance. The iterate
// with the smallest T is returned.
//
// Measured (BENCHMARKS.md, docs/methods.md): on the paper's chessboard the
// parameterisations rank as in the paper (test error D 8%, E 10%, B 12%, C
// 17%, A 21%, 20 trials). On seven real datasets (10 partitions of 100/100,
// L2 margin) none beats the svm baseline, D is never the best gi where
// d ≥ 6 (the worst on heart, breast-wisconsin and a1a) and A is the best gi
// wherever d ≥ 8 (heart A 80.9%, D 75.7%, svm 82.9%). It is the bound, not the stopping rule: D's test accuracy
// falls as T is minimised (heart 81.6% after one step, 75.7% at
// convergence) while its training accuracy rises to 99%. Hence "auto".
type GISettings struct {
	// Common: C, for the L2 margin, given or else the svm baseline's
	// grid-search C (a C-SVC choice reused as ν = 1/C; Folds and Seed
	// are that search's); the hard margin has no C.
	Common
	// Param is one of the parameterisations A–E (see GI) or "auto" (the
	// default: D when d(d+1)/2 ≤ n/20, A otherwise; giAutoParam, our rule).
	Param string
	// Margin is "l2" (the default: unlike the paper's hard margin it runs
	// on data no Gaussian SVM separates) or "hard".
	Margin string
	// Steps bounds the number of iRprop+ steps (default 100; the command
	// line's --steps).
	Steps int
	// Tol: the run has converged when T changes by less than Tol (relative,
	// default 1e-4; negative: never) for 5 steps in a row.
	Tol float64

	// path forces the diagonal path (giPathDiag: giProblem.diag) or the
	// full one (giPathFull) at any d for A, B and C (tests and benchmarks
	// compare them); 0 chooses by giDiagPathMinDim.
	path int
}

// Name returns "gi".
func (GISettings) Name() string { return "gi" }

// WithBase returns s with the shared settings c.
func (s GISettings) WithBase(c Common) Spec { s.Common = c; return s }

// giInfo is gi's entry in the registry (All).
var giInfo = Info{
	Name: "gi", Summary: hint.T("Glasmachers & Igel 2005: radius-margin quotient, iRprop+ in the exponential chart"),
	Params: giParams, Margins: []string{"l2", "hard"}, marginWhy: "the radius-margin bound needs 2D* = ‖w‖²",
	build: func(p, _ string) Spec { return GISettings{Param: p} },
}

// Check refuses settings gi cannot run with, whatever the data. Tol may be
// negative (never converge: run all Steps).
func (s GISettings) Check() error {
	// C by the grid search (cross-validation) unless given or hard.
	if err := s.Common.check("gi"); err != nil {
		return err
	}
	if _, _, err := parseGIParam(s.Param); err != nil {
		return err
	}
	if err := giInfo.CheckMargin(s.Margin); err != nil {
		return err
	}
	if err := checkMaxIter("gi", "steps", s.Steps); err != nil {
		return err
	}
	if math.IsNaN(s.Tol) || math.IsInf(s.Tol, 0) {
		return optErr("gi", "tol", s.Tol, "a finite number (0 for the default; negative: never stop before the last step)")
	}
	return nil
}

// PeakBytes: the Jaakkola start's distances are freed before the steps,
// which hold K (and the previous step's state), its support-vector block,
// the weights, and two solver caches (the SVM and the radius); C by the
// grid search unless given or hard. (Four matrices: with three, the RSS at
// n = 2,000 under --mem-mb was 11% above the bound.)
func (s GISettings) PeakBytes(n, d int) int64 {
	m := newMemModel(s.Common)
	work := 4*sq(n) + 2*m.cacheOf(n)
	if s.C == 0 && s.Margin != "hard" {
		work = max(work, m.grid(n, d, s.Common))
	}
	return peak(n, d, work)
}

// Params lists the parameterisations of Glasmachers & Igel's Table 1 after
// the default, "auto" (our rule, giAutoParam): D (full B, det B fixed), the
// paper's best on its chessboard, when d(d+1)/2 is small against the number
// of training points, A (isotropic) otherwise. The long names are accepted
// too.
var giParams = []string{"auto", "A", "B", "C", "D", "E", "iso", "diag-det", "diag", "full-det", "full"}

// giAutoRatio: "auto" takes D when its d(d+1)/2 free parameters are at most
// n/giAutoRatio, A otherwise (docs/methods.md "gi on real data").
const giAutoRatio = 20

// giAutoParam is the parameterisation "auto" chooses for n training points
// in d dimensions, and why. Measured (docs/methods.md "gi on real data": 10 partitions
// of 100/100 on seven real datasets, L2 margin): D is never the best
// parameterisation where d ≥ 6, its accuracy falling as the bound is
// minimised (heart: 81.6% after 1 step, 75.7% at convergence), and A is the
// best wherever d ≥ 8 (C on bupa, d = 6, by 1.7 points); on low-dimensional data
// (banana, d = 2; the paper's chessboard) the size-free A, C and E shrink
// the kernel until nearly every point is a support vector (banana: 66% vs
// D's 81%), and D is the paper's choice.
func giAutoParam(n, d int) (giParam, hint.Text) {
	k := d * (d + 1) / 2
	if float64(k) <= float64(n)/giAutoRatio {
		return giFullDet, hint.T(fmt.Sprintf("gi: parameterisation D chosen because its d(d+1)/2 = %d free parameters are at most n/%d = %.4g (d = %d, n = %d); the radius-margin bound overfits with more (", k, giAutoRatio, float64(n)/giAutoRatio, d, n),
			hint.S("param", "A–E"), " to choose)")
	}
	return giIso, hint.T(fmt.Sprintf("gi: parameterisation A chosen because D's d(d+1)/2 = %d free parameters exceed n/%d = %.4g (d = %d, n = %d): minimising the radius-margin bound over that many fits the bound, not the data (", k, giAutoRatio, float64(n)/giAutoRatio, d, n),
		hint.S("param", "A–E"), " to choose)")
}

// giParam is one of the parameterisations A–E of Glasmachers & Igel's Table 1.
type giParam int

const (
	giIso     giParam = iota // A: B = λI
	giDiagDet                // B: B diagonal, det B fixed
	giDiag                   // C: B diagonal
	giFullDet                // D: det B fixed
	giFull                   // E: no constraint
)

var giParamNames = [...][2]string{{"A", "iso"}, {"B", "diag-det"}, {"C", "diag"}, {"D", "full-det"}, {"E", "full"}}

func (p giParam) String() string { return giParamNames[p][0] }

// parseGIParam reads a parameterisation A–E (or its long name); "" and
// "auto" return auto = true, for giAutoParam to decide.
func parseGIParam(s string) (p giParam, auto bool, err error) {
	if s == "" || strings.EqualFold(s, "auto") {
		return 0, true, nil
	}
	for i, n := range giParamNames {
		if strings.EqualFold(s, n[0]) || strings.EqualFold(s, n[1]) {
			return giParam(i), false, nil
		}
	}
	return 0, false, optErr("gi", "param", s, "auto, A|B|C|D|E or iso|diag-det|diag|full-det|full (any case)")
}

// project sets dst to the orthogonal projection of a onto the tangent
// subspace of the parameterisation (Table 1 of the paper).
func (p giParam) project(dst *mat.SymDense, a mat.Symmetric) {
	switch p {
	case giIso:
		manifold.ProjectIsotropic(dst, a)
	case giDiagDet:
		manifold.ProjectDiagonalTraceFree(dst, a)
	case giDiag:
		manifold.ProjectDiagonal(dst, a)
	case giFullDet:
		manifold.ProjectTraceFree(dst, a)
	default:
		if dst.IsEmpty() {
			dst.ReuseAsSym(a.SymmetricDim())
		}
		if dst != a {
			dst.CopySym(a)
		}
	}
}

// projectDiag is project for a diagonal parameterisation (A, B, C) on the
// diagonal a of a matrix, in place, with manifold's arithmetic: A the mean,
// B a less its mean, C a itself.
func (p giParam) projectDiag(a []float64) {
	if p == giDiag {
		return
	}
	tr := 0.0
	for _, v := range a {
		tr += v
	}
	m := tr / float64(len(a))
	for k := range a {
		if p == giIso {
			a[k] = m
		} else {
			a[k] -= m
		}
	}
}

func (p giParam) diagonal() bool { return p == giIso || p == giDiagDet || p == giDiag }

// gi defaults.
const (
	giDefaultSteps = 100
	// giDefaultTol: the run has converged when the relative change of T stays
	// below it for giConvergedRuns steps in a row.
	giDefaultTol     = 1e-4
	giConvergedRuns  = 5
	giRpropDelta0    = 0.01 // initial step size on each entry of the chart A
	giRpropDeltaMin  = 1e-8
	giRpropDeltaMax  = 0.5 // e^{-2·0.5}: at most a factor e per step on B
	giRpropEtaPlus   = 1.2 // Igel & Hüsken 2003 (Riedmiller & Braun's values)
	giRpropEtaMinus  = 0.5
	giCriterionLabel = "radius-margin R²‖w‖²"
)

// giProblem is the data side of the criterion: the training rows, the
// margin and the solver settings.
type giProblem struct {
	X      *mat.Dense
	y      []float64
	param  giParam
	margin solver.Margin // solver.Hard or solver.L2
	C      float64       // L2: ν = 1/C
	s      solver.Settings
	// diag: the step works on the diagonal of B only (stepDiag): for the
	// diagonal parameterisations when d > giDiagPathMinDim (or forced).
	diag bool
}

// giDiagPathMinDim: the diagonal parameterisations A, B and C take the
// diagonal path (giDescent.stepDiag: O(m²d) per step, no d×d product, no
// matrix exponential) when d exceeds it; at and below it they keep the full
// path (chartGrad's d³ products, the eigendecomposition of S), whose
// numbers every table at small d was made with (a1a, d = 123, the largest in
// docs/methods.md's gi tables). The diagonal path's numbers agree to
// rounding (TestGIDiagPath*), not to the bit. BenchmarkGIPath (param C, 10
// steps on 80 rows, 2026-12-07, load 5): the full path 1.7 ms a step at
// d = 64, 9–17 ms at 128, 120 ms at 256, 1 s at 512; the diagonal path
// 0.5, 2, 4 and 10 ms. Up to 128 the full path stays affordable.
const giDiagPathMinDim = 128

// GISettings.path's forcings.
const (
	giPathDiag = 1
	giPathFull = -1
)

func (pr *giProblem) nu() float64 {
	if pr.margin == solver.L2 {
		return 1 / pr.C
	}
	return 0
}

// giState is the criterion and everything it was computed from at one B.
type giState struct {
	B   mat.Symmetric // *mat.SymDense, or *mat.DiagDense on the diagonal path
	K   *mat.SymDense
	svm solver.SVCResult
	rad solver.RadiusResult
	T   float64 // R² ‖w‖²
}

// kernelOf returns the Gaussian kernel with Q = B², in the compact form of
// the parameterisation (isotropic and diagonal B give isotropic and
// diagonal Q).
func (pr *giProblem) kernelOf(B mat.Symmetric) (*kernel.Gaussian, error) {
	d := B.SymmetricDim()
	switch {
	case pr.param == giIso:
		b := B.At(0, 0)
		return kernel.NewGaussianIso(b * b / 2) // Q = b²I = 2γI
	case pr.param.diagonal():
		q := make([]float64, d)
		for k := range q {
			q[k] = B.At(k, k) * B.At(k, k)
		}
		return kernel.NewGaussianDiag(q)
	}
	var q mat.SymDense
	q.SymOuterK(1, B) // B Bᵀ = B²
	return kernel.NewGaussian(&q)
}

// eval solves the SVM and the radius QP at B (warm-started from prev when
// not nil) and returns T = R²‖w‖².
func (pr *giProblem) eval(ctx context.Context, B mat.Symmetric, prev *giState) (*giState, error) {
	kern, err := pr.kernelOf(B)
	if err != nil {
		return nil, err
	}
	K := kern.Gram(pr.X)
	km := kernel.PrecomputedRows(K)
	var a0, b0 []float64
	if prev != nil {
		a0, b0 = prev.svm.Alpha, prev.rad.Beta
	}
	svm, err := solver.TrainSVC(ctx, km, pr.y, solver.SVCParams{Margin: pr.margin, C: pr.C}, pr.s, a0)
	if err != nil {
		if errors.Is(err, solver.ErrNotSeparable) {
			return nil, hint.Errorf(err, err, "; the hard margin needs data a Gaussian SVM can separate (identical points with different labels cannot be): use the L2 soft margin (", hint.S("margin", "l2"), ")")
		}
		return nil, err
	}
	rad, err := solver.Radius(ctx, km, pr.nu(), pr.s, b0)
	if err != nil {
		return nil, err
	}
	T := rad.R2 * svm.W2
	if math.IsNaN(T) || math.IsInf(T, 0) || T <= 0 {
		return nil, fmt.Errorf("radius-margin quotient R²‖w‖² = %g·%g is not a positive finite number", rad.R2, svm.W2)
	}
	return &giState{B: B, K: K, svm: svm, rad: rad, T: T}, nil
}

// weights returns C = ∂T/∂K at st (docs/design.md "Envelope
// derivatives"):
// c_ij = -‖w‖² β_iβ_j - R² α_iα_j y_iy_j, restricted to the rows where α or
// β is non-zero (idx), since c vanishes elsewhere.
func (pr *giProblem) weights(st *giState) (idx []int, c *mat.SymDense) {
	for i := range pr.y {
		if st.svm.Alpha[i] != 0 || st.rad.Beta[i] != 0 {
			idx = append(idx, i)
		}
	}
	m := len(idx)
	c = mat.NewSymDense(m, nil)
	w2, r2 := st.svm.W2, st.rad.R2
	for a, i := range idx {
		ci, bi := st.svm.Coef[i], st.rad.Beta[i]
		for b := a; b < m; b++ {
			j := idx[b]
			c.SetSym(a, b, -w2*bi*st.rad.Beta[j]-r2*ci*st.svm.Coef[j])
		}
	}
	return idx, c
}

// gradQDiag returns the diagonal of gradQ's G, without G.
func (pr *giProblem) gradQDiag(st *giState) []float64 {
	idx, c := pr.weights(st)
	g := make([]float64, pr.X.RawMatrix().Cols)
	if len(idx) == 0 {
		return g
	}
	kernel.GaussianGradDiag(g, kernel.SelectRows(pr.X, idx), kernel.SelectSym(st.K, idx), c)
	return g
}

// gradQ returns G = ∂T/∂Q at st, every entry of Q independent.
func (pr *giProblem) gradQ(st *giState) *mat.SymDense {
	idx, c := pr.weights(st)
	var g mat.SymDense
	g.ReuseAsSym(pr.X.RawMatrix().Cols)
	if len(idx) == 0 {
		return &g
	}
	kernel.GaussianGradQ(&g, kernel.SelectRows(pr.X, idx), kernel.SelectSym(st.K, idx), c)
	return &g
}

// chartGrad returns ξ = B²G + G B² + 2 B G B, the gradient of T in the chart
// A ↦ e^A B e^A at A = 0 as a matrix with every entry of A independent
// (Glasmachers & Igel 2005, eq. 2.3; dT = tr(ξ dA) for symmetric dA).
func chartGrad(B, G *mat.SymDense) *mat.SymDense {
	d := B.SymmetricDim()
	var b2, t1, t2, sum mat.Dense
	// The products of two symmetric matrices by manifold.MulSym: the bits
	// of gonum's Mul, whose generic loop (it has no BLAS routine for them)
	// took 65-75% of gi's time at d = 778.
	manifold.MulSym(&b2, B, B)
	t1.Mul(&b2, G) // B²G; (B²G)ᵀ = G B²
	manifold.MulSym(&t2, B, G)
	sum.Mul(&t2, B) // B G B, symmetric but for rounding: 2BGB = BGB + (BGB)ᵀ
	xi := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			xi.SetSym(i, j, t1.At(i, j)+t1.At(j, i)+sum.At(i, j)+sum.At(j, i))
		}
	}
	return xi
}

// chartGradDiag returns the diagonal of chartGrad(diag(b), G) given the
// diagonal g of G (overwritten): 4 b_k² G_kk, summed as chartGrad does,
// (B²G)_kk twice and (BGB)_kk twice.
func chartGradDiag(b, g []float64) []float64 {
	for k, gk := range g {
		t1, t2 := (b[k]*b[k])*gk, (b[k]*gk)*b[k]
		g[k] = t1 + t1 + t2 + t2
	}
	return g
}

// irpropPlus is iRprop+ (Igel & Hüsken 2003, "Empirical evaluation of the
// improved Rprop learning algorithms", Neurocomputing 50, Fig. 2) on the
// upper-triangle entries of a symmetric matrix. step returns the change S to
// subtract in the chart (B ← e^{-S} B e^{-S} moves A by -S): S_ij =
// giSign(g_ij) Δ_ij, or, after a sign change when the objective got worse, the
// reversal of the previous change.
type irpropPlus struct {
	d           int
	delta, prev []float64 // per entry: step size Δ, last derivative
	last        []float64 // last change applied
	// diagOnly: the entries are the diagonal's only (the diagonal path's,
	// newIRpropPlusDiag); every off-diagonal entry is at its start, Δ0,
	// derivative 0, change 0 (see stepDiag), and full gives them back.
	diagOnly bool
}

// newIRpropPlusDiag is newIRpropPlus holding the diagonal entries only, for
// stepDiag.
func newIRpropPlusDiag(d int) *irpropPlus {
	r := &irpropPlus{d: d, delta: make([]float64, d), prev: make([]float64, d), last: make([]float64, d), diagOnly: true}
	for i := range r.delta {
		r.delta[i] = giRpropDelta0
	}
	return r
}

// full returns the state of every upper-triangle entry (the full path's
// checkpoint layout): r's own slices, or for diagOnly new ones with the
// off-diagonal entries at their start.
func (r *irpropPlus) full() (delta, prev, last []float64) {
	if !r.diagOnly {
		return r.delta, r.prev, r.last
	}
	m := r.d * (r.d + 1) / 2
	delta, prev, last = make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range delta {
		delta[i] = giRpropDelta0
	}
	for i := 0; i < r.d; i++ {
		k := i*r.d - i*(i-1)/2
		delta[k], prev[k], last[k] = r.delta[i], r.prev[i], r.last[i]
	}
	return delta, prev, last
}

// setDiag sets r's diagonal entries from the diagonal layout (d each; the
// off-diagonal ones, if r holds them, at their start).
func (r *irpropPlus) setDiag(delta, prev, last []float64) {
	if !r.diagOnly {
		for k := range r.delta {
			r.delta[k], r.prev[k], r.last[k] = giRpropDelta0, 0, 0
		}
	}
	for i := 0; i < r.d; i++ {
		k := r.diagIndex(i)
		r.delta[k], r.prev[k], r.last[k] = delta[i], prev[i], last[i]
	}
}

// setFull sets r from the full layout (full's inverse); false if the lengths
// are not d(d+1)/2.
func (r *irpropPlus) setFull(delta, prev, last []float64) bool {
	m := r.d * (r.d + 1) / 2
	if len(delta) != m || len(prev) != m || len(last) != m {
		return false
	}
	if !r.diagOnly {
		copy(r.delta, delta)
		copy(r.prev, prev)
		copy(r.last, last)
		return true
	}
	for i := 0; i < r.d; i++ {
		k := i*r.d - i*(i-1)/2
		r.delta[i], r.prev[i], r.last[i] = delta[k], prev[k], last[k]
	}
	return true
}

func newIRpropPlus(d int) *irpropPlus {
	m := d * (d + 1) / 2
	r := &irpropPlus{d: d, delta: make([]float64, m), prev: make([]float64, m), last: make([]float64, m)}
	for i := range r.delta {
		r.delta[i] = giRpropDelta0
	}
	return r
}

func (r *irpropPlus) step(g *mat.SymDense, worse bool) *mat.SymDense {
	s := mat.NewSymDense(r.d, nil)
	k := 0
	for i := 0; i < r.d; i++ {
		for j := i; j < r.d; j++ {
			s.SetSym(i, j, r.entry(k, g.At(i, j), worse))
			k++
		}
	}
	return s
}

// entry is iRprop+ on entry k with derivative gi: it returns the change.
func (r *irpropPlus) entry(k int, gi float64, worse bool) float64 {
	var ds float64
	switch p := r.prev[k] * gi; {
	case p > 0:
		r.delta[k] = math.Min(r.delta[k]*giRpropEtaPlus, giRpropDeltaMax)
		ds = giSign(gi) * r.delta[k]
	case p < 0:
		r.delta[k] = math.Max(r.delta[k]*giRpropEtaMinus, giRpropDeltaMin)
		if worse {
			ds = -r.last[k]
		}
		gi = 0
	default:
		ds = giSign(gi) * r.delta[k]
	}
	r.prev[k] = gi
	r.last[k] = ds
	return ds
}

// diagIndex is the position of the diagonal entry (i, i) among the upper
// triangle's entries, row by row.
func (r *irpropPlus) diagIndex(i int) int {
	if r.diagOnly {
		return i
	}
	return i*r.d - i*(i-1)/2
}

// stepDiag is step for a diagonal g given as its diagonal: only the
// diagonal entries' state moves. (On a projected diagonal g, step leaves
// every off-diagonal entry where it started, Δ = Δ0, derivative 0, change 0,
// so both paths keep the same state.)
func (r *irpropPlus) stepDiag(g []float64, worse bool) []float64 {
	s := make([]float64, r.d)
	for i := range s {
		s[i] = r.entry(r.diagIndex(i), g[i], worse)
	}
	return s
}

// setLastDiag is setLast for a diagonal change given as its diagonal.
func (r *irpropPlus) setLastDiag(s []float64) {
	for i, v := range s {
		r.last[r.diagIndex(i)] = v
	}
}

// setLast records the change actually applied (after projection), so that a
// later reversal undoes that.
func (r *irpropPlus) setLast(s *mat.SymDense) {
	k := 0
	for i := 0; i < r.d; i++ {
		for j := i; j < r.d; j++ {
			r.last[k] = s.At(i, j)
			k++
		}
	}
}

func giSign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// jaakkolaSigma returns the median over positive points of the Euclidean
// distance to the nearest negative point (Jaakkola, Diekhans & Haussler
// 1999), Glasmachers & Igel's start. Positive points that coincide with a
// negative point (distance 0) are left out of the median; an error says so
// when nothing is left.
func jaakkolaSigma(X mat.Matrix, y []float64) (float64, error) {
	D := kernel.SquaredDistances(X)
	var near []float64
	for i, yi := range y {
		if yi <= 0 {
			continue
		}
		best := math.Inf(1)
		for j, yj := range y {
			if yj < 0 {
				best = math.Min(best, D.At(i, j))
			}
		}
		if best > 0 && !math.IsInf(best, 0) {
			near = append(near, math.Sqrt(best))
		}
	}
	if len(near) == 0 {
		return 0, errors.New("Jaakkola heuristic: no positive point has a negative point at positive distance")
	}
	return median(near), nil
}

// Tune runs Glasmachers & Igel's gradient descent on the (already
// normalised) training part.
func (s GISettings) tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	r, _, err := s.run(ctx, train)
	return r, err
}

// run is Tune that also returns the state at the returned kernel (tests and
// the evidence experiment use its SVM).
func (s GISettings) run(ctx context.Context, train *dataio.Dataset) (*Result, *giState, error) {
	start := time.Now()
	if err := s.Check(); err != nil {
		return nil, nil, err
	}
	if err := checkTrain("gi", train); err != nil {
		return nil, nil, err
	}
	param, auto, err := parseGIParam(s.Param)
	if err != nil {
		return nil, nil, err
	}
	var why hint.Text
	if auto {
		param, why = giAutoParam(train.Len(), train.Dim())
	}
	pr := &giProblem{X: train.X, y: train.Y, param: param, s: s.settings()}
	pr.diag = param.diagonal() && (s.path == giPathDiag || s.path == 0 && train.Dim() > giDiagPathMinDim)
	pr.margin = solver.L2
	if s.Margin == "hard" {
		pr.margin = solver.Hard
	}
	steps := s.Steps
	if steps == 0 {
		steps = giDefaultSteps
	}
	tol := s.Tol
	if tol == 0 {
		tol = giDefaultTol
	}
	d := train.Dim()
	var plan []Stage
	if pr.margin != solver.Hard && s.C == 0 {
		plan = gridStages(train.Len(), s.Common, Space{})
	}
	s.Progress.Announce(append(plan, iterationStage("gi", steps, steps, train.Len(), giPerIter))...)

	res := &Result{Method: "gi", Param: param.String(), Criterion: giCriterionLabel}
	if why != nil {
		res.Notes = append(res.Notes, why)
	}
	sigma, err := jaakkolaSigma(train.X, train.Y)
	if err != nil {
		return nil, nil, fmt.Errorf("gi: %w", err)
	}
	init := fmt.Sprintf("B = I/σ, σ = %.4g (Jaakkola: median distance from a positive point to its nearest negative point)", sigma)
	note, err := s.chooseC(ctx, train, pr, res)
	if err != nil {
		return nil, nil, err
	}
	res.Init = init + note
	s.beginIterations(steps, steps)

	g := &giDescent{pr: pr, res: res}
	if pr.diag {
		g.rp, g.B0 = newIRpropPlusDiag(d), isoDiagB(d, sigma)
	} else {
		g.rp, g.B0 = newIRpropPlus(d), isoB(d, sigma)
	}
	dr := driver{
		method: "gi", stop: stopRule{MaxIter: steps, Tol: tol, Runs: giConvergedRuns},
		record: tracer(start, &res.Trace, s.stepRecorder()),
		init:   g.start, iterate: g.step,
		keep: giLoopState(s.Common, pr, g.rp, func(st *giLoop, load bool) {
			if load {
				g.cur, g.best, g.worse, g.nsv0, res.Solves, res.CriterionStart = st.cur, st.best, st.Worse, st.NSV0, st.Solves, st.T0
				return
			}
			st.cur, st.best, st.Worse, st.NSV0, st.Solves, st.T0 = g.cur, g.best, g.worse, g.nsv0, res.Solves, res.CriterionStart
		}),
	}
	// A cancellation returns the result so far, status Canceled, with the
	// error.
	stopped := func(o outcome, err error) (*Result, *giState, error) {
		if o.Status == status.Canceled {
			res.Status = status.Canceled
			res.Elapsed = time.Since(start)
			return res, nil, err
		}
		return nil, nil, err
	}
	o, err := dr.run(ctx)
	if err != nil {
		return stopped(o, err)
	}
	res.Status, res.Iter = o.Status, o.Iter
	if err := g.report(train, sigma); err != nil {
		return stopped(dr.fail(ctx, o.Iter, err))
	}
	res.Elapsed = time.Since(start)
	return res, g.best, nil
}

// chooseC sets pr's margin's C and res's margin: none for the hard margin,
// the given C, or the svm baseline's grid search's C (its solves added to
// res); it returns what the Init says of it.
func (s GISettings) chooseC(ctx context.Context, train *dataio.Dataset, pr *giProblem, res *Result) (string, error) {
	switch {
	case pr.margin == solver.Hard:
		res.Margin = solver.Hard
		return "; hard margin (no C)", nil
	case s.C > 0:
		pr.C = s.C
		res.Margin, res.C = solver.L2, s.C
		return fmt.Sprintf("; L2 soft margin, C = %g given (ν = 1/C)", s.C), nil
	}
	g, err := gridSearchCV(ctx, train, s.Common, Space{})
	if err != nil {
		return "", fmt.Errorf("gi: choosing C: %w", err)
	}
	pr.C = g.C
	res.Margin, res.C = solver.L2, g.C
	res.Solves += g.Solves
	res.Credit += g.credit
	return fmt.Sprintf("; L2 soft margin, C = %g (ν = 1/C) from the svm baseline's CV grid search", g.C) + g.note(train.Len()), nil
}

// giDescent is gi's iRprop+ descent on the driver: from B0, the current
// state and the best so far (smallest T), the support vectors at the
// start, whether the last step made T worse; each evaluation is counted in
// res.Solves.
type giDescent struct {
	pr        *giProblem
	rp        *irpropPlus
	B0        mat.Symmetric
	res       *Result
	cur, best *giState
	nsv0      int
	worse     bool
}

// start evaluates T at B0: the driver's iteration 0.
func (g *giDescent) start(ctx context.Context) (Step, error) {
	var err error
	if g.cur, err = g.pr.eval(ctx, g.B0, nil); err != nil {
		return Step{}, err
	}
	g.res.Solves++
	g.res.CriterionStart = g.cur.T
	g.nsv0 = g.cur.svm.NSV
	g.best = g.cur
	return Step{Objective: g.cur.T, NSV: g.cur.svm.NSV}, nil
}

// step is one iRprop+ step in the exponential chart, projected onto the
// parameterisation; the change is |ΔT|/T.
func (g *giDescent) step(ctx context.Context, _ int) (move, error) {
	pr, param, cur := g.pr, g.pr.param, g.cur
	if pr.diag {
		return g.stepDiag(ctx)
	}
	d := cur.B.SymmetricDim()
	var grad mat.SymDense
	param.project(&grad, chartGrad(cur.B.(*mat.SymDense), pr.gradQ(cur)))
	S := g.rp.step(&grad, g.worse)
	param.project(S, S)
	g.rp.setLast(S)
	nb := mat.NewSymDense(d, nil)
	if err := manifold.CongruenceStep(nb, cur.B, S); err != nil {
		return move{}, err
	}
	if param.diagonal() {
		// S is diagonal, so B stays diagonal: drop rounding noise.
		for i := 0; i < d; i++ {
			for j := i + 1; j < d; j++ {
				nb.SetSym(i, j, 0)
			}
		}
	}
	// Step size: ‖S‖_F (gonum's Norm(·, 2) of a matrix is Frobenius).
	return g.moveTo(ctx, nb, mat.Norm(S, 2))
}

// moveTo evaluates the criterion at the new B (warm-started from the
// current state), makes it the current state and the best when T is the
// smallest yet, and returns the move of step size size.
func (g *giDescent) moveTo(ctx context.Context, B mat.Symmetric, size float64) (move, error) {
	cur := g.cur
	next, err := g.pr.eval(ctx, B, cur)
	if err != nil {
		return move{}, err
	}
	g.res.Solves++
	g.worse = next.T > cur.T
	rel := math.Abs(next.T-cur.T) / cur.T
	g.cur = next
	if next.T < g.best.T {
		g.best = next
	}
	return move{Step: Step{Objective: next.T, StepSize: size, NSV: next.svm.NSV}, Change: rel}, nil
}

// stepDiag is step for a diagonal B = diag(b) without a d×d product: ξ's
// diagonal is 4 b_k² G_kk (chartGrad's B²G + GB² + 2BGB, whose off-diagonal
// part every diagonal projection drops), G_kk from kernel.GaussianGradDiag,
// O(m²d); S is diagonal, so e^{-S} B e^{-S} = diag(b_k e^{-2s_k}). B is a
// mat.DiagDense (the checkpoints keep its diagonal: giLoop's Diag).
func (g *giDescent) stepDiag(ctx context.Context) (move, error) {
	pr, param, cur := g.pr, g.pr.param, g.cur
	d := cur.B.SymmetricDim()
	b := make([]float64, d)
	for k := range b {
		b[k] = cur.B.At(k, k)
	}
	xi := chartGradDiag(b, pr.gradQDiag(cur))
	param.projectDiag(xi)
	S := g.rp.stepDiag(xi, g.worse)
	param.projectDiag(S)
	g.rp.setLastDiag(S)
	norm := 0.0
	for k, sk := range S {
		e := math.Exp(-sk)
		b[k] = e * b[k] * e
		norm += sk * sk
	}
	return g.moveTo(ctx, mat.NewDiagDense(d, b), math.Sqrt(norm))
}

// report puts the iterate with the smallest criterion into res (iRprop+
// may end on a slightly worse point after a sign change): its kernel, B
// (its diagonal on the diagonal path), the figures and the notes.
func (g *giDescent) report(train *dataio.Dataset, sigma float64) error {
	res, best, param := g.res, g.best, g.pr.param
	kern, err := g.pr.kernelOf(best.B)
	if err != nil {
		return err
	}
	res.Kernel = kern.Spec()
	d := best.B.SymmetricDim()
	if g.pr.diag {
		// B is diagonal: its d numbers, never the d×d matrix (Result.BDiag).
		res.BDiag = make([]float64, d)
		for k := range res.BDiag {
			res.BDiag[k] = best.B.At(k, k)
		}
	} else {
		res.B = make([][]float64, d)
		for i := range res.B {
			res.B[i] = make([]float64, d)
			for j := range res.B[i] {
				res.B[i][j] = best.B.At(i, j)
			}
		}
	}
	res.CriterionEnd = best.T
	n := float64(len(train.Y))
	res.Figures = []Figure{
		{Name: "sigma0", Value: sigma},
		{Name: "R2", Value: best.rad.R2},
		{Name: "w2", Value: best.svm.W2},
		{Name: "sv fraction", Value: float64(best.svm.NSV) / n},
	}
	if g.pr.diag {
		// log det of diag(b), without the eigendecomposition (d³).
		ld := 0.0
		for k := 0; k < d; k++ {
			ld += math.Log(best.B.At(k, k))
		}
		res.Figures = append(res.Figures, Figure{Name: "log det B", Value: ld})
	} else if ld, err := manifold.LogDet(best.B); err == nil {
		res.Figures = append(res.Figures, Figure{Name: "log det B", Value: ld})
	}
	if best != g.cur {
		res.Notes = append(res.Notes, hint.T(fmt.Sprintf("the kernel is the iterate with the smallest criterion (%.6g), not the last one (%.6g)", best.T, g.cur.T)))
	}
	frac0, frac := float64(g.nsv0)/n, float64(best.svm.NSV)/n
	if frac > 0.8 && frac > frac0+0.2 && (param == giIso || param == giDiag || param == giFull) {
		res.Notes = append(res.Notes, hint.T(fmt.Sprintf("the support vectors grew from %.0f%% to %.0f%% of the training points: with the kernel size free (param %s) the radius-margin bound shrinks the kernel and tends to overfit (Glasmachers & Igel 2005, §3); param D keeps det B fixed", 100*frac0, 100*frac, param)))
	}
	return nil
}

// giLoop is gi's state after an iteration: the iterate and the best one
// (each its B and solutions, the warm starts of the next; its K is
// recomputed from B), iRprop+'s step sizes and memory, whether the last
// step was worse, #SV at the start, the solves and T at the start.
//
// Diag marks the diagonal path's layout: each B its diagonal (d numbers)
// and iRprop+'s diagonal entries (d each), not B's d×d and the d(d+1)/2
// upper-triangle entries (at d = 778, 4.8 MB a B and 7.3 MB of iRprop+ a
// step); gob leaves it out when false, so the states kept before it (no
// Diag: the full layout, whatever the path) still load, on either path.
type giLoop struct {
	Cur, Best         giKept
	BestIsCur, Worse  bool
	Delta, Prev, Last []float64
	NSV0, Solves      int
	T0                float64
	Diag              bool

	cur, best *giState
}

// giKept is a giState without its K.
type giKept struct {
	B   []float64
	SVM solver.SVCResult
	Rad solver.RadiusResult
	T   float64
}

func giKeep(st *giState, diag bool) giKept {
	d := st.B.SymmetricDim()
	if diag {
		b := make([]float64, d)
		for i := range b {
			b[i] = st.B.At(i, i)
		}
		return giKept{B: b, SVM: st.svm, Rad: st.rad, T: st.T}
	}
	b := make([]float64, d*d)
	for i := range d {
		for j := i; j < d; j++ {
			b[i*d+j] = st.B.At(i, j)
		}
	}
	return giKept{B: b, SVM: st.svm, Rad: st.rad, T: st.T}
}

// giLoopState is the driver's loopState of gi: locals saves the loop's
// variables into st or loads them from it.
func giLoopState(cm Common, pr *giProblem, rp *irpropPlus, locals func(st *giLoop, load bool)) *loopState {
	if cm.Checkpoint == nil {
		return nil
	}
	return &loopState{cm: cm, key: "gi",
		save: func() any {
			var st giLoop
			locals(&st, false)
			st.Diag = rp.diagOnly
			st.Cur, st.BestIsCur = giKeep(st.cur, st.Diag), st.best == st.cur
			if !st.BestIsCur {
				st.Best = giKeep(st.best, st.Diag)
			}
			st.Delta, st.Prev, st.Last = rp.delta, rp.prev, rp.last
			return st
		},
		load: func(decode func(any) error) error {
			var st giLoop
			if err := decode(&st); err != nil {
				return err
			}
			d := rp.d
			nb, nr := d*d, d*(d+1)/2
			if st.Diag {
				nb, nr = d, d
			}
			if len(st.Delta) != nr || len(st.Prev) != nr || len(st.Last) != nr || len(st.Cur.B) != nb || (!st.BestIsCur && len(st.Best.B) != nb) {
				return fmt.Errorf("gi: a kept state of another dimension")
			}
			restore := func(k giKept) (*giState, error) {
				b := k.B // the diagonal, or B's d×d
				if !st.Diag {
					b = make([]float64, d)
					for i := range b {
						b[i] = k.B[i*d+i]
					}
				}
				var B mat.Symmetric
				switch {
				case pr.diag:
					B = mat.NewDiagDense(d, b)
				case st.Diag:
					B = isoB(d, 1)
					for i, v := range b {
						B.(*mat.SymDense).SetSym(i, i, v)
					}
				default:
					B = mat.NewSymDense(d, k.B)
				}
				kern, err := pr.kernelOf(B)
				if err != nil {
					return nil, err
				}
				return &giState{B: B, K: kern.Gram(pr.X), svm: k.SVM, rad: k.Rad, T: k.T}, nil
			}
			var err error
			if st.cur, err = restore(st.Cur); err != nil {
				return err
			}
			st.best = st.cur
			if !st.BestIsCur {
				if st.best, err = restore(st.Best); err != nil {
					return err
				}
			}
			if st.Diag {
				rp.setDiag(st.Delta, st.Prev, st.Last)
			} else if !rp.setFull(st.Delta, st.Prev, st.Last) {
				return fmt.Errorf("gi: a kept state of another dimension")
			}
			locals(&st, true)
			return nil
		}}
}

// isoB returns the start B = I/σ (Q = I/σ²: exp(-‖x-z‖²/(2σ²))).
func isoB(d int, sigma float64) *mat.SymDense {
	B := mat.NewSymDense(d, nil)
	for k := 0; k < d; k++ {
		B.SetSym(k, k, 1/sigma)
	}
	return B
}

// isoDiagB is isoB as a diagonal matrix (the diagonal path's).
func isoDiagB(d int, sigma float64) *mat.DiagDense {
	b := make([]float64, d)
	for k := range b {
		b[k] = 1 / sigma
	}
	return mat.NewDiagDense(d, b)
}

// giParamLetters lists A–E (evidence runs and tests range over them).
func giParamLetters() []string {
	out := make([]string, len(giParamNames))
	for i, n := range giParamNames {
		out[i] = n[0]
	}
	return out
}
