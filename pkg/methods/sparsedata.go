package methods

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// The searches on sparse data (issue 46 stage 4). A training part held in
// compressed rows (dataio.Dataset.Sparse, a text-sized LIBSVM file) is
// never copied dense: the searches read its rows as train.Features(), and
// every kernel they ask of them (kernel.Rows, the bounded-memory route of
// cvGroup) takes pkg/kernel's route on compressed rows. The two places
// that need more than kernel columns, the squared distances of the dense
// CV route and the data keys of the memo and the checkpoints, read the
// non-zeros here.

// sparseRows returns the compressed rows of train, nil for dense data.
func sparseRows(train *dataio.Dataset) *sparse.CSR {
	if train == nil {
		return nil
	}
	return train.Sparse
}

// featuresKey starts a hash of the features of train: matKey of the dense
// rows (unchanged), or, for compressed rows, their shape and each row's
// non-zeros as (index, value) pairs after a tag that keeps the two kinds
// of key apart.
func featuresKey(train *dataio.Dataset) *hasher {
	sp := sparseRows(train)
	if sp == nil {
		return matKey(train.X)
	}
	h := newHasher()
	n, d := sp.Dims()
	h.u(0x637372).u(uint64(n)).u(uint64(d)) // "csr"
	for i := range n {
		ind, val := sp.Row(i)
		h.u(uint64(len(ind)))
		for p, k := range ind {
			h.u(uint64(k)).f(val[p])
		}
	}
	return h
}

// SparseError refuses a method (and parameterisation) that does not learn
// on data held in compressed rows: one whose parameters or arithmetic
// grow with the features past what compressed rows allow (a d×d metric,
// a gradient over dense rows, a kernel per feature that pkg/kernel does
// not compute on compressed rows). Features is the data's number of
// features, Limit the storage rule's (dataio.SparseMinFeatures: a LIBSVM
// file of fewer features is held dense, where every method runs), Why the
// method's reason and Runs the methods that do learn on sparse data
// (SparseMethods). Tune returns it before any work.
type SparseError struct {
	Method, Param string
	Features      int
	Limit         int
	Why           string
	Runs          []string
}

// ErrSparseData is wrapped by a *SparseError.
var ErrSparseData = errors.New("method does not learn on sparse data")

func (e *SparseError) Error() string { return e.Words().String() }

func (e *SparseError) Unwrap() error { return ErrSparseData }

// Words is the message of e, naming the storage setting that holds the
// rows dense and the methods that run as they are.
func (e *SparseError) Words() hint.Text {
	name := e.Method
	if e.Param != "" {
		name += " " + e.Param
	}
	return hint.T(fmt.Sprintf("%s does not learn on sparse data: the %d features are held in compressed rows (the storage rule holds a LIBSVM file of %d features or more, mostly zeros, so; or as asked), and %s; on sparse data these run: %s; or hold the rows dense (",
		name, e.Features, e.Limit, e.Why, strings.Join(e.Runs, ", ")), hint.S("storage", "dense"), ") where n×d values fit")
}

// sparseWhy returns "" when s learns on data held in compressed rows,
// else why not. The searches read kernel columns only (the isotropic
// Gaussian on compressed rows); bo:ard, bounded by BOARDMaxFeatures on
// any data, is refused; rcsc iso needs the squared distances and one γ. Any other Spec, a new
// method or a caller's own, is refused until it is built for compressed
// rows (TestSparseEveryMethod holds the list to the registry).
func sparseWhy(s Spec) string {
	switch s := s.(type) {
	case SVMSettings, RandomSettings, HalvingSettings:
		return ""
	case BOSettings:
		if s.param() == "iso" {
			return ""
		}
		return fmt.Sprintf("its Gaussian process models one γ per feature (at most %d features)", BOARDMaxFeatures)
	case RCSCSettings:
		if cmp.Or(s.Param, "iso") == "iso" {
			return ""
		}
		return "its gradient in one γ per feature reads the rows dense (n×d values)"
	case SPDSettings:
		if s.Param == "full" {
			return "its metric Q is d×d"
		}
		return "its gradient in the metric's diagonal reads the rows dense (n×d values)"
	case GISettings:
		return "its metric B is d×d in every parameterisation, the isotropic A (iso) too"
	case LCCPSettings:
		return "its L1 kernel (a θ per feature, or one θ) does not compute on compressed rows"
	case TwoLevelSettings:
		return "it scales every feature to [0,1], which shifts the zeros (a dense copy of the rows)"
	}
	return "it is not built for compressed rows"
}

// SparseMethods are the methods and parameterisations that learn on data
// held in compressed rows, as a SparseError lists them.
func SparseMethods() []string {
	var out []string
	for _, in := range All {
		var ps []string
		for _, p := range in.Params {
			if sparseWhy(in.build(p, "")) == "" {
				ps = append(ps, p)
			}
		}
		switch {
		case len(ps) == 0:
		case len(ps) == len(in.Params) && len(ps) == 1:
			out = append(out, in.Name)
		default:
			out = append(out, in.Name+" "+strings.Join(ps, "|"))
		}
	}
	return out
}

// CheckSparse returns the *SparseError Tune would return on train (held in
// compressed rows) before any work, nil when s learns on it or the data is
// dense.
func CheckSparse(s Spec, train *dataio.Dataset) error {
	if sparseRows(train) == nil {
		return nil
	}
	return checkSparseFeatures(s, train.Dim())
}

// checkSparseFeatures is CheckSparse on sparse data of d features.
func checkSparseFeatures(s Spec, d int) error {
	why := sparseWhy(s)
	if why == "" {
		return nil
	}
	return &SparseError{Method: s.Name(), Param: specParam(s), Features: d, Limit: dataio.SparseMinFeatures, Why: why, Runs: SparseMethods()}
}

// specParam returns the parameterisation of s as its settings hold it
// ("" for the default).
func specParam(s Spec) string {
	switch s := s.(type) {
	case SPDSettings:
		return cmp.Or(s.Param, "diag")
	case GISettings:
		return cmp.Or(s.Param, "auto")
	case LCCPSettings:
		return cmp.Or(s.Param, "multi")
	case RCSCSettings:
		return cmp.Or(s.Param, "iso")
	case BOSettings:
		return s.param()
	case TwoLevelSettings:
		return cmp.Or(s.Param, "iso")
	}
	return ""
}

// isCSR reports whether X is held in compressed rows.
func isCSR(X mat.Matrix) bool {
	_, ok := X.(*sparse.CSR)
	return ok
}

// spreadCSR returns Σ_i ‖x_i − x̄‖² of compressed rows, column by column:
// each column's stored values less its mean, and its n − nnz_k zeros,
// each mean² away; no dense copy. On rows far wider than their non-zeros
// (hashed features) the columns are those set only (spreadWideCSR), with
// the same sums in the same order.
func spreadCSR(X *sparse.CSR) float64 {
	n, d := X.Dims()
	if d > 2*X.NNZ()+65536 {
		return spreadWideCSR(X)
	}
	sum := make([]float64, d)
	for i := range n {
		ind, val := X.Row(i)
		for p, k := range ind {
			sum[k] += val[p]
		}
	}
	nnz := X.ColumnNNZ()
	var ss float64
	for i := range n {
		ind, val := X.Row(i)
		for p, k := range ind {
			m := sum[k] / float64(n)
			ss += (val[p] - m) * (val[p] - m)
		}
	}
	for k, s := range sum {
		m := s / float64(n)
		ss += float64(n-nnz[k]) * m * m
	}
	return ss
}

// spreadWideCSR is spreadCSR holding the features set only: each one's
// sum and count over the rows in order, and the last pass in ascending
// feature order, so every addition is spreadCSR's (a feature never set
// adds 0 there).
func spreadWideCSR(X *sparse.CSR) float64 {
	n, _ := X.Dims()
	col := make(map[int32]int)
	var sum []float64
	var cnt []int
	for i := range n {
		ind, val := X.Row(i)
		for p, k := range ind {
			c, ok := col[k]
			if !ok {
				c = len(sum)
				col[k] = c
				sum, cnt = append(sum, 0), append(cnt, 0)
			}
			sum[c] += val[p]
			cnt[c]++
		}
	}
	var ss float64
	for i := range n {
		ind, val := X.Row(i)
		for p, k := range ind {
			m := sum[col[k]] / float64(n)
			ss += (val[p] - m) * (val[p] - m)
		}
	}
	keys := slices.Sorted(maps.Keys(col))
	for _, k := range keys {
		c := col[k]
		m := sum[c] / float64(n)
		ss += float64(n-cnt[c]) * m * m
	}
	return ss
}

// SparseWidth returns the width, in float64 values a row, at which n dense
// rows take the bytes of n compressed rows holding nnz non-zeros
// (sparse.Bytes: 12 bytes a non-zero, 8 a row), at least 1: the d the
// memory estimates (PeakBytes, CheckMemory, MaxRows) read for sparse data
// (issue 46 stage 5). Their d counts the copies of the rows (as read,
// normalised, a method's subset, the kernel route's compressed rows and
// columns, the support vectors), each of which is a copy of the non-zeros
// on sparse data; the methods that run on it (CheckSparse) hold nothing
// else per feature. At 20,000 × 47,236 with 1.3 million non-zeros it is 99.
func SparseWidth(n int, nnz int64) int {
	if n <= 0 {
		return 1
	}
	b := sparse.Bytes(n, nnz)
	return max(1, int((b+fl*int64(n)-1)/(fl*int64(n))))
}

// MemWidth is the d the memory estimates read for train: its features, or
// SparseWidth of its compressed rows.
func MemWidth(train *dataio.Dataset) int {
	if sp := sparseRows(train); sp != nil {
		return SparseWidth(train.Len(), int64(sp.NNZ()))
	}
	return train.Dim()
}
