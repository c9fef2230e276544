package dataio

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
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
// training part (Scale 1), and it is listed in Constant (0-based indices).
// That is what svm-scale does too (it writes such features as 0). Kind
// "none" has Shift 0 and Scale 1 everywhere but still reports Constant.
// A Normalizer is JSON-serialisable: it travels with a saved model.
type Normalizer struct {
	Kind     string    `json:"kind"`
	Shift    []float64 `json:"shift"`
	Scale    []float64 `json:"scale"`
	Constant []int     `json:"constant,omitempty"`
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
	nz := &Normalizer{Kind: kind, Shift: make([]float64, d), Scale: make([]float64, d)}
	st := denseColumnStats(X, kind == ZScore)
	for j := 0; j < d; j++ {
		var lo, hi, mean float64
		if st != nil {
			lo, hi, mean = st.lo[j], st.hi[j], st.mean[j]
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
		shift, scale := 0.0, 1.0
		switch kind {
		case ZScore:
			shift, scale = mean, popStd(X, j, mean, columnSS(X, j, mean, st), lo, hi)
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
			return nil, fmt.Errorf("fit %s normaliser: feature %d ranges from %g to %g, a spread beyond float64: rescale it", kind, j+1, lo, hi)
		}
		if constant || scale == 0 {
			// Zero spread: shift only (MaxAbs: a constant column of
			// zeros stays as it is, another becomes 0).
			if kind != NoScale {
				shift = lo
			}
			scale = 1
			if constant {
				nz.Constant = append(nz.Constant, j)
			}
		}
		nz.Shift[j], nz.Scale[j] = shift, scale
	}
	return nz, nil
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
func (nz *Normalizer) Dim() int { return len(nz.Shift) }

// Validate checks a normaliser read back from a file.
func (nz *Normalizer) Validate() error {
	switch nz.Kind {
	case ZScore, MinMax01, MinMax11, MaxAbs, NoScale:
	default:
		return fmt.Errorf("check normaliser: unknown kind %q (want zscore, minmax01, minmax11, maxabs or none)", nz.Kind)
	}
	for _, j := range nz.Constant {
		if j < 0 || j >= len(nz.Shift) {
			return fmt.Errorf("check normaliser: constant feature index %d outside 0 to %d", j, len(nz.Shift)-1)
		}
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

// ApplyRow writes the normalised x into dst (which may be x). It panics if
// the lengths differ from Dim.
func (nz *Normalizer) ApplyRow(dst, x []float64) {
	if len(x) != len(nz.Shift) || len(dst) != len(x) {
		panic(fmt.Sprintf("dataio: normaliser of %d features applied to a row of %d into %d", len(nz.Shift), len(x), len(dst)))
	}
	for j, v := range x {
		dst[j] = (v - nz.Shift[j]) / nz.Scale[j]
	}
}

// Apply returns the normalised copy of X. It panics if X has a different
// number of columns.
func (nz *Normalizer) Apply(X mat.Matrix) *mat.Dense {
	if _, d := X.Dims(); d != len(nz.Shift) {
		panic(fmt.Sprintf("dataio: normaliser of %d features applied to %d columns", len(nz.Shift), d))
	}
	out := mat.DenseCopyOf(X)
	nz.applyInPlace(out)
	return out
}

// applyInPlace normalises the rows of X in place. It panics if X has a
// different number of columns.
func (nz *Normalizer) applyInPlace(X *mat.Dense) {
	n, d := X.Dims()
	if d != len(nz.Shift) {
		panic(fmt.Sprintf("dataio: normaliser of %d features applied to %d columns", len(nz.Shift), d))
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
// left as they are and normalised copies returned (ApplyDataset).
func Normalize(kind string, train, test *Dataset, owned bool) (*Dataset, *Dataset, *Normalizer, error) {
	norm, err := FitNormalizer(kind, train.X)
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

// applyOwned normalises d's features in place, for a d nobody else holds
// (a single fit's freshly read parts): the copy ApplyDataset makes is a fresh
// n × d matrix, which costs as much as parsing a small file on a machine
// where first touches of memory are slow. An identity normaliser leaves d as
// it is, which is exact: (x - 0)/1 is x.
func (nz *Normalizer) applyOwned(d *Dataset) {
	if d.X == nil {
		d.X = &mat.Dense{} // no rows, as ApplyDataset has it
	}
	if !d.X.IsEmpty() && !nz.Identity() {
		nz.applyInPlace(d.X)
	}
}

// ApplyDataset returns a copy of d with normalised features; d is unchanged.
// Labels (or their absence) are kept; a set without rows stays empty.
func (nz *Normalizer) ApplyDataset(d *Dataset) *Dataset {
	c := *d
	if d.X == nil || d.X.IsEmpty() {
		c.X = &mat.Dense{} // no rows (an empty Subset)
	} else {
		c.X = nz.Apply(d.X)
	}
	if d.Y != nil { // keep nil (no labels) apart from no rows
		c.Y = append(make([]float64, 0, len(d.Y)), d.Y...)
	}
	return &c
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
