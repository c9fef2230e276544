// Package model is kerneltune's trained SVM: fitting the final classifier on a
// (normalised) training set with a given kernel (Fit; Train from the user's
// kernel parameters), evaluating its decision function on new data
// (Predict), scoring decisions against labels (ConfusionOf), the
// self-describing JSON model file that `train` and `tune` write and
// `predict` reads, and its export for LIBSVM (ExportLIBSVM).
//
// A model keeps only what prediction needs and what a reader must know to
// trust it: the kernel (Spec, with a full Q written out in full), the margin
// and C, the normaliser fitted on the training part, the support vectors in
// normalised space with their coefficients y_iα_i, the bias, the original
// label texts, the feature names, and provenance (data file and its SHA-256,
// seed, method, version). The decision function is LIBSVM's
//
//	f(x) = Σ_i coef_i k(sv_i, N(x)) + b,   b = -ρ,   label = +1 iff f(x) > 0,
//
// with N the normaliser; it is evaluated in blocks through Kernel.Cross (one
// GEMM per block) and a matrix-vector product, never a per-point loop.
package model

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/probability"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// FormatVersion is the newest model-file format this package writes and
// reads. Version 2 adds "encoder", the one-hot encoding of nominal features
// (dataio.OneHot); a model without one is written as version 1, the format
// older kerneltunes read, and a version-2 file is refused by them with
// their version error rather than misread. Version 3 adds the one-vs-one
// multi-class model ("classes", "pairs"); binary models keep version 1 or 2.
// A one-vs-rest model is version 3 with "multiclass": "ovr" (absent:
// one-vs-one); a kerneltune from before it refuses such a file, whose SVMs'
// labels ("1" against "not 1") are not the pairs it expects, rather than
// misreading it. Version 4 adds probability estimates ("probability": Platt's
// sigmoid, LIBSVM's probA and probB, of the binary model or of every
// one-vs-one pair: train and tune --probability); a model without them keeps
// its version, and a kerneltune from before them refuses such a file rather
// than apply it without its probabilities (or call it edited, its checksum
// not covering a field it does not know).
const FormatVersion = 4

// formatVersionOf is the version a model is written with: the oldest that
// holds it.
func formatVersionOf(m *Model) int {
	switch {
	case m.HasProbability():
		return 4
	case m.IsMultiClass():
		return 3
	case m.Encoder != nil:
		return 2
	}
	return 1
}

// readsVersions says which versions this package reads, for messages.
const readsVersions = "1, 2, 3 and 4"

// Errors a loaded file can fail with (wrapped with the file name).
var (
	// ErrVersion: the file's format_version is not one this package reads.
	ErrVersion = errors.New("unsupported format_version")
	// ErrInvalid: the file is not a consistent kerneltune model.
	ErrInvalid = errors.New("invalid model")
)

// Model is a trained SVM: binary, or multi-class (Classes and Pairs, format
// version 3): one-vs-one, a binary SVM per pair of classes and LIBSVM's
// vote, or one-vs-rest (Multiclass "ovr"), a binary SVM per class against
// the others and the largest decision value; the top-level kernel, margin and C are then the first pair's, and the
// support vectors and bias live in the pairs). Build one with Fit or Load;
// the exported fields are its JSON form (read them freely, but call
// Validate after changing them by hand).
type Model struct {
	FormatVersion int `json:"format_version"`

	// Kernel is the kernel the decision function uses. For a Gaussian,
	// Gamma (isotropic, LIBSVM's γ), QDiag or a full Q row by row.
	Kernel kernel.Spec `json:"kernel"`
	// GammaSpace says which features the kernel's parameters (γ, Q, θ) act
	// on: the kind of the normaliser (Normalizer.Kind, so "none" means the
	// data's features as given and γ is svm-train's -g on them; "zscore"
	// that they act on z-scored features, not the file's values). Absent
	// in models written before it was recorded and in a multi-class
	// model's pairs, which live in their model's space.
	GammaSpace string `json:"gamma_space,omitempty"`
	// MarginKind is the formulation, written "l1", "l2" or "hard". For "l2"
	// the SVM was trained with the kernel matrix K + I/C; the decision
	// function uses K (Chapelle et al. 2002: the νI term is the slack
	// penalty, not part of the kernel).
	MarginKind solver.Margin `json:"margin"`
	// C is the SVM's C (0 for the hard margin). WeightPos and WeightNeg
	// multiply it per class (LIBSVM's -wi); 0 in the file means 1.
	C         float64 `json:"C"`
	WeightPos float64 `json:"weight_pos,omitempty"`
	WeightNeg float64 `json:"weight_neg,omitempty"`

	// Encoder one-hot encodes the nominal features of raw inputs before the
	// normaliser (format version 2); nil when every feature is numeric.
	// NumFeatures is then its output dimension.
	Encoder *dataio.OneHot `json:"encoder,omitempty"`
	// Normalizer maps raw inputs to the space the support vectors live in;
	// nil means none (written "normalizer": null: the field is always
	// written, so that a file that lost it is refused, not read as none).
	Normalizer *dataio.Normalizer `json:"normalizer"`
	// Labels are the original label texts of the classes +1 and -1 (zero
	// for a multi-class model).
	Labels dataio.LabelMap `json:"labels"`
	// Classes are a multi-class model's class labels in LIBSVM's order
	// (dataio.Dataset.ClassLabels); nil for a binary model.
	Classes []string `json:"classes,omitempty"`
	// Multiclass is a multi-class model's scheme: "" (absent in the file:
	// one-vs-one, as every version-3 file before one-vs-rest) or "ovr".
	Multiclass string `json:"multiclass,omitempty"`
	// Pairs are a multi-class model's binary SVMs, one per subproblem of
	// dataio.Subproblems in its order: one-vs-one, pair (i, j) with class i
	// as +1; one-vs-rest, class c (+1) against the rest. Each lives in the
	// normalised space (no normaliser or encoder of its own); nil for a
	// binary model.
	Pairs []*Model `json:"pairs,omitempty"`
	// NumFeatures is the input dimension d; FeatureNames has length d.
	NumFeatures  int      `json:"num_features"`
	FeatureNames []string `json:"feature_names,omitempty"`

	// Bias is b = -ρ of the decision function f(x) = Σ coef_i k(sv_i, x) + b.
	Bias float64 `json:"bias"`
	// Probability is Platt's sigmoid P(+1 | f) = 1/(1+exp(A f + B)) of the
	// decision value (LIBSVM's probA, probB), fitted on 5-fold
	// cross-validated decision values of the training rows (format version
	// 4; FitSettings.Probability). A multi-class model has one in each
	// pair (one-vs-one only) and none at the top. nil: no probabilities.
	Probability *probability.Sigmoid `json:"probability,omitempty"`
	// SupportVectors are the training points with α_i > 0, in normalised
	// space, each with its coefficient y_iα_i.
	SupportVectors []SupportVector `json:"support_vectors"`

	// Training summarises the SVM solve that produced the model.
	Training Training `json:"training"`
	// Provenance says where the model came from.
	Provenance Provenance `json:"provenance"`
	// Tuning is the tuning method's result, when `tune` made the model.
	Tuning json.RawMessage `json:"tuning,omitempty"`
	// TrainingRows holds one hash per training row, in training order, so
	// that predict can tell which rows of its input the model was trained
	// on: the 64-bit FNV-1a hash (16 hex digits) of the row's features,
	// normalised as the model normalises, each written with 10 significant
	// digits ('g') followed by a comma. It stores no data values. Empty in
	// models written before it was recorded.
	TrainingRows RowHashes `json:"training_row_hashes,omitempty"`

	// Checksum is "sha256:" and the SHA-256 of the model's content (its
	// compact JSON with Checksum empty), written by Save; Verify tells an
	// edited file by it.
	Checksum string `json:"checksum,omitempty"`

	kern kernel.Kernel // built from Kernel
	sv   *mat.Dense    // nsv×d support vectors
	// svData backs the SupportVectors' X as fitSVM made them (nil after
	// Load); prepare uses it as sv's data while they still alias it.
	svData []float64
	// svShared is the array of a multi-class model's distinct support
	// vectors that this pair's SupportVectors' X are rows of (shareSVRows),
	// so that the next prepare finds them shared; nil otherwise.
	svShared []float64
	coef     *mat.VecDense // nsv coefficients
	ready    bool
	// svOnce builds sv and sparse on first use (svMatrix); a new one
	// each prepare.
	svOnce *sync.Once
	// sparse is the support vectors prepared for the sparse kernel blocks
	// of an isotropic Gaussian on sparse data (kernel.SparseCross), nil
	// otherwise.
	sparse *kernel.SparseCross
	// shared is a multi-class model's support vectors shared by its pairs
	// (sharedSVs), built by prepare; nil for a binary model, or when the
	// pairs' kernels differ.
	shared *sharedSVs
}

// SupportVector is one support vector: Coef = y_iα_i and the point X (in
// normalised space).
type SupportVector struct {
	Coef float64   `json:"coef"`
	X    []float64 `json:"x"`
}

// Training summarises the solve of the final SVM.
type Training struct {
	N      int     `json:"n"`      // training points
	NPos   int     `json:"n_pos"`  // of which labelled +1
	NSV    int     `json:"n_sv"`   // support vectors, α_i > 0
	NBSV   int     `json:"n_bsv"`  // bounded support vectors, α_i = C_i (l1 margin)
	Obj    float64 `json:"obj"`    // dual objective ½αᵀPα - eᵀα (LIBSVM's "obj")
	Rho    float64 `json:"rho"`    // LIBSVM's ρ = -Bias
	W2     float64 `json:"w2"`     // ‖w‖² = coefᵀ K_SV coef, with K (not K + I/C)
	Iter   int     `json:"iter"`   // SMO iterations
	Status string  `json:"status"` // solver status, e.g. "converged"
	Eps    float64 `json:"eps"`    // stopping tolerance used
}

// Provenance records where a model came from.
type Provenance struct {
	// Version is the kerneltune version that wrote the file.
	Version string `json:"kerneltune_version,omitempty"`
	// Data is the training data as the user named it (path or builtin:NAME)
	// and DataSHA256 the SHA-256 of its bytes.
	Data       string `json:"data,omitempty"`
	DataSHA256 string `json:"data_sha256,omitempty"`
	// Seed is the --seed of the run (train/test split, tuning).
	Seed uint64 `json:"seed"`
	// Method and Param name the tuning method, when `tune` made the model.
	Method string `json:"method,omitempty"`
	Param  string `json:"param,omitempty"`
	// Command is the command line that made the model.
	Command []string `json:"command,omitempty"`
}

// fitSVM trains the SVM with kernel spec and parameters p on train (already
// normalised by norm, which is stored in the model; nil means none) and
// returns a model that keeps only the support vectors, together with the
// solver's result. For the L2 margin the solver sees K + I/C and the model
// predicts with K. A hard margin on data the kernel cannot separate returns an
// error wrapping solver.ErrNotSeparable. Fit is its exported form.
func fitSVM(ctx context.Context, train *dataio.Dataset, norm *dataio.Normalizer, spec kernel.Spec, p solver.SVCParams, s solver.Settings) (*Model, solver.SVCResult, error) {
	return fitSVMRows(ctx, train, norm, spec, p, s, true)
}

// fitSVMRows is fitSVM; hashRows says whether the model records its
// training rows' hashes (a multi-class model's pairs do not: the model does
// once, for all of them).
func fitSVMRows(ctx context.Context, train *dataio.Dataset, norm *dataio.Normalizer, spec kernel.Spec, p solver.SVCParams, s solver.Settings, hashRows bool) (*Model, solver.SVCResult, error) {
	if train == nil || train.Len() == 0 {
		return nil, solver.SVCResult{}, errors.New("fit SVM: no training data")
	}
	return fitSVMAt(ctx, train, nil, train.Y, train.Labels, norm, spec, p, s, hashRows)
}

// fitSVMAt is fitSVMRows on the rows of train.X that rows lists (all of
// them, in order, when rows is nil) with the labels y (one per row) named
// by labels. With rows set (a multi-class model's pair, fitMulti) nothing
// of train.X is copied: the kernel reads the rows in place
// (kernel.RowsAt) and the support vectors' X are rows of train.X, which
// the caller must move into the model's own rows (shareSVRows) before it
// leaves.
func fitSVMAt(ctx context.Context, train *dataio.Dataset, rows []int, y []float64, labels dataio.LabelMap, norm *dataio.Normalizer, spec kernel.Spec, p solver.SVCParams, s solver.Settings, hashRows bool) (*Model, solver.SVCResult, error) {
	if len(y) == 0 {
		return nil, solver.SVCResult{}, errors.New("fit SVM: no training data")
	}
	d := train.Dim()
	k, err := kernel.FromSpec(spec)
	if err != nil {
		return nil, solver.SVCResult{}, fmt.Errorf("fit SVM: %w", err)
	}
	if err := checkKernelDim(spec, d); err != nil {
		return nil, solver.SVCResult{}, fmt.Errorf("fit SVM: %w", err)
	}
	if norm != nil {
		if err := checkNormalizer(norm, d); err != nil {
			return nil, solver.SVCResult{}, fmt.Errorf("fit SVM: %w", err)
		}
	}
	if p.Margin == solver.L2 && (!(p.C > 0) || math.IsInf(p.C, 0)) {
		return nil, solver.SVCResult{}, fmt.Errorf("fit SVM: L2 margin needs a finite C > 0, got %g", p.C)
	}
	// solver.TrainSVC itself trains the L2 margin with K + I/C; the model
	// keeps K.
	var km kernel.Matrix
	if rows == nil {
		km = k.Rows(train.X)
	} else {
		km = kernel.RowsAt(k, train.X, rows)
	}
	res, err := solver.TrainSVC(ctx, km, y, p, s, nil)
	if err != nil {
		return nil, res, fmt.Errorf("fit %v-margin SVM on %s: %w", p.Margin, dataName(train), err)
	}

	m := &Model{
		Encoder:      train.Encoder,
		Kernel:       k.Spec(),
		GammaSpace:   gammaSpace(norm),
		MarginKind:   p.Margin,
		Normalizer:   norm,
		Labels:       labels,
		NumFeatures:  d,
		FeatureNames: append([]string(nil), train.FeatureNames...),
		Bias:         -res.Rho,
		Provenance: Provenance{
			Data:       train.Source,
			DataSHA256: train.SHA256,
		},
	}
	if hashRows && rows == nil {
		m.TrainingRows = trainingRowHashes(train.X)
	}
	m.FormatVersion = formatVersionOf(m)
	if p.Margin != solver.Hard {
		m.C = p.C
	}
	if p.WeightPos != 0 && p.WeightPos != 1 {
		m.WeightPos = p.WeightPos
	}
	if p.WeightNeg != 0 && p.WeightNeg != 1 {
		m.WeightNeg = p.WeightNeg
	}
	// The support vectors' rows are consecutive rows of one array, which
	// prepare then takes as the SV matrix without a second copy.
	nsv := 0
	for _, a := range res.Alpha {
		if a > 0 {
			nsv++
		}
	}
	if rows == nil {
		m.svData = make([]float64, nsv*d)
	}
	m.SupportVectors = make([]SupportVector, 0, nsv)
	for i, a := range res.Alpha {
		if a > 0 {
			var row []float64
			if rows == nil {
				k := len(m.SupportVectors)
				row = m.svData[k*d : (k+1)*d : (k+1)*d]
				copy(row, train.X.RawRowView(i))
			} else {
				row = train.X.RawRowView(rows[i])[:d:d]
			}
			m.SupportVectors = append(m.SupportVectors, SupportVector{Coef: y[i] * a, X: row})
		}
	}
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	m.Training = Training{
		N: len(y), NPos: pos, NSV: len(m.SupportVectors), NBSV: res.NBSV,
		Obj: res.Obj, Rho: res.Rho, Iter: res.Iter, Status: res.Status.String(),
		Eps: s.Eps,
	}
	if m.Training.Eps == 0 {
		m.Training.Eps = 1e-3
	}
	if err := m.prepare(); err != nil {
		return nil, res, fmt.Errorf("fit SVM: %w", err)
	}
	// ‖w‖² = Σ_SV coef_i (f(x_i) - b), as W2 computes it, but from the
	// decision values the solver read off its gradient rather than a new
	// #SV × #SV kernel block (a third of train's time at n = 5,000).
	for i, a := range res.Alpha {
		if a > 0 {
			m.Training.W2 += y[i] * a * (res.F[i] + res.Rho)
		}
	}
	return m, res, nil
}

func dataName(d *dataio.Dataset) string {
	switch {
	case d.Source != "":
		return d.Source
	case d.Name != "":
		return d.Name
	}
	return "the training data"
}

// prepare validates the model and builds the kernel and the matrices the
// decision function uses.
func (m *Model) prepare() error {
	if err := m.validate(); err != nil {
		return err
	}
	m.shared = nil
	if m.IsMultiClass() {
		m.shared = newSharedSVs(m)
	}
	k, err := kernel.FromSpec(m.Kernel)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	nsv := len(m.SupportVectors)
	m.kern = k
	m.coef = nil
	if nsv > 0 {
		c := make([]float64, nsv)
		for i, sv := range m.SupportVectors {
			c[i] = sv.Coef
		}
		m.coef = mat.NewVecDense(nsv, c)
	}
	m.sv, m.sparse, m.svOnce = nil, nil, new(sync.Once)
	m.ready = true
	return nil
}

// svMatrix returns the support vectors as one nsv×d matrix (nil without
// any) and, for an isotropic Gaussian on sparse data, their sparse form,
// built on first use: a multi-class model's pairs that share their support
// vectors (sharedSVs) never use their own, and would otherwise each hold a
// copy of their rows (on a 10-class set of 778 features, 71 MB of the
// model's 96).
func (m *Model) svMatrix() (*mat.Dense, *kernel.SparseCross) {
	m.svOnce.Do(func() {
		nsv, d := len(m.SupportVectors), m.NumFeatures
		if nsv == 0 {
			return
		}
		if m.svRowsInData() {
			m.sv = mat.NewDense(nsv, d, m.svData)
		} else {
			m.svData = nil
			m.sv = mat.NewDense(nsv, d, nil)
			for i, sv := range m.SupportVectors {
				m.sv.SetRow(i, sv.X)
			}
		}
		if g, ok := m.kern.(*kernel.Gaussian); ok {
			m.sparse = g.SparseCross(m.sv)
		}
	})
	return m.sv, m.sparse
}

// svRowsInData reports whether every support vector's X is still row i of
// svData (as fitSVM made them), so that svData can serve as the SV matrix.
func (m *Model) svRowsInData() bool {
	d := m.NumFeatures
	if d == 0 || len(m.svData) != len(m.SupportVectors)*d {
		return false
	}
	for i, sv := range m.SupportVectors {
		if len(sv.X) != d || &sv.X[0] != &m.svData[i*d] {
			return false
		}
	}
	return true
}

// Validate checks that the model is consistent (known version, kernel and
// margin, dimensions that agree, finite numbers) and makes it ready for
// prediction. Load calls it; call it after editing a Model's fields.
func (m *Model) Validate() error { return m.prepare() }

func (m *Model) validate() error {
	if m.FormatVersion < 1 || m.FormatVersion > FormatVersion {
		return fmt.Errorf("%w %d (this kerneltune reads %s)", ErrVersion, m.FormatVersion, readsVersions)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	switch m.Kernel.Kind {
	case kernel.KindGaussian, kernel.KindL1, kernel.KindLinear:
	case "":
		return bad("no kernel kind")
	default:
		return bad("unknown kernel kind %q (this kerneltune knows gaussian, l1, linear)", m.Kernel.Kind)
	}
	switch m.MarginKind {
	case solver.L1, solver.L2:
		if !(m.C > 0) || math.IsInf(m.C, 0) {
			return bad("%v margin with C = %g, want a finite C > 0", m.MarginKind, m.C)
		}
	case solver.Hard:
	default:
		return bad("unknown margin %v (want l1, l2 or hard)", m.MarginKind)
	}
	for _, w := range []struct {
		name string
		v    float64
	}{{"weight_pos", m.WeightPos}, {"weight_neg", m.WeightNeg}} {
		if !(w.v >= 0) || math.IsInf(w.v, 0) {
			return bad("%s = %g, want a finite class weight > 0 (0 means 1)", w.name, w.v)
		}
	}
	d := m.NumFeatures
	if d <= 0 {
		return bad("num_features = %d, want > 0", d)
	}
	if m.FeatureNames != nil && len(m.FeatureNames) != d {
		return bad("%d feature names for %d features", len(m.FeatureNames), d)
	}
	if err := checkKernelDim(m.Kernel, d); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if prob := m.HasProbability(); prob != (m.FormatVersion == 4) {
		if prob {
			return bad("probability estimates in a format_version %d file (they need 4)", m.FormatVersion)
		}
		return bad("format_version 4 without probability estimates (a model without them is version 1, 2 or 3)")
	}
	if m.IsMultiClass() || m.Pairs != nil {
		if m.FormatVersion != 3 && m.FormatVersion != 4 {
			return bad("a multi-class model in a format_version %d file (multi-class models need 3)", m.FormatVersion)
		}
	} else if m.Encoder == nil && m.FormatVersion != 1 && m.FormatVersion != 4 {
		return bad("format_version %d without an encoder (a model without one is version 1)", m.FormatVersion)
	}
	if s := m.Probability; s != nil && !s.Plausible() {
		return bad("probability: prob_a = %g, prob_b = %g, want numbers within ±%g (no fit gives more)", s.A, s.B, probability.MaxParam)
	}
	if m.Encoder != nil {
		if m.FormatVersion < 2 {
			return bad("an encoder in a format_version %d file (encoders need 2)", m.FormatVersion)
		}
		if err := m.Encoder.Check(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if m.Encoder.Dim() != d {
			return bad("the encoder makes %d features, num_features = %d", m.Encoder.Dim(), d)
		}
	}
	if m.Normalizer != nil {
		if err := checkNormalizer(m.Normalizer, d); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	}
	if m.GammaSpace != "" && m.GammaSpace != gammaSpace(m.Normalizer) {
		return bad("gamma_space %q, but the normalizer is %q", m.GammaSpace, gammaSpace(m.Normalizer))
	}
	if m.Multiclass != "" && !m.IsMultiClass() {
		return bad("multiclass %q in a binary model (no classes)", m.Multiclass)
	}
	if m.IsMultiClass() || m.Pairs != nil {
		return m.validateMulti()
	}
	if m.Labels.Positive == m.Labels.Negative {
		return bad("labels: positive and negative class are both %q", m.Labels.Positive)
	}
	if !finite(m.Bias) {
		return bad("bias is %g", m.Bias)
	}
	if err := m.checkTraining(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	for i, sv := range m.SupportVectors {
		if len(sv.X) != d {
			return bad("support vector %d has %d features, want %d", i+1, len(sv.X), d)
		}
		if !finite(sv.Coef) {
			return bad("support vector %d has coefficient %g", i+1, sv.Coef)
		}
		for j, v := range sv.X {
			if !finite(v) {
				return bad("support vector %d, feature %d is %g", i+1, j+1, v)
			}
		}
	}
	return nil
}

// checkTraining checks that the training summary agrees with the model, as
// the writer makes it: a support vector or the bias lost or edited shows.
func (m *Model) checkTraining() error {
	t := m.Training
	switch {
	case t.NSV != len(m.SupportVectors):
		return fmt.Errorf("training.n_sv = %d, but the model has %d support_vectors", t.NSV, len(m.SupportVectors))
	case t.N < t.NSV || t.NPos < 0 || t.NPos > t.N || t.NBSV < 0 || t.NBSV > t.NSV:
		return fmt.Errorf("training: n = %d, n_pos = %d, n_sv = %d, n_bsv = %d do not agree", t.N, t.NPos, t.NSV, t.NBSV)
	case t.Rho != -m.Bias:
		return fmt.Errorf("bias = %g, but training.rho = %g (bias is -rho)", m.Bias, t.Rho)
	case !(t.Eps > 0) || math.IsInf(t.Eps, 0):
		return fmt.Errorf("training.eps = %g, want a finite tolerance > 0", t.Eps)
	}
	return nil
}
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkKernelDim checks that a kernel with a per-feature parameter has d of
// them.
func checkKernelDim(s kernel.Spec, d int) error {
	switch {
	case s.Diag != nil && len(s.Diag) != d:
		return fmt.Errorf("kernel has %d diagonal entries of Q for %d features", len(s.Diag), d)
	case s.Q != nil && len(s.Q) != d:
		return fmt.Errorf("kernel Q is %d×%d for %d features", len(s.Q), len(s.Q), d)
	case s.Theta != nil && len(s.Theta) != d:
		return fmt.Errorf("L1 kernel has %d widths θ for %d features", len(s.Theta), d)
	}
	return nil
}

// gammaSpace is a model's GammaSpace: its normaliser's kind, "" for none
// (a multi-class model's pairs, a Go caller's unnormalised fit).
func gammaSpace(norm *dataio.Normalizer) string {
	if norm == nil {
		return ""
	}
	return norm.Kind
}

// checkNormalizer checks that a normaliser has d per-feature entries.
func checkNormalizer(n *dataio.Normalizer, d int) error {
	if err := n.Validate(); err != nil {
		return err
	}
	if n.Dim() != d {
		return fmt.Errorf("normaliser has %d features, want %d", n.Dim(), d)
	}
	return nil
}

func (m *Model) mustReady() {
	if !m.ready {
		panic("model: Model used before Fit, Load or Validate")
	}
}

// NSV returns the number of support vectors.
func (m *Model) NSV() int { return len(m.SupportVectors) }

// KernelFunc returns the kernel of the decision function.
func (m *Model) KernelFunc() kernel.Kernel { m.mustReady(); return m.kern }

// blockRows bounds the rows of one kernel block in Decision, so that memory
// stays at blockRows × #SV values however many points are predicted.
const blockRows = 1024

// blockBytes bounds one kernel block of the decision function in bytes:
// with many support vectors a block has fewer rows than blockRows (at
// 11,000 SVs, 190), so that it is 16 MB, not 90, whatever the #SV.
const blockBytes = 16 << 20

// blockRowsFor is the rows of one kernel block against nsv support
// vectors: blockRows, fewer when blockBytes asks, at least 64.
func blockRowsFor(nsv int) int {
	return max(64, min(blockRows, blockBytes/(8*max(nsv, 1))))
}

// Decision returns the decision values f(x) of the rows of X, raw inputs in
// the original feature space: the model's normaliser is applied first. X
// must have NumFeatures columns (it panics otherwise, as gonum does).
func (m *Model) Decision(X mat.Matrix) []float64 {
	return m.decision(X, m.Normalizer)
}

// DecisionNormalized returns the decision values of the rows of X, which are
// already normalised (e.g. the training set Fit was given).
func (m *Model) DecisionNormalized(X mat.Matrix) []float64 {
	return m.decision(X, nil)
}

func (m *Model) decision(X mat.Matrix, norm *dataio.Normalizer) []float64 {
	m.mustReady()
	if m.IsMultiClass() {
		panic("model: Decision of a multi-class model (use PairDecisions or PredictClasses)")
	}
	n, d := X.Dims()
	if d != m.NumFeatures {
		panic(fmt.Sprintf("model: decision on %d features, the model has %d", d, m.NumFeatures))
	}
	out := make([]float64, n)
	sv, sparse := m.svMatrix()
	if sv == nil || n == 0 {
		for i := range out {
			out[i] = m.Bias
		}
		return out
	}
	dense, isDense := X.(*mat.Dense)
	direct := norm == nil && isDense // blocks are views of X, no copy
	rows := blockRowsFor(len(m.SupportVectors))
	var buf *mat.Dense
	if !direct {
		buf = mat.NewDense(min(rows, n), d, nil)
	}
	for r0 := 0; r0 < n; r0 += rows {
		r1 := min(r0+rows, n)
		var block mat.Matrix
		if direct {
			block = dense.Slice(r0, r1, 0, d)
		} else {
			b := buf.Slice(0, r1-r0, 0, d).(*mat.Dense)
			for i := r0; i < r1; i++ {
				dst := b.RawRowView(i - r0)
				if isDense {
					copy(dst, dense.RawRowView(i))
				} else {
					mat.Row(dst, i, X)
				}
				if norm != nil {
					norm.ApplyRow(dst, dst)
				}
			}
			block = b
		}
		kb := m.kernelBlock(block, sv, sparse) // (r1-r0)×nsv
		f := mat.NewVecDense(r1-r0, out[r0:r1])
		f.MulVec(kb, m.coef)
		for i := r0; i < r1; i++ {
			out[i] += m.Bias
		}
	}
	return out
}

// kernelBlock returns k(a_i, sv_j) for the rows of block: on the sparse
// route when sparse is set (LIBSVM's own, a scatter over the support
// vectors' nonzeros; on w8a's 300 binary features 20 times fewer
// operations), else one GEMM (Kernel.Cross).
func (m *Model) kernelBlock(block, sv mat.Matrix, sparse *kernel.SparseCross) *mat.Dense {
	if sparse == nil {
		return m.kern.Cross(block, sv)
	}
	r, _ := block.Dims()
	c, _ := sv.Dims()
	kb := mat.NewDense(r, c, nil)
	sparse.Block(block, kb)
	return kb
}

// Classes maps decision values to classes: +1 iff f > 0, else -1.
func Classes(f []float64) []float64 {
	y := make([]float64, len(f))
	for i, v := range f {
		if v > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return y
}

// Label returns the original label text of class y (±1).
func (m *Model) Label(y float64) string {
	if y > 0 {
		return m.Labels.Positive
	}
	return m.Labels.Negative
}

// Accuracy returns the fraction of the rows of d whose label the model
// predicts; normalized says d is already in the model's normalised space
// (e.g. a test part normalised together with the training part). It is NaN on
// an empty data set.
func (m *Model) Accuracy(d *dataio.Dataset, normalized bool) float64 {
	if d.Len() == 0 {
		return math.NaN()
	}
	if m.IsMultiClass() {
		var pred []int
		if normalized {
			pred = m.PredictClassesNormalized(d.X)
		} else {
			pred = m.PredictClasses(d.X)
		}
		return float64(correct(d.Class, pred)) / float64(d.Len())
	}
	var f []float64
	if normalized {
		f = m.DecisionNormalized(d.X)
	} else {
		f = m.Decision(d.X)
	}
	return ConfusionOf(f, d.Y).Accuracy()
}

// W2 returns ‖w‖² = coefᵀ K_SV coef, the squared norm of the weight vector
// in the feature space of the model's kernel K. For the L2 margin this is
// with K, the kernel of the decision function, not K + I/C (whose value is
// 2D* = Σα_i, the solver's dual objective); so it is the geometric margin of
// the classifier actually used.
func (m *Model) W2() float64 {
	m.mustReady()
	sv, _ := m.svMatrix()
	if sv == nil {
		return 0
	}
	f := m.DecisionNormalized(sv) // K_SV coef + b
	w2 := 0.0
	for i, sv := range m.SupportVectors {
		w2 += sv.Coef * (f[i] - m.Bias)
	}
	return w2
}

// Margin returns the geometric margin 1/‖w‖ (see W2); +Inf when w = 0.
func (m *Model) Margin() float64 { return margin(m.W2()) }

// margin is 1/‖w‖ from w2 = ‖w‖²; +Inf when w = 0.
func margin(w2 float64) float64 {
	if w2 <= 0 {
		return math.Inf(1)
	}
	return 1 / math.Sqrt(w2)
}

// Save writes the model as indented JSON.
func (m *Model) Save(w io.Writer) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	c := *m
	sum, err := contentSum(m)
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	c.Checksum = sum
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if _, err := w.Write(compactNumberArrays(buf.Bytes())); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// compactNumberArrays puts every JSON array that holds only numbers on one
// line ("x": [0.1, -0.5, 1]), so that a support vector or a row of Q reads
// as one line instead of d. It leaves strings alone.
func compactNumberArrays(js []byte) []byte {
	out := make([]byte, 0, len(js))
	inString, escaped := false, false
	for i := 0; i < len(js); i++ {
		c := js[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			out = append(out, c)
		case '[':
			end := numberArrayEnd(js, i)
			if end < 0 {
				out = append(out, c)
				continue
			}
			out = append(out, '[')
			for k, f := range bytes.Split(js[i+1:end], []byte(",")) {
				if k > 0 {
					out = append(out, ", "...)
				}
				out = append(out, bytes.TrimSpace(f)...)
			}
			out = append(out, ']')
			i = end
		default:
			out = append(out, c)
		}
	}
	return out
}

// numberArrayEnd returns the index of the ']' closing the array opened at
// js[i] if everything in between is numbers, commas and white space, or -1.
func numberArrayEnd(js []byte, i int) int {
	for k := i + 1; k < len(js); k++ {
		switch c := js[k]; {
		case c == ']':
			return k
		case c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r' ||
			c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || ('0' <= c && c <= '9'):
		default:
			return -1
		}
	}
	return -1
}

// SaveFile writes the model to path (created or replaced). The model is
// validated and encoded before the file is written, and it is written
// atomically (outfile.WriteFile: a temporary file renamed onto path), so
// that an invalid model, a full disk or a signal leaves an existing file
// untouched.
func (m *Model) SaveFile(path string) error {
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		return fmt.Errorf("save model %s: %w", path, errors.Unwrap(err))
	}
	if err := outfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// Load reads a model written by Save and validates it. A file of another
// format_version fails with ErrVersion, an inconsistent one with ErrInvalid.
func Load(r io.Reader) (*Model, error) {
	m, err := load(r)
	if err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	return m, nil
}

// MaxFileBytes bounds what LoadFile reads: a model of 100,000 support
// vectors of 100 features is some 100 MB; /dev/zero given as a model was
// read until the memory ran out. Tests lower it.
var MaxFileBytes int64 = 256 << 20

// LoadFile reads the model file at path; errors name the file.
func LoadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("read model %s: %w", path, &dataio.TooLargeError{Name: path, Limit: MaxFileBytes})
	}
	m, err := load(f)
	if err != nil {
		return nil, fmt.Errorf("read model %s: %w", path, err)
	}
	return m, nil
}

func load(r io.Reader) (*Model, error) {
	raw, err := dataio.ReadAllLimited(r, "the model", MaxFileBytes)
	if err != nil {
		return nil, err
	}
	// The version first, so that a future file fails with a clear message
	// rather than with whatever its new fields make of the v1 decoder.
	var head struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%w: not a kerneltune model (%v)", ErrInvalid, jsonErr(err))
	}
	if head.FormatVersion == nil {
		return nil, fmt.Errorf("%w: not a kerneltune model (no format_version)", ErrInvalid)
	}
	if *head.FormatVersion < 1 || *head.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("%w %d (this kerneltune reads %s)", ErrVersion, *head.FormatVersion, readsVersions)
	}
	m := new(Model)
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, jsonErr(err))
	}
	if err := requireFields(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := m.prepare(); err != nil {
		return nil, err
	}
	return m, nil
}

// requireFields checks that a model file has every field the writer always
// writes, so that a lost one is refused rather than read as zero (a bias of
// 0, no support vectors). "normalizer" (null for none) is required of the
// files that carry a checksum: older writers left it out for none.
func requireFields(raw []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return err
	}
	_, checksum := top["checksum"]
	if err := requireModelFields(top, "", checksum); err != nil {
		return err
	}
	return refuseNulls(raw)
}

// refuseNulls refuses a null anywhere in a model file but where the writer
// writes one ("normalizer": null, a model without one) and inside the
// tuning result, which nothing predicts with: encoding/json reads a null
// into a number as 0, so a coefficient, a support vector's value, a
// normaliser's shift or a sigmoid's A edited to null was applied as 0 by a
// model without a checksum (issue 42). The field is named by its path.
func refuseNulls(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type level struct {
		object bool
		key    string // the last key of an object
		index  int    // the next index of an array
	}
	var stack []level
	path := func() string {
		var b strings.Builder
		for i, l := range stack {
			switch {
			case l.object && i > 0:
				b.WriteString("." + l.key)
			case l.object:
				b.WriteString(l.key)
			default:
				fmt.Fprintf(&b, "[%d]", l.index-1)
			}
		}
		return b.String()
	}
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			expectKey = len(stack) > 0 && stack[len(stack)-1].object
			continue
		}
		if expectKey {
			stack[len(stack)-1].key = tok.(string)
			expectKey = false
			if k := tok.(string); k == "tuning" && len(stack) == 1 {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				expectKey = true
			}
			continue
		}
		// A value: in an array it takes the next index.
		if n := len(stack); n > 0 && !stack[n-1].object {
			stack[n-1].index++
		}
		switch d, _ := tok.(json.Delim); {
		case tok == nil && (len(stack) == 0 || !stack[len(stack)-1].object || stack[len(stack)-1].key != "normalizer"):
			return fmt.Errorf("field %s is null, not a value (every model file kerneltune writes has one; it would be read as 0)", path())
		case d == '{':
			stack = append(stack, level{object: true})
			expectKey = true
			continue
		case d == '[':
			stack = append(stack, level{})
			continue
		}
		expectKey = len(stack) > 0 && stack[len(stack)-1].object
	}
}

// requireModelFields checks the fields of one model (the file's, or one
// pair or class of a multi-class model: "pairs[i]." its prefix), each pair
// as a binary model (issue 34: a pair's lost bias and rho were read as 0).
func requireModelFields(top map[string]json.RawMessage, prefix string, checksum bool) error {
	need := []string{"kernel", "margin", "C", "labels", "num_features", "bias", "support_vectors", "training", "provenance"}
	if checksum {
		need = append(need, "normalizer")
	}
	if _, ok := top["classes"]; ok {
		need = append(need, "pairs")
	}
	if err := hasKeys(top, prefix, need...); err != nil {
		return err
	}
	if raw, ok := top["probability"]; ok {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return fmt.Errorf("field %sprobability is not an object", prefix)
		}
		if err := hasKeys(obj, prefix+"probability.", "prob_a", "prob_b"); err != nil {
			return err
		}
	}
	if raw, ok := top["pairs"]; ok {
		var pairs []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return fmt.Errorf("field %spairs is not a list of models", prefix)
		}
		for i, p := range pairs {
			if p == nil {
				return fmt.Errorf("field %spairs[%d] is not a model", prefix, i)
			}
			if err := requireModelFields(p, fmt.Sprintf("%spairs[%d].", prefix, i), checksum); err != nil {
				return err
			}
		}
	}
	sub := []struct {
		field string
		keys  []string
	}{
		{"labels", []string{"positive", "negative"}},
		{"training", []string{"n", "n_pos", "n_sv", "n_bsv", "obj", "rho", "w2", "iter", "status", "eps"}},
		{"kernel", []string{"kind"}},
	}
	for _, f := range sub {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(top[f.field], &obj); err != nil || obj == nil {
			return fmt.Errorf("field %s%s is not an object", prefix, f.field)
		}
		if err := hasKeys(obj, prefix+f.field+".", f.keys...); err != nil {
			return err
		}
	}
	var svs []map[string]json.RawMessage
	if err := json.Unmarshal(top["support_vectors"], &svs); err != nil || svs == nil {
		return fmt.Errorf("field %ssupport_vectors is not a list", prefix)
	}
	for i, sv := range svs {
		if err := hasKeys(sv, fmt.Sprintf("%ssupport_vectors[%d].", prefix, i), "coef", "x"); err != nil {
			return err
		}
	}
	return nil
}

// hasKeys returns an error naming the first of keys that obj lacks.
func hasKeys(obj map[string]json.RawMessage, prefix string, keys ...string) error {
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			return fmt.Errorf("no field %s%s (every model file has one)", prefix, k)
		}
	}
	return nil
}

// ChecksumError is a model whose content does not match its checksum (the
// file was edited after kerneltune wrote it), or that has none.
type ChecksumError struct{ Missing bool }

func (e *ChecksumError) Error() string {
	if e.Missing {
		return "the model has no checksum (written by a kerneltune before checksums, or edited): an edit cannot be told"
	}
	return "the model's content does not match its checksum: the file was edited after kerneltune wrote it"
}

// ChecksumStatus is Verify's answer in one word, as predict's JSON output
// gives it: "ok", "missing" or "mismatch".
func (m *Model) ChecksumStatus() string {
	var ce *ChecksumError
	switch err := m.Verify(); {
	case err == nil:
		return "ok"
	case errors.As(err, &ce) && ce.Missing:
		return "missing"
	}
	return "mismatch"
}

// CheckChecksum applies the checksum policy of predict: a model whose
// content does not match its checksum (edited after kerneltune wrote it) is
// an error unless ignore, whatever else is asked; one without a checksum
// (written before them) is an error with strict. What is not an error is
// returned as warn (nil for a model that matches).
func (m *Model) CheckChecksum(ignore, strict bool) (warn, err error) {
	status, v := m.ChecksumStatus(), m.Verify()
	switch {
	case status == "mismatch" && !ignore:
		return nil, hint.Errorf(v, v, "; pass ", hint.S("ignore-checksum", ""), " to apply it anyway")
	case status != "ok" && strict:
		return nil, hint.Errorf(v, v, " (", hint.S("strict", ""), ")")
	}
	return v, nil
}

// Verify checks the model's content against its checksum (Checksum, written
// by Save): nil when they match, a *ChecksumError when they do not or the
// model has none. A model that passes Validate but fails Verify is
// consistent, but not what kerneltune wrote.
func (m *Model) Verify() error {
	if m.Checksum == "" {
		return &ChecksumError{Missing: true}
	}
	sum, err := contentSum(m)
	if err != nil {
		return err
	}
	if sum != m.Checksum {
		return &ChecksumError{}
	}
	return nil
}

// contentSum returns "sha256:" and the hex SHA-256 of m's compact JSON with
// Checksum empty.
func contentSum(m *Model) (string, error) {
	c := *m
	c.Checksum = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:]), nil
}

// jsonErr makes encoding/json's errors read as "field X: ..." where it can.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %s: %v is not a %v", te.Field, te.Value, te.Type)
	}
	return err.Error()
}
