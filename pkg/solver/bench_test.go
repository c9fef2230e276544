package solver

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// benchCase is one C-SVC problem for BenchmarkSolve; bench/libsvm.sh runs
// svm-train on the same data with the same C, γ, eps and cache size.
type benchCase struct {
	name     string
	x        func(testing.TB) ([][]float64, []float64)
	c, gamma float64
}

var benchCases = []benchCase{
	{"mixture-5000x20", func(testing.TB) ([][]float64, []float64) { return mixture(5000, 20, 2, 1) }, 1, 1.0 / 16},
	{"mixture-2000x50", func(testing.TB) ([][]float64, []float64) { return mixture(2000, 50, 2, 2) }, 1, 1.0 / 64},
	{"a1a", func(tb testing.TB) ([][]float64, []float64) {
		return readLIBSVM(tb, filepath.Join(testdataDir, "libsvm", "a1a"))
	}, 1, 1.0 / 32},
}

func toDense(x [][]float64) *mat.Dense {
	d := len(x[0])
	m := mat.NewDense(len(x), d, nil)
	for i, r := range x {
		m.SetRow(i, r)
	}
	return m
}

// BenchmarkSolve times TrainSVC (C-SVC, Gaussian kernel columns through
// kernel.Rows, eps 1e-3, 200 MB cache, shrinking), cold cache each time,
// serially (workers=1) and with the kernel columns split over two
// goroutines (workers=2).
func BenchmarkSolve(b *testing.B) {
	for _, bc := range benchCases {
		x, y := bc.x(b)
		g, err := kernel.NewGaussianIso(bc.gamma)
		if err != nil {
			b.Fatal(err)
		}
		X := toDense(x)
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", bc.name, w), func(b *testing.B) {
				b.ReportAllocs()
				var r SVCResult
				for b.Loop() {
					r, err = TrainSVC(context.Background(), g.Rows(X), y, SVCParams{C: bc.c}, Settings{Workers: w}, nil)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.Iter), "iter")
				b.ReportMetric(float64(r.NSV), "nSV")
			})
		}
	}
}

// BenchmarkRadius times the smallest enclosing ball (radius QP).
func BenchmarkRadius(b *testing.B) {
	for _, n := range []int{1000, 3000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x, _ := mixture(n, 10, 0, 3)
			g, _ := kernel.NewGaussianIso(0.1)
			X := toDense(x)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Radius(context.Background(), g.Rows(X), 0, Settings{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPrecision times the same solve with float64 and float32 columns
// (Settings.Precision) on 8,000 mixture rows with a 100 MB cache: the
// matrix does not fit in either, so the float32 cache holds twice the
// columns and computes fewer; the conversion of each column read to float64
// is the price.
func BenchmarkPrecision(b *testing.B) {
	x, y := mixture(8000, 20, 2, 4)
	g, err := kernel.NewGaussianIso(1.0 / 16)
	if err != nil {
		b.Fatal(err)
	}
	X := toDense(x)
	for _, p := range []struct {
		name string
		p    Precision
	}{{"double", Double}, {"single", Single}} {
		b.Run(p.name, func(b *testing.B) {
			var r SVCResult
			for b.Loop() {
				r, err = TrainSVC(context.Background(), g.Rows(X), y, SVCParams{C: 1}, Settings{Workers: 1, CacheBytes: 100 << 20, Precision: p.p}, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Iter), "iter")
		})
	}
}
