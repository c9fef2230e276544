package experiment

// Tune: one method tuned on one training part and its final SVM, as
// `kerneltune tune` runs it.

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/probability"
)

// TuneSettings are the data, the method with its settings, the memory bound
// and what the model's provenance records.
type TuneSettings struct {
	// Train and Test are the training and the test part (Test nil or empty:
	// none). With Norm set, both are normalised by it (fitted on Train);
	// with Norm nil they are raw and the zscore normaliser is fitted on
	// Train (Pipeline).
	Train, Test *dataio.Dataset
	Norm        *dataio.Normalizer
	// Data names the data as the user did (a path or builtin:NAME) and
	// TestFile the test file ("" when the test part was split off).
	Data, TestFile string

	// Spec is the method with its settings: its Base().Seed is the run's
	// seed, Base().Eps and Base().CacheMB are the final SVM's solver
	// settings too, and Base().Recorder sees every iteration (progress).
	Spec methods.Spec
	// MemBytes bounds the method's estimated peak memory
	// (methods.CheckMemory; sysmem.Bound makes one from a size in MB); a
	// method that would need more is refused with a *methods.MemoryError
	// before it starts. 0 means no bound.
	MemBytes int64
	// Probability fits the final model's probability estimates
	// (model.FitSettings.Probability, from the run's seed); with a test
	// part, its log-loss and Brier score are among the test scores.
	Probability bool

	// Version and Command go into the model's provenance: the kerneltune
	// version and the command line.
	Version, Command string
}

// FeatureWeight is one feature's weight in a per-feature kernel: q_k of a
// diagonal metric Q, or 1/θ_k of the L1 kernel -Σ_k |x_k-z_k|/θ_k (Theta
// then holds θ_k).
type FeatureWeight struct {
	Feature string  `json:"feature"`
	Index   int     `json:"index"` // 1-based
	Q       float64 `json:"q"`
	Theta   float64 `json:"theta,omitempty"`
	// Relative is q / max q over the features that are not constant.
	Relative float64 `json:"relative"`
	// Constant marks a feature with one value on the training part: it has
	// no effect on the kernel, so its weight was not learned (it keeps its
	// start value or drifts with a regulariser) and says nothing about
	// relevance. Relative is 0 for it.
	Constant bool `json:"constant,omitempty"`
}

// TuneResult is what tune reports: the data, the learned kernel and C, the
// method's criterion and figures, the final SVM and its accuracies, the
// degenerate-kernel check. Its JSON is `kerneltune tune --format json`.
type TuneResult struct {
	model.FitData

	Method string `json:"method"`
	Param  string `json:"param,omitempty"`

	Kernel kernel.Spec `json:"kernel"`
	// Gamma is LIBSVM's γ of an isotropic Gaussian kernel (0 otherwise).
	Gamma float64 `json:"gamma,omitempty"`
	// Relevance is the per-feature weight by feature, in feature order
	// (diagonal Q, or an L1 kernel with a θ per feature).
	Relevance []FeatureWeight `json:"relevance,omitempty"`
	// Constant lists the 1-based features with one value on the training
	// part: no kernel can use them, so their weights are not learned.
	Constant []int `json:"constant_features,omitempty"`
	// Eigenvalues of a full Q, ascending.
	Eigenvalues []float64 `json:"eigenvalues,omitempty"`
	// B is Glasmachers–Igel's matrix (Q = B²), gi only, on its full path.
	B [][]float64 `json:"b,omitempty"`
	// BDiag is B's diagonal where gi took its diagonal path
	// (methods.Result.BDiag): B = diag(b_diag), and B is nil.
	BDiag []float64 `json:"b_diag,omitempty"`

	Margin string  `json:"margin"`
	C      float64 `json:"C"`
	// WeightPos and WeightNeg are the class weights of the final binary SVM
	// (C × WeightPos for +1, C × WeightNeg for -1; 0: none): the user's, or
	// balanced from the class counts (methods.SubproblemWeights).
	WeightPos float64 `json:"weight_pos,omitempty"`
	WeightNeg float64 `json:"weight_neg,omitempty"`

	Criterion      string           `json:"criterion,omitempty"`
	CriterionStart float64          `json:"criterion_start"`
	CriterionEnd   float64          `json:"criterion_end"`
	Figures        []methods.Figure `json:"figures,omitempty"`

	NSV int `json:"n_sv"`
	model.Accuracies
	// Probability is a binary model's sigmoid (TuneSettings.Probability;
	// a multi-class model's are in Pairs); nil without probabilities.
	Probability *probability.Sigmoid `json:"probability,omitempty"`

	// LearnedOn is the training rows the kernel and C were learned on
	// when fewer than n_train (large data: methods.Common.KernelRows), 0
	// when all of them.
	LearnedOn   int     `json:"learned_on_rows,omitempty"`
	Solves      int     `json:"svm_solves"`
	Iter        int     `json:"iterations"`
	Status      string  `json:"status"`
	TuneSeconds float64 `json:"tune_time_s"`
	FitSeconds  float64 `json:"fit_time_s"`

	Init  string      `json:"init,omitempty"`
	Notes []hint.Text `json:"notes,omitempty"`
	// Degenerate is "diagonal", "constant", "one-class" or null
	// (methods.ClassifyDegenerate on the training part); the details,
	// median off-diagonal K and predictions, are in DegenerateCheck.
	Degenerate      *string            `json:"degenerate"`
	DegenerateCheck methods.Degeneracy `json:"degenerate_check"`
	// Memorisation is the memorising check of the final model
	// (CheckMemorisation): its support-vector share, training and held-out
	// accuracy, and the flag (a warning first in the notes when set).
	Memorisation Memorisation `json:"memorisation"`

	// Pairs, for multi-class data, are the one-vs-one pairs of classes in
	// LIBSVM's order, or one-vs-rest the classes against the rest
	// (FitData.Multiclass "ovr"; TunePair); the test part's k×k confusion matrix is
	// TestScores.Confusion (row: true class, column: predicted, in
	// FitData.Classes' order; nil without a test part). The fields above
	// then describe the whole: NSV is LIBSVM's total_sv, Kernel, Margin
	// and C the first pair's (every pair's for the svm baseline),
	// CriterionStart and End the pairs' means.
	Pairs []TunePair `json:"pairs,omitempty"`

	// The files the caller wrote, "" for none: the model, the trace and the
	// LIBSVM export (ExportKind model.ExportRBF, ExportPrecomputed, or for
	// multi-class models ExportPairs or ExportOneVsRest).
	ModelFile  string `json:"model_file,omitempty"`
	TraceFile  string `json:"trace_file,omitempty"`
	ExportDir  string `json:"export_dir,omitempty"`
	ExportKind string `json:"export_kind,omitempty"`

	// FeatureNames are the training part's feature names.
	FeatureNames []string `json:"-"`
	// Tuning is the method's own result (with its trace, methods.Step per
	// iteration).
	Tuning *methods.Result `json:"-"`
	// Model is the final SVM, with its provenance and the tuning result.
	Model *model.Model `json:"-"`
}

// TunePair is one pair of classes of a multi-class tune: its classes
// (Positive is +1), its training rows, the kernel and SVM chosen for it, the
// method's criterion at the end (omitted for the svm baseline, which chose
// one kernel for all pairs by the multi-class CV accuracy), the final SVM's
// #SV and the degenerate-kernel check on the pair's training rows.
type TunePair struct {
	Positive        string             `json:"class_pos"`
	Negative        string             `json:"class_neg"`
	Rows            int                `json:"rows"`
	Kernel          kernel.Spec        `json:"kernel"`
	Margin          string             `json:"margin"`
	C               float64            `json:"C"`
	WeightPos       float64            `json:"weight_pos,omitempty"` // class weights: C × it for class_pos
	WeightNeg       float64            `json:"weight_neg,omitempty"` // and for class_neg (0: none)
	Criterion       *float64           `json:"criterion,omitempty"`
	Status          string             `json:"status,omitempty"`
	NSV             int                `json:"n_sv"`
	Degenerate      *string            `json:"degenerate"`
	DegenerateCheck methods.Degeneracy `json:"degenerate_check"`
	// Probability is the pair's sigmoid, nil without probabilities.
	Probability *probability.Sigmoid `json:"probability,omitempty"`
}

// Tune runs a method on the normalised training part, fits the final SVM
// with the learned kernel and C on the whole training part (model.Fit),
// scores it on both parts and checks it for a degenerate kernel
// (methods.ClassifyDegenerate, a warning first in the notes). An iteration
// limit is a status, not an error; a method that fails is.
func Tune(ctx context.Context, s TuneSettings) (*TuneResult, error) {
	seed := s.Spec.Base().Seed
	t, err := Pipeline(ctx, PipelineInput{Spec: s.Spec, Train: s.Train, Test: s.Test, Norm: s.Norm, MemBytes: s.MemBytes, Probability: s.Probability})
	var se *StageError
	switch {
	case errors.As(err, &se) && se.Stage == "final model":
		return nil, fmt.Errorf("tune: fitting the final SVM with the tuned kernel: %w", se.Err)
	case errors.As(err, &se):
		return nil, se.Err
	case err != nil:
		return nil, err
	}
	train, test, res, f := t.Train, t.Test, t.Result, t.Fit
	m := f.Model
	m.SetProvenance(seed, s.Data, s.Version, s.Command)
	m.Provenance.Method = res.Method
	m.Provenance.Param = res.Param
	if m.Tuning, err = json.Marshal(res); err != nil {
		return nil, fmt.Errorf("tune: encoding the tuning result: %w", err)
	}

	r := &TuneResult{
		FitData: model.NewFitData(s.Data, s.TestFile, seed, train, test, t.Norm),
		Method:  res.Method, Param: res.Param,
		Kernel: res.Kernel, Gamma: res.Kernel.Gamma, B: res.B, BDiag: res.BDiag,
		Margin: res.Margin.String(), C: res.C, WeightPos: m.WeightPos, WeightNeg: m.WeightNeg,
		Criterion: res.Criterion, CriterionStart: res.CriterionStart, CriterionEnd: res.CriterionEnd,
		Figures: res.Figures, NSV: f.SVC.NSV, Accuracies: f.Accuracies,
		Solves: res.Solves + 1 + f.ProbabilitySolves, Iter: res.Iter, Status: res.Status.String(), LearnedOn: res.LearnedOn,
		TuneSeconds: res.Elapsed.Seconds(), FitSeconds: f.Elapsed.Seconds(),
		Init: res.Init, Notes: append([]hint.Text(nil), res.Notes...),
		FeatureNames: train.FeatureNames, Tuning: res, Model: m, Probability: m.Probability,
	}
	if r.TestIsTraining {
		r.Notes = append([]hint.Text{{r.TestIsTrainingNote()}}, r.Notes...)
	}
	if n := m.InvertedNote(); n != "" {
		r.Notes = append(r.Notes, hint.T(n))
	}
	for _, j := range t.Norm.Constant {
		r.Constant = append(r.Constant, j+1)
	}
	r.Relevance = featureWeights(res.Kernel, train.FeatureNames, r.Constant)
	if g, ok := m.KernelFunc().(*kernel.Gaussian); ok && len(res.Kernel.Q) > 0 && res.Pairs == nil {
		if r.Eigenvalues, err = g.Eigenvalues(train.Dim()); err != nil {
			return nil, fmt.Errorf("tune: eigenvalues of the learned Q: %w", err)
		}
	}
	if m.IsMultiClass() {
		r.NSV = m.Training.NSV
		r.Solves += len(m.Pairs) - 1 // the final fit solves every pair
		for p, ps := range m.PairSummaries() {
			tp := TunePair{Positive: ps.Positive, Negative: ps.Negative, Rows: ps.N, Kernel: ps.Kernel, Margin: ps.Margin, C: ps.C,
				NSV: ps.NSV, DegenerateCheck: t.PairDegeneracy[p], Probability: ps.Probability, WeightPos: m.Pairs[p].WeightPos, WeightNeg: m.Pairs[p].WeightNeg}
			if res.Pairs != nil {
				pr := res.Pairs[p].Result
				v := pr.CriterionEnd
				tp.Criterion, tp.Status = &v, pr.Status.String()
			}
			if k := tp.DegenerateCheck.Kind; k != "" {
				tp.Degenerate = &k
			}
			r.Pairs = append(r.Pairs, tp)
		}
		if res.Pairs != nil {
			r.Relevance = nil // each pair has its kernel
		}
	}
	r.DegenerateCheck = t.Degeneracy
	if k := r.DegenerateCheck.Kind; k != "" {
		r.Degenerate = &k
		r.Notes = append([]hint.Text{{r.DegenerateWarning()}}, r.Notes...)
	}
	cv, src := MethodHeldOut(res.Criterion, res.CriterionEnd, res.Figures, res.LearnedOn)
	testAcc := math.NaN()
	if f.TestAccuracy != nil {
		testAcc = *f.TestAccuracy
	}
	r.Memorisation = CheckMemorisation(r.NSV, train.Len(), f.TrainAccuracy, cv, src, testAcc)
	if why := r.Memorisation.Reason(); why != "" {
		r.Notes = append([]hint.Text{{"WARNING: memorising: " + why + " (the rule: docs/protocol.md, \"Memorising models\")"}}, r.Notes...)
	}
	r.Notes = append(r.Notes, train.Notes...)
	if !f.Converged() && m.IsMultiClass() {
		r.Notes = append(r.Notes, hint.T(fmt.Sprintf("a final SVM solve stopped with status %s", f.SVC.Status)))
	} else if !f.Converged() {
		r.Notes = append(r.Notes, hint.T(fmt.Sprintf("the final SVM solve stopped with status %s after %d iterations", f.SVC.Status, f.SVC.Iter)))
	}
	return r, nil
}

// featureWeights are the per-feature weights of a diagonal Gaussian (q_k) or
// an L1 kernel with a θ per feature (1/θ_k), nil for other kernels; constant lists the 1-based
// features constant on the training part, which are marked and left out of
// the maximum that Relative divides by.
func featureWeights(k kernel.Spec, names []string, constant []int) []FeatureWeight {
	var ws []FeatureWeight
	switch {
	case len(k.Diag) > 0:
		for _, v := range k.Diag {
			ws = append(ws, FeatureWeight{Q: v})
		}
	case len(k.Theta) > 1 && slices.Min(k.Theta) < slices.Max(k.Theta):
		// One θ shared by every feature (lccp --param single) is not a
		// per-feature weight.
		for _, th := range k.Theta {
			ws = append(ws, FeatureWeight{Q: 1 / th, Theta: th})
		}
	default:
		return nil
	}
	mx := math.Inf(-1)
	for j := range ws {
		ws[j].Feature, ws[j].Index = model.FeatureName(names, j), j+1
		ws[j].Constant = slices.Contains(constant, j+1)
		if !ws[j].Constant {
			mx = max(mx, ws[j].Q)
		}
	}
	for j := range ws {
		if !ws[j].Constant {
			ws[j].Relative = ws[j].Q / mx
		}
	}
	return ws
}

// DegenerateWarning is the warning about a degenerate kernel, "" when the
// kernel is not degenerate.
func (r *TuneResult) DegenerateWarning() string {
	if r.Degenerate == nil {
		return ""
	}
	return fmt.Sprintf("WARNING: degenerate (%s): %s", *r.Degenerate, r.DegenerateCheck.Reason)
}

// WriteTrace writes a method's per-iteration trace as CSV: iter, objective,
// step, nsv, elapsed_s.
func WriteTrace(w io.Writer, trace []methods.Step) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"iter", "objective", "step", "nsv", "elapsed_s"})
	for _, st := range trace {
		cw.Write([]string{
			strconv.Itoa(st.Iter),
			strconv.FormatFloat(st.Objective, 'g', -1, 64),
			strconv.FormatFloat(st.StepSize, 'g', -1, 64),
			strconv.Itoa(st.NSV),
			strconv.FormatFloat(st.Elapsed.Seconds(), 'f', 6, 64),
		})
	}
	cw.Flush()
	return cw.Error()
}

// TunePeakBytes is the estimated peak memory of Tune with spec on the
// training part train (methods.PeakBytes; for multi-class data
// methods.PeakBytesMultiClass): what CheckMemory compares with the bound,
// and what a command gives the collector as its soft limit
// (sysmem.LimitGCTo with methods.GCLimit), so that the estimate bounds the
// resident set.
func TunePeakBytes(spec methods.Spec, train *dataio.Dataset) int64 {
	if train.MultiClass() {
		return methods.PeakBytesMultiClass(spec, train.ClassSizes(), methods.MemWidth(train), train.Multiclass)
	}
	return methods.PeakBytes(spec, train.Len(), methods.MemWidth(train))
}
