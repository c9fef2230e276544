// Package probability turns SVM decision values into class probabilities as
// LIBSVM's -b 1 does (svm.cpp, version 3.24 and since): Platt's sigmoid
// P(+1 | f) = 1/(1+exp(Af+B)) fitted to cross-validated decision values by
// the Newton method with backtracking of Lin, Lin & Weng (2007, "A note on
// Platt's probabilistic outputs for support vector machines", Machine
// Learning 68: Algorithm 1; svm.cpp's sigmoid_train and sigmoid_predict),
// the 5-fold cross-validation that makes those decision values
// (svm_binary_svc_probability), and for more than two classes the pairwise
// coupling of Wu, Lin & Weng (2004, "Probability estimates for multi-class
// classification by pairwise coupling", JMLR 5: method 2, eq. 21;
// svm.cpp's multiclass_probability and svm_predict_probability).
//
// It is a package of its own because it is a port to be checked line by
// line against LIBSVM, apart from the SVM that makes the decision values:
// it has no word for kernels, solvers or model files (CV takes the SVM as a
// function), so its tests compare it with an independent transcription of
// svm.cpp and with svm-train -b 1 on the same decision values, and
// pkg/model only calls it.
package probability

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// Sigmoid is Platt's sigmoid P(+1 | f) = 1/(1+exp(A f + B)) of a binary
// SVM's decision value f: LIBSVM's probA and probB. Its JSON is a model
// file's "probability" object.
type Sigmoid struct {
	A float64 `json:"prob_a"`
	B float64 `json:"prob_b"`
}

// MaxParam bounds |A| and |B| of a plausible sigmoid (Sigmoid.Plausible):
// Fit's Newton steps, on a Hessian regularised by 1e-12 and at most
// MaxIter of them, stay many orders of magnitude below it on any decision
// values a solver gives, and a model file beyond it (prob_a: 1e308) was
// edited. Beyond about 745/|f| the sigmoid is 0 or 1 exactly anyway.
const MaxParam = 1e100

// Plausible reports whether A and B are finite and within ±MaxParam.
func (s Sigmoid) Plausible() bool {
	return math.Abs(s.A) <= MaxParam && math.Abs(s.B) <= MaxParam
}

// Inverted reports whether the sigmoid falls as the decision value rises
// (A > 0): P(+1 | f) is then below 0.5 for large positive f, so a row's
// probabilities contradict the class the decision function predicts.
// LIBSVM's sigmoid_train fits such a sigmoid on tiny data or a class of one
// row, whose cross-validated decision values point the wrong way; it is
// kept as LIBSVM keeps it, and said (Model.InvertedNote).
func (s Sigmoid) Inverted() bool { return s.A > 0 }

// FitResult is Fit's sigmoid with how the Newton method ended.
type FitResult struct {
	Sigmoid
	// Iter is the Newton iterations taken (at most MaxIter).
	Iter int
	// Status is "converged" (both gradient entries below 1e-5),
	// "iteration limit" (LIBSVM: "Reaching maximal iterations in two-class
	// probability estimates") or "line search failed" (LIBSVM: "Line
	// search fails in two-class probability estimates"). As in LIBSVM, the
	// sigmoid is usable in every case: it is the last accepted iterate.
	Status string
}

// The constants of sigmoid_train.
const (
	MaxIter = 100   // maximal Newton iterations
	minStep = 1e-10 // smallest step of the line search
	sigma   = 1e-12 // added to the Hessian's diagonal (strictly PD)
	eps     = 1e-5  // stopping tolerance on the gradient
)

// Fit fits the sigmoid to decision values dec with labels y (y_i > 0 is the
// +1 class): it minimises the cross-entropy
//
//	F(A, B) = Σ_i t_i (A f_i + B) + log(1 + exp(-(A f_i + B)))
//
// against Platt's prior-corrected targets t_i = (N₊+1)/(N₊+2) for y_i = +1
// and 1/(N₋+2) for y_i = -1, from A = 0, B = log((N₋+1)/(N₊+1)), by
// Newton's method on H + σI with a backtracking line search (sufficient
// decrease 1e-4), stopping when |∂F/∂A| and |∂F/∂B| are both below 1e-5:
// svm.cpp's sigmoid_train, step for step, with its constants. It panics
// when the lengths differ.
func Fit(dec, y []float64) FitResult {
	if len(dec) != len(y) {
		panic("probability: Fit: length mismatch")
	}
	l := len(dec)
	prior1, prior0 := 0.0, 0.0
	for _, v := range y {
		if v > 0 {
			prior1++
		} else {
			prior0++
		}
	}
	hiTarget := (prior1 + 1) / (prior1 + 2)
	loTarget := 1 / (prior0 + 2)
	t := make([]float64, l)
	A, B := 0.0, math.Log((prior0+1)/(prior1+1))
	fval := 0.0
	for i := range dec {
		if y[i] > 0 {
			t[i] = hiTarget
		} else {
			t[i] = loTarget
		}
		fval += term(t[i], dec[i]*A+B)
	}
	status := "iteration limit"
	iter := 0
	for ; iter < MaxIter; iter++ {
		// Gradient and Hessian, H' = H + σI.
		h11, h22, h21, g1, g2 := sigma, sigma, 0.0, 0.0, 0.0
		for i, f := range dec {
			fApB := f*A + B
			var p, q float64
			if fApB >= 0 {
				p = math.Exp(-fApB) / (1 + math.Exp(-fApB))
				q = 1 / (1 + math.Exp(-fApB))
			} else {
				p = 1 / (1 + math.Exp(fApB))
				q = math.Exp(fApB) / (1 + math.Exp(fApB))
			}
			d2 := p * q
			h11 += f * f * d2
			h22 += d2
			h21 += f * d2
			d1 := t[i] - p
			g1 += f * d1
			g2 += d1
		}
		if math.Abs(g1) < eps && math.Abs(g2) < eps {
			status = "converged"
			break
		}
		// Newton direction -H'⁻¹g.
		det := h11*h22 - h21*h21
		dA := -(h22*g1 - h21*g2) / det
		dB := -(-h21*g1 + h11*g2) / det
		gd := g1*dA + g2*dB
		step := 1.0
		for step >= minStep {
			newA, newB := A+step*dA, B+step*dB
			newf := 0.0
			for i, f := range dec {
				newf += term(t[i], f*newA+newB)
			}
			if newf < fval+0.0001*step*gd { // sufficient decrease
				A, B, fval = newA, newB, newf
				break
			}
			step /= 2
		}
		if step < minStep {
			status = "line search failed"
			break
		}
	}
	return FitResult{Sigmoid: Sigmoid{A: A, B: B}, Iter: iter, Status: status}
}

// term is one row's cross-entropy t·z + log(1+e^{-z}) at z = Af+B, in
// sigmoid_train's overflow-free form.
func term(t, z float64) float64 {
	if z >= 0 {
		return t*z + math.Log(1+math.Exp(-z))
	}
	return (t-1)*z + math.Log(1+math.Exp(z))
}

// Predict returns P(+1 | f) = 1/(1+exp(Af+B)), in sigmoid_predict's form
// that avoids cancellation when 1-p is used.
func (s Sigmoid) Predict(f float64) float64 {
	fApB := f*s.A + s.B
	if fApB >= 0 {
		return math.Exp(-fApB) / (1 + math.Exp(-fApB))
	}
	return 1 / (1 + math.Exp(fApB))
}

// MinProb is svm_predict_probability's bound on a pair's probability: each
// r_ij is clipped to [MinProb, 1-MinProb] before coupling.
const MinProb = 1e-7

// Classes returns the class probabilities of one row from its binary
// SVMs' decision values dec in LIBSVM's pair order ((0,1), (0,2), …,
// (k-2,k-1), the first class of a pair being +1) and their sigmoids sig:
// r_ij = P(i | i or j) clipped to [MinProb, 1-MinProb], then for two
// classes (r_01, r_10) and for more Couple's p (svm.cpp's
// svm_predict_probability). dst (length k, or nil) receives them.
func Classes(dst []float64, k int, dec []float64, sig []Sigmoid) []float64 {
	if len(dec) != k*(k-1)/2 || len(sig) != len(dec) {
		panic("probability: Classes: want k(k-1)/2 decision values and sigmoids")
	}
	if dst == nil {
		dst = make([]float64, k)
	}
	r := make([][]float64, k)
	for i := range r {
		r[i] = make([]float64, k)
	}
	p := 0
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			r[i][j] = min(max(sig[p].Predict(dec[p]), MinProb), 1-MinProb)
			r[j][i] = 1 - r[i][j]
			p++
		}
	}
	if k == 2 {
		dst[0], dst[1] = r[0][1], r[1][0]
		return dst
	}
	Couple(dst, r)
	return dst
}

// Couple solves Wu, Lin & Weng's (2004) method 2 for the class
// probabilities p of k classes from the pairwise ones r (r[i][j] ≈ P(i | i
// or j), r[j][i] = 1 - r[i][j]; the diagonal is not read):
//
//	min_p ½ pᵀQp  s.t. Σ p = 1,  Q_tt = Σ_{j≠t} r_jt²,  Q_tj = -r_jt r_tj,
//
// by their fixed-point iteration from p = 1/k, at most max(100, k) sweeps,
// stopping when max_t |(Qp)_t - pᵀQp| < 0.005/k: svm.cpp's
// multiclass_probability. It returns dst (length k, or nil) and the
// sweeps taken (max(100, k) when it did not converge, where LIBSVM prints
// "Exceeds max_iter in multiclass_prob" and uses p as it is).
func Couple(dst []float64, r [][]float64) ([]float64, int) {
	k := len(r)
	if dst == nil {
		dst = make([]float64, k)
	}
	p := dst
	maxIter := max(100, k)
	e := 0.005 / float64(k)
	Q := make([][]float64, k)
	Qp := make([]float64, k)
	for t := range Q {
		Q[t] = make([]float64, k)
	}
	for t := 0; t < k; t++ {
		p[t] = 1 / float64(k)
		Q[t][t] = 0
		for j := 0; j < t; j++ {
			Q[t][t] += r[j][t] * r[j][t]
			Q[t][j] = Q[j][t]
		}
		for j := t + 1; j < k; j++ {
			Q[t][t] += r[j][t] * r[j][t]
			Q[t][j] = -r[j][t] * r[t][j]
		}
	}
	iter := 0
	for ; iter < maxIter; iter++ {
		// The stopping rule, with Qp and pQp recomputed for accuracy.
		pQp := 0.0
		for t := 0; t < k; t++ {
			Qp[t] = 0
			for j := 0; j < k; j++ {
				Qp[t] += Q[t][j] * p[j]
			}
			pQp += p[t] * Qp[t]
		}
		maxErr := 0.0
		for t := 0; t < k; t++ {
			maxErr = max(maxErr, math.Abs(Qp[t]-pQp))
		}
		if maxErr < e {
			break
		}
		for t := 0; t < k; t++ {
			diff := (-Qp[t] + pQp) / Q[t][t]
			p[t] += diff
			pQp = (pQp + diff*(diff*Q[t][t]+2*Qp[t])) / (1 + diff) / (1 + diff)
			for j := 0; j < k; j++ {
				Qp[j] = (Qp[j] + diff*Q[t][j]) / (1 + diff)
				p[j] /= 1 + diff
			}
		}
	}
	return p, iter
}

// Folds is the number of cross-validation folds of CV (LIBSVM's nr_fold).
const Folds = 5

// TrainFunc trains a binary SVM on the rows train of the problem (their
// labels are both ±1: CV calls it only then) and returns its decision
// values, oriented for the +1 class, on the rows test.
type TrainFunc func(ctx context.Context, train, test []int) ([]float64, error)

// CV returns the 5-fold cross-validated decision values of the n rows
// whose labels are y (±1), as svm_binary_svc_probability makes them for
// sigmoid_train: a random permutation of the rows (Fisher–Yates, i ↔
// i + rng.IntN(n-i), where LIBSVM draws rand()), fold f its rows
// [f·n/5, (f+1)·n/5) of the permutation, each fold's values from an SVM
// trained (by train) on the other folds; a fold whose other folds hold
// only +1 rows gets decision values 1, only -1 rows -1 (and none, 0).
func CV(ctx context.Context, y []float64, rng *rand.Rand, train TrainFunc) ([]float64, error) {
	n := len(y)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := 0; i < n; i++ {
		j := i + rng.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	dec := make([]float64, n)
	for f := 0; f < Folds; f++ {
		begin, end := f*n/Folds, (f+1)*n/Folds
		rest := make([]int, 0, n-(end-begin))
		rest = append(append(rest, perm[:begin]...), perm[end:]...)
		pos, neg := 0, 0
		for _, i := range rest {
			if y[i] > 0 {
				pos++
			} else {
				neg++
			}
		}
		fill := math.NaN()
		switch {
		case pos == 0 && neg == 0:
			fill = 0
		case neg == 0:
			fill = 1
		case pos == 0:
			fill = -1
		}
		held := perm[begin:end]
		if len(held) == 0 {
			// Fewer rows than folds: LIBSVM trains this fold's SVM and
			// predicts nothing with it; there is nothing to predict.
			continue
		}
		if !math.IsNaN(fill) {
			for _, i := range held {
				dec[i] = fill
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := train(ctx, rest, held)
		if err != nil {
			return nil, fmt.Errorf("probability estimates, cross-validation fold %d of %d: %w", f+1, Folds, err)
		}
		for k, i := range held {
			dec[i] = v[k]
		}
	}
	return dec, nil
}
