package dataio

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
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
	// A spread beyond float64 has no finite (x - shift)/scale: an error
	// naming the feature, not a feature silently left unscaled at ±1e308
	// (whose kernel values then overflow).
	for _, kind := range []string{MinMax01, MinMax11} {
		X := mat.NewDense(3, 2, []float64{1, -math.MaxFloat64, 2, math.MaxFloat64, 3, 0})
		_, err := FitNormalizer(kind, X)
		if want := "feature 2 ranges from -1.7976931348623157e+308 to 1.7976931348623157e+308, a spread beyond float64"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", kind, err, want)
		}
	}
	if _, err := FitNormalizer(NoScale, mat.NewDense(2, 1, []float64{-math.MaxFloat64, math.MaxFloat64})); err != nil {
		t.Errorf("none: %v", err)
	}
	// zscore's std of {-max, max, 0} is max·√(2/3), in range: it scales.
	nz, err := FitNormalizer(ZScore, mat.NewDense(3, 1, []float64{-math.MaxFloat64, math.MaxFloat64, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if want := math.MaxFloat64 * math.Sqrt(2.0/3); nz.Shift[0] != 0 || math.Abs(nz.Scale[0]-want) > 1e-15*want {
		t.Errorf("zscore: shift %g scale %g, want 0, %g", nz.Shift[0], nz.Scale[0], want)
	}
	bad := Normalizer{Kind: ZScore, Shift: []float64{0}, Scale: []float64{0}}
	if bad.Validate() == nil {
		t.Error("zero scale validated")
	}
}

// Values whose squares (or sum) overflow but whose spread does not are
// scaled: mean and std are computed in range.
func TestNormalizerHugeValues(t *testing.T) {
	for _, tc := range []struct {
		x         []float64
		mean, std float64
	}{
		{[]float64{-3e200, 3e200}, 0, 3e200},                            // squares overflow
		{[]float64{1e308, 1.5e308, 1.5e308, 1e308}, 1.25e308, 0.25e308}, // the sum overflows
	} {
		nz, err := FitNormalizer(ZScore, mat.NewDense(len(tc.x), 1, tc.x))
		if err != nil {
			t.Fatalf("%v: %v", tc.x, err)
		}
		if math.Abs(nz.Shift[0]-tc.mean) > 1e-15*tc.std || math.Abs(nz.Scale[0]-tc.std) > 1e-15*tc.std {
			t.Errorf("%v: shift %g scale %g, want %g, %g", tc.x, nz.Shift[0], nz.Scale[0], tc.mean, tc.std)
		}
		z := nz.Apply(mat.NewDense(len(tc.x), 1, tc.x))
		for i := range tc.x {
			if v := z.At(i, 0); math.Abs(math.Abs(v)-1) > 1e-15 {
				t.Errorf("%v: z[%d] = %v, want ±1", tc.x, i, v)
			}
		}
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

// notDense hides a *mat.Dense behind the mat.Matrix interface, so that
// FitNormalizer takes its column-by-column loop.
type notDense struct{ mat.Matrix }

// The row-major statistics of a *mat.Dense give every normaliser bit for bit
// what the column loop gives, also where the sums overflow, and the same
// error for the first non-finite entry.
func TestFitNormalizerDenseStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(50, 6, nil)
	for i := range 50 {
		X.Set(i, 0, rng.NormFloat64()*3+7)
		X.Set(i, 1, float64(rng.IntN(2)))      // binary
		X.Set(i, 2, 4)                         // constant
		X.Set(i, 3, 1e307*(1+rng.Float64()))   // the sum overflows
		X.Set(i, 4, 1e160*rng.NormFloat64())   // the squares overflow
		X.Set(i, 5, rng.Float64()*1e-3-0.5e-3) // small, both signs
	}
	for _, kind := range []string{ZScore, MinMax01, MinMax11, NoScale} {
		a, errA := FitNormalizer(kind, X)
		b, errB := FitNormalizer(kind, notDense{X})
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v / %v", kind, errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: dense %+v, column loop %+v", kind, a, b)
		}
	}
	X.Set(7, 4, math.NaN())
	X.Set(3, 5, math.Inf(-1))
	_, errA := FitNormalizer(ZScore, X)
	_, errB := FitNormalizer(ZScore, notDense{X})
	if errA == nil || errB == nil || errA.Error() != errB.Error() {
		t.Errorf("non-finite entries: dense %v, column loop %v", errA, errB)
	}
}

// TestMaxAbsAndAuto: maxabs divides by max|x| without a shift (zeros stay
// zeros, 0/1 features unchanged, a column of zeros constant), and auto fits
// maxabs on data with at least half its entries zero and zscore on the rest.
func TestMaxAbsAndAuto(t *testing.T) {
	X := mat.NewDense(4, 3, []float64{
		0, 1, -4,
		0, 0, 0,
		0, 1, 2,
		0, 0, 0,
	})
	nz, err := FitNormalizer(MaxAbs, X)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nz.Shift, []float64{0, 0, 0}) || !slices.Equal(nz.Scale, []float64{1, 1, 4}) || !slices.Equal(nz.Constant, []int{0}) {
		t.Errorf("maxabs: shift %v scale %v constant %v", nz.Shift, nz.Scale, nz.Constant)
	}
	got := nz.Apply(X)
	want := mat.NewDense(4, 3, []float64{0, 1, -1, 0, 0, 0, 0, 1, 0.5, 0, 0, 0})
	if !mat.Equal(got, want) {
		t.Errorf("maxabs applied:\n%v", mat.Formatted(got))
	}
	// 7 of 12 entries are zero: sparse, auto fits maxabs.
	if !SparseData(X) {
		t.Error("7 of 12 zeros: not sparse")
	}
	auto, err := FitNormalizer(Auto, X)
	if err != nil || auto.Kind != MaxAbs {
		t.Errorf("auto on sparse data: %v %v", auto, err)
	}
	if def, _ := FitNormalizer("", X); def.Kind != MaxAbs {
		t.Errorf("the default on sparse data is %s", def.Kind)
	}
	// 5 of 12 zeros: dense, auto fits a z-score.
	D := mat.NewDense(4, 3, []float64{1, 1, -4, 0, 2, 1, 0, 1, 2, 3, 0, 0})
	if SparseData(D) {
		t.Error("5 of 12 zeros: sparse")
	}
	if a, _ := FitNormalizer(Auto, D); a.Kind != ZScore {
		t.Errorf("auto on dense data: %s", a.Kind)
	}
	if err := (&Normalizer{Kind: MaxAbs, Shift: []float64{0}, Scale: []float64{2}}).Validate(); err != nil {
		t.Errorf("a maxabs normaliser read back: %v", err)
	}
}

// TestZScoreTinyAndHugeColumns (issue 42): a column scaled by a power of two
// gets the z-score of the column itself, bit for bit, however small or
// large: the variance of values below about 1e-162 underflowed to 0 (the
// column was left unscaled and carried nothing), and above about 1e154 the
// squares overflowed. info's feature statistics share the computation.
func TestZScoreTinyAndHugeColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 5))
	n := 50
	base := make([]float64, n)
	for i := range base {
		base[i] = rng.NormFloat64() + 0.3
	}
	ref, err := FitNormalizer(ZScore, mat.NewDense(n, 1, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []int{-1060, -1000, -600, -540, 600, 1000} {
		col := make([]float64, n)
		for i, v := range base {
			col[i] = math.Ldexp(v, e)
		}
		nz, err := FitNormalizer(ZScore, mat.NewDense(n, 1, col))
		if err != nil {
			t.Fatalf("2^%d: %v", e, err)
		}
		if e < -1022 { // subnormal values: what digits they have
			if got, want := nz.Scale[0], math.Ldexp(ref.Scale[0], e); math.Abs(got-want) > 1e-6*want || len(nz.Constant) > 0 {
				t.Errorf("2^%d: scale %g, want %g", e, got, want)
			}
			continue
		}
		if nz.Shift[0] != math.Ldexp(ref.Shift[0], e) || nz.Scale[0] != math.Ldexp(ref.Scale[0], e) {
			t.Errorf("2^%d: shift %g scale %g, want %g and %g", e, nz.Shift[0], nz.Scale[0], math.Ldexp(ref.Shift[0], e), math.Ldexp(ref.Scale[0], e))
		}
		d := &Dataset{X: mat.NewDense(n, 1, col), Y: make([]float64, n)}
		if st := Describe(d).Stats[0]; st.Std != nz.Scale[0] || st.Mean != nz.Shift[0] {
			t.Errorf("2^%d: info's mean %g std %g, want the normaliser's %g and %g", e, st.Mean, st.Std, nz.Shift[0], nz.Scale[0])
		}
	}
}
