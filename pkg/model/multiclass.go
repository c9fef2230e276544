package model

// One-vs-one multi-class SVMs, as LIBSVM trains and predicts them
// (svm.cpp: svm_train's loop over the pairs of classes, svm_group_classes,
// svm_predict_values' vote): for k classes, k(k-1)/2 binary SVMs, pair
// (i, j) with i < j trained on the rows of classes i and j (class i = +1),
// and a prediction by vote: f_ij(x) > 0 votes for i, otherwise for j; the
// class with the most votes wins, a tie going to the class first in the
// label order.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// PairIndex lists the one-vs-one pairs of k classes in LIBSVM's order:
// (0,1), (0,2), …, (0,k-1), (1,2), …, (k-2,k-1).
func PairIndex(k int) [][2]int {
	var p [][2]int
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			p = append(p, [2]int{i, j})
		}
	}
	return p
}

// PairSVM is the kernel and the SVM parameters of one pair of classes.
type PairSVM struct {
	Kernel kernel.Spec
	Margin Margin
	C      float64
}

// IsMultiClass reports whether m is a one-vs-one multi-class model
// (Classes and Pairs set).
func (m *Model) IsMultiClass() bool { return len(m.Classes) > 0 }

// fitMulti fits the one-vs-one SVMs of the multi-class training part
// s.Train: pair p of PairIndex with pairs[p] (all with s.Kernel, s.Margin,
// s.C when pairs is nil), each on its two classes' rows in LIBSVM's order
// (dataio.Dataset.Pair). The model's top-level kernel, margin and C are the
// first pair's (every pair's when they share them); Training sums the
// pairs' work, with N the training rows and NSV LIBSVM's total_sv, the
// training rows that are a support vector of some pair.
func fitMulti(ctx context.Context, s FitSettings, pairs []PairSVM, st solver.Settings) (*Model, status.Status, error) {
	train := s.Train
	k := train.NumClasses()
	idx := PairIndex(k)
	if pairs == nil {
		pairs = make([]PairSVM, len(idx))
		for p := range pairs {
			pairs[p] = PairSVM{Kernel: s.Kernel, Margin: s.Margin, C: s.C}
		}
	}
	if len(pairs) != len(idx) {
		return nil, 0, fmt.Errorf("fit SVM: %d pair settings for %d classes (want %d)", len(pairs), k, len(idx))
	}
	if s.WeightPos != 0 && s.WeightPos != 1 || s.WeightNeg != 0 && s.WeightNeg != 1 {
		return nil, 0, errors.New("fit SVM: class weights (weight-pos, weight-neg) are for two classes; this data has " + fmt.Sprint(k))
	}
	for c, n := range train.ClassSizes() {
		if n == 0 {
			return nil, 0, fmt.Errorf("fit SVM: class %q has no training rows", train.ClassLabels[c])
		}
	}
	d := train.Dim()
	m := &Model{
		Encoder: train.Encoder, Normalizer: s.Norm, NumFeatures: d,
		FeatureNames: append([]string(nil), train.FeatureNames...),
		Classes:      slices.Clone(train.ClassLabels),
		TrainingRows: trainingRowHashes(train.X),
		Provenance:   Provenance{Data: train.Source, DataSHA256: train.SHA256},
		Bias:         0, SupportVectors: []SupportVector{},
	}
	isSV := make([]bool, train.Len())
	worst := status.Converged
	for p, ij := range idx {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		sub := train.Pair(ij[0], ij[1])
		ps := pairs[p]
		par := solver.SVCParams{Margin: ps.Margin, C: ps.C}
		if ps.Margin == Hard {
			par.C = 0
		}
		pm, res, err := fitSVM(ctx, sub, nil, ps.Kernel, par, st)
		if err != nil {
			return nil, 0, fmt.Errorf("classes %q and %q: %w", train.ClassLabels[ij[0]], train.ClassLabels[ij[1]], err)
		}
		pm.Encoder, pm.FeatureNames, pm.TrainingRows, pm.Provenance = nil, nil, nil, Provenance{}
		pm.FormatVersion = 1
		rows := train.PairRows(ij[0], ij[1])
		for r, a := range res.Alpha {
			if a > 0 {
				isSV[rows[r]] = true
			}
		}
		if res.Status != status.Converged {
			worst = res.Status
		}
		m.Training.Iter += pm.Training.Iter
		m.Training.NBSV += pm.Training.NBSV
		m.Pairs = append(m.Pairs, pm)
	}
	first := m.Pairs[0]
	m.Kernel, m.MarginKind, m.C, m.Labels = first.Kernel, first.MarginKind, first.C, dataio.LabelMap{}
	for _, sv := range isSV {
		if sv {
			m.Training.NSV++
		}
	}
	m.Training.N, m.Training.Status, m.Training.Eps = train.Len(), worst.String(), first.Training.Eps
	m.FormatVersion = formatVersionOf(m)
	if err := m.prepare(); err != nil {
		return nil, 0, fmt.Errorf("fit SVM: %w", err)
	}
	return m, worst, nil
}

// validateMulti checks what a multi-class model adds to the shared checks:
// at least three distinct classes, k(k-1)/2 valid binary pairs in LIBSVM's
// order, each labelled with its two classes and with the model's features.
func (m *Model) validateMulti() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	k := len(m.Classes)
	if m.FormatVersion < 3 {
		return bad("classes in a format_version %d file (multi-class models need 3)", m.FormatVersion)
	}
	if k < 3 {
		return bad("%d classes, a multi-class model has at least 3", k)
	}
	seen := map[string]bool{}
	for _, c := range m.Classes {
		if seen[c] {
			return bad("class %q listed twice", c)
		}
		seen[c] = true
	}
	idx := PairIndex(k)
	if len(m.Pairs) != len(idx) {
		return bad("%d pairs for %d classes, want %d", len(m.Pairs), k, len(idx))
	}
	nsv := 0
	for p, pm := range m.Pairs {
		if pm == nil {
			return bad("pair %d is empty", p+1)
		}
		want := dataio.LabelMap{Positive: m.Classes[idx[p][0]], Negative: m.Classes[idx[p][1]]}
		if pm.Labels != want {
			return bad("pair %d has classes %q and %q, want %q and %q (LIBSVM's order)", p+1, pm.Labels.Positive, pm.Labels.Negative, want.Positive, want.Negative)
		}
		if pm.NumFeatures != m.NumFeatures {
			return bad("pair %d has %d features, the model %d", p+1, pm.NumFeatures, m.NumFeatures)
		}
		if pm.IsMultiClass() || pm.Normalizer != nil || pm.Encoder != nil {
			return bad("pair %d is not a binary SVM in the model's normalised space", p+1)
		}
		if err := pm.prepare(); err != nil {
			return fmt.Errorf("pair %d (classes %q and %q): %w", p+1, want.Positive, want.Negative, err)
		}
		nsv += pm.NSV()
	}
	if t := m.Training; t.NSV > nsv || t.N < t.NSV || len(m.SupportVectors) != 0 || m.Bias != 0 {
		return bad("training.n_sv = %d, n = %d with %d support vectors in the pairs, %d at the top: they do not agree", t.NSV, t.N, nsv, len(m.SupportVectors))
	}
	return nil
}

// PairDecisions returns, for the raw rows of X (the model's normaliser is
// applied first), the decision value of every pair: out[p][i] is pair p's
// f(x_i), pairs in PairIndex's order. It panics for a binary model.
func (m *Model) PairDecisions(X mat.Matrix) [][]float64 {
	return m.pairDecisions(X, m.Normalizer)
}

// PairDecisionsNormalized is PairDecisions on rows already normalised.
func (m *Model) PairDecisionsNormalized(X mat.Matrix) [][]float64 {
	return m.pairDecisions(X, nil)
}

func (m *Model) pairDecisions(X mat.Matrix, norm *dataio.Normalizer) [][]float64 {
	m.mustReady()
	if !m.IsMultiClass() {
		panic("model: PairDecisions of a binary model")
	}
	if norm != nil {
		n, d := X.Dims()
		if d != m.NumFeatures {
			panic(fmt.Sprintf("model: decision on %d features, the model has %d", d, m.NumFeatures))
		}
		Z := mat.NewDense(max(n, 1), d, nil)
		if n == 0 {
			Z = &mat.Dense{}
		}
		for i := 0; i < n; i++ {
			row := Z.RawRowView(i)
			mat.Row(row, i, X)
			norm.ApplyRow(row, row)
		}
		X = Z
	}
	out := make([][]float64, len(m.Pairs))
	for p, pm := range m.Pairs {
		out[p] = pm.DecisionNormalized(X)
	}
	return out
}

// Vote returns each row's class by LIBSVM's one-vs-one vote over the pair
// decision values dec (PairDecisions' form) of k classes: f > 0 votes for
// the pair's first class, otherwise for its second; the most votes win, and
// a tie goes to the class first in the label order (svm_predict_values).
func Vote(dec [][]float64, k int) []int {
	idx := PairIndex(k)
	if len(dec) != len(idx) {
		panic(fmt.Sprintf("model: Vote: %d pairs for %d classes", len(dec), k))
	}
	n := 0
	if len(dec) > 0 {
		n = len(dec[0])
	}
	out := make([]int, n)
	votes := make([]int, k)
	for i := range out {
		clear(votes)
		for p, ij := range idx {
			if dec[p][i] > 0 {
				votes[ij[0]]++
			} else {
				votes[ij[1]]++
			}
		}
		best := 0
		for c := 1; c < k; c++ {
			if votes[c] > votes[best] {
				best = c
			}
		}
		out[i] = best
	}
	return out
}

// PredictClasses returns the class index (into Classes) of each raw row of X
// by the vote of the pairs.
func (m *Model) PredictClasses(X mat.Matrix) []int {
	return Vote(m.PairDecisions(X), len(m.Classes))
}

// PredictClassesNormalized is PredictClasses on rows already normalised.
func (m *Model) PredictClassesNormalized(X mat.Matrix) []int {
	return Vote(m.PairDecisionsNormalized(X), len(m.Classes))
}

// ConfusionMatrix counts rows by true class (row) and predicted class
// (column), both indices into k classes: out[t][p]. It panics if the lengths
// differ.
func ConfusionMatrix(truth, pred []int, k int) [][]int {
	if len(truth) != len(pred) {
		panic("model: ConfusionMatrix: length mismatch")
	}
	out := make([][]int, k)
	for t := range out {
		out[t] = make([]int, k)
	}
	for i, t := range truth {
		out[t][pred[i]]++
	}
	return out
}

// correct counts the rows where pred equals truth.
func correct(truth, pred []int) int {
	c := 0
	for i, t := range truth {
		if pred[i] == t {
			c++
		}
	}
	return c
}

// PairSummary describes one pair's SVM of a multi-class model, in the words
// of svm-train's output.
type PairSummary struct {
	Positive string      `json:"class_pos"` // the pair's first class (+1)
	Negative string      `json:"class_neg"` // its second (-1)
	N        int         `json:"n"`         // training rows of the two classes
	Kernel   kernel.Spec `json:"kernel"`
	Margin   string      `json:"margin"`
	C        float64     `json:"C,omitempty"`
	NSV      int         `json:"n_sv"`
	NBSV     int         `json:"n_bsv"`
	Obj      float64     `json:"obj"`
	Rho      float64     `json:"rho"`
	Iter     int         `json:"iterations"`
	Status   string      `json:"status"`
}

// PairSummaries describes the pairs of a multi-class model (nil for a binary
// one).
func (m *Model) PairSummaries() []PairSummary {
	out := make([]PairSummary, 0, len(m.Pairs))
	for _, pm := range m.Pairs {
		t := pm.Training
		out = append(out, PairSummary{
			Positive: pm.Labels.Positive, Negative: pm.Labels.Negative, N: t.N,
			Kernel: pm.Kernel, Margin: pm.MarginKind.String(), C: pm.C,
			NSV: t.NSV, NBSV: t.NBSV, Obj: t.Obj, Rho: t.Rho, Iter: t.Iter, Status: t.Status,
		})
	}
	return out
}
