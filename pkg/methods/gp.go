package methods

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// The Gaussian process and the expected-improvement search of bo: there is
// no well-kept Go library for GP Bayesian optimisation, so it is written
// here: the hyperparameters by gonum's BFGS (optimize), the Cholesky factor
// and its solves by plain loops on n×n slices (see gp for why not gonum's
// mat.Cholesky; lapack64.Potrf would factor the same slice, but n is at most
// the budget and the loops allocate nothing), after Rasmussen &
// Williams, Gaussian Processes for Machine Learning (2006), algorithm 2.1
// and eq. 5.9 (the marginal likelihood and its gradient), and Jones,
// Schonlau & Welch 1998 (expected improvement). Inputs live in the unit box
// [0, 1]^m (bo maps log2 C and log2 γ onto it); outputs are standardised by
// the caller, so the prior mean is 0.

// gpHyper are the GP's hyperparameters in log space: one log length scale
// per input dimension (ARD), the log signal variance and the log noise
// variance.
type gpHyper struct {
	LogEll         []float64
	LogSf2, LogSn2 float64
}

// gpBounds bound the hyperparameters (log space) while the marginal
// likelihood is maximised: length scales 0.01..10 of the unit box, a signal
// variance 0.05..20 of the standardised outputs and a noise variance
// 10⁻⁶..0.5 (CV accuracies are counts: plateaus and small jumps, which a
// noise term absorbs).
var gpBounds = struct{ ell, sf2, sn2 [2]float64 }{
	ell: [2]float64{math.Log(0.01), math.Log(10)},
	sf2: [2]float64{math.Log(0.05), math.Log(20)},
	sn2: [2]float64{math.Log(1e-6), math.Log(0.5)},
}

var sqrt5 = math.Sqrt(5)

// matern52 returns the Matérn 5/2 covariance σf²(1 + √5 r + 5r²/3)e^{-√5 r}
// of x and z, r² = Σ (x_i-z_i)²/ℓ_i², and g = σf²(5/3)(1+√5 r)e^{-√5 r}, for
// which ∂k/∂z_i = g (x_i-z_i)/ℓ_i² and ∂k/∂log ℓ_i = g (x_i-z_i)²/ℓ_i².
func matern52(x, z, invEll2 []float64, sf2 float64) (k, g float64) {
	r2 := 0.0
	for i := range x {
		d := x[i] - z[i]
		r2 += d * d * invEll2[i]
	}
	r := math.Sqrt(r2)
	e := math.Exp(-sqrt5 * r)
	return sf2 * (1 + sqrt5*r + 5*r2/3) * e, sf2 * 5 / 3 * (1 + sqrt5*r) * e
}

// gp is a GP regression fitted to points X (rows in the unit box) with
// outputs y under fixed hyperparameters. Its linear algebra is done here on
// n×n slices (n is at most the budget, 30 by default), not with gonum's
// Cholesky: that one estimates the condition number at every
// factorisation and allocates at every solve, which made bo's own work
// cost several times its SVM solves on 100-row data (issue 35).
type gp struct {
	h       gpHyper
	invEll2 []float64
	sf2     float64
	X       [][]float64
	n       int
	L       []float64 // the lower Cholesky factor of K + σn²I, row-major n×n
	alpha   []float64 // K⁻¹y
	ky      float64   // yᵀK⁻¹y
	logDet  float64
	ks, v   []float64 // predict's scratch: k(x, X), then L⁻¹k
}

// errNotPD is a covariance matrix whose Cholesky factorisation failed.
var errNotPD = errors.New("the GP's covariance matrix is not positive definite")

// cholesky overwrites the lower triangle of the symmetric n×n matrix a
// (row-major) with its Cholesky factor L (a = LLᵀ), zeroing the upper
// triangle; false when a is not positive definite.
func cholesky(a []float64, n int) bool {
	for j := range n {
		rj := a[j*n : j*n+n]
		d := rj[j]
		for k := range j {
			d -= rj[k] * rj[k]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+n]
			s := ri[j]
			for k := range j {
				s -= ri[k] * rj[k]
			}
			ri[j] = s / d
		}
		for k := j + 1; k < n; k++ {
			rj[k] = 0
		}
	}
	return true
}

// solveL solves L x = b in place (forward substitution).
func (g *gp) solveL(b []float64) {
	n := g.n
	for i := range n {
		ri := g.L[i*n : i*n+i]
		s := b[i]
		for k, l := range ri {
			s -= l * b[k]
		}
		b[i] = s / g.L[i*n+i]
	}
}

// solveLT solves Lᵀ x = b in place (back substitution).
func (g *gp) solveLT(b []float64) {
	n := g.n
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= g.L[k*n+i] * b[k]
		}
		b[i] = s / g.L[i*n+i]
	}
}

// newGP conditions the GP with hyperparameters h on (X, y).
func newGP(X [][]float64, y []float64, h gpHyper) (*gp, error) {
	n := len(X)
	g := &gp{h: h, X: X, n: n, sf2: math.Exp(h.LogSf2), invEll2: make([]float64, len(h.LogEll)),
		L: make([]float64, n*n), ks: make([]float64, n), v: make([]float64, n)}
	for i, l := range h.LogEll {
		g.invEll2[i] = math.Exp(-2 * l)
	}
	sn2 := math.Exp(h.LogSn2)
	for i := range n {
		for j := 0; j <= i; j++ {
			k, _ := matern52(X[i], X[j], g.invEll2, g.sf2)
			if i == j {
				k += sn2
			}
			g.L[i*n+j], g.L[j*n+i] = k, k
		}
	}
	if !cholesky(g.L, n) {
		return nil, errNotPD
	}
	g.alpha = slices.Clone(y)
	g.solveL(g.alpha)
	g.solveLT(g.alpha)
	for i := range n {
		g.ky += y[i] * g.alpha[i]
		g.logDet += 2 * math.Log(g.L[i*n+i])
	}
	return g, nil
}

// logML returns the log marginal likelihood log p(y | X, h) (Rasmussen &
// Williams eq. 2.30).
func (g *gp) logML() float64 {
	n := float64(len(g.X))
	return -0.5*g.ky - 0.5*g.logDet - 0.5*n*math.Log(2*math.Pi)
}

// logMLGrad returns the gradient of logML with respect to (log ℓ_1..m,
// log σf², log σn²): ½ tr((ααᵀ - K⁻¹) ∂K/∂θ) (eq. 5.9).
func (g *gp) logMLGrad() []float64 {
	n, m := g.n, len(g.invEll2)
	Kinv := make([]float64, n*n) // column j of K⁻¹ in row j (K⁻¹ is symmetric)
	for j := range n {
		col := Kinv[j*n : j*n+n]
		col[j] = 1
		g.solveL(col)
		g.solveLT(col)
	}
	grad := make([]float64, m+2)
	a := g.alpha
	sn2 := math.Exp(g.h.LogSn2)
	for i := range n {
		for j := i; j < n; j++ {
			w := a[i]*a[j] - Kinv[i*n+j] // (ααᵀ - K⁻¹)_ij
			if i != j {
				w *= 2 // the symmetric pair
			}
			k, gg := matern52(g.X[i], g.X[j], g.invEll2, g.sf2)
			for d := range m {
				dx := g.X[i][d] - g.X[j][d]
				grad[d] += 0.5 * w * gg * dx * dx * g.invEll2[d]
			}
			grad[m] += 0.5 * w * k
			if i == j {
				grad[m+1] += 0.5 * w * sn2
			}
		}
	}
	return grad
}

// predict returns the posterior mean and variance of the latent function
// at x (Rasmussen & Williams algorithm 2.1, without the noise term:
// v = L⁻¹k, variance σf² − vᵀv) and, when dmu and dvar are not nil, their
// gradients with respect to x. It uses g's scratch space: one goroutine at
// a time.
func (g *gp) predict(x []float64, dmu, dvar []float64) (mu, v float64) {
	n, m := g.n, len(x)
	ks, w := g.ks, g.v
	gs := make([]float64, 0)
	if dmu != nil {
		gs = make([]float64, n)
	}
	for i, xi := range g.X {
		k, gg := matern52(x, xi, g.invEll2, g.sf2)
		ks[i] = k
		if dmu != nil {
			gs[i] = gg
		}
		mu += k * g.alpha[i]
	}
	copy(w, ks)
	g.solveL(w)
	vv := 0.0
	for _, t := range w {
		vv += t * t
	}
	v = max(g.sf2-vv, 0)
	if dmu == nil {
		return mu, v
	}
	// K⁻¹k = L⁻ᵀ(L⁻¹k); ∂k(x, x_i)/∂x_d = -g_i (x_d - x_id)/ℓ_d².
	g.solveLT(w)
	a := g.alpha
	for d := range m {
		dmu[d], dvar[d] = 0, 0
		for i, xi := range g.X {
			dk := -gs[i] * (x[d] - xi[d]) * g.invEll2[d]
			dmu[d] += dk * a[i]
			dvar[d] -= 2 * dk * w[i]
		}
	}
	return mu, v
}

// normPDF and normCDF are the standard normal density and distribution.
func normPDF(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// expectedImprovement returns EI(x) = (f* - μ)Φ(z) + σφ(z), z = (f* - μ)/σ,
// for minimisation below best f* (Jones et al. 1998, eq. 15), and its
// gradient in grad when not nil.
func (g *gp) expectedImprovement(x []float64, best float64, grad []float64) float64 {
	m := len(x)
	var dmu, dvar []float64
	if grad != nil {
		dmu, dvar = make([]float64, m), make([]float64, m)
	}
	mu, v := g.predict(x, dmu, dvar)
	imp := best - mu
	if v < 1e-18 {
		for d := range grad {
			grad[d] = 0
			if imp > 0 {
				grad[d] = -dmu[d]
			}
		}
		return max(imp, 0)
	}
	s := math.Sqrt(v)
	z := imp / s
	cdf, pdf := normCDF(z), normPDF(z)
	// dEI/dμ = -Φ(z), dEI/dσ = φ(z), dσ = dv/(2σ).
	for d := range grad {
		grad[d] = -cdf*dmu[d] + pdf*dvar[d]/(2*s)
	}
	return imp*cdf + s*pdf
}

// bayes is the state of a Bayesian optimisation in the unit box [0, 1]^dim
// that minimises f: the points evaluated and their values. Every random
// choice draws from rng, so a run is a function of its seed.
type bayes struct {
	dim  int
	rng  *rand.Rand
	X    [][]float64
	Y    []float64
	warm []float64 // the last fit's unconstrained hyperparameters
}

// latinHypercube returns n points of a Latin hypercube in [0, 1]^dim: in
// every dimension one point in each of the n slices, at a random place.
func (b *bayes) latinHypercube(n int) [][]float64 {
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, b.dim)
	}
	for d := range b.dim {
		for i, slot := range b.rng.Perm(n) {
			pts[i][d] = (float64(slot) + b.rng.Float64()) / float64(n)
		}
	}
	return pts
}

func (b *bayes) add(x []float64, y float64) {
	b.X = append(b.X, x)
	b.Y = append(b.Y, y)
}

// fit returns the GP on the standardised values, its hyperparameters
// maximising the marginal likelihood (BFGS on an unconstrained
// parameterisation of the bounded box gpBounds, from the box's middle and
// from the previous fit; the better of the two), and the best standardised
// value.
func (b *bayes) fit() (*gp, float64, error) {
	mean, sd := meanSD(b.Y)
	if sd == 0 {
		sd = 1
	}
	y := make([]float64, len(b.Y))
	for i, v := range b.Y {
		y[i] = (v - mean) / sd
	}
	m := b.dim
	lo := make([]float64, m+2)
	hi := make([]float64, m+2)
	for d := range m {
		lo[d], hi[d] = gpBounds.ell[0], gpBounds.ell[1]
	}
	lo[m], hi[m] = gpBounds.sf2[0], gpBounds.sf2[1]
	lo[m+1], hi[m+1] = gpBounds.sn2[0], gpBounds.sn2[1]
	hyper := func(u []float64) (gpHyper, []float64) {
		th := make([]float64, m+2)
		dth := make([]float64, m+2)
		for i, ui := range u {
			s := 1 / (1 + math.Exp(-ui))
			th[i] = lo[i] + (hi[i]-lo[i])*s
			dth[i] = (hi[i] - lo[i]) * s * (1 - s)
		}
		return gpHyper{LogEll: th[:m], LogSf2: th[m], LogSn2: th[m+1]}, dth
	}
	// gonum's BFGS asks for the value and the gradient at the same point
	// in separate calls: the GP of the last point serves both.
	var lastU []float64
	var lastG *gp
	var lastErr error
	gpAt := func(u []float64) (*gp, error) {
		if lastU == nil || !slices.Equal(u, lastU) {
			h, _ := hyper(u)
			lastU = append(lastU[:0], u...)
			lastG, lastErr = newGP(b.X, y, h)
		}
		return lastG, lastErr
	}
	p := optimize.Problem{
		Func: func(u []float64) float64 {
			g, err := gpAt(u)
			if err != nil {
				return math.Inf(1)
			}
			return -g.logML()
		},
		Grad: func(grad, u []float64) {
			_, dth := hyper(u)
			g, err := gpAt(u)
			var gr []float64
			if err == nil {
				gr = g.logMLGrad()
			}
			for i := range grad {
				grad[i] = 0
				if gr != nil {
					grad[i] = -gr[i] * dth[i]
				}
			}
		},
	}
	starts := [][]float64{make([]float64, m+2)}
	if b.warm != nil {
		starts = append(starts, b.warm)
	}
	bestU, bestF := starts[0], math.Inf(1)
	for _, u0 := range starts {
		f0 := p.Func(u0)
		if f0 < bestF {
			bestU, bestF = u0, f0
		}
		res, err := optimize.Minimize(p, u0, &optimize.Settings{MajorIterations: 100, GradientThreshold: 1e-3}, &optimize.BFGS{})
		if res == nil || err != nil && res.F >= f0 {
			continue
		}
		if res.F < bestF {
			bestU, bestF = slices.Clone(res.X), res.F
		}
	}
	h, _ := hyper(bestU)
	g, err := newGP(b.X, y, h)
	if err != nil {
		return nil, 0, err
	}
	b.warm = bestU
	return g, slices.Min(y), nil
}

// bayesCandidates is the number of random points at which the next point's
// search evaluates EI before it refines the best few by gradient ascent.
const bayesCandidates = 500

// propose returns the next point to evaluate: the maximiser of expected
// improvement over the box, found by EI at bayesCandidates random points
// and a projected gradient ascent from the best five. A point that
// repeats an evaluated one (EI gone flat) is replaced by the random
// candidate farthest from every evaluated point.
func (b *bayes) propose() ([]float64, error) {
	g, best, err := b.fit()
	if err != nil {
		return nil, err
	}
	type cand struct {
		x  []float64
		ei float64
	}
	cands := make([]cand, bayesCandidates)
	for i := range cands {
		x := make([]float64, b.dim)
		for d := range x {
			x[d] = b.rng.Float64()
		}
		cands[i] = cand{x, g.expectedImprovement(x, best, nil)}
	}
	// And around the best point so far, where EI is often highest but a
	// uniform draw rarely lands.
	xb := b.X[slices.Index(b.Y, slices.Min(b.Y))]
	for range bayesCandidates / 10 {
		x := make([]float64, b.dim)
		for d := range x {
			x[d] = min(max(xb[d]+0.05*b.rng.NormFloat64(), 0), 1)
		}
		cands = append(cands, cand{x, g.expectedImprovement(x, best, nil)})
	}
	slices.SortStableFunc(cands, func(p, q cand) int {
		switch {
		case p.ei > q.ei:
			return -1
		case p.ei < q.ei:
			return 1
		}
		return 0
	})
	top := cands[0]
	for _, c := range cands[:5] {
		x, ei := ascendEI(g, c.x, best)
		if ei > top.ei {
			top = cand{x, ei}
		}
	}
	if b.nearest(top.x) > 1e-6 && top.ei > 0 {
		return top.x, nil
	}
	far, farD := cands[0].x, -1.0
	for _, c := range cands[:bayesCandidates] {
		if d := b.nearest(c.x); d > farD {
			far, farD = c.x, d
		}
	}
	return far, nil
}

// nearest returns the distance from x to the nearest evaluated point.
func (b *bayes) nearest(x []float64) float64 {
	best := math.Inf(1)
	for _, p := range b.X {
		s := 0.0
		for d := range x {
			s += (x[d] - p[d]) * (x[d] - p[d])
		}
		best = min(best, math.Sqrt(s))
	}
	return best
}

// ascendEI climbs EI from x0 by projected gradient ascent on the unit box
// with a backtracking step, for at most 50 steps.
func ascendEI(g *gp, x0 []float64, best float64) ([]float64, float64) {
	m := len(x0)
	x := slices.Clone(x0)
	grad := make([]float64, m)
	ei := g.expectedImprovement(x, best, grad)
	t := 0.1
	try := make([]float64, m)
	for range 50 {
		norm := 0.0
		for _, v := range grad {
			norm += v * v
		}
		if norm = math.Sqrt(norm); norm == 0 {
			break
		}
		moved := false
		for ; t > 1e-8; t /= 2 {
			for d := range x {
				try[d] = min(max(x[d]+t*grad[d]/norm, 0), 1)
			}
			if e := g.expectedImprovement(try, best, nil); e > ei {
				copy(x, try)
				ei = g.expectedImprovement(x, best, grad)
				moved = true
				t *= 2
				break
			}
		}
		if !moved {
			break
		}
	}
	return x, ei
}

// meanSD returns the mean and the (population) standard deviation of v.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)))
}
