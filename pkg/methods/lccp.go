package methods

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// LCCPSettings configure lccp, described below. The zero value of every
// field means its default.
//
// LCCP is the lccp method of Boughorbel, Tarel & Boujemaa, "The LCCP for
// optimizing kernel parameters for SVM" (ICANN 2005): the multi-parameter L1
// kernel
//
//	k_θ(x,z) = -Σ_k |x_k - z_k| / θ_k,  θ_k > 0                      (eq. 2)
//
// is tuned by minimising the radius-margin bound J(θ) = R²(θ)‖w‖²(θ) with the
// log convex–concave procedure: log R² is convex in θ (§3.2) and log ‖w‖²
// concave (§3.3), so each step
//
//	θ_{p+1} = argmin_θ  log R²(θ) + θᵀ ∇log‖w‖²(θ_p)                 (§2, Theorem 1)
//
// decreases J monotonically without a step size. The inner problem is convex
// in θ (and in log θ); it is solved here by gonum's L-BFGS in log θ (so θ
// stays positive), each evaluation solving the radius QP warm-started from
// the β of the last accepted point, and only as far as a tenth of its
// starting gradient while that is large (any decrease of the inner
// objective keeps the monotone decrease of J; lccpInnerRelTol). The
// outer loop stops when |log J_{p+1} - log J_p| < Tol (default 1e-5, the
// paper's ε is not given) or after MaxIter steps (default 100; LCCPSettings).
//
// Start θ0 = 1 for every feature (§4, after Chapelle et al. 2002).
//
// LCCPSettings.Param: "multi" (default; one θ_k per feature, the paper's kernel 2)
// or "single" (one θ shared by all features, the "single-parameter L1"
// comparison). With the hard margin a single θ cannot move J (R² ∝ 1/θ and
// ‖w‖² ∝ θ); with the L2 margin it trades the kernel's scale against ν.
//
// LCCPSettings.Margin: "l2" (default) or "hard". The L2 soft margin of Chapelle et
// al. 2002 uses K + νI in both R² and ‖w‖²; it keeps both convexity
// conditions (the ν terms do not depend on θ), and ‖w‖² = Σα there. ν = 1/C
// is fixed during the run: C is Common.C, or, when that is 0, chosen by
// k-fold cross-validation (L2 margin, θ = θ0) on the training part before the
// LCCP starts, since the paper does not say how C was set. The hard margin
// fails with an error wrapping solver.ErrNotSeparable on data no L1-kernel
// hyperplane separates (e.g. duplicate points with both labels).
//
// Kernel matrices: the radius and SVM QPs get the plain, conditionally
// positive definite L1 kernel (K_ii = 0). Every two-variable SMO step moves
// along a direction d with Σd = 0 (radius) or yᵀd = 0 (SVM), on which the
// kernel is positive semidefinite, so both QPs are convex where SMO moves.
// The centred kernel k̃ (§3.3) gives the same R², α and ‖w‖² (tested) but a
// different bias; using the plain kernel keeps the bias that of the final
// model, which the caller trains with Result.Kernel = {l1, θ}.
//
// Derivatives (docs/design.md "lccp: the derivatives"), with (A_k)_ij = |x_ik -
// x_jk|:
//
//	∂‖w‖²/∂θ_k = -(Yα)ᵀA_k(Yα)/θ_k²,   ∂R²/∂θ_k = -βᵀA_kβ/θ_k².
//
// For a rank-one weight vvᵀ, Σ_ij v_iv_j|x_ik - x_jk| costs O(n) per feature
// once the feature's values are sorted (sorted once per run), instead of the
// O(n²) of the dense kernel.L1GradTheta (the tests check the two agree).
type LCCPSettings struct {
	// Common: C (ν = 1/C of the L2 margin) is given or, when 0, chosen by
	// Folds-fold cross-validation at θ0 before the LCCP starts. Eps, the
	// tolerance of the QPs inside the method, is min(Eps, 1e-6).
	Common
	// Param is "multi" (the default; one θ_k per feature) or "single" (one
	// θ shared by all features).
	Param string
	// Margin is "l2" (the default; K + νI) or "hard".
	Margin string
	// MaxIter is the limit of LCCP steps, default 100.
	MaxIter int
	// Tol stops the run when |log J_{p+1} - log J_p| < Tol; default 1e-5.
	Tol float64
}

// Name returns "lccp".
func (LCCPSettings) Name() string { return "lccp" }

// WithBase returns s with the shared settings c.
func (s LCCPSettings) WithBase(c Common) Spec { s.Common = c; return s }

// lccpInfo is lccp's entry in the registry (All).
var lccpInfo = Info{
	Name: "lccp", Summary: "Boughorbel et al.: multi-θ L1 kernel by the log convex-concave procedure",
	Params: []string{"multi", "single"}, Margins: []string{"l2", "hard"}, marginWhy: "the radius-margin bound and its convexity need ‖w‖² = 2D*",
	build: func(p, _ string) Spec { return LCCPSettings{Param: p} },
}

// Check refuses settings lccp cannot run with, whatever the data.
func (s LCCPSettings) Check() error {
	// C by cross-validation unless given or hard.
	if err := s.Common.check("lccp"); err != nil {
		return err
	}
	if err := checkChoice("lccp", "param", s.Param, []string{"multi", "single"}, ""); err != nil {
		return err
	}
	if err := lccpInfo.CheckMargin(s.Margin); err != nil {
		return err
	}
	if err := checkMaxIter("lccp", "max-iter", s.MaxIter); err != nil {
		return err
	}
	return checkTol("lccp", s.Tol)
}

// PeakBytes: C by selectC on the L1 Gram at θ0, then K, the weights and
// the SVM and radius caches per step.
func (s LCCPSettings) PeakBytes(n, d int) int64 {
	m := newMemModel(s.Common)
	return peak(n, d, max(m.selectC(n), 3*sq(n)+2*m.cacheOf(n)))
}

const (
	lccpMaxIter      = 100
	lccpTol          = 1e-5
	lccpEps          = 1e-6 // loosest SMO tolerance of the radius and SVM QPs inside the method
	lccpInnerMaxIter = 200
	lccpInnerTol     = 1e-6 // ‖∇ in log θ‖_∞ of the inner convex problem
	// lccpInnerRelTol ends an inner problem, after at least one step, once
	// ‖∂F/∂s‖_∞ < lccpInnerRelTol·‖∂F/∂s‖_∞ at its start. At the start s_p,
	// ∂F/∂s = φ ⊙ ∇log J(θ_p), so the tolerance tightens as the LCCP
	// converges (an inexact Newton-like forcing term), and any accepted step
	// keeps Theorem 1's decrease: log J ≤ F + const with equality at θ_p
	// (concavity of log‖w‖²), and the line search only accepts
	// F(θ_{p+1}) < F(θ_p). On the default compare it halves the radius
	// solves (907 → 439 per heart partition) for the same accuracies.
	lccpInnerRelTol = 0.1
	lccpLBFGSMem    = 8
	lccpLogThetaMax = 30 // |log θ_k − log θ0| is kept below this
)

// lccpProblem holds the data of one run and evaluates R², ‖w‖² and their
// gradients at a parameter vector φ (θ_k = φ_{group(k)}).
type lccpProblem struct {
	X      *mat.Dense
	y      []float64
	n, d   int
	group  []int // θ_k = φ[group[k]]
	np     int   // len(φ)
	margin solver.Margin
	C, nu  float64
	set    solver.Settings

	// per feature: the row order sorting x_·k, and the sorted values
	order [][]int
	xs    [][]float64

	theta []float64
	alpha []float64 // warm start of the SVM
	beta  []float64 // warm start of the radius QP: β at the last accepted point

	// innerRelTol ends an inner problem early (lccpInnerRelTol).
	innerRelTol float64

	svmSolves, radiusSolves int
}

func newLCCPProblem(X *mat.Dense, y []float64, single bool, margin solver.Margin, C float64, set solver.Settings) *lccpProblem {
	n, d := X.Dims()
	p := &lccpProblem{X: X, y: y, n: n, d: d, group: make([]int, d), margin: margin, C: C, set: set, theta: make([]float64, d)}
	if p.set.Workspace == nil {
		// The solves run one after another: each hands its cache's column
		// buffers to the next (up to CacheBytes) instead of allocating them.
		p.set.Workspace = new(solver.Workspace)
	}
	if margin == solver.L2 {
		p.nu = 1 / C
	}
	if single {
		p.np = 1
	} else {
		p.np = d
		for k := range p.group {
			p.group[k] = k
		}
	}
	p.order = make([][]int, d)
	p.xs = make([][]float64, d)
	for k := 0; k < d; k++ {
		col := mat.Col(nil, k, X)
		ord := make([]int, n)
		for i := range ord {
			ord[i] = i
		}
		slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(col[a], col[b]) })
		xs := make([]float64, n)
		for i, r := range ord {
			xs[i] = col[r]
		}
		p.order[k], p.xs[k] = ord, xs
	}
	return p
}

// weightedL1 sets dst[k] = Σ_ij v_i v_j |x_ik - x_jk| for every feature k,
// in O(n) per feature over the presorted values: for sorted x_(1) ≤ … ≤ x_(n),
// Σ_ij v_iv_j|x_i - x_j| = 2 Σ_b v_(b) (x_(b) Σ_{a<b} v_(a) - Σ_{a<b} v_(a)x_(a)).
func (p *lccpProblem) weightedL1(dst, v []float64) {
	for k := 0; k < p.d; k++ {
		ord, xs := p.order[k], p.xs[k]
		var sv, svx, s float64
		for b, r := range ord {
			vb := v[r]
			if vb != 0 {
				s += vb * (xs[b]*sv - svx)
			}
			sv += vb
			svx += vb * xs[b]
		}
		dst[k] = 2 * s
	}
}

// thetaOf expands φ to θ.
func (p *lccpProblem) thetaOf(phi []float64) []float64 {
	for k, g := range p.group {
		p.theta[k] = phi[g]
	}
	return p.theta
}

// gram returns the L1 Gram matrix at φ.
func (p *lccpProblem) gram(phi []float64) (*mat.SymDense, error) {
	k, err := kernel.NewL1(p.thetaOf(phi))
	if err != nil {
		return nil, err
	}
	return k.Gram(p.X), nil
}

// envelopeGrad sets grad[j] = -Σ_{k in group j} Σ_il v_iv_l|x_ik - x_lk|/θ_k²,
// ∂(-vᵀKv)/∂φ_j at fixed v: ∂R²/∂φ for v = β, ∂‖w‖²/∂φ for v = Yα.
func (p *lccpProblem) envelopeGrad(grad, v []float64) {
	dt := make([]float64, p.d)
	p.weightedL1(dt, v)
	clear(grad)
	for k, g := range p.group {
		grad[g] -= dt[k] / (p.theta[k] * p.theta[k])
	}
}

// radius solves the radius QP with the kernel matrix K, warm-started from
// beta0, and returns R², the solution β and, when grad is non-nil, ∂R²/∂φ.
func (p *lccpProblem) radius(ctx context.Context, K kernel.Matrix, beta0, grad []float64) (float64, []float64, error) {
	r, err := solver.Radius(ctx, K, p.nu, p.set, beta0)
	p.radiusSolves++
	if err != nil {
		return math.NaN(), nil, fmt.Errorf("radius QP: %w", err)
	}
	if !(r.R2 > 0) {
		return math.NaN(), nil, fmt.Errorf("radius QP gave R² = %g (all points coincide under the kernel?)", r.R2)
	}
	if grad != nil {
		p.envelopeGrad(grad, r.Beta)
	}
	return r.R2, r.Beta, nil
}

// margin2 solves the SVM at φ (warm-started) and returns ‖w‖² (2D*, with
// K + νI for the L2 margin), the number of SVs and, when grad is non-nil,
// ∂‖w‖²/∂φ.
func (p *lccpProblem) margin2(ctx context.Context, K *mat.SymDense, grad []float64) (float64, int, error) {
	res, err := solver.TrainSVC(ctx, kernel.PrecomputedRows(K), p.y, solver.SVCParams{Margin: p.margin, C: p.C}, p.set, p.alpha)
	p.svmSolves++
	if err != nil {
		return math.NaN(), 0, err
	}
	p.alpha = res.Alpha
	// 2D* = Σα at the optimum (hard and L2 margins).
	w2 := floats.Sum(res.Alpha)
	if !(w2 > 0) {
		return math.NaN(), 0, fmt.Errorf("SVM gave ‖w‖² = %g", w2)
	}
	if grad != nil {
		p.envelopeGrad(grad, res.Coef) // Coef = Yα
	}
	return w2, res.NSV, nil
}

// surrogate returns the inner objective of an LCCP step in the chart s = log φ,
// F = log R²(e^s) + Σ_j e^{s_j} g_j, the radius QP's β there (warm-started
// from p.beta) and, when grad is non-nil, ∂F/∂s_j = φ_j (∂R²/∂φ_j / R² + g_j).
func (p *lccpProblem) surrogate(ctx context.Context, s, g, grad []float64) (float64, []float64, error) {
	m := len(s)
	ph := make([]float64, m)
	for j := range ph {
		ph[j] = math.Exp(s[j])
	}
	// The radius QP, warm-started from the last accepted β, reads the
	// columns of the few points its SMO works on (the ball's support and
	// its neighbours), so they are computed on demand from X/θ (O(nd)
	// each, the same values to the last bit as the Gram's) instead of a
	// Gram matrix per evaluation (O(n²d): 89% of lccp's CPU time at
	// n = 1,000).
	k, err := kernel.NewL1(p.thetaOf(ph))
	if err != nil {
		return math.NaN(), nil, err
	}
	var dR []float64
	if grad != nil {
		dR = make([]float64, m)
	}
	R2, beta, err := p.radius(ctx, k.Rows(p.X), p.beta, dR)
	if err != nil {
		return math.NaN(), nil, err
	}
	if grad != nil {
		for j := range grad {
			grad[j] = ph[j] * (dR[j]/R2 + g[j])
		}
	}
	return math.Log(R2) + floats.Dot(ph, g), beta, nil
}

// inner minimises the surrogate F over s = log φ in the box |s - log φ0| ≤
// lccpLogThetaMax (F is evaluated at the projection of s, so it is flat
// beyond), starting at phi, which it overwrites with the minimiser. F is
// convex in s too: R² = max_β Σ_k e^{-s_k} βᵀA_kβ + ν(1 - ‖β‖²) (β ≥ 0) and
// the log of a positive sum of exponentials is convex. gonum's L-BFGS
// (memory 8) with Moré–Thuente steps (strong Wolfe, c1 = 1e-4, c2 = 0.9:
// 15% fewer radius solves than Armijo backtracking on IDA breast-cancer and
// banana, and sᵀy > 0, which gonum's L-BFGS does not check) stops when
// ‖∂F/∂s‖_∞ < lccpInnerTol or, after a step, below p.innerRelTol times its
// value at the start (lccpInnerRelTol), F falls by less than 1e-13(1 + |F|) in a step,
// the line search finds no decrease, or after lccpInnerMaxIter steps. F
// never rises, so neither does J (Theorem 1). Each evaluation warm-starts
// the radius QP from the last accepted β. It returns the steps taken.
func (p *lccpProblem) inner(ctx context.Context, phi, g, phi0 []float64) (iters int, err error) {
	m := len(phi)
	s, lo, hi, in := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	for j := range s {
		s[j] = math.Log(phi[j])
		lo[j] = math.Log(phi0[j]) - lccpLogThetaMax
		hi[j] = math.Log(phi0[j]) + lccpLogThetaMax
	}
	eval := func(x []float64) (float64, []float64, []float64, error) {
		for j := range x {
			in[j] = min(hi[j], max(lo[j], x[j]))
		}
		grad := make([]float64, m)
		f, beta, err := p.surrogate(ctx, in, g, grad)
		for j := range x {
			if x[j] != in[j] {
				grad[j] = 0
			}
		}
		return f, grad, beta, err
	}
	var x []float64 // the last accepted s
	run := lbfgsRun[[]float64]{Eval: eval, GradTol: lccpInnerTol, RelGradTol: p.innerRelTol,
		Accept: func(it int, s []float64, _ float64, beta []float64) { x, p.beta, iters = s, beta, it },
		Method: optimize.LBFGS{Store: lccpLBFGSMem, Linesearcher: &optimize.MoreThuente{DecreaseFactor: 1e-4}},
		Settings: optimize.Settings{
			Converger:       &optimize.FunctionConverge{Absolute: 1e-13, Relative: 1e-13, Iterations: 1},
			MajorIterations: lccpInnerMaxIter + 1, // gonum counts the start as one
		},
	}
	if _, _, err := run.minimize(ctx, s); err != nil {
		return iters, err
	}
	for j := range phi {
		phi[j] = math.Exp(min(hi[j], max(lo[j], x[j])))
	}
	return iters, nil
}

// tune runs the LCCP on the (already normalised) training part.
func (s LCCPSettings) tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	return s.tuneInexact(ctx, train, lccpInnerRelTol)
}

// tuneInexact is tune with the inner problem's relative gradient tolerance
// (0: every inner problem solved to lccpInnerTol, as before the inexact
// steps).
func (s LCCPSettings) tuneInexact(ctx context.Context, train *dataio.Dataset, innerRelTol float64) (*Result, error) {
	start := time.Now()
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := checkTrain("lccp", train); err != nil {
		return nil, err
	}
	param := cmp.Or(s.Param, "multi")
	marginName := cmp.Or(s.Margin, "l2")
	margin := solver.L2
	if marginName == "hard" {
		margin = solver.Hard
	}
	maxIter := cmp.Or(s.MaxIter, lccpMaxIter)
	tol := cmp.Or(s.Tol, lccpTol)
	// The CCCP decreases J only up to the accuracy of R² and ‖w‖², so the QPs
	// inside the LCCP are solved to min(Common.Eps, 1e-6), whatever looser
	// tolerance the caller uses for ordinary SVM training (LIBSVM's 1e-3 let
	// J rise by 1e-5 relative in a step on IDA breast-cancer).
	set := s.settings()
	set.Eps = lccpEps
	if s.Eps > 0 && s.Eps < lccpEps {
		set.Eps = s.Eps
	}
	d := train.Dim()
	res := &Result{
		Method:    "lccp",
		Param:     param,
		Margin:    margin,
		Criterion: "radius-margin bound R²‖w‖² (Boughorbel et al., minimised by LCCP)",
	}
	var plan []Stage
	if margin != solver.Hard && s.C == 0 {
		plan = append(plan, selectCStage(train.Len(), len(lccpCGrid()), s.Common))
	}
	s.Progress.Announce(append(plan, iterationStage("lccp", maxIter, lccpExpected, train.Len(), lccpPerIter))...)
	theta0 := make([]float64, d)
	for k := range theta0 {
		theta0[k] = 1
	}
	res.Init = "θ0 = 1 for every feature (Boughorbel §4)"
	C, err := s.chooseC(ctx, train, margin, theta0, res)
	if err != nil {
		return nil, err
	}
	res.C = C

	if margin == solver.Hard {
		// A point repeated under both labels can never be separated; say so
		// at once instead of letting SMO run into its iteration limit.
		if i, j, ok := lccpConflict(train); ok {
			return nil, fmt.Errorf("lccp: hard margin: rows %d and %d are the same point with different labels: %w; the default L2 soft margin (--margin l2) works on any data",
				i+1, j+1, solver.ErrNotSeparable)
		}
	}
	s.beginIterations(maxIter, lccpExpected)
	prob := newLCCPProblem(train.X, train.Y, param == "single", margin, C, set)
	prob.innerRelTol = innerRelTol
	o := newLCCPOuter(prob)
	dr := driver{
		method: "lccp", stop: stopRule{MaxIter: maxIter, Tol: tol},
		record: tracer(start, &res.Trace, s.stepRecorder()),
		// A hard margin on data it cannot separate is the method's answer,
		// worded by eval, not a breakdown.
		final: func(err error) bool { return errors.Is(err, solver.ErrNotSeparable) },
		init: func(ctx context.Context) (Step, error) {
			st, err := o.start(ctx)
			res.CriterionStart = o.J
			return st, err
		},
		iterate: o.step,
	}
	out, err := dr.run(ctx)
	if err != nil {
		return nil, err
	}
	res.Status, res.Iter = out.Status, out.Iter
	res.CriterionEnd = o.J
	if len(o.increases) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("J increased in %d of %d LCCP steps (CCCP guarantees a decrease up to the QP tolerance %g): %s",
			len(o.increases), res.Iter, set.Eps, lccpJoinMax(o.increases, 5)))
	}
	if err := o.report(res, train, param); err != nil {
		_, err = dr.fail(ctx, res.Iter, err)
		return nil, err
	}
	res.Solves += prob.svmSolves + prob.radiusSolves
	res.Elapsed = time.Since(start)
	return res, nil
}

// chooseC returns C (ν = 1/C) of the L2 margin: 0 for the hard margin,
// the given C, or C by cross-validation at θ0 (selectC, its solves added
// to res); res.Init says which.
func (s LCCPSettings) chooseC(ctx context.Context, train *dataio.Dataset, margin solver.Margin, theta0 []float64, res *Result) (float64, error) {
	switch {
	case margin == solver.Hard:
		res.Init += "; hard margin"
		return 0, nil
	case s.C > 0:
		res.Init += fmt.Sprintf("; L2 soft margin K + νI, ν = 1/C, C = %g given", s.C)
		return s.C, nil
	}
	k0, err := kernel.NewL1(theta0)
	if err != nil {
		return 0, fmt.Errorf("lccp: %w", err)
	}
	C, acc, solves, err := selectC(ctx, k0.Gram(train.X), train.Y, lccpCGrid(), solver.L2, s.Common)
	res.Solves += solves
	if err != nil {
		return 0, fmt.Errorf("lccp: choosing C at θ0: %w", err)
	}
	res.Init += fmt.Sprintf("; L2 soft margin K + νI, ν = 1/C, C = %g by cross-validation at θ0%s (accuracy %.2f%%), then fixed", C, s.subsetNote(train.Len()), 100*acc)
	return C, nil
}

// lccpOuter is the LCCP's outer loop on the driver: the point φ (φ0 the
// start), J = R²‖w‖² there with R², ‖w‖², the support vectors and
// ∇ log‖w‖² (gw), the inner iterations so far and the steps that
// increased J.
type lccpOuter struct {
	prob       *lccpProblem
	phi, phi0  []float64
	gw         []float64
	R2, W2, J  float64
	nsv        int
	innerTotal int
	increases  []string
}

func newLCCPOuter(prob *lccpProblem) *lccpOuter {
	phi := make([]float64, prob.np)
	for j := range phi {
		phi[j] = 1
	}
	return &lccpOuter{prob: prob, phi: phi, phi0: slices.Clone(phi), gw: make([]float64, prob.np)}
}

// eval computes R², ‖w‖² and ∇ log‖w‖² at φ (iteration iter).
func (o *lccpOuter) eval(ctx context.Context, iter int) error {
	prob := o.prob
	K, err := prob.gram(o.phi)
	if err != nil {
		return err
	}
	o.W2, o.nsv, err = prob.margin2(ctx, K, o.gw)
	if err != nil {
		if prob.margin == solver.Hard && errors.Is(err, solver.ErrNotSeparable) {
			return fmt.Errorf("lccp: hard margin at iteration %d: %w; the default L2 soft margin (--margin l2) works on any data", iter, err)
		}
		return err
	}
	floats.Scale(1/o.W2, o.gw)
	o.R2, prob.beta, err = prob.radius(ctx, kernel.PrecomputedRows(K), prob.beta, nil)
	return err
}

// start evaluates J at θ0: the driver's iteration 0.
func (o *lccpOuter) start(ctx context.Context) (Step, error) {
	if err := o.eval(ctx, 0); err != nil {
		return Step{}, err
	}
	o.J = o.R2 * o.W2
	return Step{Objective: o.J, NSV: o.nsv}, nil
}

// step is one CCCP step: the inner convex problem from the linearisation
// at θ_p, then J at the new point; the change is |Δ log J|.
func (o *lccpOuter) step(ctx context.Context, it int) (move, error) {
	prev := slices.Clone(o.phi)
	ni, err := o.prob.inner(ctx, o.phi, o.gw, o.phi0)
	o.innerTotal += ni
	if err != nil {
		return move{}, err
	}
	if err := o.eval(ctx, it); err != nil {
		return move{}, err
	}
	Jn := o.R2 * o.W2
	var step float64
	for j := range o.phi {
		step = math.Max(step, math.Abs(math.Log(o.phi[j]/prev[j])))
	}
	if Jn > o.J*(1+1e-9) {
		o.increases = append(o.increases, fmt.Sprintf("step %d: %.9g → %.9g (+%.2g relative)", it, o.J, Jn, (Jn-o.J)/o.J))
	}
	dlog := math.Abs(math.Log(Jn) - math.Log(o.J))
	o.J = Jn
	return move{Step: Step{Objective: Jn, StepSize: step, NSV: o.nsv}, Change: dlog}, nil
}

// report puts the end point into res: its kernel, the figures and a note
// for each θ that reached its bound.
func (o *lccpOuter) report(res *Result, train *dataio.Dataset, param string) error {
	theta := slices.Clone(o.prob.thetaOf(o.phi))
	k, err := kernel.NewL1(theta)
	if err != nil {
		return err
	}
	res.Kernel = k.Spec()
	res.Figures = append(res.Figures, Figure{Name: "R2", Value: o.R2}, Figure{Name: "w2", Value: o.W2}, Figure{Name: "nsv", Value: float64(o.nsv)})
	if o.prob.margin == solver.L2 {
		res.Figures = append(res.Figures, Figure{Name: "nu", Value: 1 / res.C})
	}
	if param == "single" {
		res.Figures = append(res.Figures, Figure{Name: "theta", Value: theta[0]})
	} else {
		for k, v := range theta {
			res.Figures = append(res.Figures, Figure{Name: fmt.Sprintf("theta[%s]", rcscFeatureName(train, k)), Value: v})
		}
	}
	res.Figures = append(res.Figures, Figure{Name: "inner_iterations", Value: float64(o.innerTotal)},
		Figure{Name: "svm_solves", Value: float64(o.prob.svmSolves)}, Figure{Name: "radius_solves", Value: float64(o.prob.radiusSolves)})
	for j := range o.phi {
		if math.Abs(math.Log(o.phi[j]/o.phi0[j])) >= lccpLogThetaMax-1e-9 {
			name := "all features"
			if param == "multi" {
				name = "feature " + rcscFeatureName(train, j)
			}
			res.Notes = append(res.Notes, fmt.Sprintf("θ reached its bound e^±%d × θ0 (%s): the bound, not the criterion, stopped it", lccpLogThetaMax, name))
		}
	}
	return nil
}

// lccpConflict returns two rows (0-based) with identical features and
// different labels, if there are any.
func lccpConflict(ds *dataio.Dataset) (i, j int, ok bool) {
	seen := make(map[string]int, ds.Len())
	d := ds.Dim()
	key := make([]byte, 0, 8*d)
	for r := 0; r < ds.Len(); r++ {
		key = key[:0]
		for _, v := range ds.X.RawRowView(r) {
			if v == 0 {
				v = 0 // -0 and +0 are the same point
			}
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(v))
		}
		if q, dup := seen[string(key)]; dup {
			if ds.Y[q] != ds.Y[r] {
				return q, r, true
			}
			continue
		}
		seen[string(key)] = r
	}
	return 0, 0, false
}

// lccpCGrid is the C grid of the L2 margin's cross-validation at θ0: log2 C
// ∈ {-5, -3, …, 7}, LIBSVM grid.py's grid cut at 2^7. Beyond that ν = 1/C is
// negligible against the L1 kernel's scale (|K_ij| ~ Σ_k|Δ_k| at θ = 1), the
// L2 SVM is the hard margin in all but name, and SMO's iterations grow like
// C: on IDA breast-cancer (n = 200) one solve took 0.15 s at 2^7, 2.2 s at
// 2^11 and hit the 10⁷-iteration limit from 2^13, for the same CV accuracy.
func lccpCGrid() []float64 {
	var cs []float64
	for e := -5; e <= 7; e += 2 {
		cs = append(cs, math.Ldexp(1, e))
	}
	return cs
}

// lccpJoinMax joins at most k strings with "; ", then "…".
func lccpJoinMax(s []string, k int) string {
	if len(s) > k {
		return strings.Join(s[:k], "; ") + "; …"
	}
	return strings.Join(s, "; ")
}
