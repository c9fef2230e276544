package model

import "testing"

// TestRangeLimits: svm-scale -r maps [min, max] onto [0, 1], so a map
// x' = a (x - m) is min = m, max = m + 1/a; a feature the kernel ignores
// (a = 0) has min = max, which svm-scale writes as 0; a map that float64
// cannot hold (1/a lost against m) is refused, naming the feature.
func TestRangeLimits(t *testing.T) {
	lo, hi, _, ok := RangeLimits([]float64{0.5, 0, 4}, []float64{-3, 7, 1e6})
	if !ok || lo[0] != -3 || hi[0] != -1 || lo[1] != 7 || hi[1] != 7 || lo[2] != 1e6 || hi[2] != 1e6+0.25 {
		t.Errorf("limits %v %v (ok %v)", lo, hi, ok)
	}
	// svm-scale's own formula gives the map back.
	for j, c := range []struct{ a, m, x float64 }{{0.5, -3, 2}, {4, 1e6, 1e6 - 3}} {
		l, h, _, _ := RangeLimits([]float64{c.a}, []float64{c.m})
		if got, want := (c.x-l[0])/(h[0]-l[0]), c.a*(c.x-c.m); got != want {
			t.Errorf("case %d: svm-scale gives %v, the map %v", j, got, want)
		}
	}
	if _, _, j, ok := RangeLimits([]float64{1, 1e-310}, []float64{0, 1e10}); ok || j != 1 {
		t.Errorf("1/a = +Inf: ok %v, feature %d", ok, j)
	}
	if _, _, j, ok := RangeLimits([]float64{1e-20}, []float64{1e10}); !ok {
		t.Errorf("1/a = 1e20 against m = 1e10: feature %d refused", j)
	}
	if _, _, j, ok := RangeLimits([]float64{1e20}, []float64{1e10}); ok || j != 0 {
		t.Errorf("1/a = 1e-20 lost against m = 1e10: ok %v, feature %d", ok, j)
	}
}
