package kernel

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Precomputed wraps a ready n×n kernel matrix as a Matrix. K is not copied:
// the caller must not change it while the Matrix is in use. A *mat.SymDense
// (what Gram returns) is read through its raw storage, any other Symmetric
// through At. The Matrix is read-only and safe for concurrent use.
func Precomputed(K mat.Symmetric) Matrix {
	n := K.SymmetricDim()
	if s, ok := K.(*mat.SymDense); ok && n > 0 {
		raw := upperRaw(s)
		return &precomputed{n: n, data: raw.Data, stride: raw.Stride}
	}
	return &precomputedSym{k: K, n: n}
}

// PrecomputedRows wraps the kernel matrix K as a Matrix whose columns are
// contiguous copies, as PrecomputedSquare's: it first copies K's upper
// triangle into the lower one of its raw storage, which a SymDense does not
// otherwise use (O(n²) once, about 0.3 s at n = 20,000). Precomputed reads
// half of every column down the upper triangle, a cache line per entry: at
// n = 20,000 that made an SMO column fetch cost about 1 ms. K is not
// copied; nothing may read or wrap K concurrently while PrecomputedRows
// runs, and K must not change while the Matrix is in use. The Matrix is
// read-only and safe for concurrent use.
//
// Up to rowsMinN rows it is Precomputed: the solver's default 200 MB cache
// then holds every column, each is read once per solve, and the mirror cost
// more than it saved (spd and gi at n = 5,000: 11% slower with it).
func PrecomputedRows(K *mat.SymDense) Matrix {
	raw := upperRaw(K)
	n := raw.N
	if n == 0 {
		return &square{}
	}
	if n <= rowsMinN {
		return &precomputed{n: n, data: raw.Data, stride: raw.Stride}
	}
	MirrorUpper(raw.Data, n, raw.Stride)
	return &square{n: n, data: raw.Data, stride: raw.Stride}
}

// rowsMinN is the largest n at which PrecomputedRows reads like Precomputed
// (a variable for the tests).
var rowsMinN = 5000

// MirrorUpper copies the upper triangle of the n×n row-major matrix in data
// (row stride stride) to its lower one, in 64×64 blocks, so both the reads
// down a column and the writes along a row stay within a few cache lines.
func MirrorUpper(data []float64, n, stride int) {
	const bs = 64
	for a0 := 0; a0 < n; a0 += bs {
		for b0 := a0; b0 < n; b0 += bs {
			for b := b0; b < min(b0+bs, n); b++ {
				row := data[b*stride:]
				for a := a0; a < min(a0+bs, b); a++ {
					row[a] = data[a*stride+b]
				}
			}
		}
	}
}

// PrecomputedSquare wraps a ready n×n symmetric kernel matrix stored in
// full, both triangles, as a Matrix. Column i is then row i of K, one
// contiguous copy, where Precomputed reads half of it down a column of the
// upper triangle (one cache line per entry): the cross-validation of the svm
// baseline, which serves every column of a fold's matrix to many solves,
// builds its matrices this way. K is not copied nor checked for symmetry; it
// panics unless K is square. Read-only and safe for concurrent use.
func PrecomputedSquare(K *mat.Dense) Matrix {
	r, c := K.Dims()
	if r != c {
		panic(fmt.Sprintf("kernel: PrecomputedSquare: %d×%d matrix is not square", r, c))
	}
	if r == 0 {
		return &square{}
	}
	raw := K.RawMatrix()
	return &square{n: r, data: raw.Data, stride: raw.Stride}
}

// square reads rows of a full row-major symmetric matrix.
type square struct {
	n      int
	data   []float64
	stride int
}

func (p *square) Len() int { return p.n }
func (p *square) Diag(i int) float64 {
	if i < 0 || i >= p.n {
		panic("kernel: Diag: index out of range")
	}
	return p.data[i*p.stride+i]
}

func (p *square) Column(i int, idx []int, dst []float64) {
	if i < 0 || i >= p.n {
		panic("kernel: Column: index out of range")
	}
	checkColumn(p.n, idx, dst)
	row := p.data[i*p.stride : i*p.stride+p.n]
	if idx == nil {
		copy(dst, row)
		return
	}
	for k, j := range idx {
		dst[k] = row[j]
	}
}

// StoredColumn returns row i of the matrix, which is column i (Stored).
func (p *square) StoredColumn(i int) []float64 {
	if i < 0 || i >= p.n {
		panic("kernel: StoredColumn: index out of range")
	}
	return p.data[i*p.stride : i*p.stride+p.n : i*p.stride+p.n]
}

// checkColumn panics unless Column(i, idx, dst) on an n×n Matrix is well
// formed: without idx, dst no longer than n; with idx, dst at least as long
// as idx.
func checkColumn(n int, idx []int, dst []float64) {
	if idx == nil {
		if len(dst) > n {
			panic("kernel: Column: dst longer than the matrix")
		}
		return
	}
	if len(dst) < len(idx) {
		panic("kernel: Column: dst shorter than idx")
	}
}

// precomputed reads the upper triangle of a row-major matrix.
type precomputed struct {
	n      int
	data   []float64
	stride int
}

func (p *precomputed) Len() int { return p.n }
func (p *precomputed) Diag(i int) float64 {
	if i < 0 || i >= p.n {
		panic("kernel: Diag: index out of range")
	}
	return p.data[i*p.stride+i]
}

func (p *precomputed) Column(i int, idx []int, dst []float64) {
	if i < 0 || i >= p.n {
		panic("kernel: Column: index out of range")
	}
	checkColumn(p.n, idx, dst)
	s := p.stride
	if idx == nil {
		m := len(dst)
		// K(i,j) = data[j*s+i] for j < i (upper triangle), data[i*s+j] for j ≥ i.
		lo := min(i, m)
		for j := 0; j < lo; j++ {
			dst[j] = p.data[j*s+i]
		}
		if m > i {
			copy(dst[i:m], p.data[i*s+i:i*s+m])
		}
		return
	}
	for k, j := range idx {
		if j < i {
			dst[k] = p.data[j*s+i]
		} else {
			dst[k] = p.data[i*s+j]
		}
	}
}

// precomputedSym reads any mat.Symmetric through At.
type precomputedSym struct {
	k mat.Symmetric
	n int
}

func (p *precomputedSym) Len() int           { return p.n }
func (p *precomputedSym) Diag(i int) float64 { return p.k.At(i, i) }
func (p *precomputedSym) Column(i int, idx []int, dst []float64) {
	checkColumn(p.n, idx, dst)
	if idx == nil {
		for j := range dst {
			dst[j] = p.k.At(i, j)
		}
		return
	}
	for k, j := range idx {
		dst[k] = p.k.At(i, j)
	}
}

// Shifted returns the matrix K + νI of m: the L2 soft margin (ν = 1/C,
// Chapelle et al. 2002; Schittkowski's ν) and the radius problem with that
// margin use it (docs/design.md "One SVM solver, several duals"). ν = 0 returns
// m itself. Like m, the result is safe for concurrent use if m is.
func Shifted(m Matrix, nu float64) Matrix {
	if nu == 0 {
		return m
	}
	if s, ok := m.(*shifted); ok {
		return &shifted{m: s.m, nu: s.nu + nu}
	}
	return &shifted{m: m, nu: nu}
}

type shifted struct {
	m  Matrix
	nu float64
}

func (s *shifted) Len() int           { return s.m.Len() }
func (s *shifted) EntryCost() int     { return entryCost(s.m) }
func (s *shifted) Diag(i int) float64 { return s.m.Diag(i) + s.nu }
func (s *shifted) Column(i int, idx []int, dst []float64) {
	s.m.Column(i, idx, dst)
	if idx == nil {
		if i < len(dst) {
			dst[i] += s.nu
		}
		return
	}
	for k, j := range idx {
		if j == i {
			dst[k] += s.nu
		}
	}
}

// Centred returns the matrix k̃(x_i,x_j) = k(x_i,x_j) - k(x_i,x_r) - k(x_j,x_r)
// + k(x_r,x_r), the kernel centred at the data point x_r (docs/design.md
// "Notation and kernel conventions"). For a conditionally positive definite
// kernel such as L1 the result is positive semidefinite, and on the feasible
// set yᵀα = 0 of an SVM dual (and Σβ = 1 of the radius problem) it gives the
// same objective values as m: α, D* and R² are unchanged, but the SVM bias
// shifts by Σ_j α_j y_j k(x_j, x_r). It computes column r of m once; like m,
// the result is safe for concurrent use if m is.
func Centred(m Matrix, r int) Matrix {
	n := m.Len()
	if r < 0 || r >= n {
		panic(fmt.Sprintf("kernel: Centred: centre %d out of range [0,%d)", r, n))
	}
	c := make([]float64, n)
	m.Column(r, nil, c)
	return &centred{m: m, c: c, crr: m.Diag(r)}
}

type centred struct {
	m   Matrix
	c   []float64 // K(·, r)
	crr float64   // K(r, r)
}

func (c *centred) Len() int       { return c.m.Len() }
func (c *centred) EntryCost() int { return entryCost(c.m) }

// entryCost is m's EntryCost, or 0 (do not split) when m is not Splittable.
func entryCost(m Matrix) int {
	if s, ok := m.(Splittable); ok {
		return s.EntryCost()
	}
	return 0
}
func (c *centred) Diag(i int) float64 {
	return c.m.Diag(i) - 2*c.c[i] + c.crr
}
func (c *centred) Column(i int, idx []int, dst []float64) {
	c.m.Column(i, idx, dst)
	a := c.c[i] - c.crr
	if idx == nil {
		for j := range dst {
			dst[j] -= a + c.c[j]
		}
		return
	}
	for k, j := range idx {
		dst[k] -= a + c.c[j]
	}
}
