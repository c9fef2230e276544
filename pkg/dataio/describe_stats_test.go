package dataio

import (
	"encoding/json"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
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

// Describe's mean and std (columnMean, popStd: the z-score's own routine)
// are exact where the plain formula is finite, and finite where it
// overflowed or underflowed (std was +Inf for |x| > 1e154).
func TestColumnMomentsScaled(t *testing.T) {
	moments := func(v ...float64) (mean, std float64) {
		x := mat.NewDense(len(v), 1, v)
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, e := range v {
			lo, hi, sum = min(lo, e), max(hi, e), sum+e
		}
		mean = columnMean(x, 0, sum)
		return mean, popStd(x, 0, mean, columnSS(x, 0, mean, nil), lo, hi)
	}
	for _, s := range []float64{1, 1e200, 1e-200, 1e307} {
		mean, std := moments(1*s, 3*s, 2*s, -1*s)
		if math.Abs(mean/s-1.25) > 1e-15 || math.Abs(std/s-math.Sqrt(2.1875)) > 1e-15 {
			t.Errorf("scale %g: mean %g std %g", s, mean, std)
		}
	}
	x := []float64{0.5, 3, 1, 2.25}
	mean, std := moments(x...)
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
