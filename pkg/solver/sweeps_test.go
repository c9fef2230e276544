package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSweepsAgree: the AVX2 sweeps (where this machine has them) give the
// Go sweeps' results bit for bit: the same gradient entries, the same
// argmax/argmin index with ties to the last, the same maxima, on lengths
// 0-37 (every remainder mod 4), with NaN masks, repeated values (ties across
// and within lanes), zero gradients and quad ≤ 0 (τ).
func TestSweepsAgree(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: only the Go sweeps run")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(vals []float64) float64 { return vals[rng.IntN(len(vals))] }
	for trial := range 4000 {
		n := trial % 38
		g, qi, qj, qd, up, low := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		few := trial%3 == 0 // few distinct values: many exact ties
		for k := range n {
			if few {
				g[k] = pick([]float64{-1, -0.5, 0, 0.5, 1})
				qi[k] = pick([]float64{0, 0.25, 1, 2})
			} else {
				g[k] = rng.NormFloat64()
				qi[k] = rng.Float64()*2 - 0.5
			}
			qj[k], qd[k] = rng.Float64(), pick([]float64{1, rng.Float64(), 0})
			y := pick([]float64{1, -1})
			up[k], low[k] = -y, y
			switch rng.IntN(3) {
			case 0:
				up[k] = math.NaN()
			case 1:
				low[k] = math.NaN()
			}
		}
		gmax, qdi, yi2 := pick([]float64{0, 0.3, 1, 3}), pick([]float64{1, 0, 0.5}), pick([]float64{2, -2})

		useAVX2 = false
		wantG2, wantJ := lowPass(g, low, qd, qi, gmax, qdi, yi2)
		useAVX2 = true
		gotG2, gotJ := lowPass(g, low, qd, qi, gmax, qdi, yi2)
		if gotJ != wantJ || gotG2 != wantG2 {
			t.Fatalf("trial %d (n %d): lowPass AVX2 (%g, %d), Go (%g, %d)", trial, n, gotG2, gotJ, wantG2, wantJ)
		}

		dai, daj := rng.NormFloat64(), pick([]float64{0, rng.NormFloat64()})
		g1, g2 := slices.Clone(g), slices.Clone(g)
		useAVX2 = false
		wantMax, wantK := gradPass(g1, qi, qj, up, dai, daj)
		useAVX2 = true
		gotMax, gotK := gradPass(g2, qi, qj, up, dai, daj)
		if gotK != wantK || math.Float64bits(gotMax) != math.Float64bits(wantMax) {
			t.Fatalf("trial %d (n %d): gradPass AVX2 (%g, %d), Go (%g, %d)", trial, n, gotMax, gotK, wantMax, wantK)
		}
		for k := range g1 {
			if math.Float64bits(g1[k]) != math.Float64bits(g2[k]) {
				t.Fatalf("trial %d: g[%d] AVX2 %v, Go %v", trial, k, g2[k], g1[k])
			}
		}
	}
}

// TestSolveSameWithoutAVX2: whole solves (shrinking, warm starts, the radius
// QP) take the same iterations to the same α with the Go sweeps.
func TestSolveSameWithoutAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: only the Go sweeps run")
	}
	defer func() { useAVX2 = true }()
	x, y := mixture(300, 6, 1, 11)
	q := gram(x, rbf(0.2))
	for _, c := range []float64{0.5, 30, 2000} {
		var res [2]Result
		for k, avx := range []bool{false, true} {
			useAVX2 = avx
			r, err := Solve(t.Context(), Problem{Q: q, Y: y, Cp: c, Cn: c}, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			res[k] = r
		}
		if res[0].Iter != res[1].Iter || !slices.Equal(res[0].Alpha, res[1].Alpha) || res[0].Rho != res[1].Rho {
			t.Errorf("C %g: Go sweeps %d iterations, ρ %v; AVX2 %d, ρ %v (α equal: %v)", c, res[0].Iter, res[0].Rho, res[1].Iter, res[1].Rho, slices.Equal(res[0].Alpha, res[1].Alpha))
		}
		if res[1].Iter < 50 {
			t.Errorf("C %g: only %d iterations", c, res[1].Iter)
		}
	}
}

// BenchmarkSweeps times one SMO iteration's two sweeps (lowPass then
// gradPass) at n = 80 (a grid-search fold of 100 rows) and 1,600 (a1a), in
// Go and, where the machine has it, AVX2 (make bench runs it with the rest:
// go test -run '^$' -bench Sweeps ./pkg/solver).
func BenchmarkSweeps(b *testing.B) {
	avx := useAVX2
	defer func() { useAVX2 = avx }()
	for _, n := range []int{80, 1600} {
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		g, qi, qj, qd, up, low := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for k := range n {
			g[k], qi[k], qj[k], qd[k] = rng.NormFloat64(), rng.Float64(), rng.Float64(), 1
			y := float64(2*rng.IntN(2) - 1)
			up[k], low[k] = -y, y
			if rng.IntN(3) == 0 {
				up[k] = math.NaN()
			} else if rng.IntN(2) == 0 {
				low[k] = math.NaN()
			}
		}
		for _, form := range []string{"go", "avx2"} {
			if form == "avx2" && !avx {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, form), func(b *testing.B) {
				useAVX2 = form == "avx2"
				for b.Loop() {
					lowPass(g, low, qd, qi, 0.5, 1, 2)
					// Δα = 0: the same work, and g stays put.
					gradPass(g, qi, qj, up, 0, 0)
				}
			})
		}
	}
}

// TestWidenAgrees: widen (eight at a time with AVX2 where the machine has
// it) gives float64(v) of every entry bit for bit, on lengths 0-41 (every
// remainder mod 8) of normal, subnormal, zero, signed, infinite and NaN
// float32s, and writes nothing past len(src).
func TestWidenAgrees(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: only the Go loop runs")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.SmallestNonzeroFloat32, -math.MaxFloat32, 0x1p-130}
	for n := range 42 {
		src := make([]float32, n)
		for k := range src {
			if rng.IntN(4) == 0 {
				src[k] = special[rng.IntN(len(special))]
			} else {
				src[k] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
			}
		}
		dst := slices.Repeat([]float64{-7}, n+3)
		widen(dst, src)
		for k, v := range src {
			if math.Float64bits(dst[k]) != math.Float64bits(float64(v)) {
				t.Fatalf("n = %d, entry %d: widen gave %v (%#x), want %v", n, k, dst[k], math.Float64bits(dst[k]), float64(v))
			}
		}
		for k := n; k < n+3; k++ {
			if dst[k] != -7 {
				t.Fatalf("n = %d: widen wrote entry %d past the source", n, k)
			}
		}
	}
}

// BenchmarkWiden: the single-precision cache's read of a column of a fold
// of 26,049 rows (32,561-row data, 5 folds), in Go and AVX2.
func BenchmarkWiden(b *testing.B) {
	avx := useAVX2
	defer func() { useAVX2 = avx }()
	const n = 26_049
	src, dst := make([]float32, n), make([]float64, n)
	for k := range src {
		src[k] = float32(k) / n
	}
	for _, form := range []string{"go", "avx2"} {
		if form == "avx2" && !avx {
			continue
		}
		b.Run(form, func(b *testing.B) {
			useAVX2 = form == "avx2"
			for b.Loop() {
				widen(dst, src)
			}
		})
	}
}

// TestSignedSweepsAgree: signedAdd and signedCopy give the Go loops' bits
// with AVX2 (every entry, n = 0…41 for the tails), and both report a
// non-finite entry (z ≠ 0) exactly when there is one.
func TestSignedSweepsAgree(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: only the Go loops run")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 42 {
		for _, bad := range []float64{0, math.NaN(), math.Inf(1), math.Inf(-1)} {
			col := make([]float64, n)
			y := make([]float64, n)
			g := make([]float64, n+3)
			for k := range col {
				col[k] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(60)-30))
				y[k] = float64(1 - 2*rng.IntN(2))
				g[k] = rng.NormFloat64()
			}
			g[n], g[n+1], g[n+2] = -7, -7, -7
			if bad != 0 && n > 0 {
				col[rng.IntN(n)] = bad
			}
			a, yi := rng.NormFloat64()*1e3, float64(1-2*rng.IntN(2))
			want := slices.Clone(g)
			wz := signedAddGo(want[:n], col, y, a, yi)
			got := slices.Clone(g)
			z := signedAdd(got[:n], col, y, a, yi)
			for k := range got {
				if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
					t.Fatalf("signedAdd, n = %d, entry %d: %v, want %v", n, k, got[k], want[k])
				}
			}
			if (z != 0) != (wz != 0) || (z != 0) != (bad != 0 && n > 0) {
				t.Fatalf("signedAdd, n = %d, bad %v: z = %v, Go's %v", n, bad, z, wz)
			}
			wantC := slices.Repeat([]float64{-7}, n+3)
			wz = signedCopyGo(wantC[:n], col, y, yi)
			gotC := slices.Repeat([]float64{-7}, n+3)
			z = signedCopy(gotC[:n], col, y, yi)
			for k := range gotC {
				if math.Float64bits(gotC[k]) != math.Float64bits(wantC[k]) {
					t.Fatalf("signedCopy, n = %d, entry %d: %v, want %v", n, k, gotC[k], wantC[k])
				}
			}
			if (z != 0) != (wz != 0) || (z != 0) != (bad != 0 && n > 0) {
				t.Fatalf("signedCopy, n = %d, bad %v: z = %v, Go's %v", n, bad, z, wz)
			}
		}
	}
}

// TestColumnSweepsAgree: the sweeps on a float32 column (lowPassCol,
// gradPassCol with the single-precision cache's buffers, widened in the
// registers with AVX2 and entry by entry in Go) give the results of the
// float64 sweeps on the widened column bit for bit, with and without AVX2,
// on lengths 0-37, with ties, NaN masks and quad ≤ 0 (τ).
func TestColumnSweepsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(vals []float64) float64 { return vals[rng.IntN(len(vals))] }
	avx := []bool{false}
	if useAVX2 {
		avx = append(avx, true)
	}
	defer func(v bool) { useAVX2 = v }(useAVX2)
	for trial := range 4000 {
		n := trial % 38
		g, qd, up, low := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		qi32, qj32 := make([]float32, n), make([]float32, n)
		few := trial%3 == 0
		for k := range n {
			if few {
				g[k] = pick([]float64{-1, -0.5, 0, 0.5, 1})
				qi32[k] = float32(pick([]float64{0, 0.25, 1, 2}))
			} else {
				g[k] = rng.NormFloat64()
				qi32[k] = float32(rng.Float64()*2 - 0.5)
			}
			qj32[k], qd[k] = float32(rng.Float64()), pick([]float64{1, rng.Float64(), 0})
			y := pick([]float64{1, -1})
			up[k], low[k] = -y, y
			switch rng.IntN(3) {
			case 0:
				up[k] = math.NaN()
			case 1:
				low[k] = math.NaN()
			}
		}
		qi, qj := make([]float64, n), make([]float64, n)
		widen(qi, qi32)
		widen(qj, qj32)
		gmax, qdi, yi2 := pick([]float64{0, 0.3, 1, 3}), pick([]float64{1, 0, 0.5}), pick([]float64{2, -2})
		dai, daj := rng.NormFloat64(), pick([]float64{0, rng.NormFloat64()})
		for _, a := range avx {
			useAVX2 = a
			wantG2, wantJ := lowPass(g, low, qd, qi, gmax, qdi, yi2)
			gotG2, gotJ := lowPassCol(g, low, qd, column{s: qi32}, gmax, qdi, yi2)
			if gotJ != wantJ || math.Float64bits(gotG2) != math.Float64bits(wantG2) {
				t.Fatalf("trial %d (n %d, AVX2 %v): lowPassCol (%g, %d), lowPass on the widened column (%g, %d)", trial, n, a, gotG2, gotJ, wantG2, wantJ)
			}
			g1, g2 := slices.Clone(g), slices.Clone(g)
			wantMax, wantK := gradPass(g1, qi, qj, up, dai, daj)
			gotMax, gotK := gradPassCol(g2, column{s: qi32}, column{s: qj32}, up, dai, daj)
			if gotK != wantK || math.Float64bits(gotMax) != math.Float64bits(wantMax) {
				t.Fatalf("trial %d (n %d, AVX2 %v): gradPassCol (%g, %d), gradPass (%g, %d)", trial, n, a, gotMax, gotK, wantMax, wantK)
			}
			for k := range g1 {
				if math.Float64bits(g1[k]) != math.Float64bits(g2[k]) {
					t.Fatalf("trial %d (n %d, AVX2 %v): g[%d] %v, want %v", trial, n, a, k, g2[k], g1[k])
				}
			}
		}
	}
}

// TestLowPassSkipsExactly: lowPass's skipping AVX2 loop (long active sets,
// here every length) skips the division of four entries when none can beat
// its lane's best od (diff² < bound·quad), so on long columns most are
// skipped; the choice and gmax2 must stay the Go
// loop's, in float64 and float32, with near-ties (entries a few ulps from
// the best), tiny quotients (od near -1e-300, where the bound is 0) and
// huge ones.
func TestLowPassSkipsExactly(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: only the Go sweeps run")
	}
	defer func(v bool, m int) { useAVX2, skipMinLen = v, m }(useAVX2, skipMinLen)
	skipMinLen = 4 // every length takes the skipping loop
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := 4 + rng.IntN(3000)
		scale := []float64{1, 1e-150, 1e150, 1e-3}[trial%4]
		g, low, qd := make([]float64, n), make([]float64, n), make([]float64, n)
		q32 := make([]float32, n)
		for k := range n {
			g[k] = rng.NormFloat64() * scale
			y := float64(1 - 2*rng.IntN(2))
			low[k] = y
			if rng.IntN(4) == 0 {
				low[k] = math.NaN()
			}
			qd[k] = 1
			q32[k] = float32(rng.Float64()*2 - 1)
			if trial%3 == 0 && k > 0 && rng.IntN(8) == 0 { // near-ties: a copy of an earlier entry, a few ulps off
				p := rng.IntN(k)
				g[k] = math.Nextafter(g[p], math.Inf(rng.IntN(2)*2-1))
				low[k], q32[k] = low[p], q32[p]
			}
		}
		q := make([]float64, n)
		widen(q, q32)
		gmax, qdi, yi2 := math.Abs(rng.NormFloat64())*scale, 1.0, float64(2-4*rng.IntN(2))
		useAVX2 = false
		wantG2, wantJ := lowPass(g, low, qd, q, gmax, qdi, yi2)
		useAVX2 = true
		gotG2, gotJ := lowPass(g, low, qd, q, gmax, qdi, yi2)
		if gotJ != wantJ || math.Float64bits(gotG2) != math.Float64bits(wantG2) {
			t.Fatalf("trial %d (n %d, scale %g): lowPass AVX2 (%g, %d), Go (%g, %d)", trial, n, scale, gotG2, gotJ, wantG2, wantJ)
		}
		gotG2, gotJ = lowPassCol(g, low, qd, column{s: q32}, gmax, qdi, yi2)
		if gotJ != wantJ || math.Float64bits(gotG2) != math.Float64bits(wantG2) {
			t.Fatalf("trial %d (n %d, scale %g): lowPass32 AVX2 (%g, %d), Go (%g, %d)", trial, n, scale, gotG2, gotJ, wantG2, wantJ)
		}
	}
}

// narrowSeq is the single-precision cache's conversion as one sequential
// loop (cache.col32 before narrow): the reference narrow must equal bit for
// bit, its maximum included (Go's max, NaN-propagating).
func narrowSeq(dst []float32, src []float64) (float64, bool) {
	var z float32
	mx := 0.0
	for k, v := range src {
		f := float32(v)
		dst[k] = f
		z += f - f
		mx = max(mx, math.Abs(v))
	}
	return mx, z != 0
}

// TestNarrowAgrees: narrow (AVX2 lanes and the unrolled Go loop) gives the
// sequential loop's float32 entries, maximum and check, bit for bit, on
// lengths 0-41 with entries beyond float32's range, below its normal
// range, halfway cases of the rounding, ±0, NaN and ±Inf anywhere (the
// NaN's maximum is NaN, which VMAXPD alone would drop).
func TestNarrowAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	avx := []bool{false}
	if useAVX2 {
		avx = append(avx, true)
	} else {
		t.Log("no AVX2 on this machine: only the Go loop is checked")
	}
	defer func(v bool) { useAVX2 = v }(useAVX2)
	special := []float64{math.MaxFloat32 * 1.5, -math.MaxFloat32, 1e-40, -1e-46, 0, math.Copysign(0, -1),
		1 + 0x1p-24, 1 + 3*0x1p-24, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, a := range avx {
		useAVX2 = a
		for n := range 42 {
			for trial := range 2 * len(special) {
				src := make([]float64, n)
				for k := range src {
					src[k] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(80)-40))
				}
				if n > 0 && trial < len(special) {
					src[rng.IntN(n)] = special[trial]
				}
				want := slices.Repeat([]float32{-7}, n+3)
				wmx, wbad := narrowSeq(want[:n], src)
				got := slices.Repeat([]float32{-7}, n+3)
				mx, bad := narrow(got[:n], src)
				for k := range got {
					if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
						t.Fatalf("AVX2 %v, n = %d, entry %d of %v: %v, want %v", a, n, k, src, got[k], want[k])
					}
				}
				if math.Float64bits(mx) != math.Float64bits(wmx) && !(math.IsNaN(mx) && math.IsNaN(wmx)) || bad != wbad {
					t.Fatalf("AVX2 %v, n = %d, %v: max %v, non-finite %v; want %v, %v", a, n, src, mx, bad, wmx, wbad)
				}
			}
		}
	}
}

// TestAnyNonFinite: the cache's check of a computed column (four
// independent sums) finds a NaN or ±Inf at every position of every length
// up to 13, in every one of its sums and the tail, and passes finite
// columns with huge, tiny and signed-zero entries.
func TestAnyNonFinite(t *testing.T) {
	for n := range 14 {
		s := make([]float64, n)
		for k := range s {
			s[k] = []float64{math.MaxFloat64, -math.MaxFloat64, 5e-324, math.Copysign(0, -1), 1}[k%5]
		}
		if anyNonFinite(s) {
			t.Fatalf("n = %d, finite %v: reported non-finite", n, s)
		}
		for p := range n {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				b := slices.Clone(s)
				b[p] = bad
				if !anyNonFinite(b) {
					t.Fatalf("n = %d, %v at %d: not found", n, bad, p)
				}
			}
		}
	}
}
