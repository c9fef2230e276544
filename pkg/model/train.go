package model

// Train: one SVM with a kernel and C the user gives, as `kerneltune train`
// fits it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/probability"
)

// The kernel kinds of KernelSettings.
const (
	KernelGaussian = kernel.KindGaussian // exp(-γ‖x-z‖²) or exp(-½ (x-z)ᵀQ(x-z))
	KernelL1       = kernel.KindL1       // -Σ_k |x_k-z_k| / θ_k (Boughorbel et al.)
	KernelLinear   = kernel.KindLinear   // x·z
)

// KernelSettings are a kernel in the user's parameters, whose per-feature
// parameters are completed once the number of features is known (Spec).
type KernelSettings struct {
	// Kind is KernelGaussian ("" means it too), KernelL1 or KernelLinear.
	Kind string
	// A Gaussian kernel takes the first of Q (a symmetric positive definite
	// d×d metric of exp(-½ (x-z)ᵀQ(x-z)), named QName in errors), Sigma
	// (the width σ, γ = 1/(2σ²)) and Gamma (LIBSVM's γ) that is set; with
	// none γ = 1/d, as LIBSVM.
	Q     [][]float64
	QName string
	Sigma float64
	Gamma float64
	// Theta are the L1 kernel's widths: one for every feature or d values;
	// nil means 1.
	Theta []float64
}

// ParamError is an error of a kernel parameter (Param "Q" or "theta") that
// does not fit the data.
type ParamError struct {
	Param string
	Err   error
}

func (e *ParamError) Error() string { return "kernel " + e.Param + ": " + e.Err.Error() }

func (e *ParamError) Unwrap() error { return e.Err }

// Spec returns the kernel for d features. A Q that is not d×d, symmetric
// and positive definite, or a number of θ that is neither 1 nor d, is a
// *ParamError.
func (k KernelSettings) Spec(d int) (kernel.Spec, error) {
	switch k.Kind {
	case KernelLinear:
		return kernel.Spec{Kind: kernel.KindLinear}, nil
	case KernelL1:
		theta := make([]float64, d)
		for j := range theta {
			theta[j] = 1
		}
		switch t := k.Theta; len(t) {
		case 0:
		case 1:
			for j := range theta {
				theta[j] = t[0]
			}
		case d:
			copy(theta, t)
		default:
			return kernel.Spec{}, &ParamError{"theta", fmt.Errorf("%d values for %d features (give one or %d)", len(t), d, d)}
		}
		return kernel.Spec{Kind: kernel.KindL1, Theta: theta}, nil
	case KernelGaussian, "":
	default:
		return kernel.Spec{}, fmt.Errorf("unknown kernel %q (want gaussian, l1 or linear)", k.Kind)
	}
	switch {
	case k.Q != nil:
		s, err := metricSpec(k.Q, d)
		if err != nil {
			return kernel.Spec{}, &ParamError{"Q", err}
		}
		return s, nil
	case k.Sigma > 0:
		return kernel.Spec{Kind: kernel.KindGaussian, Gamma: 1 / (2 * k.Sigma * k.Sigma)}, nil
	case k.Gamma > 0:
		return kernel.Spec{Kind: kernel.KindGaussian, Gamma: k.Gamma}, nil
	}
	return kernel.Spec{Kind: kernel.KindGaussian, Gamma: 1 / float64(d)}, nil
}

// metricSpec checks that q is a d×d matrix and returns its kernel spec
// (kernel.SpecFromMetric: symmetric positive definite, then isotropic,
// diagonal or full).
func metricSpec(q [][]float64, d int) (kernel.Spec, error) {
	if len(q) != d {
		return kernel.Spec{}, fmt.Errorf("%d rows, but the data has %d features (want a %d×%d matrix)", len(q), d, d, d)
	}
	for i, row := range q {
		if len(row) != d {
			return kernel.Spec{}, fmt.Errorf("row %d has %d entries, want %d", i+1, len(row), d)
		}
	}
	s, err := kernel.SpecFromMetric(q)
	var (
		asym  *kernel.SymmetryError
		notPD *kernel.NotSPDError
	)
	switch {
	case errors.As(err, &asym):
		return kernel.Spec{}, fmt.Errorf("not symmetric: Q[%d][%d] = %v but Q[%d][%d] = %v", asym.I+1, asym.J+1, asym.A, asym.J+1, asym.I+1, asym.B)
	case errors.As(err, &notPD):
		return kernel.Spec{}, fmt.Errorf("not positive definite (smallest eigenvalue %.4g, largest %.4g): a Gaussian metric Q must be symmetric positive definite", notPD.Min, notPD.Max)
	}
	return s, err
}

// TrainSettings are the data, the kernel and the SVM of Train, and what the
// model's provenance records. Solver fields at zero mean their defaults.
type TrainSettings struct {
	// Train and Test are the training and the test part (Test nil or empty:
	// none), both normalised by Norm, which is fitted on Train.
	Train, Test *dataio.Dataset
	Norm        *dataio.Normalizer
	// Data names the data as the user did (a path or builtin:NAME) and
	// TestFile the test file ("" when the test part was split off).
	Data, TestFile string

	Kernel KernelSettings
	// Margin is the formulation; C its constant (ignored by Hard).
	// WeightPos and WeightNeg multiply C per class (L1 only; 0 means 1).
	Margin               Margin
	C                    float64
	WeightPos, WeightNeg float64
	// Eps, MaxIter and CacheMB are the SMO solver's (FitSettings).
	Eps     float64
	MaxIter int
	CacheMB int

	// Seed, Version and Command go into the model's provenance: the run's
	// seed (of the train/test split), the kerneltune version and the
	// command line.
	Seed    uint64
	Version string
	Command string

	// Probability fits probability estimates (FitSettings.Probability),
	// the cross-validation folds drawn from Seed.
	Probability bool
}

// TrainResult is what train reports: the data, the kernel and the SVM, its
// accuracies and the solve. Its JSON is `kerneltune train --format json`.
type TrainResult struct {
	FitData

	Kernel kernel.Spec `json:"kernel"`
	// Gamma is LIBSVM's γ of an isotropic Gaussian kernel (0 otherwise).
	Gamma  float64 `json:"gamma,omitempty"`
	Margin string  `json:"margin"`
	C      float64 `json:"C,omitempty"`
	// WeightPos and WeightNeg multiply C per class (l1 margin; 0 = 1).
	WeightPos float64 `json:"weight_pos,omitempty"`
	WeightNeg float64 `json:"weight_neg,omitempty"`

	Accuracies
	// Probability is a binary model's sigmoid (TrainSettings.Probability;
	// a multi-class model's are in Pairs); nil without probabilities.
	Probability *probability.Sigmoid `json:"probability,omitempty"`

	NSV    int       `json:"n_sv"`
	NBSV   int       `json:"n_bsv"`
	Obj    float64   `json:"obj"`
	W2     float64   `json:"w2"`
	Geo    InfNumber `json:"geometric_margin"` // +Inf (null) when w = 0
	Rho    float64   `json:"rho"`
	Iter   int       `json:"iterations"`
	Status string    `json:"status"`
	Eps    float64   `json:"eps"`
	// Seconds is the wall time of the SVM training.
	Seconds float64 `json:"time_s"`

	// ClassRows, for multi-class data, are the classes in LIBSVM's order with
	// their training rows, Pairs the one-vs-one SVMs (NSV is then LIBSVM's
	// total_sv, NBSV and Iter the pairs' sums, Obj, W2 and Rho zero); the
	// test part's k×k confusion matrix is TestScores.Confusion (row: true
	// class, column: predicted; nil without a test part).
	ClassRows []dataio.ClassCount `json:"class_rows,omitempty"`
	Pairs     []PairSummary       `json:"pairs,omitempty"`

	// ModelFile is where the caller saved the model ("" for nowhere).
	ModelFile string      `json:"model_file,omitempty"`
	Notes     []hint.Text `json:"notes,omitempty"`

	// Model is the trained SVM, with its provenance.
	Model *Model `json:"-"`
}

// Train fits the SVM of s on the training part (Fit), scores it and fills
// in the model's provenance. Its notes say what a reader should know: the
// data's own notes, features constant on the training part, a solve that
// did not converge, what the L2 margin's figures mean.
func Train(ctx context.Context, s TrainSettings) (*TrainResult, error) {
	// Multi-class: the classes in the order the training part shows them,
	// as LIBSVM would see it (the whole file's order may differ).
	s.Train, s.Test = dataio.InLIBSVMOrder(s.Train, s.Test)
	spec, err := s.Kernel.Spec(s.Train.Dim())
	if err != nil {
		return nil, err
	}
	fs := FitSettings{
		Train: s.Train, Test: s.Test, Norm: s.Norm, Kernel: spec, Margin: s.Margin, C: s.C,
		Eps: s.Eps, MaxIter: s.MaxIter, CacheMB: s.CacheMB,
		Probability: s.Probability, Seed: s.Seed,
	}
	if s.Margin == L1 {
		fs.WeightPos, fs.WeightNeg = s.WeightPos, s.WeightNeg
	}
	f, err := Fit(ctx, fs)
	if err != nil {
		return nil, err
	}
	m, fit := f.Model, f.SVC
	m.SetProvenance(s.Seed, s.Data, s.Version, s.Command)

	r := &TrainResult{
		FitData: NewFitData(s.Data, s.TestFile, s.Seed, s.Train, s.Test, s.Norm),
		Kernel:  m.Kernel, Gamma: m.Kernel.Gamma, Margin: m.MarginKind.String(), C: m.C,
		WeightPos: m.WeightPos, WeightNeg: m.WeightNeg,
		Accuracies: f.Accuracies,
		NSV:        m.Training.NSV, NBSV: m.Training.NBSV, Obj: fit.Obj, W2: m.Training.W2, Geo: InfNumber(margin(m.Training.W2)),
		Rho: fit.Rho, Iter: m.Training.Iter, Status: fit.Status.String(), Eps: m.Training.Eps,
		Seconds: f.Elapsed.Seconds(), Model: m, Probability: m.Probability,
	}
	if m.IsMultiClass() {
		r.Pairs = m.PairSummaries()
		for c, n := range s.Train.ClassSizes() {
			r.ClassRows = append(r.ClassRows, dataio.ClassCount{Label: m.Classes[c], Rows: n})
		}
		r.Obj, r.W2, r.Rho, r.Geo = 0, 0, 0, InfNumber(math.Inf(1))
	}
	if r.TestIsTraining {
		r.Notes = append(r.Notes, hint.T(r.TestIsTrainingNote()))
	}
	if n := m.InvertedNote(); n != "" {
		r.Notes = append(r.Notes, hint.T(n))
	}
	r.Notes = append(r.Notes, s.Train.Notes...)
	if len(s.Norm.Constant) > 0 {
		r.Notes = append(r.Notes, hint.T(fmt.Sprintf("%d feature(s) constant on the training part (only shifted): %s",
			len(s.Norm.Constant), featureList(s.Norm.Constant, s.Train.FeatureNames))))
	}
	if !f.Converged() {
		r.Notes = append(r.Notes, hint.T(fmt.Sprintf("the solver stopped with status %s after %d iterations: the model may be inaccurate (raise ", fit.Status, fit.Iter),
			hint.S("max-iter", ""), " or ", hint.S("eps", ""), ")"))
	}
	if pos, neg := s.Train.ClassCounts(); r.NSV == 0 && fit.Iter == 0 && pos > 0 && neg > 0 && !m.IsMultiClass() {
		r.Notes = append(r.Notes, hint.T("the solver stopped before its first step: ", hint.S("eps", strconv.FormatFloat(m.Training.Eps, 'g', -1, 64)),
			" is not below the KKT violation of the starting point α = 0, so the model has no support vectors and predicts one class (LIBSVM's default is 1e-3)"))
	}
	if s.Margin == L2 {
		r.Notes = append(r.Notes, hint.T("l2 margin: trained with K + I/C; objective with K + I/C, margin 1/‖w‖ with K"))
	}
	return r, nil
}

// InfNumber is a number that may be infinite (the geometric margin of a
// model without support vectors): JSON has no infinity, so ±Inf is written
// null, and null reads back as +Inf.
type InfNumber float64

// MarshalJSON writes v as a JSON number, or null when it is infinite.
func (v InfNumber) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

// UnmarshalJSON reads a number, or null as +Inf.
func (v *InfNumber) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = InfNumber(math.Inf(1))
		return nil
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*v = InfNumber(f)
	return err
}

// SetProvenance records the run that made m: the seed, the data as the user
// named it, the kerneltune version and the command line.
func (m *Model) SetProvenance(seed uint64, data, version, command string) {
	m.Provenance.Seed = seed
	m.Provenance.Data = data
	m.Provenance.Version = version
	m.Provenance.Command = []string{command}
}

// FeatureName is the name of feature k (0-based) in names, f1, f2, …
// without one.
func FeatureName(names []string, k int) string {
	if k < len(names) && names[k] != "" {
		return names[k]
	}
	return "f" + strconv.Itoa(k+1)
}

// featureList names the features idx (0-based), the first eight of them.
func featureList(idx []int, names []string) string {
	const show = 8
	var parts []string
	for k, j := range idx {
		if k == show {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(idx)-show))
			break
		}
		parts = append(parts, FeatureName(names, j))
	}
	return strings.Join(parts, ", ")
}
