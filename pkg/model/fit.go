package model

// The final fit that train, tune and compare share: the SVM with a chosen
// kernel and C on the whole (normalised) training part, scored on the
// training and the test part.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// Margin is the SVM formulation: L1 (the C-SVC), L2 (squared slacks,
// trained with K + I/C) or Hard. Its text form is "l1", "l2" or "hard".
type Margin = solver.Margin

// The margins.
const (
	L1   = solver.L1
	L2   = solver.L2
	Hard = solver.Hard
)

// ParseMargin parses "l1", "l2" or "hard".
func ParseMargin(s string) (Margin, error) { return solver.ParseMargin(s) }

// Errors of the SVM solve that Fit wraps, for errors.Is.
var (
	// ErrNotSeparable: a hard-margin SVM on data that no hyperplane in the
	// kernel's feature space separates.
	ErrNotSeparable = solver.ErrNotSeparable
	// ErrNaN: the kernel matrix or the solver's gradient held NaN or ±Inf
	// (kernel parameters too extreme for the data).
	ErrNaN = solver.ErrNaN
	// ErrSingleRange: above 5,000 training rows, where the solver caches
	// kernel columns in float32 as LIBSVM does, the kernel's values lie
	// beyond float32's range (features too large, or all too small).
	ErrSingleRange = solver.ErrSingleRange
)

// FitSettings are the data, the kernel and the SVM parameters of Fit. The
// zero value of a solver field means its default. Multi-class training
// data (dataio.Dataset.MultiClass) is fitted one-vs-one: a binary SVM per
// pair of classes, all with Kernel, Margin and C, or with Pairs.
type FitSettings struct {
	// Pairs, for multi-class data, are the kernel and SVM of each pair of
	// classes in PairIndex's order (a method tuned each pair); nil: all
	// pairs use Kernel, Margin and C.
	Pairs []PairSVM

	// Train is the training part, already normalised by Norm.
	Train *dataio.Dataset
	// Test, when not nil and not empty, is scored by the model; it is
	// normalised by Norm too.
	Test *dataio.Dataset
	// Norm is the normaliser fitted on the training part, stored in the
	// model (nil: none).
	Norm *dataio.Normalizer

	// Kernel is the kernel of the SVM.
	Kernel kernel.Spec
	// Margin is the formulation; C its constant (ignored by Hard).
	Margin Margin
	C      float64
	// WeightPos and WeightNeg multiply C per class (L1 margin, LIBSVM's
	// -w1 and -w-1); 0 means 1.
	WeightPos, WeightNeg float64

	// Eps is the SMO stopping tolerance (LIBSVM's -e; 0 means 1e-3),
	// MaxIter its iteration limit (0 means max(10⁷, 100n)) and CacheMB its
	// kernel-column cache (LIBSVM's -m; 0 means 200).
	Eps     float64
	MaxIter int
	CacheMB int
	// Workers is the goroutines of the SVM solve (solver.Settings.Workers):
	// 0 means two while fewer solves than cores run, 1 serial. Callers that
	// fit models in parallel set 1. Results do not depend on it.
	Workers int

	// Probability fits probability estimates as LIBSVM's -b 1 (Model.
	// Probability; pkg/probability): Platt's sigmoid of each binary SVM on
	// its 5-fold cross-validated decision values (five more SVM solves per
	// SVM), the folds drawn from Seed. One-vs-rest data is refused
	// (ErrProbabilityOneVsRest). With a test part, its TestScores gain the
	// log-loss and the Brier score.
	Probability bool
	Seed        uint64
}

// Accuracies are a fitted SVM's accuracies on the training and the test
// part (TestAccuracy nil without a test part).
type Accuracies struct {
	TrainAccuracy float64  `json:"train_accuracy"`
	TrainCorrect  int      `json:"train_correct"`
	TestAccuracy  *float64 `json:"test_accuracy,omitempty"`
	TestCorrect   int      `json:"test_correct,omitempty"`
	// TestScores are the test part's metrics beyond accuracy and its
	// confusion matrix; nil without a test part.
	*TestScores
}

// FitResult is the fitted SVM, the solver's result and the accuracies.
type FitResult struct {
	Model *Model
	// SVC is the solver's result: α, ρ, the dual objective, #SV, #BSV, the
	// iterations and the status. Zero for a multi-class model, except the
	// worst status of its pairs.
	SVC solver.SVCResult
	// Classes, TestTrue and TestPred are set for a multi-class model: its
	// classes in LIBSVM's order, and the true and the predicted class (an
	// index into Classes) of each row of the test part (nil without one),
	// from which TestScores (balanced accuracy, macro-F1 and the k×k
	// confusion matrix) are computed.
	Classes            []string
	TestTrue, TestPred []int
	// Elapsed is the wall time of the fit (not of the scoring).
	Elapsed time.Duration
	// ProbabilitySolves are the SVMs the probability estimates trained
	// (FitSettings.Probability: 5-fold CV per binary SVM), 0 without.
	ProbabilitySolves int
	Accuracies
}

// Converged reports whether the SVM solve converged (and did not stop at
// its iteration limit).
func (r *FitResult) Converged() bool { return r.SVC.Status == status.Converged }

// Fit trains the SVM of s on the whole normalised training part and scores
// it on the training and the test part. The model keeps only the support
// vectors and the normaliser; its provenance holds the training data's
// source and SHA-256 (the caller adds the rest). For the L2 margin the
// solver sees K + I/C and the model predicts with K. A hard margin on data
// the kernel cannot separate returns an error wrapping ErrNotSeparable.
func Fit(ctx context.Context, s FitSettings) (*FitResult, error) {
	p := solver.SVCParams{Margin: s.Margin, C: s.C, WeightPos: s.WeightPos, WeightNeg: s.WeightNeg}
	if s.Margin == Hard {
		p.C = 0
	}
	st := solver.Settings{Eps: s.Eps, MaxIter: s.MaxIter, CacheBytes: s.CacheMB << 20, Workers: s.Workers}
	start := time.Now()
	if s.Probability && s.Train != nil && s.Train.Multiclass == dataio.OneVsRest {
		return nil, ErrProbabilityOneVsRest
	}
	if s.Train != nil && s.Train.MultiClass() {
		var (
			probSolves int
			votes      *trainVotes
		)
		if s.Train.Multiclass != dataio.OneVsRest {
			votes = newTrainVotes(s.Train.Len())
		}
		m, worst, err := fitMulti(ctx, s, s.Pairs, st, &probSolves, votes)
		if err != nil {
			return nil, err
		}
		collectCache(s.Train.Len(), s.CacheMB)
		r := &FitResult{Model: m, Elapsed: time.Since(start), Classes: m.Classes, ProbabilitySolves: probSolves}
		r.SVC.Status = worst
		r.TrainCorrect = trainCorrect(m, s.Train, votes)
		r.TrainAccuracy = float64(r.TrainCorrect) / float64(s.Train.Len())
		if s.Test != nil && s.Test.Len() > 0 {
			r.TestTrue, r.TestPred = slices.Clone(s.Test.Class), m.PredictClassesNormalized(s.Test.Features())
			r.TestCorrect = correct(r.TestTrue, r.TestPred)
			acc := float64(r.TestCorrect) / float64(s.Test.Len())
			r.TestAccuracy = &acc
			if r.TestScores, err = ScoreClasses(m.Classes, r.TestTrue, r.TestPred); err != nil {
				return nil, fmt.Errorf("score the test part: %w", err)
			}
			if s.Probability {
				if err := scoreProbabilities(r.TestScores, m, s.Test); err != nil {
					return nil, err
				}
			}
		}
		return r, nil
	}
	m, res, err := fitSVM(ctx, s.Train, s.Norm, s.Kernel, p, st)
	if err != nil {
		return nil, err
	}
	collectCache(s.Train.Len(), s.CacheMB)
	var probSolves int
	if s.Probability {
		if m.Probability, err = fitSigmoid(ctx, s.Train, s.Kernel, p, st, s.Seed, 0, &probSolves); err != nil {
			return nil, err
		}
		m.FormatVersion = formatVersionOf(m)
	}
	r := &FitResult{Model: m, SVC: res, Elapsed: time.Since(start), ProbabilitySolves: probSolves}
	c := ConfusionOf(trainDecision(m, s.Train, res), s.Train.Y)
	r.TrainCorrect, r.TrainAccuracy = c.Correct(), c.Accuracy()
	if s.Test != nil && s.Test.Len() > 0 {
		f := m.DecisionNormalized(s.Test.Features())
		c := ConfusionOf(f, s.Test.Y)
		acc := c.Accuracy()
		r.TestCorrect, r.TestAccuracy = c.Correct(), &acc
		r.TestScores = ScoreBinary(f, s.Test.Y, s.Train.Labels)
		if s.Probability {
			if err := scoreProbabilities(r.TestScores, m, s.Test); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// FitData describes the data of a train or tune run, the first keys of
// their JSON.
type FitData struct {
	Data     string          `json:"data"`
	Test     string          `json:"test,omitempty"`
	NTrain   int             `json:"n_train"`
	NTest    int             `json:"n_test,omitempty"`
	Features int             `json:"features"`
	Labels   dataio.LabelMap `json:"labels"`
	// Classes are multi-class data's classes in LIBSVM's order (nil for
	// binary data).
	Classes []string `json:"classes,omitempty"`
	// Multiclass is multi-class data's scheme: "" (one-vs-one) or "ovr".
	Multiclass string `json:"multiclass,omitempty"`
	Seed       uint64 `json:"seed"`
	// TestIsTraining says that the test file holds the training data's
	// bytes (dataio.TestIsTraining): the test accuracy is the training
	// accuracy, not a held-out estimate (TestIsTrainingNote).
	TestIsTraining bool `json:"test_is_training_data,omitempty"`

	Normalize string `json:"normalize"`
	// GammaSpace names the features the kernel's γ (and Q, θ) act on: the
	// normaliser's kind, "none" for the data's features as given
	// (dataio.SpaceWords says it in words).
	GammaSpace string `json:"gamma_space,omitempty"`
}

// TestIsTrainingNote is the note of a FitData whose test file holds the
// training data.
func (d FitData) TestIsTrainingNote() string {
	return fmt.Sprintf("WARNING: the test file %s holds the training data itself (the same SHA-256 as %s): the test accuracy is the training accuracy, not a held-out estimate", d.Test, d.Data)
}

// NewFitData describes the data at path (as the user named it), read into
// train and test (nil or empty: no test part) and normalised by norm;
// testPath is the test file's name, "" when the test part was split off.
func NewFitData(path, testPath string, seed uint64, train, test *dataio.Dataset, norm *dataio.Normalizer) FitData {
	d := FitData{
		Data: path, Test: testPath, NTrain: train.Len(), Features: train.Dim(), Labels: train.Labels, Seed: seed,
		Normalize: norm.Kind, GammaSpace: norm.Kind, Classes: train.ClassLabels, Multiclass: train.Multiclass,
	}
	if test != nil && test.Len() > 0 {
		d.NTest = test.Len()
	}
	d.TestIsTraining = testPath != "" && dataio.TestIsTraining(train, test)
	return d
}

// trainDecision returns the model's decision values on its training part
// for the training accuracy: the solver's (SVCResult.F, read off its
// gradient, free where the model's Decision costs an n × #SV kernel block,
// as much as the solve itself at n = 5,000), except that the rows whose
// value is within a rounding margin of 0 are evaluated by the model, so
// that every sign, and so the accuracy, is the one Decision gives.
func trainDecision(m *Model, train *dataio.Dataset, res solver.SVCResult) []float64 {
	f := slices.Clone(res.F)
	scale := 1 + math.Abs(res.Rho)
	for _, v := range f {
		scale = max(scale, math.Abs(v+res.Rho))
	}
	var near []int
	for i, v := range f {
		if math.Abs(v) <= 1e-6*scale {
			near = append(near, i)
		}
	}
	if len(near) > 0 {
		for k, v := range m.DecisionNormalized(selectRows(train.Features(), near)) {
			f[near[k]] = v
		}
	}
	return f
}

// collectCache collects the garbage the solves leave, their kernel-column
// cache (up to cacheMB, 0 meaning the solver's 200, and n² entries), when it
// may be large (64 MB): the scoring's decision blocks and a saved model then
// reuse its pages. Without it the collector, last run during the solve with
// the cache live, lets the heap grow past the cache before its next cycle:
// w8a with --cache-mb 100 and -o peaked at 373 MB resident against 276 MB
// without -o, and with it at 278 MB (-m 200: 473 → 377 MB).
func collectCache(n, cacheMB int) {
	if cacheMB == 0 {
		cacheMB = 200 // the solver's default
	}
	if cache := min(int64(cacheMB)<<20, 8*int64(n)*int64(n)); cache >= 64<<20 {
		runtime.GC()
	}
}

// collectPairs collects the garbage before and after the binary SVMs of a
// multi-class fit on train, when the pairs solved at once may hold much
// (pairsLiveBytes with a cacheBytes cache between them, 16 MB or more):
// before, what reading the data left (the file's text), so that the
// collector's goal during the fit is twice the fit's live heap, not that
// and the text's; after, the pairs' caches and compressed columns, so
// that the heap does not grow by them again while the model is prepared
// and scored on its training rows. On ten classes of 778 features held
// sparse (10,000 rows, 45 pairs of 2,000) train peaked at 91 MB resident
// without them, 79-86 MB with them (5,000 rows: 59 → 50-57 MB), in the
// same CPU time (a cycle over a live heap of 30-44 MB, mostly arrays
// without pointers, two cycles against the fit's 1.5 CPU s).
func collectPairs(train *dataio.Dataset, cacheBytes int) {
	if pairsLiveBytes(train, cacheBytes>>20) >= 16<<20 {
		runtime.GC()
	}
}

// FitGCLimit is a soft memory limit for the collector (sysmem.LimitGCTo)
// during Fit on train and test with a cacheMB kernel cache: the live data
// of the fit — the solver's cache (at most n² entries), three copies of
// the training rows (as read, normalised, the support vectors), two of the
// test rows, the solver's cache or the decision function's two kernel
// blocks (whichever is larger: the blocks come after the solve, when the
// cache is garbage), and 32 MB for the runtime — so that the resident set
// stays near it instead of twice it. At 32,561 × 123 rows with the
// default 200 MB cache `train` peaked at 496 MB resident without it; at
// 8,000 rows, counting cache and blocks both, at 266-286 MB, and at 259-265
// MB with the larger of the two; since the cache stores float32 above
// 5,000 rows (solver.SingleAbove), at 166-182 MB (svm-train: 113-124 MB).
// On multi-class data the cache is the pairs' solved at once
// (pairsLiveBytes).
func FitGCLimit(train, test *dataio.Dataset, cacheMB int) int64 {
	if train == nil {
		return 0
	}
	n := int64(train.Len())
	cache := min(int64(cacheMB)<<20, 8*n*n)
	if train.MultiClass() {
		cache = pairsLiveBytes(train, cacheMB)
	}
	return 32<<20 + max(cache, 2*blockBytes) + 3*rowsBytes(train) + 2*rowsBytes(test)
}

// FitGCCeiling reports whether FitGCLimit on train is to cap the heap
// with the proportional collector on (sysmem.LimitGCCeiling) rather than
// to be the collector's only pacing (sysmem.LimitGCTo): on multi-class
// data, where it counts the caches of the pairs solved at once full, which
// they seldom are, and the limit alone let the heap grow to it. On ten
// classes of 778 features (10,000 rows, 45 pairs of 2,000, held sparse)
// train peaked at 151 MB resident with the limit alone, 114 MB with it as
// a ceiling (5,000 rows: 90 → 70 MB), in the same CPU time.
func FitGCCeiling(train *dataio.Dataset) bool {
	return train != nil && train.MultiClass()
}

// rowsBytes is the memory of d's rows: 8 bytes a value held dense, the
// compressed rows' bytes (sparse.CSR.Bytes) held sparse; 0 for nil.
func rowsBytes(d *dataio.Dataset) int64 {
	switch {
	case d == nil:
		return 0
	case d.Sparse != nil:
		return d.Sparse.Bytes()
	}
	n, p := d.Dims()
	return 8 * int64(n) * int64(p)
}

// pairsLiveBytes is what the binary SVMs of multi-class train solved at
// once (pairWorkers) hold with a cacheMB cache between them: each its
// cache (at most its rows squared) and its kernel's prepared rows (at most
// three copies of its rows: a compressed row and column per entry, or a
// copy and its centred form). Counting the whole training part's cache
// instead set the collector's limit at 235 MB for letter's 26 classes of
// 1,150-row pairs, and the heap grew to it (242 MB resident, where the
// pairs' caches are 21 MB).
func pairsLiveBytes(train *dataio.Dataset, cacheMB int) int64 {
	cache := int64(cmp.Or(cacheMB, defaultCacheBytes>>20)) << 20
	idx := train.Subproblems()
	w := int64(pairWorkers(train, idx, solver.Settings{CacheBytes: int(cache)}))
	sizes := train.ClassSizes()
	rowBytes := float64(rowsBytes(train)) / float64(max(train.Len(), 1)) // a row's
	var each []int64
	for _, p := range idx {
		r := int64(train.Len())
		if p.Neg != dataio.Rest {
			r = int64(sizes[p.Pos] + sizes[p.Neg])
		}
		each = append(each, min(cache/w, 8*r*r)+int64(3*float64(r)*rowBytes))
	}
	slices.Sort(each)
	total := int64(0)
	for _, b := range each[max(0, len(each)-int(w)):] {
		total += b
	}
	return total
}
