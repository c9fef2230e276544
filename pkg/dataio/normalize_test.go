package dataio

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNormalizer(t *testing.T) {
	// Column 0: 1,2,3,6 (mean 3, population std sqrt(3.5)); column 1 constant 5;
	// column 2: -2, 0, 0, 2.
	X := mat.NewDense(4, 3, []float64{
		1, 5, -2,
		2, 5, 0,
		3, 5, 0,
		6, 5, 2,
	})
	test := []float64{4, 7, 1}
	cases := []struct {
		kind  string
		shift []float64
		scale []float64
		row0  []float64
		test  []float64
	}{
		{ZScore, []float64{3, 5, 0}, []float64{math.Sqrt(3.5), 1, math.Sqrt(2)},
			[]float64{-2 / math.Sqrt(3.5), 0, -2 / math.Sqrt(2)}, []float64{1 / math.Sqrt(3.5), 2, 1 / math.Sqrt(2)}},
		{MinMax01, []float64{1, 5, -2}, []float64{5, 1, 4}, []float64{0, 0, 0}, []float64{0.6, 2, 0.75}},
		{MinMax11, []float64{3.5, 5, 0}, []float64{2.5, 1, 2}, []float64{-1, 0, -1}, []float64{0.2, 2, 0.5}},
		{NoScale, []float64{0, 0, 0}, []float64{1, 1, 1}, []float64{1, 5, -2}, []float64{4, 7, 1}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			nz, err := FitNormalizer(c.kind, X)
			if err != nil {
				t.Fatal(err)
			}
			if !close(nz.Shift, c.shift) || !close(nz.Scale, c.scale) {
				t.Errorf("shift %v scale %v, want %v %v", nz.Shift, nz.Scale, c.shift, c.scale)
			}
			if !slices.Equal(nz.Constant, []int{1}) {
				t.Errorf("constant %v, want [1]", nz.Constant)
			}
			z := nz.Apply(X)
			if !close(z.RawRowView(0), c.row0) {
				t.Errorf("row 0 → %v, want %v", z.RawRowView(0), c.row0)
			}
			if X.At(0, 0) != 1 {
				t.Fatal("Apply changed its input")
			}
			dst := make([]float64, 3)
			nz.ApplyRow(dst, test)
			if !close(dst, c.test) {
				t.Errorf("test row → %v, want %v", dst, c.test)
			}
			// JSON round trip (the normaliser travels with a model).
			b, err := json.Marshal(nz)
			if err != nil {
				t.Fatal(err)
			}
			var back Normalizer
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if err := back.Validate(); err != nil {
				t.Fatal(err)
			}
			if back.Kind != nz.Kind || !slices.Equal(back.Shift, nz.Shift) || !slices.Equal(back.Scale, nz.Scale) || !slices.Equal(back.Constant, nz.Constant) {
				t.Errorf("JSON round trip: %s → %+v", b, back)
			}
		})
	}
	// zscore: every non-constant training column has mean 0 and std 1.
	nz, _ := FitNormalizer("", X)
	if nz.Kind != ZScore {
		t.Errorf("default kind %q", nz.Kind)
	}
	z := nz.Apply(X)
	for _, j := range []int{0, 2} {
		col := mat.Col(nil, j, z)
		m, s := meanStd(col)
		if math.Abs(m) > 1e-15 || math.Abs(s-1) > 1e-15 {
			t.Errorf("column %d: mean %g std %g", j, m, s)
		}
	}
}

func TestNormalizerErrors(t *testing.T) {
	if _, err := FitNormalizer("l2", mat.NewDense(1, 1, []float64{1})); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := FitNormalizer(ZScore, &mat.Dense{}); err == nil {
		t.Error("empty matrix accepted")
	}
	if _, err := FitNormalizer(ZScore, mat.NewDense(2, 1, []float64{1, math.NaN()})); err == nil {
		t.Error("NaN accepted")
	}
	// Huge values: the spread overflows, no Inf or NaN comes out.
	nz, err := FitNormalizer(MinMax01, mat.NewDense(2, 1, []float64{-math.MaxFloat64, math.MaxFloat64}))
	if err != nil {
		t.Fatal(err)
	}
	if err := nz.Validate(); err != nil {
		t.Error(err)
	}
	bad := Normalizer{Kind: ZScore, Shift: []float64{0}, Scale: []float64{0}}
	if bad.Validate() == nil {
		t.Error("zero scale validated")
	}
}

func meanStd(v []float64) (float64, float64) {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return m, math.Sqrt(s / float64(len(v)))
}

func close(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}
