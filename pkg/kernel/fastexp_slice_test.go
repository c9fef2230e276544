package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpNonPosSlice: expNonPosSlice gives expNonPos's bits for every entry,
// in the AVX2 form (where the machine has it) and the Go one: random x in
// [-800, 1], the range ends (-708 and its neighbours, where the lanes fall
// back to math.Exp), ±0, NaN, -Inf, ties of the rounding to k/64, on every
// length 0-41 (every remainder mod 4).
func TestExpNonPosSlice(t *testing.T) {
	avx := useAVX2
	defer func() { useAVX2 = avx }()
	special := []float64{0, math.Copysign(0, -1), -708, math.Nextafter(-708, 0), math.Nextafter(-708, -1000),
		-745, -746, math.NaN(), math.Inf(-1), -1e-300, -math.Ln2 / 128, -math.Ln2 / 64, -3 * math.Ln2 / 128, -1, -0.5, 1}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, form := range []bool{false, true} {
		if form && !avx {
			continue
		}
		useAVX2 = form
		for trial := range 3000 {
			n := trial % 42
			x := make([]float64, n)
			for k := range x {
				switch rng.IntN(4) {
				case 0:
					x[k] = special[rng.IntN(len(special))]
				case 1:
					x[k] = -rng.ExpFloat64() * 3
				default:
					x[k] = rng.Float64()*801 - 800
				}
			}
			want := make([]float64, n)
			for k, v := range x {
				want[k] = expNonPos(v)
			}
			got := append([]float64(nil), x...)
			expNonPosSlice(got)
			for k := range got {
				if math.Float64bits(got[k]) != math.Float64bits(want[k]) && !(math.IsNaN(got[k]) && math.IsNaN(want[k])) {
					t.Fatalf("AVX2 %v, trial %d: exp(%v) = %v, expNonPos %v", form, trial, x[k], got[k], want[k])
				}
			}
		}
	}
}

// BenchmarkExpNonPosSlice: a Gram row's exp pass, 1,000 entries in [-40, 0].
func BenchmarkExpNonPosSlice(b *testing.B) {
	avx := useAVX2
	defer func() { useAVX2 = avx }()
	rng := rand.New(rand.NewPCG(7, 8))
	src := make([]float64, 1000)
	for k := range src {
		src[k] = -40 * rng.Float64()
	}
	x := make([]float64, len(src))
	for _, form := range []string{"go", "avx2"} {
		if form == "avx2" && !avx {
			continue
		}
		b.Run(form, func(b *testing.B) {
			useAVX2 = form == "avx2"
			for b.Loop() {
				copy(x, src)
				expNonPosSlice(x)
			}
		})
	}
}

// TestL1RowAgrees: l1Row gives -l1dist's bits in the AVX2 form (where the
// machine has it) and the Go one, for d = 1-19 (every remainder mod 4),
// prefix rows from an offset and gathered rows, with ±0 and repeated values.
func TestL1RowAgrees(t *testing.T) {
	avx := useAVX2
	defer func() { useAVX2 = avx }()
	rng := rand.New(rand.NewPCG(9, 10))
	for d := 1; d < 20; d++ {
		n := 23
		xs := make([]float64, n*d)
		for k := range xs {
			switch rng.IntN(4) {
			case 0:
				xs[k] = 0
			case 1:
				xs[k] = math.Copysign(0, -1)
			case 2:
				xs[k] = float64(rng.IntN(3)) / 3
			default:
				xs[k] = rng.NormFloat64() * 100
			}
		}
		idx := make([]int, 9)
		for k := range idx {
			idx[k] = rng.IntN(n)
		}
		for i := range n {
			xi := xs[i*d : (i+1)*d]
			for j0 := range 4 {
				want := make([]float64, n-j0)
				for k := range want {
					want[k] = -l1dist(xi, xs[(j0+k)*d:(j0+k+1)*d])
				}
				for _, form := range []bool{false, true} {
					if form && !avx {
						continue
					}
					useAVX2 = form
					got := make([]float64, n-j0)
					l1Row(got, xi, xs, d, j0, nil)
					gotIdx := make([]float64, len(idx))
					l1Row(gotIdx, xi, xs, d, 0, idx)
					for k := range got {
						if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
							t.Fatalf("AVX2 %v, d %d, row %d, j %d: %v, l1dist %v", form, d, i, j0+k, got[k], want[k])
						}
					}
					for k, j := range idx {
						if w := -l1dist(xi, xs[j*d:(j+1)*d]); math.Float64bits(gotIdx[k]) != math.Float64bits(w) {
							t.Fatalf("AVX2 %v, d %d, row %d, idx %d: %v, l1dist %v", form, d, i, j, gotIdx[k], w)
						}
					}
				}
			}
		}
	}
}
