// Package sparse holds the compressed sparse row (CSR) matrix that a dataset
// with many features and few non-zeros is kept in: text data (rcv1's 47,236
// features at about 60 non-zeros a row, news20's 1,355,191) cannot be held as
// a dense n×d matrix, and LIBSVM keeps only the non-zeros.
//
// It is a leaf package of its own, not part of pkg/dataio or pkg/kernel,
// because both sides of the seam need the type: dataio reads files into it,
// and the kernels, the solver's columns and the model's support vectors
// compute on it; neither may import the other (arch_test.go).
//
// A *CSR implements gonum's mat.Matrix (Dims, At, T), so it can travel where
// a matrix is asked for; At is a binary search within a row, so code that
// computes on the data type-switches on *CSR and reads Row instead.
package sparse

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// CSR is an r×c matrix in compressed sparse rows: row i's non-zeros are at
// columns Ind[Ptr[i]:Ptr[i+1]] (strictly ascending, 0-based) with values
// Val[Ptr[i]:Ptr[i+1]]. Explicit zeros are not stored by the constructors
// here, though a CSR holding some is still valid. The zero value is a 0×0
// matrix.
type CSR struct {
	r, c int
	Ptr  []int
	Ind  []int32
	Val  []float64
}

// ErrShape reports slices that do not make a CSR matrix.
var ErrShape = errors.New("sparse: malformed CSR")

// New returns the r×c CSR matrix of the given slices (not copied), after
// checking them: len(ptr) = r+1, ptr[0] = 0, ptr ascending, len(ind) =
// len(val) = ptr[r], each row's columns strictly ascending within [0, c).
func New(r, c int, ptr []int, ind []int32, val []float64) (*CSR, error) {
	if r < 0 || c < 0 || c > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d×%d", ErrShape, r, c)
	}
	if len(ptr) != r+1 || ptr[0] != 0 || ptr[r] != len(ind) || len(ind) != len(val) {
		return nil, fmt.Errorf("%w: %d row pointers for %d rows, %d indices, %d values", ErrShape, len(ptr), r, len(ind), len(val))
	}
	for i := 0; i < r; i++ {
		if ptr[i+1] < ptr[i] || ptr[i+1] > len(ind) {
			return nil, fmt.Errorf("%w: row pointer %d is %d after %d (of %d entries)", ErrShape, i+1, ptr[i+1], ptr[i], len(ind))
		}
	}
	for i := 0; i < r; i++ {
		prev := int32(-1)
		for _, k := range ind[ptr[i]:ptr[i+1]] {
			if k <= prev || int(k) >= c {
				return nil, fmt.Errorf("%w: row %d: column %d after %d (of %d)", ErrShape, i, k, prev, c)
			}
			prev = k
		}
	}
	return &CSR{r: r, c: c, Ptr: ptr, Ind: ind, Val: val}, nil
}

// FromDense returns the CSR form of m (its non-zeros). NaN is kept as a
// non-zero.
func FromDense(m mat.Matrix) *CSR {
	r, c := m.Dims()
	s := &CSR{r: r, c: c, Ptr: make([]int, r+1)}
	row := make([]float64, c)
	for i := 0; i < r; i++ {
		if d, ok := m.(mat.RawRowViewer); ok {
			row = d.RawRowView(i)
		} else {
			for j := range row {
				row[j] = m.At(i, j)
			}
		}
		for j, v := range row {
			if v != 0 {
				s.Ind = append(s.Ind, int32(j))
				s.Val = append(s.Val, v)
			}
		}
		s.Ptr[i+1] = len(s.Ind)
	}
	return s
}

// Dims returns the numbers of rows and columns (mat.Matrix).
func (m *CSR) Dims() (r, c int) { return m.r, m.c }

// At returns the element (i, j) (mat.Matrix); it panics out of range, as
// gonum's matrices do.
func (m *CSR) At(i, j int) float64 {
	if uint(i) >= uint(m.r) || uint(j) >= uint(m.c) {
		panic(mat.ErrIndexOutOfRange)
	}
	ind, val := m.Row(i)
	k := sort.Search(len(ind), func(p int) bool { return int(ind[p]) >= j })
	if k < len(ind) && int(ind[k]) == j {
		return val[k]
	}
	return 0
}

// T returns the transpose as gonum's implicit mat.Transpose (mat.Matrix).
func (m *CSR) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// Row returns row i's columns and values, sharing the matrix's storage.
func (m *CSR) Row(i int) (ind []int32, val []float64) {
	a, b := m.Ptr[i], m.Ptr[i+1]
	return m.Ind[a:b:b], m.Val[a:b:b]
}

// RowTo writes row i dense into dst (length c) and returns it; nil dst
// allocates.
func (m *CSR) RowTo(i int, dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, m.c)
	} else {
		clear(dst[:m.c])
	}
	ind, val := m.Row(i)
	for p, k := range ind {
		dst[k] = val[p]
	}
	return dst
}

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int {
	if m.r == 0 {
		return 0
	}
	return m.Ptr[m.r]
}

// Density returns the fraction of the r·c cells stored (0 for an empty
// matrix).
func (m *CSR) Density() float64 {
	if m.r == 0 || m.c == 0 {
		return 0
	}
	return float64(m.NNZ()) / (float64(m.r) * float64(m.c))
}

// Bytes returns the memory the matrix holds: 8 bytes a row pointer and 12 a
// stored entry (a 4-byte column and an 8-byte value).
func (m *CSR) Bytes() int64 { return Bytes(m.r, int64(m.NNZ())) }

// Bytes returns the memory of an r-row CSR matrix with nnz stored entries.
func Bytes(r int, nnz int64) int64 { return 8*int64(r+1) + 12*nnz }

// SelectRows returns a new CSR of the rows idx, in that order (copied).
func (m *CSR) SelectRows(idx []int) *CSR {
	nnz := 0
	for _, i := range idx {
		nnz += m.Ptr[i+1] - m.Ptr[i]
	}
	s := &CSR{r: len(idx), c: m.c, Ptr: make([]int, len(idx)+1), Ind: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
	for q, i := range idx {
		ind, val := m.Row(i)
		s.Ind = append(s.Ind, ind...)
		s.Val = append(s.Val, val...)
		s.Ptr[q+1] = len(s.Ind)
	}
	return s
}

// ToDense returns the matrix as a new dense matrix (r·c values: the caller
// bounds the size). A matrix with no rows or columns gives an empty
// mat.Dense.
func (m *CSR) ToDense() *mat.Dense {
	if m.r == 0 || m.c == 0 {
		return &mat.Dense{}
	}
	d := mat.NewDense(m.r, m.c, nil)
	for i := 0; i < m.r; i++ {
		m.RowTo(i, d.RawRowView(i))
	}
	return d
}

// ColumnMaxAbs returns max_i |m_ij| for each column j (0 for a column with
// no entries).
func (m *CSR) ColumnMaxAbs() []float64 {
	out := make([]float64, m.c)
	for p, k := range m.Ind[:m.NNZ()] {
		out[k] = math.Max(out[k], math.Abs(m.Val[p]))
	}
	return out
}

// ColumnNNZ returns the number of stored entries in each column.
func (m *CSR) ColumnNNZ() []int {
	out := make([]int, m.c)
	for _, k := range m.Ind[:m.NNZ()] {
		out[k]++
	}
	return out
}

// ScaleColumns multiplies each column j by s[j] in place (len(s) = c).
func (m *CSR) ScaleColumns(s []float64) {
	for p, k := range m.Ind[:m.NNZ()] {
		m.Val[p] *= s[k]
	}
}

// Dot returns the dot product of row i of a and row j of b, summed in
// ascending column order (so it is the same whichever row is asked first).
func Dot(a *CSR, i int, b *CSR, j int) float64 {
	ai, av := a.Row(i)
	bi, bv := b.Row(j)
	var s float64
	p, q := 0, 0
	for p < len(ai) && q < len(bi) {
		switch {
		case ai[p] < bi[q]:
			p++
		case ai[p] > bi[q]:
			q++
		default:
			s += av[p] * bv[q]
			p++
			q++
		}
	}
	return s
}

// RowSquaredNorms returns ‖row i‖² for each row, summed in ascending column
// order.
func (m *CSR) RowSquaredNorms() []float64 {
	out := make([]float64, m.r)
	for i := range out {
		_, val := m.Row(i)
		var s float64
		for _, v := range val {
			s += v * v
		}
		out[i] = s
	}
	return out
}
