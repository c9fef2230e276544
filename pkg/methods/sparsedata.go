package methods

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
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

// squaredDistances is kernel.SquaredDistances of the rows of X, dense
// rows unchanged; on compressed rows it is ‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩
// from the linear kernel's Gram matrix on the rows (pkg/kernel's route on
// compressed rows, O(Σ_k nnz_k²) work), clamped at 0 with a zero diagonal:
// an n×n matrix, and nothing of the n×d dense rows.
func squaredDistances(X mat.Matrix) *mat.SymDense {
	if _, ok := X.(*sparse.CSR); !ok {
		return kernel.SquaredDistances(X)
	}
	G := kernel.Linear{}.Gram(X)
	n := G.SymmetricDim()
	raw := G.RawSymmetric()
	h := make([]float64, n)
	for i := range n {
		h[i] = raw.Data[i*raw.Stride+i]
	}
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := range n {
			if j == i {
				row[j] = 0
				continue
			}
			row[j] = math.Max(0, h[i]+h[j]-2*row[j])
		}
	}
	return G
}

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
