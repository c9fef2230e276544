package kernel

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// Packed is a symmetric n×n matrix held by its upper triangle, row by row
// (row i: the entries (i, i), (i, i+1), …, (i, n-1)): n(n+1)/2 values
// instead of n², half the memory of a mat.SymDense. The squared distances
// of a multi-class search are held so (SquaredDistancesPacked): at 7,000
// rows 196 MB instead of 392 MB.
type Packed struct {
	n     int
	data  []float64
	start []int // start[i]: the index of (i, i) in data
}

// newPacked returns a zero n×n Packed.
func newPacked(n int) *Packed {
	p := &Packed{n: n, data: make([]float64, n*(n+1)/2), start: make([]int, n)}
	for i := range p.start {
		p.start[i] = i*n - i*(i-1)/2
	}
	return p
}

// Dim returns n.
func (p *Packed) Dim() int { return p.n }

// At returns entry (i, j), either triangle.
func (p *Packed) At(i, j int) float64 {
	if i > j {
		i, j = j, i
	}
	return p.data[p.start[i]+j-i]
}

// Row returns the entries (i, j) of row i for j ≥ i: Row(i)[j-i] is (i, j).
func (p *Packed) Row(i int) []float64 {
	s := p.start[i]
	return p.data[s : s+p.n-i : s+p.n-i]
}

// MedianOffDiag returns the median of the entries (i, j), i < j, as
// MedianOffDiag of the same matrix held in full (NaN when n < 2 or an entry
// is NaN).
func (p *Packed) MedianOffDiag() float64 {
	lo, hi, ok := middleOfRows(p.n, func(f func(row []float64)) {
		for i := 0; i < p.n-1; i++ {
			f(p.Row(i)[1:])
		}
	})
	if !ok {
		return math.NaN()
	}
	return (lo + hi) / 2
}

// SquaredDistancesPacked is SquaredDistances held packed: the same entries,
// to the last bit (the same tiles of the same SYRK and GEMM calls, each
// computed into a tile's buffer and its upper part kept; on compressed
// rows the same columns of the linear kernel, one row at a time), without
// the n×n matrix at any time.
func SquaredDistancesPacked(X mat.Matrix) *Packed {
	if s, ok := X.(*sparse.CSR); ok {
		return squaredDistancesCSRPacked(s)
	}
	xc, n, d := centredRows(X)
	h := rowNorms2Half(xc, n, d)
	p := newPacked(n)
	if n == 0 {
		return p
	}
	impl := blas64.Implementation()
	ts := upperTiles(n)
	nw := workers(n * n / 2)
	bufs := newBuffers(nw, tileSize*tileSize)
	parallelFor(len(ts), nw, func(k int) {
		t := ts[k]
		mi, mj := t.i1-t.i0, t.j1-t.j0
		buf := bufs.get()
		c := buf[:mi*mj]
		clear(c)
		if d > 0 {
			if t.i0 == t.j0 {
				impl.Dsyrk(blas.Upper, blas.NoTrans, mi, d, 1, xc[t.i0*d:], d, 0, c, mj)
			} else {
				impl.Dgemm(blas.NoTrans, blas.Trans, mi, mj, d, 1, xc[t.i0*d:], d, xc[t.j0*d:], d, 0, c, mj)
			}
		}
		// SquaredDistances' finish, on the tile's own indices.
		for i := t.i0; i < t.i1; i++ {
			row := c[(i-t.i0)*mj:]
			j0 := max(t.j0, i)
			out := p.Row(i)[j0-i:]
			for j := j0; j < t.j1; j++ {
				if j == i {
					out[0] = 0
					continue
				}
				out[j-j0] = math.Max(0, 2*(h[i]+h[j]-row[j-t.j0]))
			}
		}
		bufs.put(buf)
	})
	return p
}

// squaredDistancesCSRPacked is SquaredDistancesPacked on compressed rows:
// squaredDistancesCSR's entries from the linear kernel's columns, one row
// of the upper triangle at a time.
func squaredDistancesCSRPacked(X *sparse.CSR) *Packed {
	r := rowsCSR(Linear{}, X).(*sparseRows)
	n := r.n
	p := newPacked(n)
	h := make([]float64, n) // ‖x_i‖², summed as the column's own entry
	for i := range n {
		var s float64
		_, val := X.Row(i) // the linear kernel's route: the values as stored, 0s skipped
		for _, v := range val {
			if v != 0 {
				s += v * v
			}
		}
		h[i] = s
	}
	nw := workers(n * n / 2)
	bufs := newBuffers(nw, n)
	parallelFor(n, nw, func(i int) {
		col := bufs.get()
		r.Column(i, nil, col)
		out := p.Row(i)
		out[0] = 0
		for j := i + 1; j < n; j++ {
			out[j-i] = math.Max(0, h[i]+h[j]-2*col[j])
		}
		bufs.put(col)
	})
	return p
}

// buffers is a free list of float64 buffers of one size for the workers of
// a parallelFor (at most nw at once): a worker takes one or makes one when
// none is free, and gives it back. Unlike a sync.Pool it drops none (the
// race detector makes a Pool drop a quarter of what it is given), so the
// buffers made are at most the workers', whatever the build.
type buffers struct {
	free chan []float64
	size int
}

func newBuffers(nw, size int) *buffers {
	return &buffers{free: make(chan []float64, max(nw, 1)), size: size}
}

func (b *buffers) get() []float64 {
	select {
	case x := <-b.free:
		return x
	default:
		return make([]float64, b.size)
	}
}

func (b *buffers) put(x []float64) {
	select {
	case b.free <- x:
	default:
	}
}
