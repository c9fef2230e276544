package dataio

import (
	"encoding/json"
	"math"
	"testing"
)

// A feature statistic that is no finite number is written as null, and
// read back as NaN: JSON has no Inf or NaN (issue 42, item 18).
func TestFeatureStatNonFiniteIsNull(t *testing.T) {
	f := FeatureStat{Name: "f1", Min: math.Inf(1), Max: math.Inf(-1), Mean: math.NaN(), Std: 2}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"f1","min":null,"max":null,"mean":null,"std":2}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back FeatureStat
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Name != "f1" || !math.IsNaN(back.Min) || !math.IsNaN(back.Mean) || back.Std != 2 {
		t.Errorf("read back %+v", back)
	}
}

// columnMoments scales by a power of two: exact where the plain formula
// is finite, finite where it overflowed or underflowed.
func TestColumnMomentsScaled(t *testing.T) {
	for _, s := range []float64{1, 1e200, 1e-200, 1e307} {
		x := colMatrix{1 * s, 3 * s, 2 * s, -1 * s}
		mean, std := columnMoments(x, 4, 0, 3*s)
		if math.Abs(mean/s-1.25) > 1e-15 || math.Abs(std/s-math.Sqrt(2.1875)) > 1e-15 {
			t.Errorf("scale %g: mean %g std %g", s, mean, std)
		}
	}
	x := colMatrix{0.5, 3, 1, 2.25}
	mean, std := columnMoments(x, 4, 0, 3)
	if m := (0.5 + 3 + 1 + 2.25) / 4; mean != m {
		t.Errorf("mean %v, want %v", mean, m)
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	if std != math.Sqrt(ss/4) {
		t.Errorf("std %v, want %v exactly", std, math.Sqrt(ss/4))
	}
}

type colMatrix []float64

func (c colMatrix) At(i, _ int) float64 { return c[i] }
