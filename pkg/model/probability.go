package model

// Probability estimates, as LIBSVM's -b 1 (svm.cpp's
// svm_binary_svc_probability, svm_predict_probability): pkg/probability
// does the numerics, this file gives it the SVMs.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/probability"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// probabilityStream is the PCG stream of the cross-validation permutation
// of the probability estimates: rand.NewPCG(seed, probabilityStream+p) for
// subproblem p (0 for a binary model), so that each pair's folds are its
// own whatever the order the pairs are fitted in. LIBSVM draws them all
// from one unseeded rand().
const probabilityStream = 0x70726f62 // "prob"

// ErrNoProbability is Predict's error when probabilities are asked of a
// model trained without them.
var ErrNoProbability = errors.New("the model has no probability estimates")

// ErrProbabilityOneVsRest is Fit's error when probabilities are asked of a
// one-vs-rest model: LIBSVM's -b 1 couples one-vs-one pairs.
var ErrProbabilityOneVsRest = errors.New("probability estimates are one-vs-one's (LIBSVM's -b 1 couples the pairs' probabilities, Wu, Lin & Weng 2004); a one-vs-rest model has none")

// fitSigmoid fits Platt's sigmoid of the binary SVM (spec, p, st) on the
// normalised train (labels ±1) to its 5-fold cross-validated decision
// values, as svm_binary_svc_probability: each fold's SVM has the same
// kernel, margin, C and class weights as the final one (LIBSVM: C = 1 with
// weights Cp, Cn, the same box). It adds the SVMs it trains to solves.
func fitSigmoid(ctx context.Context, train *dataio.Dataset, spec kernel.Spec, p solver.SVCParams, st solver.Settings, seed uint64, sub int, solves *int) (*probability.Sigmoid, error) {
	rng := rand.New(rand.NewPCG(seed, probabilityStream+uint64(sub)))
	dec, err := probability.CV(ctx, train.Y, rng, func(ctx context.Context, rows, held []int) ([]float64, error) {
		*solves++
		m, _, err := fitSVMRows(ctx, train.Subset(rows), nil, spec, p, st, false)
		if err != nil {
			return nil, err
		}
		return m.DecisionNormalized(selectRows(train.Features(), held)), nil
	})
	if err != nil {
		return nil, err
	}
	r := probability.Fit(dec, train.Y)
	if !r.Plausible() { // what a model file may hold (validate): never seen
		return nil, fmt.Errorf("probability estimates: the sigmoid fit ran off to A = %g, B = %g, beyond ±%g", r.A, r.B, probability.MaxParam)
	}
	return &r.Sigmoid, nil
}

// HasProbability reports whether the model has probability estimates: a
// binary model's Probability, or every one-vs-one pair's.
func (m *Model) HasProbability() bool {
	for _, p := range m.Pairs {
		if p != nil && p.Probability != nil {
			return true
		}
	}
	return m.Probability != nil
}

// InvertedNote is the warning of a model whose sigmoid, or some of whose
// pairs' sigmoids, are inverted (probability.Sigmoid.Inverted: A > 0), so
// that probabilities can contradict the predicted class; "" for none.
func (m *Model) InvertedNote() string {
	const why = "P(+1 | f) falls as the decision value f rises, so a row's probabilities can contradict its predicted class; LIBSVM's -b 1 fits the same on so little data or so small a class, and its probabilities are not to be trusted"
	if s := m.Probability; s != nil && s.Inverted() {
		return fmt.Sprintf("WARNING: the probability sigmoid is inverted (A = %.4g > 0): %s", s.A, why)
	}
	var inv []string
	for _, p := range m.Pairs {
		if p != nil && p.Probability != nil && p.Probability.Inverted() {
			inv = append(inv, fmt.Sprintf("%s vs %s (A = %.4g)", p.Labels.Positive, p.Labels.Negative, p.Probability.A))
		}
	}
	if len(inv) == 0 {
		return ""
	}
	return fmt.Sprintf("WARNING: the probability sigmoids of %d of the %d pairs are inverted (%s): %s", len(inv), len(m.Pairs), strings.Join(inv, ", "), why)
}

// ProbabilityClasses are the classes of Probabilities' columns: a binary
// model's +1 class, then its -1 class (BinaryLabels, as svm-predict -b 1's
// "labels 1 -1"), a multi-class model's classes in LIBSVM's order.
func (m *Model) ProbabilityClasses() []string {
	if m.IsMultiClass() {
		return m.Classes
	}
	return BinaryLabels(m.Labels)
}

// Probabilities returns each row's class probabilities, columns as
// ProbabilityClasses, of the raw rows of X (the normaliser applied first),
// as svm_predict_probability: each pair's sigmoid of its decision value,
// clipped to [1e-7, 1-1e-7], coupled for more than two classes. It panics
// when the model has none (HasProbability).
func (m *Model) Probabilities(X mat.Matrix) [][]float64 { return m.probabilities(X, m.Normalizer) }

// ProbabilitiesNormalized is Probabilities of rows already normalised.
func (m *Model) ProbabilitiesNormalized(X mat.Matrix) [][]float64 { return m.probabilities(X, nil) }

func (m *Model) probabilities(X mat.Matrix, norm *dataio.Normalizer) [][]float64 {
	if !m.HasProbability() {
		panic("model: Probabilities of a model without probability estimates")
	}
	n, _ := X.Dims()
	out := make([][]float64, n)
	if !m.IsMultiClass() {
		f := m.decision(X, norm)
		sig := []probability.Sigmoid{*m.Probability}
		for i, v := range f {
			out[i] = probability.Classes(nil, 2, []float64{v}, sig)
		}
		return out
	}
	k := len(m.Classes)
	dec := m.pairDecisions(X, norm)
	sig := make([]probability.Sigmoid, len(m.Pairs))
	for q, pm := range m.Pairs {
		sig[q] = *pm.Probability
	}
	row := make([]float64, len(dec))
	for i := range out {
		for q := range dec {
			row[q] = dec[q][i]
		}
		out[i] = probability.Classes(nil, k, row, sig)
	}
	return out
}

// ProbabilityScores returns the log-loss and the Brier score
// (metrics.LogLoss, metrics.Brier) of probabilities prob against the true
// classes truth (indices into their columns).
func ProbabilityScores(prob [][]float64, truth []int) (logLoss, brier float64, err error) {
	if logLoss, err = metrics.LogLoss(prob, truth); err != nil {
		return 0, 0, err
	}
	brier, err = metrics.Brier(prob, truth)
	return logLoss, brier, err
}

// binaryTruth is labels ±1 as indices into BinaryLabels: 0 for +1, 1 for -1.
func binaryTruth(y []float64) []int {
	t := make([]int, len(y))
	for i, v := range y {
		if v <= 0 {
			t[i] = 1
		}
	}
	return t
}

// scoreProbabilities adds the test part's log-loss and Brier score to ts.
func scoreProbabilities(ts *TestScores, m *Model, test *dataio.Dataset) error {
	truth := test.Class
	if !m.IsMultiClass() {
		truth = binaryTruth(test.Y)
	}
	ll, b, err := ProbabilityScores(m.ProbabilitiesNormalized(test.Features()), truth)
	if err != nil {
		return fmt.Errorf("score the test part's probabilities: %w", err)
	}
	ts.LogLoss, ts.Brier = &ll, &b
	return nil
}
