package solver

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// Margin selects the SVM formulation (docs/design.md "One SVM solver,
// several duals").
type Margin int

const (
	// L1 is the C-SVC (L1 soft margin): P = YKY, 0 ≤ α_i ≤ C.
	L1 Margin = iota
	// L2 is the L2 soft margin (Chapelle et al. 2002): P = Y(K + νI)Y with
	// ν = 1/C (Schittkowski's ν), α_i ≥ 0 unbounded.
	L2
	// Hard is the hard margin: P = YKY, α_i ≥ 0 unbounded.
	Hard
)

var marginNames = [...]string{"l1", "l2", "hard"}

func (m Margin) String() string {
	if m >= 0 && int(m) < len(marginNames) {
		return marginNames[m]
	}
	return fmt.Sprintf("Margin(%d)", int(m))
}

// MarshalText writes the margin name ("l1", "l2", "hard").
func (m Margin) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses a margin name.
func (m *Margin) UnmarshalText(b []byte) error {
	v, err := ParseMargin(string(b))
	if err == nil {
		*m = v
	}
	return err
}

// ParseMargin parses "l1", "l2" or "hard".
func ParseMargin(s string) (Margin, error) {
	for i, name := range marginNames {
		if s == name {
			return Margin(i), nil
		}
	}
	return 0, fmt.Errorf("unknown margin %q (want l1, l2 or hard)", s)
}

// SVCParams are the parameters of a two-class SVM.
type SVCParams struct {
	Margin Margin
	// C is the soft-margin constant: the box bound for L1, ν = 1/C for L2
	// (+Inf: ν = 0, solved as Hard); unused for Hard.
	C float64
	// WeightPos and WeightNeg scale C for the classes +1 and -1 (LIBSVM's
	// -w1, -w-1; L1 only); 0 means 1.
	WeightPos, WeightNeg float64
}

// SVCResult is a trained two-class SVM: f(x) = Σ_i Coef_i k(x_i, x) + Bias.
type SVCResult struct {
	// Alpha holds the dual variables α_i ≥ 0.
	Alpha []float64
	// Coef holds y_i α_i.
	Coef []float64
	// Rho is LIBSVM's ρ; Bias = -Rho.
	Rho, Bias float64
	// Obj is the dual objective ½αᵀYKYα - Σα (min form, LIBSVM's "obj";
	// with K + νI for L2).
	Obj float64
	// W2 is ‖w‖² = αᵀYKYα (with K + νI for L2); for Hard and L2 it equals
	// Σα = -2·Obj = 2D* at the optimum.
	W2 float64
	// NSV counts α_i > 0, NBSV those at the upper bound (L1 only).
	NSV, NBSV int
	Iter      int
	Status    status.Status
	// Gap is the KKT violation at termination (Result.Gap).
	Gap float64
	// Columns and Entries are the solve's kernel work (Result.Columns).
	Columns int
	Entries int64
	// F holds the decision values f(x_i) = Σ_j Coef_j K_ij + Bias of the
	// training points, with K (not K + νI, for L2), read off the solver's
	// final gradient: the training predictions without a kernel
	// evaluation. They agree with a fresh evaluation up to the rounding of
	// the gradient's updates (≈ 1e-13 relative on the bench problems).
	F []float64
}

// hardMaxIter is the default iteration limit of a hard-margin SVM.
const hardMaxIter = 1_000_000

// TrainSVC trains a two-class SVM on the kernel matrix K with labels y (±1) as
// the C-SVC, the L2 soft margin or the hard margin (docs/design.md "One SVM
// solver, several duals"). alpha0, when not nil, is a feasible warm start (e.g.
// the α of a nearby kernel). A hard margin on data that cannot be separated
// returns ErrNotSeparable (wrapped) with the partial result (see solveHard).
func TrainSVC(ctx context.Context, K kernel.Matrix, y []float64, p SVCParams, s Settings, alpha0 []float64) (SVCResult, error) {
	n := K.Len()
	if len(y) != n {
		panic(fmt.Sprintf("solver: len(y) = %d, want K.Len() = %d", len(y), n))
	}
	if err := checkLabels(y); err != nil {
		return SVCResult{}, err
	}
	pr := Problem{Q: K, Y: y, Alpha0: alpha0}
	inf := math.Inf(1)
	switch p.Margin {
	case L1:
		if !(p.C > 0) || math.IsInf(p.C, 0) {
			return SVCResult{}, fmt.Errorf("train SVM: C = %g, want a positive finite number", p.C)
		}
		wp, wn := p.WeightPos, p.WeightNeg
		if wp == 0 {
			wp = 1
		}
		if wn == 0 {
			wn = 1
		}
		if !(wp > 0) || !(wn > 0) {
			return SVCResult{}, fmt.Errorf("train SVM: class weights %g, %g, want > 0", p.WeightPos, p.WeightNeg)
		}
		pr.Cp, pr.Cn = p.C*wp, p.C*wn
	case L2:
		if !(p.C > 0) {
			return SVCResult{}, fmt.Errorf("train SVM: C = %g, want > 0 (ν = 1/C)", p.C)
		}
		pr.Q = kernel.Shifted(K, 1/p.C)
		pr.Cp, pr.Cn = inf, inf
	case Hard:
		pr.Cp, pr.Cn = inf, inf
	default:
		return SVCResult{}, fmt.Errorf("train SVM: unknown margin %d", int(p.Margin))
	}
	var r Result
	var err error
	// L2 with C = +Inf is ν = 0, the hard margin: it gets the same test for
	// non-separable data instead of running to LIBSVM's 10⁷ iterations.
	if p.Margin == Hard || p.Margin == L2 && math.IsInf(p.C, 1) {
		r, err = solveHard(ctx, pr, s, hardMaxIter)
	} else {
		r, err = Solve(ctx, pr, s)
	}
	if r.Alpha == nil {
		return SVCResult{}, err
	}
	nu := 0.0 // G_i = y_i Σ_j y_j α_j K_ij + ν α_i - 1, ν = 1/C for L2
	if p.Margin == L2 {
		nu = 1 / p.C
	}
	return svcResult(r, y, pr, nu), err
}

// svcResult is the SVCResult of the solve r of pr, with labels y and ν the
// L2 margin's shift of the diagonal (0 for L1 and Hard).
func svcResult(r Result, y []float64, pr Problem, nu float64) SVCResult {
	n := len(y)
	out := SVCResult{
		Alpha: r.Alpha, Coef: make([]float64, n), Rho: r.Rho, Bias: -r.Rho,
		Obj: r.Obj, Iter: r.Iter, Status: r.Status, Gap: r.Gap,
		Columns: r.Columns, Entries: r.Entries,
		F: make([]float64, n),
	}
	for i, a := range r.Alpha {
		out.Coef[i] = y[i] * a
		out.F[i] = y[i]*(r.G[i]+1-nu*a) - r.Rho
		// αᵀPα = Σ α_i (G_i - p_i), p_i = -1.
		out.W2 += a * (r.G[i] + 1)
		if a > 0 {
			out.NSV++
			c := pr.Cp
			if y[i] < 0 {
				c = pr.Cn
			}
			if a >= c { // only L1 has finite bounds
				out.NBSV++
			}
		}
	}
	return out
}

// solveHard solves the hard-margin dual. On data that is not separable the
// dual is unbounded: exact or numerical duplicates with both labels blow α up
// at once (the τ step, ErrUnbounded), but otherwise SMO walks off to infinity
// at a steady pace and only an iteration limit stops it. So the first limit
// is max(10⁶, 100n) (separable problems need O(n) to O(10n) iterations, rarely
// more); if it is hit, the iterate is tested: when w = Σ α_i y_i φ(x_i)
// already separates the classes the data is separable and the solve goes on,
// warm-started, up to LIBSVM's max(10⁷, 100n) in all; when it does not, the
// result is ErrNotSeparable. With an explicit MaxIter the same test decides
// between IterationLimit (separable, not yet optimal) and ErrNotSeparable.
func solveHard(ctx context.Context, pr Problem, s Settings, firstLimit int) (Result, error) {
	n := pr.Q.Len()
	total := s.MaxIter
	if s.MaxIter == 0 {
		s.MaxIter = max(firstLimit, 100*n)
		total = max(10_000_000, 100*n)
	}
	r, err := Solve(ctx, pr, s)
	if errors.Is(err, ErrUnbounded) {
		return r, fmt.Errorf("%w: %v", ErrNotSeparable, err)
	}
	if err != nil || r.Status != status.IterationLimit {
		return r, err
	}
	if !separates(pr.Y, r.G) {
		return r, fmt.Errorf("%w: after %d iterations w still does not separate the classes (Σα = %.3g)",
			ErrNotSeparable, r.Iter, sumOf(r.Alpha))
	}
	if r.Iter >= total {
		return r, nil
	}
	pr.Alpha0 = r.Alpha
	s.MaxIter = total - r.Iter
	r2, err := Solve(ctx, pr, s)
	r2.Iter += r.Iter
	if errors.Is(err, ErrUnbounded) { // cannot happen on separable data
		err = fmt.Errorf("%w: %v", ErrNotSeparable, err)
	}
	return r2, err
}

// separates reports whether the SVM function s_i = Σ_j α_j y_j K_ij, read
// off the gradient G_i = y_i s_i - 1, separates the classes with some bias:
// max over y_i = -1 of s_i < min over y_i = +1 of s_i. It is a certificate
// that the data is separable in feature space.
func separates(y, g []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1) // min over +1, max over -1
	for i, gi := range g {
		si := y[i] * (gi + 1)
		if y[i] > 0 {
			lo = min(lo, si)
		} else {
			hi = max(hi, si)
		}
	}
	return hi < lo
}

func sumOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// RadiusResult is the smallest ball enclosing the points in feature space.
type RadiusResult struct {
	// Beta holds the weights β_i ≥ 0, Σβ = 1, of the centre Σβ_iφ(x_i).
	Beta []float64
	// R2 is the squared radius R² = Σβ_iK_ii - βᵀKβ.
	R2     float64
	Iter   int
	Status status.Status
	// Gap is the KKT violation at termination, on the halved problem.
	Gap float64
}

// Radius computes R² = max_β Σβ_iK_ii - βᵀKβ s.t. Σβ = 1, β ≥ 0 (with K + νI
// when nu > 0, as the L2 soft margin of Chapelle et al. 2002 needs), the
// squared radius of the smallest ball enclosing the points in feature space.
//
// The solver gets the equivalent problem min ½βᵀKβ - ½Σβ_iK_ii (docs/design.md
// "One SVM solver, several duals": P = 2K, p = -diag K, halved so the kernel
// columns serve unscaled): its objective is -R²/2, and Eps applies to the
// halved gradient. beta0, when not nil, is a feasible warm start; otherwise β
// starts at the first point.
func Radius(ctx context.Context, K kernel.Matrix, nu float64, s Settings, beta0 []float64) (RadiusResult, error) {
	n := K.Len()
	if !(nu >= 0) || math.IsInf(nu, 0) {
		return RadiusResult{}, fmt.Errorf("compute radius: ν = %g, want ≥ 0", nu)
	}
	q := kernel.Shifted(K, nu)
	p := make([]float64, n)
	for i := range p {
		p[i] = -q.Diag(i) / 2
	}
	r, err := Solve(ctx, Problem{Q: q, P: p, Delta: 1, Cp: math.Inf(1), Alpha0: beta0}, s)
	if r.Alpha == nil {
		return RadiusResult{}, err
	}
	return RadiusResult{Beta: r.Alpha, R2: -2 * r.Obj, Iter: r.Iter, Status: r.Status, Gap: r.Gap}, err
}

// Decision sets dst_i = Σ_j cross_ij coef_j + bias, the SVM decision values
// of m test points given their m×n kernel matrix cross_ij = k(t_i, x_j)
// against the n training points (or the support vectors with their
// coefficients). An empty dst is allocated.
func Decision(dst []float64, cross mat.Matrix, coef []float64, bias float64) []float64 {
	m, n := cross.Dims()
	if len(coef) != n {
		panic(fmt.Sprintf("solver: len(coef) = %d, want %d columns", len(coef), n))
	}
	if len(dst) == 0 {
		dst = make([]float64, m)
	}
	if len(dst) != m {
		panic(fmt.Sprintf("solver: len(dst) = %d, want %d rows", len(dst), m))
	}
	if m == 0 {
		return dst
	}
	if n == 0 {
		for i := range dst {
			dst[i] = bias
		}
		return dst
	}
	v := mat.NewVecDense(m, dst)
	v.MulVec(cross, mat.NewVecDense(n, coef))
	for i := range dst {
		dst[i] += bias
	}
	return dst
}

// ClipWarmStart returns a feasible starting point for an SVM dual with
// yᵀα = 0 and 0 ≤ α_i ≤ C (Cp for y_i = +1, Cn for y_i = -1; +Inf allowed)
// from the α of a nearby problem, e.g. a larger C: α is clipped to the box
// and the heavier class is scaled down until Σ_{y=+1} α = Σ_{y=-1} α (scaling
// down never leaves the box). dst may be alpha itself; an empty dst is
// allocated.
func ClipWarmStart(dst, alpha, y []float64, cp, cn float64) []float64 {
	if len(y) != len(alpha) {
		panic(fmt.Sprintf("solver: len(y) = %d, len(alpha) = %d", len(y), len(alpha)))
	}
	if len(dst) == 0 {
		dst = make([]float64, len(alpha))
	}
	if len(dst) != len(alpha) {
		panic(fmt.Sprintf("solver: len(dst) = %d, len(alpha) = %d", len(dst), len(alpha)))
	}
	var sp, sn float64
	for i, a := range alpha {
		c := cp
		if y[i] < 0 {
			c = cn
		}
		a = min(max(a, 0), c)
		if math.IsNaN(a) {
			a = 0
		}
		dst[i] = a
		if y[i] > 0 {
			sp += a
		} else {
			sn += a
		}
	}
	scale, side := 1.0, 0.0
	switch {
	case sp > sn:
		scale, side = sn/sp, 1
	case sn > sp:
		scale, side = sp/sn, -1
	}
	if side != 0 {
		for i := range dst {
			if y[i] == side {
				dst[i] *= scale
			}
		}
	}
	return dst
}

// checkLabels returns an error unless every label is ±1 and both classes
// are present (TrainSVC's and NewSVCPath's check).
func checkLabels(y []float64) error {
	var npos, nneg int
	for i, v := range y {
		switch v {
		case 1:
			npos++
		case -1:
			nneg++
		default:
			return fmt.Errorf("train SVM: label y[%d] = %g, want ±1", i, v)
		}
	}
	if npos == 0 || nneg == 0 {
		return fmt.Errorf("train SVM: it needs both classes (%d positive, %d negative)", npos, nneg)
	}
	return nil
}
