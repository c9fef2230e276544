package model

// Rows of data held dense (*mat.Dense) or in compressed rows (*sparse.CSR,
// dataio.Dataset.Sparse), as the model computes on them: blocks of rows
// normalised into the form of its support vectors, subsets of rows, and
// the width a prediction's data is read at.

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// eachBlock calls f on the rows [r0, r1) of X, at most rows at a time and
// in order, normalised by norm (nil: as they are), in the form the model
// computes on: compressed rows for a sparse model (Sparse), dense rows
// otherwise. Dense X without a normaliser is passed as views (no copy);
// compressed rows made dense come at most blockBytes at a time.
func (m *Model) eachBlock(X mat.Matrix, norm *dataio.Normalizer, rows int, f func(r0, r1 int, block mat.Matrix)) {
	n, d := X.Dims()
	csr, isCSR := X.(*sparse.CSR)
	if m.Sparse {
		if norm != nil && norm.Identity() {
			norm = nil // (x - 0)/1 is x
		}
		for r0 := 0; r0 < n; r0 += rows {
			r1 := min(r0+rows, n)
			f(r0, r1, normalizedCSR(X, r0, r1, norm))
		}
		return
	}
	dense, isDense := X.(*mat.Dense)
	direct := norm == nil && isDense // blocks are views of X, no copy
	if isCSR {
		rows = min(rows, max(1, blockBytes/(8*max(d, 1))))
	}
	var buf *mat.Dense
	if !direct {
		buf = mat.NewDense(min(rows, n), d, nil)
	}
	for r0 := 0; r0 < n; r0 += rows {
		r1 := min(r0+rows, n)
		if direct {
			f(r0, r1, dense.Slice(r0, r1, 0, d))
			continue
		}
		b := buf.Slice(0, r1-r0, 0, d).(*mat.Dense)
		for i := r0; i < r1; i++ {
			dst := b.RawRowView(i - r0)
			switch {
			case isDense:
				copy(dst, dense.RawRowView(i))
			case isCSR:
				csr.RowTo(i, dst)
			default:
				mat.Row(dst, i, X)
			}
			if norm != nil {
				norm.ApplyRow(dst, dst)
			}
		}
		f(r0, r1, b)
	}
}

// normalizedCSR returns the rows [r0, r1) of X normalised by norm (nil:
// none) as compressed rows: compressed X by dataio's Normalizer.ApplyCSR
// ((v - shift)/scale of each stored value, as ApplyRow computes it, a
// shifted feature's value added to the rows that do not store it), dense X
// through each row's non-zeros.
func normalizedCSR(X mat.Matrix, r0, r1 int, norm *dataio.Normalizer) *sparse.CSR {
	_, d := X.Dims()
	if csr, ok := X.(*sparse.CSR); ok {
		idx := make([]int, r1-r0)
		for i := range idx {
			idx[i] = r0 + i
		}
		out := csr.SelectRows(idx)
		if norm != nil {
			out = norm.ApplyCSR(out)
		}
		return out
	}
	ptr := make([]int, 1, r1-r0+1)
	var ind []int32
	var val []float64
	row := make([]float64, d)
	for i := r0; i < r1; i++ {
		rowTo(X, i, row)
		if norm != nil {
			norm.ApplyRow(row, row)
		}
		for k, v := range row {
			if v != 0 {
				ind = append(ind, int32(k))
				val = append(val, v)
			}
		}
		ptr = append(ptr, len(ind))
	}
	out, err := sparse.New(r1-r0, d, ptr, ind, val)
	if err != nil {
		panic(fmt.Sprintf("model: %v", err)) // built in order above
	}
	return out
}

// rowTo writes row i of X into dst (length d).
func rowTo(X mat.Matrix, i int, dst []float64) {
	switch x := X.(type) {
	case *sparse.CSR:
		x.RowTo(i, dst)
	case *mat.Dense:
		copy(dst, x.RawRowView(i))
	default:
		mat.Row(dst, i, X)
	}
}

// normalizedRows returns all rows of X normalised by norm (nil: X itself):
// compressed rows for a sparse model, else dense.
func (m *Model) normalizedRows(X mat.Matrix, norm *dataio.Normalizer) mat.Matrix {
	if norm == nil {
		return X
	}
	n, d := X.Dims()
	if m.Sparse {
		if norm.Identity() {
			return X
		}
		return normalizedCSR(X, 0, n, norm)
	}
	Z := mat.NewDense(max(n, 1), d, nil)
	if n == 0 {
		return &mat.Dense{}
	}
	for i := 0; i < n; i++ {
		row := Z.RawRowView(i)
		rowTo(X, i, row)
		norm.ApplyRow(row, row)
	}
	return Z
}

// selectRows returns the rows idx of X (dense or compressed), copied, in
// the same form.
func selectRows(X mat.Matrix, idx []int) mat.Matrix {
	if s, ok := X.(*sparse.CSR); ok {
		return s.SelectRows(idx)
	}
	_, d := X.Dims()
	if len(idx) == 0 || d == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(len(idx), d, nil)
	for k, i := range idx {
		rowTo(X, i, out.RawRowView(k))
	}
	return out
}

// resizeCSR returns the compressed rows X with width columns: its own, then
// zeros (or only the first width).
func resizeCSR(X *sparse.CSR, width int) *sparse.CSR {
	n, _ := X.Dims()
	ptr := make([]int, n+1)
	ind := make([]int32, 0, X.NNZ())
	val := make([]float64, 0, X.NNZ())
	for i := 0; i < n; i++ {
		ri, rv := X.Row(i)
		for p, k := range ri {
			if int(k) < width {
				ind = append(ind, k)
				val = append(val, rv[p])
			}
		}
		ptr[i+1] = len(ind)
	}
	out, err := sparse.New(n, width, ptr, ind, val)
	if err != nil {
		panic(fmt.Sprintf("model: %v", err)) // X's rows, filtered
	}
	return out
}
