package dataio

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestWeston(t *testing.T) {
	const n = 4000
	d := Weston(n, 20, rand.New(rand.NewPCG(1, 2)))
	if d.Len() != n || d.Dim() != 52 || len(d.FeatureNames) != 52 {
		t.Fatalf("%d×%d", d.Len(), d.Dim())
	}
	pos, neg := d.ClassCounts()
	if pos != n/2 || neg != n/2 {
		t.Errorf("classes %d/%d, want %d/%d", pos, neg, n/2, n/2)
	}
	// Noise features 3..52: mean 0, std 20 (pooled over 200 000 values the
	// std has a standard error of 20/√400000 ≈ 0.03).
	var sum, ss float64
	for i := 0; i < n; i++ {
		for j := 2; j < 52; j++ {
			v := d.X.At(i, j)
			sum += v
			ss += v * v
		}
	}
	cnt := float64(n * 50)
	mean := sum / cnt
	std := math.Sqrt(ss/cnt - mean*mean)
	if math.Abs(mean) > 0.3 || math.Abs(std-20) > 0.15 {
		t.Errorf("noise mean %.3f std %.3f, want 0 and 20", mean, std)
	}
	// Features 1-2: E[x1 x2] = -9 for y=+1 (means (3,-3), (-3,3)) and
	// 0.75·3 = 2.25 for y=-1; E|x2| = 3 in both (up to the folded normal's
	// 3 + 2φ(3) ≈ 3.009).
	var xy, ax [2]float64
	var cntc [2]float64
	for i := 0; i < n; i++ {
		c := 0
		if d.Y[i] > 0 {
			c = 1
		}
		xy[c] += d.X.At(i, 0) * d.X.At(i, 1)
		ax[c] += math.Abs(d.X.At(i, 1))
		cntc[c]++
	}
	if m := xy[1] / cntc[1]; math.Abs(m+9) > 0.6 {
		t.Errorf("E[x1x2 | y=+1] = %.3f, want -9", m)
	}
	if m := xy[0] / cntc[0]; math.Abs(m-2.25) > 0.4 {
		t.Errorf("E[x1x2 | y=-1] = %.3f, want 2.25", m)
	}
	for c := range 2 {
		if m := ax[c] / cntc[c]; math.Abs(m-3.009) > 0.1 {
			t.Errorf("E|x2| class %d = %.3f, want 3.01", c, m)
		}
	}
	// The noise std is a parameter.
	d5 := Weston(2000, 5, rand.New(rand.NewPCG(1, 2)))
	col := mat.Col(nil, 10, d5.X)
	if _, s := meanStd(col); math.Abs(s-5) > 0.4 {
		t.Errorf("noise-std 5: feature 11 std %.3f", s)
	}
}

func TestToyDeterministic(t *testing.T) {
	a := Weston(50, 20, rand.New(rand.NewPCG(7, 1)))
	b := Weston(50, 20, rand.New(rand.NewPCG(7, 1)))
	c := Weston(50, 20, rand.New(rand.NewPCG(8, 1)))
	if !mat.Equal(a.X, b.X) || !slices.Equal(a.Y, b.Y) {
		t.Error("Weston differs with one seed")
	}
	if mat.Equal(a.X, c.X) {
		t.Error("Weston equal for two seeds")
	}
	p, pb := Chessboard(50, 3, 3, rand.New(rand.NewPCG(7, 1)))
	q, qb := Chessboard(50, 3, 3, rand.New(rand.NewPCG(7, 1)))
	if !mat.Equal(p.X, q.X) || !slices.Equal(p.Y, q.Y) || !mat.Equal(pb, qb) {
		t.Error("Chessboard differs with one seed")
	}
}

func TestChessboard(t *testing.T) {
	for _, c := range []struct {
		dim     int
		stretch float64
	}{{2, 3}, {5, 3}, {3, 1}} {
		const n = 4000
		d, B := Chessboard(n, c.dim, c.stretch, rand.New(rand.NewPCG(3, 4)))
		if d.Len() != n || d.Dim() != c.dim {
			t.Fatalf("%d×%d", d.Len(), d.Dim())
		}
		// B̃ symmetric with eigenvalues {s, 1/s, 1, …}.
		if !mat.EqualApprox(B, B.T(), 0) {
			t.Fatal("B̃ not symmetric")
		}
		var eig mat.EigenSym
		if !eig.Factorize(mat.NewSymDense(c.dim, B.RawMatrix().Data), false) {
			t.Fatal("eigen")
		}
		got := eig.Values(nil)
		want := []float64{c.stretch, 1 / c.stretch}
		for range c.dim - 2 {
			want = append(want, 1)
		}
		sort.Float64s(want)
		if !close6(got, want) {
			t.Errorf("eigenvalues %v, want %v", got, want)
		}
		// Undo B̃ and check the parity rule on every row.
		var xt mat.Dense
		if err := xt.Solve(B, d.X.T()); err != nil {
			t.Fatal(err)
		}
		pos := 0
		for i := 0; i < n; i++ {
			s := 0
			for j := 0; j < c.dim; j++ {
				v := xt.At(j, i)
				if v < -2-1e-9 || v > 2+1e-9 {
					t.Fatalf("row %d: x̃ = %v outside [-2,2]", i, v)
				}
				s += int(math.Floor(v))
			}
			if want := s%2 == 0; want != (d.Y[i] > 0) {
				t.Fatalf("row %d: parity %d but label %v", i, s, d.Y[i])
			}
			if d.Y[i] > 0 {
				pos++
			}
		}
		// P(+1) = ½: 4000 rows give a standard error of 0.008.
		if f := float64(pos) / n; math.Abs(f-0.5) > 0.035 {
			t.Errorf("dim %d: fraction +1 = %.3f", c.dim, f)
		}
	}
}

func TestHaarOrthogonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	// Orthogonal, and Haar: the mean of D[0][0]² over draws is 1/d.
	const d, draws = 4, 4000
	m := 0.0
	for range draws {
		D := haarOrthogonal(d, rng)
		var p mat.Dense
		p.Mul(D.T(), D)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(p.At(i, j)-want) > 1e-12 {
					t.Fatalf("DᵀD[%d,%d] = %v", i, j, p.At(i, j))
				}
			}
		}
		m += D.At(0, 0) * D.At(0, 0)
		// Mean of the (0,0) entry itself is 0 for Haar (the sign fix matters:
		// without it QR's convention biases the diagonal).
	}
	if m /= draws; math.Abs(m-0.25) > 0.02 {
		t.Errorf("E[D00²] = %.3f, want 0.25", m)
	}
	s := 0.0
	for range draws {
		s += haarOrthogonal(d, rng).At(0, 0)
	}
	if s /= draws; math.Abs(s) > 0.03 {
		t.Errorf("E[D00] = %.3f, want 0", s)
	}
}

func close6(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-10*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

func TestWestonZeroNoise(t *testing.T) {
	d := Weston(20, 0, rand.New(rand.NewPCG(1, 1)))
	s := Describe(d)
	if len(s.Constant) != 50 || s.Constant[0] != 3 {
		t.Errorf("noise-std 0: constant features %v, want 3..52", s.Constant)
	}
}
