package sqp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// slackQP builds a QP subproblem of the slack structure of Schittkowski's
// eq. 12 as Minimize makes it: k nonlinear variables with a dense SPD
// block, nt slack variables with the diagonal curvature lin, one
// constraint a_iᵀd_w + d_z_i ≥ -(f_i + z_i) per slack (a_i dense on w, with
// zeros where zeroFrac says; f_i drawn so that most margins hold, z_i =
// max(0, -f_i)), the bounds d_z ≥ -z and |d_w| ≤ 2, and extra general rows
// touching a few variables. The linear term is 1 on the slacks, 0 on w.
func slackQP(rng *rand.Rand, k, nt, extra int, zeroFrac float64) *qpProblem {
	n := k + nt
	b := make([]float64, n*n)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			b[i*n+j] = 0.3 * rng.NormFloat64()
		}
	}
	// B₁ = MMᵀ + I on the leading block.
	m1 := make([]float64, k*k)
	copy(m1, b[:0])
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			m1[i*k+j] = b[i*n+j]
		}
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			var v float64
			for l := 0; l < k; l++ {
				v += m1[i*k+l] * m1[j*k+l]
			}
			if i == j {
				v++
			}
			b[i*n+j] = v
		}
	}
	for i := k; i < n; i++ {
		b[i*n+i] = 1e-2
	}
	linv, ok := invCholFactor(b, n, nt)
	if !ok {
		panic("not SPD")
	}
	m := nt + extra
	A := make([]float64, m*n)
	rhs := make([]float64, m)
	z0 := make([]float64, nt)
	for l := 0; l < nt; l++ {
		for j := 0; j < k; j++ {
			if rng.Float64() >= zeroFrac {
				A[l*n+j] = rng.NormFloat64()
			}
		}
		A[l*n+k+l] = 1
		// f_l ~ N(1, 1): most validation margins hold, as at a usable
		// kernel; z0 = max(0, -f) as tlStart sets the slacks.
		f := 1 + rng.NormFloat64()
		z0[l] = math.Max(0, -f)
		rhs[l] = -(f + z0[l])
	}
	for e := nt; e < m; e++ {
		for c := 0; c < 3; c++ {
			A[e*n+rng.IntN(n)] = rng.NormFloat64()
		}
		rhs[e] = -1 - rng.Float64()
	}
	a := make([]float64, n)
	lo := make([]float64, n)
	hi := make([]float64, n)
	for i := range lo {
		if i < k {
			lo[i], hi[i] = -2, 2
			continue
		}
		a[i] = 1
		lo[i], hi[i] = -z0[i-k], math.Inf(1)
	}
	return &qpProblem{n: n, linv: linv, a: a, A: A, b: rhs, m: m, lo: lo, hi: hi}
}

// TestSparseFactorsGiveTheDenseBits: the QP solved on the factors' listed
// columns gives the
// dense method's solution bit for bit, its multipliers (equal as numbers:
// a zero may differ in sign) and its iteration count, on slack-structured
// QPs of up to 400 variables (where the spans prune most of the work) and
// on the dense random QPs of TestGoldfarbIdnaniKKT (where they prune
// nothing), solved on fresh factors and on those of the previous problem
// of the same size (newGIFrom, as Minimize does).
func TestSparseFactorsGiveTheDenseBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var probs []*qpProblem
	for trial := 0; trial < 60; trial++ {
		k := 1 + rng.IntN(4)
		nt := 5 + rng.IntN(120)
		switch {
		case trial%10 == 0:
			nt = 400
		case trial%5 == 0:
			k, nt = 2, 200 // one size, so the factors are reused
		}
		probs = append(probs, slackQP(rng, k, nt, rng.IntN(6), []float64{0, 0, 0.5}[trial%3]))
	}
	for trial := 0; trial < 100; trial++ {
		n := 2 + rng.IntN(15)
		p, _ := randomQP(rng, n, rng.IntN(n/2), rng.IntN(2*n))
		probs = append(probs, p)
	}
	pruned, reused := 0, 0
	prev := map[int]*gi{}
	for i, p := range probs {
		if prev[p.n] != nil {
			reused++
		}
		sparse, dense := newGIFrom(p, prev[p.n]), newGI(p)
		prev[p.n] = sparse
		dense.setFull()
		rs, errS := sparse.solve(1e-12)
		rd, errD := dense.solve(1e-12)
		if (errS == nil) != (errD == nil) || (errS != nil && errS.Error() != errD.Error()) {
			t.Fatalf("problem %d (n %d): error %v sparse, %v dense", i, p.n, errS, errD)
		}
		if errS != nil {
			continue
		}
		if sparse.iters != dense.iters {
			t.Fatalf("problem %d (n %d): %d iterations sparse, %d dense", i, p.n, sparse.iters, dense.iters)
		}
		for j := range rd.x {
			if math.Float64bits(rs.x[j]) != math.Float64bits(rd.x[j]) {
				t.Fatalf("problem %d (n %d): x[%d] = %v sparse, %v dense", i, p.n, j, rs.x[j], rd.x[j])
			}
		}
		for j := range rd.lambda {
			if rs.lambda[j] != rd.lambda[j] {
				t.Fatalf("problem %d: λ[%d] = %v sparse, %v dense", i, j, rs.lambda[j], rd.lambda[j])
			}
		}
		for j := range rd.mu {
			if rs.mu[j] != rd.mu[j] {
				t.Fatalf("problem %d: μ[%d] = %v sparse, %v dense", i, j, rs.mu[j], rd.mu[j])
			}
		}
		if p.n >= 100 {
			var nzR int
			for r := 0; r < sparse.q; r++ {
				if len(sparse.rcol[r]) > 1 {
					nzR++
				}
			}
			if nzR < sparse.q/2 {
				pruned++
			}
		}
	}
	// The slack problems are what the spans are for: most rows of R must
	// have nothing off the diagonal there, or the test tests nothing.
	if pruned < 10 || reused < 4 {
		t.Errorf("only %d of the large slack problems left most of R's rows diagonal, %d reused a solver's factors", pruned, reused)
	}
}

// TestDotListIsDot: dotList (and dotListRev on the reversed list) gives floats.Dot's bits on every window
// [start, end) of rows that are zero outside the listed columns (which may
// list zeros too), for every length and alignment up to 40.
func TestDotListIsDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 20000; trial++ {
		n := 1 + rng.IntN(40)
		x, y := make([]float64, n), make([]float64, n)
		lo := rng.IntN(n + 1)
		hi := lo + rng.IntN(n-lo+1)
		for j := range y {
			y[j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
		}
		for j := lo; j < hi; j++ {
			if rng.IntN(4) != 0 {
				x[j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
			}
		}
		start := rng.IntN(n + 1)
		end := start + rng.IntN(n-start+1)
		want := floats.Dot(x[start:end], y[start:end])
		var cols []int32
		for j := lo; j < hi; j++ {
			if x[j] != 0 || rng.IntN(3) == 0 {
				cols = append(cols, int32(j))
			}
		}
		got := dotList(x, y, start, end, cols)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: n %d, span [%d,%d), window [%d,%d): %v, floats.Dot %v", trial, n, lo, hi, start, end, got, want)
		}
		rev := slices.Clone(cols)
		slices.Reverse(rev)
		if got := dotListRev(x, y, start, end, rev); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: n %d, span [%d,%d), window [%d,%d): dotListRev %v, floats.Dot %v", trial, n, lo, hi, start, end, got, want)
		}
	}
}

// BenchmarkSlackQP solves one QP subproblem of the slack structure of
// twolevel's SQP (slackQP: 2 nonlinear variables, nt slacks, most margins
// holding) on the dense factors (the method before the column lists) and
// on the sparse ones, with the GI iteration count and the share of R's
// upper triangle that is non-zero at the end.
func BenchmarkSlackQP(b *testing.B) {
	for _, nt := range []int{800, 2000} {
		p := slackQP(rand.New(rand.NewPCG(9, uint64(nt))), 2, nt, 0, 0)
		for _, mode := range []string{"dense", "sparse"} {
			b.Run(fmt.Sprintf("nt=%d/%s", nt, mode), func(b *testing.B) {
				b.ReportAllocs()
				var g *gi
				for b.Loop() {
					g = newGI(p)
					if mode == "dense" {
						g.setFull()
					}
					if _, err := g.solve(1e-12); err != nil {
						b.Fatal(err)
					}
				}
				var nzR int
				for i := 0; i < g.q; i++ {
					for j := i; j < g.q; j++ {
						if g.r[i][j] != 0 {
							nzR++
						}
					}
				}
				b.ReportMetric(float64(g.iters), "gi-iters")
				b.ReportMetric(float64(nzR)/float64(g.q*(g.q+1)/2), "R-density")
			})
		}
	}
}
