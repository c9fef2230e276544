package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Run with: go test -run XXX -bench . -benchmem ./pkg/kernel/

func benchKernels(b *testing.B, d int) (map[string]Kernel, []string) {
	rng := rand.New(rand.NewPCG(9, 1))
	iso, _ := NewGaussianIso(0.5 / float64(d))
	q := make([]float64, d)
	for k := range q {
		q[k] = 1 / float64(d)
	}
	diag, _ := NewGaussianDiag(q)
	full, err := NewGaussian(randSPD(rng, d, 1/float64(d)))
	if err != nil {
		b.Fatal(err)
	}
	theta := make([]float64, d)
	for k := range theta {
		theta[k] = 1
	}
	l1, _ := NewL1(theta)
	return map[string]Kernel{"full": full, "iso": iso, "diag": diag, "l1": l1, "linear": Linear{}},
		[]string{"full", "iso", "diag", "l1", "linear"}
}

func BenchmarkGram(b *testing.B) {
	for _, sz := range []struct{ n, d int }{{2000, 50}, {500, 10}, {100, 52}} {
		X := randData(rand.New(rand.NewPCG(9, 2)), sz.n, sz.d, 0)
		ks, names := benchKernels(b, sz.d)
		for _, name := range names {
			b.Run(fmt.Sprintf("%s/n=%d,d=%d", name, sz.n, sz.d), func(b *testing.B) {
				b.ReportAllocs()
				defer cpuMeter(b)()
				for b.Loop() {
					ks[name].Gram(X)
				}
			})
		}
	}
}

// BenchmarkGramRoutes compares the tiled route of Gram with the route
// measured in DEPENDENCIES.md (one whole-matrix Dsyrk, a serial exp pass,
// then the mirror), and the tiled route on one core.
func BenchmarkGramRoutes(b *testing.B) {
	const n, d = 2000, 50
	X := randData(rand.New(rand.NewPCG(9, 2)), n, d, 0)
	g, _ := NewGaussianIso(0.01)
	b.Run("tiled", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuMeter(b)()
		for b.Loop() {
			g.Gram(X)
		}
	})
	b.Run("tiled/procs=1", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		b.ReportAllocs()
		defer cpuMeter(b)()
		for b.Loop() {
			g.Gram(X)
		}
	})
	b.Run("syrk+exp+mirror", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuMeter(b)()
		for b.Loop() {
			wholeSyrkGram(g, X)
		}
	})
}

// wholeSyrkGram is the DEPENDENCIES.md route, kept for the benchmark.
func wholeSyrkGram(g *Gaussian, X mat.Matrix) *mat.SymDense {
	x, n, d := rowMajor(X)
	xt, p := g.transform(x, n, d, colMeans(x, n, d))
	h := rowNorms2Half(xt, n, p)
	c := make([]float64, n*n)
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: n, Cols: p, Stride: p, Data: xt}, 0,
		blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c})
	for i := 0; i < n; i++ {
		row := c[i*n:]
		for j := i; j < n; j++ {
			row[j] = expNonPos(math.Min(0, row[j]-h[i]-h[j]))
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c[j*n+i] = c[i*n+j]
		}
	}
	return mat.NewSymDense(n, c)
}

func BenchmarkKernelColumn(b *testing.B) {
	const n, d = 2000, 50
	X := randData(rand.New(rand.NewPCG(9, 3)), n, d, 0)
	ks, names := benchKernels(b, d)
	dst := make([]float64, n)
	idx := rand.New(rand.NewPCG(9, 4)).Perm(n)[:n/4]
	for _, name := range names {
		m := ks[name].Rows(X)
		b.Run(name+"/all", func(b *testing.B) {
			b.ReportAllocs()
			defer cpuMeter(b)()
			i := 0
			for b.Loop() {
				m.Column(i%n, nil, dst)
				i++
			}
		})
		b.Run(name+"/idx=n/4", func(b *testing.B) {
			b.ReportAllocs()
			defer cpuMeter(b)()
			i := 0
			for b.Loop() {
				m.Column(i%n, idx, dst)
				i++
			}
		})
	}
	// The alternative to per-row dot products: one GEMV over X̃.
	r := ks["full"].Rows(X).(*gaussRows)
	b.Run("full/all-gemv", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuMeter(b)()
		i := 0
		for b.Loop() {
			k := i % n
			blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: n, Cols: r.p, Stride: r.p, Data: r.xt},
				blas64.Vector{N: r.p, Inc: 1, Data: r.xt[k*r.p : (k+1)*r.p]}, 0, blas64.Vector{N: n, Inc: 1, Data: dst})
			for j, v := range dst {
				dst[j] = math.Exp(math.Min(0, v-r.h[k]-r.h[j]))
			}
			i++
		}
	})
	p := Precomputed(ks["full"].Gram(X))
	b.Run("precomputed/all", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuMeter(b)()
		i := 0
		for b.Loop() {
			p.Column(i%n, nil, dst)
			i++
		}
	})
}

func BenchmarkGaussianGradQ(b *testing.B) {
	for _, sz := range []struct{ n, d int }{{2000, 50}, {500, 10}} {
		rng := rand.New(rand.NewPCG(9, 5))
		X := randData(rng, sz.n, sz.d, 0)
		g, _ := NewGaussian(randSPD(rng, sz.d, 1/float64(sz.d)))
		K := g.Gram(X)
		C := randSym(rng, sz.n)
		b.Run(fmt.Sprintf("Q/n=%d,d=%d", sz.n, sz.d), func(b *testing.B) {
			b.ReportAllocs()
			defer cpuMeter(b)()
			var G mat.SymDense
			for b.Loop() {
				GaussianGradQ(&G, X, K, C)
			}
		})
		b.Run(fmt.Sprintf("diag/n=%d,d=%d", sz.n, sz.d), func(b *testing.B) {
			b.ReportAllocs()
			defer cpuMeter(b)()
			dst := make([]float64, sz.d)
			for b.Loop() {
				GaussianGradDiag(dst, X, K, C)
			}
		})
		b.Run(fmt.Sprintf("l1theta/n=%d,d=%d", sz.n, sz.d), func(b *testing.B) {
			b.ReportAllocs()
			defer cpuMeter(b)()
			dst := make([]float64, sz.d)
			theta := make([]float64, sz.d)
			for k := range theta {
				theta[k] = 1
			}
			for b.Loop() {
				L1GradTheta(dst, X, theta, C)
			}
		})
	}
}

func BenchmarkMedian(b *testing.B) {
	X := randData(rand.New(rand.NewPCG(9, 6)), 2000, 50, 0)
	b.ReportAllocs()
	defer cpuMeter(b)()
	for b.Loop() {
		GammaForMedian(X, math.Exp(-2))
	}
}
