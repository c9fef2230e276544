package kernel

import (
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// This file holds the bulk machinery shared by the kernels: contiguous copies
// of data rows, and the tiled, parallel construction of Gram and cross
// matrices.
//
// A Gram matrix is built tile by tile (tileSize × tileSize tiles of the upper
// triangle): a diagonal tile by one Dsyrk, an off-diagonal tile by one Dgemm,
// then, while the tile is still in cache, the kernel's elementwise pass (exp
// for the Gaussian) and the mirror into the lower triangle. Tiles are handed
// to GOMAXPROCS workers through an atomic counter. gonum's Dsyrk is serial,
// and a 64×64 Dgemm runs serially inside gonum, so this is the only
// parallelism and there is no nesting. At n = 2000, d = 50 it takes 35–37 ms
// of CPU against 42 ms for one whole-matrix Dsyrk followed by separate exp
// and mirror passes (the route of DEPENDENCIES.md, with the same exp), and
// that CPU time is spread over all cores (BenchmarkGramRoutes).

// tileSize is the side of the square tiles of the Gram and cross matrices.
// 64 is gonum's own Dgemm block size, so a tile's Dgemm stays serial.
const tileSize = 64

// minParallel is the number of matrix entries below which bulk passes run on
// the calling goroutine: starting workers costs more than it saves.
const minParallel = 128 * 128

// rowMajor returns the rows of X as a contiguous row-major n×d slice. It
// copies unless X is a *mat.Dense whose rows are already contiguous; callers
// must not modify the result in that case.
func rowMajor(X mat.Matrix) (data []float64, n, d int) {
	n, d = X.Dims()
	if m, ok := X.(*mat.Dense); ok {
		raw := m.RawMatrix()
		if raw.Stride == d || n <= 1 {
			return raw.Data[:n*d], n, d
		}
	}
	return copyRows(X), n, d
}

// copyRows returns a fresh contiguous row-major copy of X.
func copyRows(X mat.Matrix) []float64 {
	n, d := X.Dims()
	out := make([]float64, n*d)
	if m, ok := X.(*mat.Dense); ok {
		raw := m.RawMatrix()
		for i := 0; i < n; i++ {
			copy(out[i*d:(i+1)*d], raw.Data[i*raw.Stride:i*raw.Stride+d])
		}
		return out
	}
	for i := 0; i < n; i++ {
		row := out[i*d : (i+1)*d]
		for j := range row {
			row[j] = X.At(i, j)
		}
	}
	return out
}

// colMeans returns the column means of the n×d row-major data.
func colMeans(x []float64, n, d int) []float64 {
	mu := make([]float64, d)
	if n == 0 {
		return mu
	}
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		for k, v := range row {
			mu[k] += v
		}
	}
	for k := range mu {
		mu[k] /= float64(n)
	}
	return mu
}

// centredRows returns X - 1μᵀ (μ the column means) as fresh n×d row-major
// data: distances are unchanged, and the cancellation in
// ‖x-z‖² = ‖x‖² + ‖z‖² - 2x·z stays small on data far from the origin.
func centredRows(X mat.Matrix) (xc []float64, n, d int) {
	x, n, d := rowMajor(X)
	mu := colMeans(x, n, d)
	xc = make([]float64, n*d)
	for i := 0; i < n; i++ {
		src, dst := x[i*d:(i+1)*d], xc[i*d:(i+1)*d]
		for k, v := range src {
			dst[k] = v - mu[k]
		}
	}
	return xc, n, d
}

// upperRaw returns a blas64.Symmetric holding A in its upper triangle,
// without copying when A is a *mat.SymDense (the usual case).
func upperRaw(A mat.Symmetric) blas64.Symmetric {
	if s, ok := A.(mat.RawSymmetricer); ok {
		raw := s.RawSymmetric()
		if raw.Uplo == blas.Upper {
			return raw
		}
	}
	n := A.SymmetricDim()
	s := mat.NewSymDense(n, nil)
	s.CopySym(A)
	return s.RawSymmetric()
}

// workers returns how many goroutines a bulk pass over `entries` matrix
// entries should use.
func workers(entries int) int {
	if entries < minParallel {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// parallelFor calls f(t) for t = 0 … tasks-1, spread over nw goroutines
// (dynamic scheduling through an atomic counter; nw ≤ 1 runs inline).
func parallelFor(tasks, nw int, f func(t int)) {
	if nw > tasks {
		nw = tasks
	}
	if nw <= 1 {
		for t := 0; t < tasks; t++ {
			f(t)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(nw)
	for w := 0; w < nw; w++ {
		go func() {
			defer wg.Done()
			for {
				t := int(next.Add(1) - 1)
				if t >= tasks {
					return
				}
				f(t)
			}
		}()
	}
	wg.Wait()
}

// tile is a rectangle [i0,i1)×[j0,j1) of a matrix.
type tile struct{ i0, i1, j0, j1 int }

// upperTiles lists the tiles of the upper triangle of an n×n matrix, I ≤ J.
func upperTiles(n int) []tile {
	nb := (n + tileSize - 1) / tileSize
	ts := make([]tile, 0, nb*(nb+1)/2)
	for a := 0; a < nb; a++ {
		for b := a; b < nb; b++ {
			ts = append(ts, tile{a * tileSize, min((a+1)*tileSize, n), b * tileSize, min((b+1)*tileSize, n)})
		}
	}
	return ts
}

// rectTiles lists the tiles of an m×n matrix.
func rectTiles(m, n int) []tile {
	var ts []tile
	for i := 0; i < m; i += tileSize {
		for j := 0; j < n; j += tileSize {
			ts = append(ts, tile{i, min(i+tileSize, m), j, min(j+tileSize, n)})
		}
	}
	return ts
}

// innerGram returns the n×n matrix G = X Xᵀ of the n×p row-major rows x
// (p may be 0), both triangles filled. Each tile, once computed, is passed
// to finish (which may be nil) before it is mirrored; finish must only touch
// the entries (i, j) of its tile with i ≤ j.
func innerGram(x []float64, n, p int, finish func(c []float64, stride int, t tile)) *mat.SymDense {
	if n == 0 {
		return &mat.SymDense{}
	}
	c := make([]float64, n*n)
	impl := blas64.Implementation()
	ts := upperTiles(n)
	parallelFor(len(ts), workers(n*n/2), func(k int) {
		t := ts[k]
		mi, mj := t.i1-t.i0, t.j1-t.j0
		if p > 0 {
			if t.i0 == t.j0 {
				impl.Dsyrk(blas.Upper, blas.NoTrans, mi, p, 1, x[t.i0*p:], p, 0, c[t.i0*n+t.j0:], n)
			} else {
				impl.Dgemm(blas.NoTrans, blas.Trans, mi, mj, p, 1, x[t.i0*p:], p, x[t.j0*p:], p, 0, c[t.i0*n+t.j0:], n)
			}
		}
		if finish != nil {
			finish(c, n, t)
		}
		mirrorTile(c, n, t)
	})
	return mat.NewSymDense(n, c)
}

// mirrorTile copies the entries i < j of tile t into (j, i).
func mirrorTile(c []float64, stride int, t tile) {
	for j := t.j0; j < t.j1; j++ {
		row := c[j*stride:]
		for i := t.i0; i < min(t.i1, j); i++ {
			row[i] = c[i*stride+j]
		}
	}
}

// innerCross returns the m×n matrix A Bᵀ of the row-major rows a (m×p) and
// b (n×p), passing each finished tile to finish (which may be nil).
func innerCross(a []float64, m int, b []float64, n, p int, finish func(c []float64, stride int, t tile)) *mat.Dense {
	if m == 0 || n == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(m, n, innerCrossTo(make([]float64, m*n), a, m, b, n, p, finish))
}

// innerCrossTo is innerCross into c (at least m·n long, row-major with
// stride n), returned.
func innerCrossTo(c, a []float64, m int, b []float64, n, p int, finish func(c []float64, stride int, t tile)) []float64 {
	impl := blas64.Implementation()
	ts := rectTiles(m, n)
	parallelFor(len(ts), workers(m*n), func(k int) {
		t := ts[k]
		if p > 0 {
			impl.Dgemm(blas.NoTrans, blas.Trans, t.i1-t.i0, t.j1-t.j0, p, 1, a[t.i0*p:], p, b[t.j0*p:], p, 0, c[t.i0*n+t.j0:], n)
		}
		if finish != nil {
			finish(c, n, t)
		}
	})
	return c
}

// rowNorms2Half returns h_i = ½‖x_i‖² of the n×p row-major rows x.
func rowNorms2Half(x []float64, n, p int) []float64 {
	h := make([]float64, n)
	for i := range h {
		var s float64
		for _, v := range x[i*p : (i+1)*p] {
			s += v * v
		}
		h[i] = s / 2
	}
	return h
}

// dot returns Σ a_k b_k for equal-length slices through gonum's assembly
// kernel (f64.DotUnitary), several times faster than a Go loop at d ≈ 50.
func dot(a, b []float64) float64 { return floats.Dot(a, b[:len(a)]) }

// rowDots sets dst[k] = x_i·x_{idx[k]} for the rows of the row-major x with
// p columns, or dst[j] = x_i·x_j for j < len(dst) when idx is nil: the dot
// products behind a kernel column.
func rowDots(dst, x []float64, p, i int, idx []int) {
	xi := x[i*p : (i+1)*p]
	if idx == nil {
		for j := range dst {
			dst[j] = dot(xi, x[j*p:(j+1)*p])
		}
		return
	}
	for k, j := range idx {
		dst[k] = dot(xi, x[j*p:(j+1)*p])
	}
}
