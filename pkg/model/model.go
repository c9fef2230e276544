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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/probability"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/sparse"
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
// not covering a field it does not know). Version 5 adds sparse support
// vectors ("sparse_support_vectors": true, each support vector's non-zero
// features as "index" and "value", LIBSVM's own index:value form), the
// model of data held in compressed rows; whatever else such a model holds
// (probabilities, classes), it is version 5, and a kerneltune from before
// it refuses the file rather than read support vectors without an "x".
// Version 6 is a version-5 model whose normaliser is held in its sparse form
// (dataio.Normalizer: "features", "index", "index_shift", "index_scale", no
// "shift" and "scale": a maxabs or none normaliser of hashed features, 67
// million of them in 2 MB); a kerneltune from before it refuses the file by
// its version rather than find a normaliser without shifts.
const FormatVersion = 6

// formatVersionOf is the version a model is written with: the oldest that
// holds it.
func formatVersionOf(m *Model) int {
	switch {
	case m.Sparse && m.Normalizer != nil && m.Normalizer.IsSparseForm():
		return 6
	case m.Sparse:
		return 5
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
const readsVersions = "1, 2, 3, 4, 5 and 6"

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
	// Sparse says that the support vectors are sparse (SupportVector's
	// Index and Value, not X): the model of data held in compressed rows
	// (dataio.Dataset.Sparse), format version 5. A multi-class model's
	// pairs are all sparse with it.
	Sparse bool `json:"sparse_support_vectors,omitempty"`

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
	sv   *mat.Dense    // nsv×d support vectors (dense models)
	// svCSR holds a sparse model's support vectors as compressed rows.
	svCSR *sparse.CSR
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

// SupportVector is one support vector: Coef = y_iα_i and the point (in
// normalised space): X, all its features, or in a sparse model
// (Model.Sparse) its non-zero features, Index (numbered from 1, as a
// LIBSVM file numbers them, ascending) with their Value. The file holds
// "coef" and "x", or "coef", "index" and "value" (MarshalJSON).
type SupportVector struct {
	Coef  float64   `json:"coef"`
	X     []float64 `json:"x,omitempty"`
	Index []int32   `json:"index,omitempty"`
	Value []float64 `json:"value,omitempty"`
}

// MarshalJSON writes {"coef", "x"}, or for a sparse support vector (X nil)
// {"coef", "index", "value"}, both lists written even when empty (a
// support vector with no non-zero feature), so that a lost one is refused
// on reading (requireModelFields), not read as no features.
func (sv SupportVector) MarshalJSON() ([]byte, error) {
	if sv.X != nil {
		return json.Marshal(struct {
			Coef float64   `json:"coef"`
			X    []float64 `json:"x"`
		}{sv.Coef, sv.X})
	}
	return json.Marshal(struct {
		Coef  float64   `json:"coef"`
		Index []int32   `json:"index"`
		Value []float64 `json:"value"`
	}{sv.Coef, nonNil(sv.Index), nonNil(sv.Value)})
}

// nonNil returns s, or an empty slice for nil (which JSON writes as null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
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
	return fitSVMAt(ctx, train, nil, train.Y, train.Labels, norm, spec, p, s, hashRows, nil)
}

// pairWork is what the binary SVMs of a multi-class fit solved one after
// another on a core share (fitMulti): the arrays of the kernel's compressed
// rows, and the fit's one copy of each sparse support vector.
type pairWork struct {
	rows *kernel.RowsWorkspace
	svs  *svStore
}

// svStore holds the sparse support vectors of a multi-class fit's pairs,
// each training row once however many pairs it is a support vector of
// (about 7.6 on ten classes of 778 features: 16 MB of per-pair copies at
// 10,000 rows), in slabs that never move, so that a pair's support vectors
// are slices of them. It is safe for concurrent use.
type svStore struct {
	mu    sync.Mutex
	at    map[int]svLists // a training row's lists
	index []int32         // the current slab's indices (numbered from 1)
	value []float64       // and values
}

type svLists struct {
	index []int32
	value []float64
}

// svSlab is the entries of a slab of svStore.
const svSlab = 1 << 16

// lists returns row i of X as a sparse support vector's index (from 1) and
// value lists, copied on the first call for i.
func (s *svStore) lists(X *sparse.CSR, i int) ([]int32, []float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.at[i]; ok {
		return l.index, l.value
	}
	if s.at == nil {
		s.at = map[int]svLists{}
	}
	ind, val := X.Row(i)
	if cap(s.index)-len(s.index) < len(ind) {
		s.index = make([]int32, 0, max(len(ind), svSlab))
		s.value = make([]float64, 0, max(len(ind), svSlab))
	}
	p := len(s.index)
	for _, k := range ind {
		s.index = append(s.index, k+1)
	}
	s.value = append(s.value, val...)
	q := len(s.index)
	l := svLists{s.index[p:q:q], s.value[p:q:q]}
	s.at[i] = l
	return l.index, l.value
}

// fitSVMAt is fitSVMRows on the rows of train.X that rows lists (all of
// them, in order, when rows is nil) with the labels y (one per row) named
// by labels. With rows set (a multi-class model's pair, fitMulti) nothing
// of train.X is copied: the kernel reads the rows in place
// (kernel.RowsAt) and the support vectors' X are rows of train.X, which
// the caller must move into the model's own rows (shareSVRows) before it
// leaves. With pw set the kernel's compressed rows are built into its
// arrays (kernel.RowsAtIn), which the previous pair on the same core is done
// with, and sparse support vectors are the fit's one copy of their rows
// (svStore).
func fitSVMAt(ctx context.Context, train *dataio.Dataset, rows []int, y []float64, labels dataio.LabelMap, norm *dataio.Normalizer, spec kernel.Spec, p solver.SVCParams, s solver.Settings, hashRows bool, pw *pairWork) (*Model, solver.SVCResult, error) {
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
	// keeps K. Data held in compressed rows is read as it is (the kernels'
	// sparse route), for the kernels that compute on it.
	X := train.Features()
	if train.IsSparse() {
		if err := kernel.SparseSupport(k, d); err != nil {
			return nil, solver.SVCResult{}, fmt.Errorf("fit SVM on %s: %w", dataName(train), err)
		}
	}
	var km kernel.Matrix
	if rows == nil {
		km = k.Rows(X)
	} else {
		var kw *kernel.RowsWorkspace
		if pw != nil {
			kw = pw.rows
		}
		km = kernel.RowsAtIn(k, X, rows, kw)
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
		FeatureNames: modelFeatureNames(train),
		Bias:         -res.Rho,
		Provenance: Provenance{
			Data:       train.Source,
			DataSHA256: train.SHA256,
		},
	}
	if hashRows && rows == nil {
		m.TrainingRows = trainingRowHashes(X)
	}
	m.Sparse = train.IsSparse()
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
	if m.Sparse {
		var store *svStore
		if pw != nil {
			store = pw.svs
		}
		m.SupportVectors = sparseSVs(train.Sparse, rows, y, res.Alpha, store)
	} else {
		m.denseSVs(train.X, rows, y, res.Alpha)
	}
	m.Training = Training{
		N: len(y), NPos: positives(y), NSV: len(m.SupportVectors), NBSV: res.NBSV,
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

// positives is the number of entries of v above 0: the support vectors of
// a solve's α, the positive rows of its labels y.
func positives(v []float64) int {
	n := 0
	for _, a := range v {
		if a > 0 {
			n++
		}
	}
	return n
}

// denseSVs sets the model's support vectors from the rows of X (the rows
// of the solve, all of X when nil) with α_i > 0. The support vectors' rows
// are consecutive rows of one array, which prepare then takes as the SV
// matrix without a second copy; with rows set they are X's own rows, which
// the caller moves out (shareSVRows).
func (m *Model) denseSVs(X *mat.Dense, rows []int, y, alpha []float64) {
	d := m.NumFeatures
	nsv := positives(alpha)
	if rows == nil {
		m.svData = make([]float64, nsv*d)
	}
	m.SupportVectors = make([]SupportVector, 0, nsv)
	for i, a := range alpha {
		if a > 0 {
			var row []float64
			if rows == nil {
				k := len(m.SupportVectors)
				row = m.svData[k*d : (k+1)*d : (k+1)*d]
				copy(row, X.RawRowView(i))
			} else {
				row = X.RawRowView(rows[i])[:d:d]
			}
			m.SupportVectors = append(m.SupportVectors, SupportVector{Coef: y[i] * a, X: row})
		}
	}
}

// sparseSVs returns the support vectors (α_i > 0) of a solve on the rows
// of X (all of X when rows is nil) as sparse support vectors, their
// indices numbered from 1, copied into two arrays of their own, or, with
// store set, the store's one copy of each row.
func sparseSVs(X *sparse.CSR, rows []int, y, alpha []float64, store *svStore) []SupportVector {
	row := func(i int) int {
		if rows != nil {
			return rows[i]
		}
		return i
	}
	if store != nil {
		out := make([]SupportVector, 0, positives(alpha))
		for i, a := range alpha {
			if a > 0 {
				index, value := store.lists(X, row(i))
				out = append(out, SupportVector{Coef: y[i] * a, Index: index, Value: value})
			}
		}
		return out
	}
	nsv, nnz := 0, 0
	for i, a := range alpha {
		if a > 0 {
			ind, _ := X.Row(row(i))
			nsv++
			nnz += len(ind)
		}
	}
	index, value := make([]int32, 0, nnz), make([]float64, 0, nnz)
	out := make([]SupportVector, 0, nsv)
	for i, a := range alpha {
		if a > 0 {
			ind, val := X.Row(row(i))
			p := len(index)
			for _, k := range ind {
				index = append(index, k+1)
			}
			value = append(value, val...)
			q := len(index)
			out = append(out, SupportVector{Coef: y[i] * a, Index: index[p:q:q], Value: value[p:q:q]})
		}
	}
	return out
}

// modelFeatureNames is the feature names a model of train keeps: train's,
// except that a sparse model keeps none when they are the readers' f1, …,
// fd (a LIBSVM file's), which tell predict nothing and at news20's
// 1,355,191 features were 15 of the model file's 40 MB.
func modelFeatureNames(train *dataio.Dataset) []string {
	if train.IsSparse() && dataio.DefaultFeatureNames(train.FeatureNames) {
		return nil
	}
	return append([]string(nil), train.FeatureNames...)
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
	m.sv, m.svCSR, m.sparse, m.svOnce = nil, nil, nil, new(sync.Once)
	m.ready = true
	return nil
}

// svMatrix returns the support vectors as one nsv×d matrix (nil without
// any): a *mat.Dense, or a sparse model's *sparse.CSR, and, for an
// isotropic Gaussian on sparse data or a sparse model, their sparse form,
// built on first use: a multi-class model's pairs that share their support
// vectors (sharedSVs) never use their own, and would otherwise each hold a
// copy of their rows (on a 10-class set of 778 features, 71 MB of the
// model's 96).
func (m *Model) svMatrix() (mat.Matrix, *kernel.SparseCross) {
	m.svOnce.Do(func() {
		nsv, d := len(m.SupportVectors), m.NumFeatures
		if nsv == 0 {
			return
		}
		if m.Sparse {
			m.svCSR = svCSR(m.SupportVectors, d)
			// validate checked that the kernel computes on compressed rows.
			m.sparse, _ = kernel.SparseCrossOf(m.kern, m.svCSR)
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
	if m.Sparse {
		if m.svCSR == nil {
			return nil, nil
		}
		return m.svCSR, m.sparse
	}
	if m.sv == nil {
		return nil, nil
	}
	return m.sv, m.sparse
}

// svCSR returns sparse support vectors (of d features) as compressed rows.
func svCSR(svs []SupportVector, d int) *sparse.CSR {
	nnz := 0
	for _, sv := range svs {
		nnz += len(sv.Index)
	}
	ptr := make([]int, len(svs)+1)
	ind, val := make([]int32, 0, nnz), make([]float64, 0, nnz)
	for i, sv := range svs {
		for _, k := range sv.Index {
			ind = append(ind, k-1)
		}
		val = append(val, sv.Value...)
		ptr[i+1] = len(ind)
	}
	c, err := sparse.New(len(svs), d, ptr, ind, val)
	if err != nil { // validate checked the indices
		panic(fmt.Sprintf("model: support vectors: %v", err))
	}
	return c
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
	sv, sp := m.svMatrix()
	if sv == nil || n == 0 {
		for i := range out {
			out[i] = m.Bias
		}
		return out
	}
	m.eachBlock(X, norm, blockRowsFor(len(m.SupportVectors)), func(r0, r1 int, block mat.Matrix) {
		kb := m.kernelBlock(block, sv, sp) // (r1-r0)×nsv
		f := mat.NewVecDense(r1-r0, out[r0:r1])
		f.MulVec(kb, m.coef)
		for i := r0; i < r1; i++ {
			out[i] += m.Bias
		}
	})
	return out
}

// kernelBlock returns k(a_i, sv_j) for the rows of block: on the sparse
// route when sparse is set (LIBSVM's own, a scatter over the support
// vectors' nonzeros; on w8a's 300 binary features 20 times fewer
// operations), else one GEMM (Kernel.Cross).
func (m *Model) kernelBlock(block, sv mat.Matrix, sp *kernel.SparseCross) *mat.Dense {
	if sp == nil {
		return m.kern.Cross(block, sv)
	}
	r, _ := block.Dims()
	c, _ := sv.Dims()
	kb := mat.NewDense(r, c, nil)
	sp.Block(block, kb)
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
			pred = m.PredictClassesNormalized(d.Features())
		} else {
			pred = m.PredictClasses(d.Features())
		}
		return float64(correct(d.Class, pred)) / float64(d.Len())
	}
	var f []float64
	if normalized {
		f = m.DecisionNormalized(d.Features())
	} else {
		f = m.Decision(d.Features())
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
