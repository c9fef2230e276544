package dataio

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// Normalizer kinds.
const (
	ZScore   = "zscore"   // (x - mean) / std, std with divisor n (as scikit-learn's StandardScaler)
	MinMax01 = "minmax01" // training range to [0, 1]
	MinMax11 = "minmax11" // training range to [-1, 1], as LIBSVM's svm-scale
	NoScale  = "none"     // identity: reproduces LIBSVM on a file already scaled by svm-scale
	MaxAbs   = "maxabs"   // x / max|x|, no shift: zeros stay zeros (scikit-learn's MaxAbsScaler, for sparse data)
	// Auto is the default: MaxAbs on sparse data (SparseData), ZScore
	// otherwise. A fitted Normalizer holds the kind it resolved to.
	Auto = "auto"
)

// NormalizerKinds lists the accepted kinds; the first is the default.
var NormalizerKinds = []string{Auto, ZScore, MinMax01, MinMax11, MaxAbs, NoScale}

// SparseZeroShare is the share of zero entries from which the default
// normalisation (Auto) treats data as sparse.
const SparseZeroShare = 0.5

// SparseData reports whether at least SparseZeroShare of X's entries are
// zero: data in LIBSVM's sparse habit (a1a 88% zeros, w8a 96%), not the
// dense UCI sets (heart_scale 4%).
//
// Why the default keeps such data sparse (issue 32): a z-score centres
// every 0/1 feature, so no entry stays zero, and divides each by its
// standard deviation, so that a category set in 1% of the rows weighs 10
// times a common one in every distance. The Gaussian kernel only sees
// differences, so the centring costs nothing by itself (the sparse route
// stores each column less its majority value); the scaling is another
// problem: on 32,561 Adult-like rows at C = 1, γ = 2⁻⁵ it took 33,578 SMO
// iterations and 22,851 support vectors against 12,188 and 11,441
// unscaled, 5 times the time. MaxAbs leaves 0/1 data as it is, as LIBSVM
// users train it, and maps other sparse data into [-1, 1] without moving a
// zero.
func SparseData(X mat.Matrix) bool {
	if X == nil || isEmptyDense(X) {
		return false
	}
	n, d := X.Dims()
	if m, ok := X.(*sparse.CSR); ok {
		// O(nnz): the cells not stored are zeros, and so are stored zeros.
		nonzeros := 0
		for _, v := range m.Val[:m.NNZ()] {
			if v != 0 {
				nonzeros++
			}
		}
		return float64(n)*float64(d)-float64(nonzeros) >= SparseZeroShare*float64(n)*float64(d)
	}
	zeros := 0
	if m, ok := X.(*mat.Dense); ok {
		raw := m.RawMatrix()
		for i := 0; i < n; i++ {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
				if v == 0 {
					zeros++
				}
			}
		}
	} else {
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				if X.At(i, j) == 0 {
					zeros++
				}
			}
		}
	}
	return float64(zeros) >= SparseZeroShare*float64(n)*float64(d)
}

// ResolveNormalizer returns the kind FitNormalizer fits for kind on X:
// "" and Auto become MaxAbs on sparse data and ZScore otherwise; any other
// kind is itself.
func ResolveNormalizer(kind string, X mat.Matrix) string {
	if kind != "" && kind != Auto {
		return kind
	}
	if SparseData(X) {
		return MaxAbs
	}
	return ZScore
}

// Normalizer is a per-feature affine map fitted on a training part and applied
// unchanged to any other data:
//
//	z_j = (x_j - Shift[j]) / Scale[j]
//
// A feature with zero spread on the training part (max = min) cannot be
// scaled: it is only shifted, by its training value, so it is 0 on the
// training part (Scale 1), and it is listed in Constant (0-based indices),
// unless the data are sparse and no training row sets it (text data's unset
// words: they stay 0 and say nothing).
// That is what svm-scale does too (it writes such features as 0). Kind
// "none" has Shift 0 and Scale 1 everywhere but still reports Constant.
// A Normalizer is JSON-serialisable: it travels with a saved model.
//
// A maxabs or none normaliser fitted on compressed rows (sparse.CSR) is
// held in its sparse form when fewer than a quarter of the features have
// an entry (sparseFormShare), O(features set) whatever the dimension (a
// hashed-feature file's 20 million features set by a few hundred
// thousand non-zeros): Shift and Scale are nil, Features is the dimension
// d, and Index lists the features (0-based, ascending) whose map is not
// the identity, with their shifts and scales in IndexShift and
// IndexScale; every other feature has shift 0 and scale 1 (a feature no
// training row sets, and one whose largest |value| is 1). Its numbers are
// those of the dense form. At and Dim read either form. In a file the
// sparse form writes no "shift" and "scale" (the dense form always does).
type Normalizer struct {
	Kind     string    `json:"kind"`
	Shift    []float64 `json:"shift,omitempty"`
	Scale    []float64 `json:"scale,omitempty"`
	Constant []int     `json:"constant,omitempty"`

	Features   int       `json:"features,omitempty"`
	Index      []int32   `json:"index,omitempty"`
	IndexShift []float64 `json:"index_shift,omitempty"`
	IndexScale []float64 `json:"index_scale,omitempty"`
}

// DenseForm returns nz in its dense form, Shift and Scale of every
// feature (nz itself when it is dense): O(d), for a caller that needs
// them all.
func (nz *Normalizer) DenseForm() *Normalizer {
	if !nz.IsSparseForm() {
		return nz
	}
	out := &Normalizer{Kind: nz.Kind, Shift: make([]float64, nz.Features), Scale: make([]float64, nz.Features), Constant: nz.Constant}
	for j := range out.Scale {
		out.Scale[j] = 1
	}
	for k, j := range nz.Index {
		out.Shift[j], out.Scale[j] = nz.IndexShift[k], nz.IndexScale[k]
	}
	return out
}

// IsSparseForm reports whether nz is held in its sparse form (Index,
// IndexShift, IndexScale over Features), not Shift and Scale.
func (nz *Normalizer) IsSparseForm() bool { return nz.Shift == nil && nz.Features > 0 }

// At returns the shift and scale of feature j (0-based) in either form.
func (nz *Normalizer) At(j int) (shift, scale float64) {
	if !nz.IsSparseForm() {
		return nz.Shift[j], nz.Scale[j]
	}
	if k, ok := slices.BinarySearch(nz.Index, int32(j)); ok {
		return nz.IndexShift[k], nz.IndexScale[k]
	}
	return 0, 1
}

// FitNormalizer fits a normaliser of the given kind ("" means zscore) on the
// rows of X. It fails on an unknown kind, an empty matrix, a NaN or infinite
// value, or a feature whose spread (max - min) exceeds float64, which no
// (x - shift)/scale can bring into range.
func FitNormalizer(kind string, X mat.Matrix) (*Normalizer, error) {
	switch kind {
	case "", Auto, ZScore, MinMax01, MinMax11, MaxAbs, NoScale:
	default:
		return nil, fmt.Errorf("unknown normalisation %q (want auto, zscore, minmax01, minmax11, maxabs or none)", kind)
	}
	kind = ResolveNormalizer(kind, X)
	n, d := 0, 0
	if X != nil && !isEmptyDense(X) {
		n, d = X.Dims()
	}
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("fit %s normaliser: %w", kind, ErrEmpty)
	}
	if m, ok := X.(*sparse.CSR); ok {
		return fitCSR(kind, m)
	}
	nz := &Normalizer{Kind: kind, Shift: make([]float64, d), Scale: make([]float64, d)}
	st := denseColumnStats(X, kind == ZScore)
	for j := 0; j < d; j++ {
		var lo, hi, mean float64
		if st != nil {
			lo, hi = st.lo[j], st.hi[j]
			if st.mean != nil {
				mean = st.mean[j]
			}
		} else {
			sum := 0.0
			lo, hi = math.Inf(1), math.Inf(-1)
			for i := 0; i < n; i++ {
				v := X.At(i, j)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("fit %s normaliser: row %d feature %d is %v", kind, i+1, j+1, v)
				}
				lo, hi = min(lo, v), max(hi, v)
				sum += v
			}
			mean = columnMean(X, j, sum)
		}
		ss := 0.0
		if kind == ZScore {
			ss = columnSS(X, j, mean, st)
		}
		f, err := fitFeature(kind, X, j, lo, hi, mean, ss, false)
		if err != nil {
			return nil, err
		}
		if f.listed {
			nz.Constant = append(nz.Constant, j)
		}
		nz.Shift[j], nz.Scale[j] = f.shift, f.scale
	}
	return nz, nil
}

// fitCSR is FitNormalizer of kind (resolved) on compressed rows, from the
// statistics of the features they store (csrColumnStats): every other
// feature is 0 in every row, which no kind scales or shifts (shift 0,
// scale 1) or lists as constant. A maxabs or none normaliser is the
// sparse form (Normalizer), O(features set), when few features have an
// entry (sparseFormShare); the kinds that shift make the dense form,
// O(d).
func fitCSR(kind string, m *sparse.CSR) (*Normalizer, error) {
	_, d := m.Dims()
	st, err := csrColumnStats(m, kind == ZScore)
	if err != nil {
		return nil, fmt.Errorf("fit %s normaliser: %w", kind, err)
	}
	nz := &Normalizer{Kind: kind}
	sparseForm := kind == MaxAbs || kind == NoScale
	if sparseForm {
		k := len(st.fi.cols)
		nz.Features = d
		nz.Index, nz.IndexShift, nz.IndexScale = make([]int32, 0, k), make([]float64, 0, k), make([]float64, 0, k)
	} else {
		nz.Shift, nz.Scale = make([]float64, d), make([]float64, d)
		for j := range nz.Scale {
			nz.Scale[j] = 1
		}
	}
	for c, j := range st.fi.cols {
		var mean, ss float64
		if st.mean != nil {
			mean, ss = st.mean[c], st.ss[c]
		}
		f, err := fitFeature(kind, m, int(j), st.lo[c], st.hi[c], mean, ss, true)
		if err != nil {
			return nil, err
		}
		if f.listed {
			nz.Constant = append(nz.Constant, int(j))
		}
		switch {
		case !sparseForm:
			nz.Shift[j], nz.Scale[j] = f.shift, f.scale
		case f.shift != 0 || f.scale != 1:
			nz.Index = append(nz.Index, j)
			nz.IndexShift = append(nz.IndexShift, f.shift)
			nz.IndexScale = append(nz.IndexScale, f.scale)
		}
	}
	if sparseForm && sparseFormShare*int64(len(nz.Index)) >= int64(d) {
		// Text data sets and scales much of its vocabulary (25,649 of
		// 47,236 words at 5,000 rows), where the dense form is as
		// small: it keeps that form, and the model files it had.
		return nz.DenseForm(), nil
	}
	return nz, nil
}

// sparseFormShare: a maxabs or none normaliser of compressed rows is held
// in its sparse form when fewer than one feature in sparseFormShare has
// an entry (a map other than the identity).
const sparseFormShare = 4

// fittedFeature is one feature's map: its shift and scale, and whether
// the normaliser lists it as constant.
type fittedFeature struct {
	shift, scale float64
	listed       bool
}

// fitFeature fits feature j of X (its extremes lo and hi, its mean and,
// for zscore, its sum of squares about the mean ss) for a normaliser of
// kind; isSparse says that X is sparse data (its features that no row
// sets are not listed as constant).
func fitFeature(kind string, X mat.Matrix, j int, lo, hi, mean, ss float64, isSparse bool) (fittedFeature, error) {
	shift, scale := 0.0, 1.0
	switch kind {
	case ZScore:
		shift, scale = mean, popStd(X, j, mean, ss, lo, hi)
	case MinMax01:
		shift, scale = lo, hi-lo
	case MinMax11:
		shift, scale = lo+(hi-lo)/2, (hi-lo)/2
	case MaxAbs:
		scale = max(math.Abs(lo), math.Abs(hi))
	}
	constant := hi == lo
	if !constant && kind != NoScale && (math.IsInf(scale, 0) || math.IsNaN(scale) || math.IsInf(shift, 0) || math.IsInf(max(hi-shift, shift-lo), 0)) {
		// Scaled values would be computed as (x - shift)/scale, which
		// overflows too: no finite normaliser exists in this form.
		return fittedFeature{}, fmt.Errorf("fit %s normaliser: feature %d ranges from %g to %g, a spread beyond float64: rescale it", kind, j+1, lo, hi)
	}
	listed := false
	if constant || scale == 0 {
		// Zero spread: shift only (MaxAbs: a constant column of
		// zeros stays as it is, another becomes 0).
		if kind != NoScale {
			shift = lo
		}
		scale = 1
		// A feature of sparse data that no row sets (lo = hi = 0) is
		// not listed: text data leaves most of its vocabulary unset in
		// a training part (31,443 of rcv1-like data's 47,236 words at
		// 2,000 rows), and listing them would fill every record and
		// model file with indices that say nothing.
		listed = constant && !(isSparse && lo == 0)
	}
	return fittedFeature{shift: shift, scale: scale, listed: listed}, nil
}

// columnSS returns Σ_i (X_ij - mean)², from st when it holds it.
func columnSS(X mat.Matrix, j int, mean float64, st *columnStats) float64 {
	if st != nil {
		return st.ss[j]
	}
	n, _ := X.Dims()
	ss := 0.0
	for i := 0; i < n; i++ {
		r := X.At(i, j) - mean
		ss += r * r
	}
	return ss
}

// columnMean is sum/n for column j of X, or, when the sum overflowed (the
// mean does not), the mean summed as Σ x_ij/n.
func columnMean(X mat.Matrix, j int, sum float64) float64 {
	n, _ := X.Dims()
	mean := sum / float64(n)
	if math.IsInf(mean, 0) {
		mean = 0
		for i := 0; i < n; i++ {
			mean += X.At(i, j) / float64(n)
		}
	}
	return mean
}

// columnStats are the per-column minima, maxima, means and (for z-scores)
// sums of squares about the means that FitNormalizer needs.
type columnStats struct {
	lo, hi, mean, ss []float64
}

// denseColumnStats computes FitNormalizer's column statistics in row-major
// passes over a *mat.Dense, each column's sums in the order of its rows, so
// every number is the one the column-by-column loop computes (through At,
// in strided order, that loop was most of a small file's normalisation).
// It returns nil for other matrices and when an entry is NaN or ±Inf, for
// the column loop to report the first one as it always has.
func denseColumnStats(X mat.Matrix, withSS bool) *columnStats {
	m, ok := X.(*mat.Dense)
	if !ok {
		return nil
	}
	raw := m.RawMatrix()
	n, d := raw.Rows, raw.Cols
	st := &columnStats{lo: make([]float64, d), hi: make([]float64, d), mean: make([]float64, d)}
	sum := make([]float64, d)
	for j := range d {
		st.lo[j], st.hi[j] = math.Inf(1), math.Inf(-1)
	}
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j, v := range row {
			st.lo[j], st.hi[j] = min(st.lo[j], v), max(st.hi[j], v)
			sum[j] += v
		}
	}
	for j := range d {
		// A NaN propagates to the sum and an infinity makes lo or hi
		// infinite.
		if math.IsNaN(sum[j]) || math.IsInf(st.lo[j], 0) || math.IsInf(st.hi[j], 0) {
			return nil
		}
		st.mean[j] = columnMean(X, j, sum[j])
	}
	if withSS {
		st.ss = make([]float64, d)
		for i := 0; i < n; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+d]
			for j, v := range row {
				r := v - st.mean[j]
				st.ss[j] += r * r
			}
		}
	}
	return st
}

// featureIndex maps each feature that a CSR matrix stores to its position
// among them: per-feature arrays of sparse data are kept for those
// features only, O(features set), not O(d) (a hashed-feature file has tens
// of millions of features, a few hundred thousand of them set).
type featureIndex struct {
	cols []int32 // the features stored (explicit zeros too), ascending
	// lut is feature → position in cols, when d is small beside the
	// non-zeros (a lookup is cheaper than a search there); else nil,
	// and pos searches cols.
	lut []int32
}

// lutMaxFeatures bounds the dimension d, beside the nnz non-zeros, up to
// which newFeatureIndex keeps a lookup table of d entries: at most
// lutPerNonZero·nnz + lutMinFeatures (text data's 47,236 words at 5,000
// rows have it; 67 million hashed features and 60,000 non-zeros do not).
const (
	lutPerNonZero  = 4
	lutMinFeatures = 1 << 16
)

func newFeatureIndex(m *sparse.CSR) featureIndex {
	_, d := m.Dims()
	ind := m.Ind[:m.NNZ()]
	if int64(d) <= lutPerNonZero*int64(len(ind))+lutMinFeatures {
		lut := make([]int32, d)
		for _, j := range ind {
			lut[j] = 1
		}
		var cols []int32
		for j, set := range lut {
			if set != 0 {
				lut[j] = int32(len(cols))
				cols = append(cols, int32(j))
			}
		}
		return featureIndex{cols: cols, lut: lut}
	}
	cols := slices.Clone(ind)
	slices.Sort(cols)
	return featureIndex{cols: slices.Clip(slices.Compact(cols))}
}

// pos is the position of the stored feature j in cols.
func (f featureIndex) pos(j int32) int {
	if f.lut != nil {
		return int(f.lut[j])
	}
	k, _ := slices.BinarySearch(f.cols, j)
	return k
}

// csrStats are csrColumnStats' statistics of the features a CSR matrix
// stores (fi.cols), each at its position there; every other feature is 0
// in every row (min = max = mean = ss = 0).
type csrStats struct {
	fi               featureIndex
	lo, hi, mean, ss []float64
}

// csrColumnStats computes FitNormalizer's column statistics of a CSR
// matrix in O(nnz + features set) (featureIndex): a column's extremes
// count its zeros when a row does not store it; with withMean its sum adds
// the stored values in the order of their rows (the zeros add nothing, so
// the sum is the dense loop's), and its sum of squares about the mean adds
// the stored residuals and (n - stored) times the square of the mean
// (another order of the same sum than the dense loop's). Without withMean
// (maxabs, none, minmax) mean and ss are nil. A NaN or infinite value is
// an error naming its row and feature.
func csrColumnStats(m *sparse.CSR, withMean bool) (*csrStats, error) {
	n, _ := m.Dims()
	fi := newFeatureIndex(m)
	k := len(fi.cols)
	st := &csrStats{fi: fi, lo: make([]float64, k), hi: make([]float64, k)}
	stored := make([]int32, k)
	var sum []float64
	if withMean {
		sum = make([]float64, k)
	}
	for c := range k {
		st.lo[c], st.hi[c] = math.Inf(1), math.Inf(-1)
	}
	for i := 0; i < n; i++ {
		ind, val := m.Row(i)
		for p, j := range ind {
			v := val[p]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("row %d feature %d is %v", i+1, j+1, v)
			}
			c := fi.pos(j)
			st.lo[c], st.hi[c] = min(st.lo[c], v), max(st.hi[c], v)
			stored[c]++
			if sum != nil {
				sum[c] += v
			}
		}
	}
	for c := range k {
		if int(stored[c]) < n {
			st.lo[c], st.hi[c] = min(st.lo[c], 0), max(st.hi[c], 0)
		}
	}
	if !withMean {
		return st, nil
	}
	st.mean = make([]float64, k)
	for c, j := range fi.cols {
		st.mean[c] = columnMean(m, int(j), sum[c])
	}
	st.ss = make([]float64, k)
	for i := 0; i < n; i++ {
		ind, val := m.Row(i)
		for p, j := range ind {
			c := fi.pos(j)
			r := val[p] - st.mean[c]
			st.ss[c] += r * r
		}
	}
	for c := range k {
		st.ss[c] += float64(n-int(stored[c])) * st.mean[c] * st.mean[c]
	}
	return st, nil
}

// tinyResidual is the largest residual |x - mean| of a column below which
// popStd sums scaled squares: the squares of residuals of about 2^-256 and
// below come near float64's subnormals (below 2^-1022), where they lose
// their digits and, under about 1e-162, vanish: a column whose values all lay
// below that had a variance of 0, was left unscaled and carried nothing.
const tinyResidual = 0x1p-256

// popStd returns sqrt(Σ_i (X_ij - mean)² / n), the population standard
// deviation of column j (lo and hi its extremes), given ss, that sum
// computed directly. When the squares may have left float64's normal range
// (ss overflowed, for |x| beyond about 1e154, or the largest residual is
// below tinyResidual) it sums the squares of the residuals scaled by a power
// of two, 2^-e, which scales exactly, and scales the root back by 2^e: tiny
// and huge columns get the digits an ordinary one gets. An ordinary column's
// deviation is the direct sum's, bit for bit.
func popStd(X mat.Matrix, j int, mean, ss, lo, hi float64) float64 {
	n, _ := X.Dims()
	m := max(hi-mean, mean-lo)
	if !math.IsInf(ss, 0) && !(m > 0 && m < tinyResidual) {
		return math.Sqrt(ss / float64(n))
	}
	if math.IsInf(m, 0) { // residuals beyond float64: scale the values, then subtract
		m = max(math.Abs(lo), math.Abs(hi))
	}
	_, e := math.Frexp(m)
	sm := math.Ldexp(mean, -e)
	ss = 0
	for i := 0; i < n; i++ {
		r := math.Ldexp(X.At(i, j), -e) - sm
		ss += r * r
	}
	return math.Ldexp(math.Sqrt(ss/float64(n)), e)
}

func isEmptyDense(X mat.Matrix) bool {
	if d, ok := X.(*mat.Dense); ok {
		return d.IsEmpty()
	}
	return false
}

// Dim returns the number of features the normaliser expects.
func (nz *Normalizer) Dim() int {
	if nz.IsSparseForm() {
		return nz.Features
	}
	return len(nz.Shift)
}

// Validate checks a normaliser read back from a file.
func (nz *Normalizer) Validate() error {
	switch nz.Kind {
	case ZScore, MinMax01, MinMax11, MaxAbs, NoScale:
	default:
		return fmt.Errorf("check normaliser: unknown kind %q (want zscore, minmax01, minmax11, maxabs or none)", nz.Kind)
	}
	for _, j := range nz.Constant {
		if j < 0 || j >= nz.Dim() {
			return fmt.Errorf("check normaliser: constant feature index %d outside 0 to %d", j, nz.Dim()-1)
		}
	}
	if nz.IsSparseForm() {
		return nz.validateSparseForm()
	}
	if nz.Index != nil || nz.IndexShift != nil || nz.IndexScale != nil || nz.Features != 0 {
		return fmt.Errorf("check normaliser: %d shifts and sparse-form entries besides them", len(nz.Shift))
	}
	if len(nz.Shift) != len(nz.Scale) {
		return fmt.Errorf("check normaliser: %d shifts but %d scales", len(nz.Shift), len(nz.Scale))
	}
	for j := range nz.Shift {
		if s := nz.Scale[j]; !(s > 0) || math.IsInf(s, 0) || math.IsNaN(nz.Shift[j]) || math.IsInf(nz.Shift[j], 0) {
			return fmt.Errorf("check normaliser: feature %d has shift %v, scale %v", j+1, nz.Shift[j], s)
		}
	}
	return nil
}

// validateSparseForm checks a normaliser in its sparse form.
func (nz *Normalizer) validateSparseForm() error {
	if nz.Scale != nil {
		return fmt.Errorf("check normaliser: scales without shifts")
	}
	if len(nz.IndexShift) != len(nz.Index) || len(nz.IndexScale) != len(nz.Index) {
		return fmt.Errorf("check normaliser: %d features indexed but %d shifts and %d scales", len(nz.Index), len(nz.IndexShift), len(nz.IndexScale))
	}
	for k, j := range nz.Index {
		if j < 0 || int(j) >= nz.Features || (k > 0 && j <= nz.Index[k-1]) {
			return fmt.Errorf("check normaliser: indexed feature %d (entry %d) is not ascending within 0 to %d", j, k+1, nz.Features-1)
		}
		if s, sh := nz.IndexScale[k], nz.IndexShift[k]; !(s > 0) || math.IsInf(s, 0) || math.IsNaN(sh) || math.IsInf(sh, 0) {
			return fmt.Errorf("check normaliser: feature %d has shift %v, scale %v", j+1, sh, s)
		}
	}
	return nil
}

// ApplyRow writes the normalised x into dst (which may be x). It panics if
// the lengths differ from Dim.
func (nz *Normalizer) ApplyRow(dst, x []float64) {
	if len(x) != nz.Dim() || len(dst) != len(x) {
		panic(fmt.Sprintf("dataio: normaliser of %d features applied to a row of %d into %d", nz.Dim(), len(x), len(dst)))
	}
	if nz.IsSparseForm() {
		// (v - 0)/1 is v: only the indexed features change.
		copy(dst, x)
		for k, j := range nz.Index {
			dst[j] = (x[j] - nz.IndexShift[k]) / nz.IndexScale[k]
		}
		return
	}
	for j, v := range x {
		dst[j] = (v - nz.Shift[j]) / nz.Scale[j]
	}
}

// Apply returns the normalised copy of X. It panics if X has a different
// number of columns.
func (nz *Normalizer) Apply(X mat.Matrix) *mat.Dense {
	if _, d := X.Dims(); d != nz.Dim() {
		panic(fmt.Sprintf("dataio: normaliser of %d features applied to %d columns", nz.Dim(), d))
	}
	out := mat.DenseCopyOf(X)
	nz.applyInPlace(out)
	return out
}

// applyInPlace normalises the rows of X in place. It panics if X has a
// different number of columns.
func (nz *Normalizer) applyInPlace(X *mat.Dense) {
	n, d := X.Dims()
	if d != nz.Dim() {
		panic(fmt.Sprintf("dataio: normaliser of %d features applied to %d columns", nz.Dim(), d))
	}
	raw := X.RawMatrix()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		nz.ApplyRow(row, row)
	}
}

// Identity reports whether nz maps every value to itself (kind "none", or
// any fit that came out as shift 0 and scale 1 everywhere).
func (nz *Normalizer) Identity() bool {
	if nz.IsSparseForm() {
		return len(nz.Index) == 0 // every entry is a shift ≠ 0 or a scale ≠ 1
	}
	for j, s := range nz.Shift {
		if s != 0 || nz.Scale[j] != 1 {
			return false
		}
	}
	return true
}

// Normalize fits the normaliser of kind (FitNormalizer) on train's
// features and applies it to train and test (nil: none): the one place a
// training part's normaliser is fitted, for a comparison's job and a
// single fit alike. With owned the parts are the caller's own, nobody
// else's, and are normalised in place (applyOwned); otherwise they are
// left as they are and normalised copies returned (ApplyDataset). Sparse
// data is normalised as NormalizeWithin does with no bound but the limit
// of dense data.
func Normalize(kind string, train, test *Dataset, owned bool) (*Dataset, *Dataset, *Normalizer, error) {
	return NormalizeWithin(kind, train, test, owned, DenseBound{})
}

// DenseBound bounds the dense matrices NormalizeWithin may make of sparse
// data: MaxCells values (0: the limit of dense data, ReadOptions.MaxCells'
// default) and, when MemBytes > 0, three copies of them within MemBytes
// (as a dense file's read is bounded: ReadOptions.MemBytes).
type DenseBound struct {
	MaxCells int
	MemBytes int64
}

// DensifyError is a normalisation that shifts the features (Kind: zscore,
// minmax01, minmax11) asked of sparse data too large to hold dense: a
// shift moves every zero, so the Rows × Features result is dense, and
// Cells values (Need bytes, three copies) exceed MaxCells or the memory
// bound Bound (0: none). maxabs and none keep the zeros and the
// compressed rows.
type DensifyError struct {
	Kind            string
	Rows, Features  int
	Cells, MaxCells int64
	Need, Bound     int64
}

func (e *DensifyError) Error() string { return e.Words().String() }

// Words is the message of e, naming the normalisations that keep sparse
// data sparse.
func (e *DensifyError) Words() hint.Text { return e.Within("the memory bound of " + mbText(e.Bound)) }

// Within is Words with the memory bound named as within (a command line
// names its flag); the limit of dense data, when it is what was
// exceeded, is named as it is.
func (e *DensifyError) Within(within string) hint.Text {
	limit := fmt.Sprintf("more than the limit of %d values of dense data", e.MaxCells)
	if e.Cells <= e.MaxCells {
		limit = fmt.Sprintf("about %s, more than fits in %s", mbText(e.Need), within)
	}
	return hint.T(fmt.Sprintf("%s normalisation shifts every feature, so no zero stays zero: the %d rows × %d features of sparse data would become %d dense values, %s; keep the data sparse with ",
		e.Kind, e.Rows, e.Features, e.Cells, limit), hint.S("normalize", MaxAbs), " (x / max|x| per feature, zeros stay zeros) or ", hint.S("normalize", NoScale))
}

// NormalizeWithin is Normalize bounding what sparse data may become. On
// sparse training data (Dataset.Sparse) maxabs and none (and auto, which
// is maxabs on sparse data: SparseData) are fitted and applied on the
// compressed rows in O(non-zeros + features), and the parts stay sparse;
// zscore, minmax01 and minmax11, which shift every feature, densify both
// parts first when the dense result fits bound (the same numbers as the
// file read dense), else they are a *DensifyError.
func NormalizeWithin(kind string, train, test *Dataset, owned bool, bound DenseBound) (*Dataset, *Dataset, *Normalizer, error) {
	if train.Sparse != nil {
		switch k := ResolveNormalizer(kind, train.Sparse); k {
		case MaxAbs, NoScale:
		case ZScore, MinMax01, MinMax11:
			var err error
			if train, test, err = densify(k, train, test, bound); err != nil {
				return nil, nil, nil, err
			}
			owned = true
		}
	}
	norm, err := FitNormalizer(kind, train.Features())
	if err != nil {
		return nil, nil, nil, err
	}
	if owned {
		norm.applyOwned(train)
		if test != nil {
			norm.applyOwned(test)
		}
		return train, test, norm, nil
	}
	train = norm.ApplyDataset(train)
	if test != nil {
		test = norm.ApplyDataset(test)
	}
	return train, test, norm, nil
}

// densify returns dense copies of the sparse parts train and test (nil:
// none) for a normalisation of kind that shifts, or a *DensifyError when
// they do not fit bound.
func densify(kind string, train, test *Dataset, bound DenseBound) (*Dataset, *Dataset, error) {
	rows, d := train.Dims()
	if test != nil {
		rows += test.Len()
	}
	maxCells := int64(cmpOr(bound.MaxCells, defaultMaxCells))
	cells := int64(rows) * int64(d)
	need := copiesOfData * denseValBytes * cells
	if cells > maxCells || (bound.MemBytes > 0 && need > bound.MemBytes) {
		return nil, nil, &DensifyError{Kind: kind, Rows: rows, Features: d, Cells: cells, MaxCells: maxCells, Need: need, Bound: bound.MemBytes}
	}
	dense := func(p *Dataset) *Dataset {
		if p == nil || p.Sparse == nil {
			return p
		}
		c := *p
		c.X, c.Sparse = p.Sparse.ToDense(), nil
		return &c
	}
	return dense(train), dense(test), nil
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// applyOwned normalises d's features in place, for a d nobody else holds
// (a single fit's freshly read parts): the copy ApplyDataset makes is a fresh
// n × d matrix, which costs as much as parsing a small file on a machine
// where first touches of memory are slow. An identity normaliser leaves d as
// it is, which is exact: (x - 0)/1 is x. Sparse data is normalised in
// place when nz shifts no feature (maxabs, none), else replaced by
// ApplyCSR's copy.
func (nz *Normalizer) applyOwned(d *Dataset) {
	if d.Sparse != nil {
		switch {
		case nz.Identity():
		case nz.shifted() == nil:
			nz.scaleCSR(d.Sparse)
		default:
			d.Sparse = nz.ApplyCSR(d.Sparse)
		}
		return
	}
	if d.X == nil {
		d.X = &mat.Dense{} // no rows, as ApplyDataset has it
	}
	if !d.X.IsEmpty() && !nz.Identity() {
		nz.applyInPlace(d.X)
	}
}

// ApplyDataset returns a copy of d with normalised features; d is unchanged.
// Labels (or their absence) are kept; a set without rows stays empty.
// Sparse data stays sparse (ApplyCSR).
func (nz *Normalizer) ApplyDataset(d *Dataset) *Dataset {
	c := *d
	switch {
	case d.Sparse != nil:
		c.Sparse = nz.ApplyCSR(d.Sparse)
	case d.X == nil || d.X.IsEmpty():
		c.X = &mat.Dense{} // no rows (an empty Subset)
	default:
		c.X = nz.Apply(d.X)
	}
	if d.Y != nil { // keep nil (no labels) apart from no rows
		c.Y = append(make([]float64, 0, len(d.Y)), d.Y...)
	}
	return &c
}

// shifted returns the features nz shifts (Shift ≠ 0), ascending; nil when
// it shifts none (maxabs but for a constant non-zero feature, none).
func (nz *Normalizer) shifted() []int32 {
	var out []int32
	if nz.IsSparseForm() {
		for k, j := range nz.Index {
			if nz.IndexShift[k] != 0 {
				out = append(out, j)
			}
		}
		return out
	}
	for j, s := range nz.Shift {
		if s != 0 {
			out = append(out, int32(j))
		}
	}
	return out
}

// scaleCSR normalises the stored values of m in place, for a normaliser
// that shifts no feature: (v - 0) / Scale[j], the dense map's numbers.
func (nz *Normalizer) scaleCSR(m *sparse.CSR) {
	if nz.IsSparseForm() {
		lut := nz.lookup()
		for p, j := range m.Ind[:m.NNZ()] {
			if k, ok := lut.at(j); ok {
				m.Val[p] = (m.Val[p] - nz.IndexShift[k]) / nz.IndexScale[k]
			}
		}
		return
	}
	for p, j := range m.Ind[:m.NNZ()] {
		m.Val[p] = (m.Val[p] - nz.Shift[j]) / nz.Scale[j]
	}
}

// ApplyCSR returns the normalised copy of the sparse matrix m, in
// compressed rows: each stored value v of feature j becomes (v -
// Shift[j]) / Scale[j], the values that become 0 are left out, and a
// feature nz shifts gets its -Shift[j]/Scale[j] in every row that does not
// store it. It takes O(nnz + d) for a normaliser that shifts no feature
// (maxabs, none), and adds a value per row for each feature shifted (a
// maxabs normaliser shifts only a feature constant and non-zero on its
// training part; a zscore or minmax one makes m dense: fit those on dense
// data). It panics if m has a different number of columns.
func (nz *Normalizer) ApplyCSR(m *sparse.CSR) *sparse.CSR {
	r, d := m.Dims()
	if d != nz.Dim() {
		panic(fmt.Sprintf("dataio: normaliser of %d features applied to %d columns", nz.Dim(), d))
	}
	sh := nz.shifted()
	lut := nz.lookup()
	ptr := make([]int, r+1)
	ind := make([]int32, 0, m.NNZ()+r*len(sh))
	val := make([]float64, 0, m.NNZ()+r*len(sh))
	put := func(j int32, v float64) {
		shift, scale := 0.0, 1.0
		if lut.sparseForm {
			if k, ok := lut.at(j); ok {
				shift, scale = nz.IndexShift[k], nz.IndexScale[k]
			}
		} else {
			shift, scale = nz.Shift[j], nz.Scale[j]
		}
		if z := (v - shift) / scale; z != 0 {
			ind = append(ind, j)
			val = append(val, z)
		}
	}
	for i := 0; i < r; i++ {
		ri, rv := m.Row(i)
		q := 0
		for p, j := range ri {
			for q < len(sh) && sh[q] < j {
				put(sh[q], 0)
				q++
			}
			if q < len(sh) && sh[q] == j {
				q++
			}
			put(j, rv[p])
		}
		for ; q < len(sh); q++ {
			put(sh[q], 0)
		}
		ptr[i+1] = len(ind)
	}
	out, err := sparse.New(r, d, ptr, ind, val)
	if err != nil {
		panic(err) // unreachable: the rows stay ascending
	}
	return out
}

// indexLookup finds a sparse-form normaliser's entry of a feature: by a
// table of its features when they are dense enough (Features at most
// lutPerNonZero times the entries, plus lutMinFeatures), else by binary
// search in Index.
type indexLookup struct {
	sparseForm bool
	index      []int32
	lut        []int32 // feature → entry + 1, 0 for none; nil: search
}

func (nz *Normalizer) lookup() indexLookup {
	if !nz.IsSparseForm() {
		return indexLookup{}
	}
	l := indexLookup{sparseForm: true, index: nz.Index}
	if int64(nz.Features) <= lutPerNonZero*int64(len(nz.Index))+lutMinFeatures {
		l.lut = make([]int32, nz.Features)
		for k, j := range nz.Index {
			l.lut[j] = int32(k + 1)
		}
	}
	return l
}

// at is the entry of feature j, and whether it has one.
func (l indexLookup) at(j int32) (int, bool) {
	if l.lut != nil {
		k := int(l.lut[j]) - 1
		return k, k >= 0
	}
	return slices.BinarySearch(l.index, j)
}

// WithinUnitRange reports whether every value of X lies in [-1, 1]: data
// as svm-scale leaves it (its default range [-1, 1], or [0, 1] with -l 0),
// like the *_scale files of LIBSVM's data page, which LIBSVM's users train
// as they are. An empty X is not.
func WithinUnitRange(X mat.Matrix) bool {
	if X == nil || isEmptyDense(X) {
		return false
	}
	n, d := X.Dims()
	if m, ok := X.(*sparse.CSR); ok { // the zeros are within it
		if n == 0 || d == 0 {
			return false
		}
		for _, v := range m.Val[:m.NNZ()] {
			if !(v >= -1 && v <= 1) {
				return false
			}
		}
		return true
	}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if v := X.At(i, j); !(v >= -1 && v <= 1) {
				return false
			}
		}
	}
	return true
}

// Space words are a normalisation kind as a LIBSVM user reads it: what the
// features a kernel's parameters (γ, Q, θ) act on are, given the kind of
// the normaliser fitted on the training part (Normalizer.Kind; "" for a
// model or record that does not say). With NoScale they are the file's
// features as given, so γ is svm-train's -g on that file; with any other
// kind they are not the file's values, and svm-train reproduces the model
// only on data mapped the same way (the LIBSVM export's range file for
// svm-scale -r).
func SpaceWords(kind string) string {
	switch kind {
	case ZScore:
		return "z-scored features (kerneltune's normalisation), not the file's values"
	case MinMax01:
		return "features scaled to [0, 1] (kerneltune's normalisation), not the file's values"
	case MinMax11:
		return "features scaled to [-1, 1] (kerneltune's normalisation), not the file's values"
	case MaxAbs:
		return "features over their largest |value| (kerneltune's normalisation), not the file's values"
	case NoScale:
		return "the file's features as given (svm-train's -g on the same file)"
	}
	return ""
}
