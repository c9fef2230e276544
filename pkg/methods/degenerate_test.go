package methods

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// degenerateFit trains the L1 SVM with kernel k and C on d and returns its
// decision values on d, as the final model does.
func degenerateFit(t *testing.T, d *dataio.Dataset, k kernel.Kernel, C float64) []float64 {
	t.Helper()
	res, err := solver.TrainSVC(context.Background(), k.Rows(d.X), d.Y, solver.SVCParams{Margin: solver.L1, C: C}, solver.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return solver.Decision(nil, k.Cross(d.X, d.X), res.Coef, res.Bias)
}

// TestClassifyDegenerate provokes each kind on 100 z-scored heart rows
// (13 features, median ‖x_i - x_j‖² ≈ 25): a huge γ makes K ≈ I, a tiny γ
// with C = 1 makes K ≈ 11ᵀ for that C, a tiny C makes the SVM predict the
// majority class with a moderate kernel. The same tiny γ with a large C is
// a nearly linear SVM, not degenerate, and so is the svm baseline's choice.
func TestClassifyDegenerate(t *testing.T) {
	t.Parallel()
	d := heartHead(t, 100)
	exact := func(g float64) (med, near float64) {
		k, _ := kernel.NewGaussianIso(g)
		K := k.Gram(d.X)
		var nn []float64
		for i := 0; i < d.Len(); i++ {
			best := 0.0
			for j := 0; j < d.Len(); j++ {
				if j != i {
					best = math.Max(best, K.At(i, j))
				}
			}
			nn = append(nn, best)
		}
		return kernel.MedianOffDiag(K), median(nn)
	}
	for _, tc := range []struct {
		name     string
		gamma, C float64
		kind     string
		reason   string
	}{
		{"huge gamma", 10, 1, DegenerateDiagonal, "nearly diagonal on the training part: the median over points of the nearest neighbour's K is "},
		{"tiny gamma, C = 1", 1e-7, 1, DegenerateConstant, "nearly constant on the training part for its C: C·(1 - median off-diagonal K) = 1·"},
		{"tiny gamma, large C", 1e-5, 32768, "", ""},
		{"tiny C", 0.05, 1e-3, DegenerateOneClass, "the final SVM predicts one class (-1) for all 100 training points"},
		{"moderate", 0.05, 1, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := kernel.NewGaussianIso(tc.gamma)
			if err != nil {
				t.Fatal(err)
			}
			dec := degenerateFit(t, d, k, tc.C)
			got := ClassifyDegenerate(k, d.X, tc.C, dec)
			if got.Kind != tc.kind {
				t.Fatalf("kind %q, want %q (%+v)", got.Kind, tc.kind, got)
			}
			if !strings.Contains(got.Reason, tc.reason) || (tc.kind == "") != (got.Reason == "") {
				t.Errorf("reason %q, want it to contain %q", got.Reason, tc.reason)
			}
			// All 4950 pairs and 100 rows, through columns: the exact
			// medians (columns and Gram round differently: 1e-9 relative).
			med, near := exact(tc.gamma)
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
			if !close(deref(got.MedianK), med) || !close(deref(got.NearestK), near) || got.Pairs != 4950 || got.Rows != 100 || got.Sampled {
				t.Errorf("median K %v, nearest %v over %d pairs and %d rows (sampled %v), want %v and %v over 4950 and 100",
					deref(got.MedianK), deref(got.NearestK), got.Pairs, got.Rows, got.Sampled, med, near)
			}
			if got.PredictedPos+got.PredictedNeg != 100 {
				t.Errorf("predictions %d + %d, want 100", got.PredictedPos, got.PredictedNeg)
			}
		})
	}
	// The cases above sit well inside their sides of the thresholds.
	if _, near := exact(10); !(near < DiagonalBelow/100) {
		t.Errorf("γ = 10: nearest-neighbour K %v, want < %v/100", near, DiagonalBelow)
	}
	if med, _ := exact(1e-7); !(1-med < ConstantBelow/100) {
		t.Errorf("γ = 1e-7: 1 - median K %v, want < %v/100", 1-med, ConstantBelow)
	}
	if med, _ := exact(1e-5); !(32768*(1-med) > 100*ConstantBelow) {
		t.Errorf("γ = 1e-5: C·(1 - median K) = %v, want > 100·%v", 32768*(1-med), ConstantBelow)
	}

	// The svm baseline's choice on the same rows is a sensible kernel.
	res, err := SVMSettings{Common: Common{Seed: 1}}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.FromSpec(res.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	if got := ClassifyDegenerate(k, d.X, res.C, degenerateFit(t, d, k, res.C)); got.Kind != "" {
		t.Errorf("svm baseline (γ %g, C %g): %+v, want not degenerate", res.Kernel.Gamma, res.C, got)
	}
}

// TestClassifyDegenerateHard: the hard margin has no C, so a nearly
// constant kernel is a (nearly linear) hard-margin SVM, not "constant".
func TestClassifyDegenerateHard(t *testing.T) {
	d := heartHead(t, 100)
	k, _ := kernel.NewGaussianIso(1e-7)
	dec := make([]float64, d.Len())
	copy(dec, d.Y)
	if got := ClassifyDegenerate(k, d.X, 0, dec); got.Kind != "" || !(1-deref(got.MedianK) < 1e-4) {
		t.Errorf("hard margin, K ≈ 11ᵀ: %+v, want not degenerate", got)
	}
}

// deref is *p, NaN for nil.
func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestClassifyDegenerateBoth names the kernel's shape first and adds the
// one-class outcome to the reason.
func TestClassifyDegenerateBoth(t *testing.T) {
	d := heartHead(t, 100)
	k, _ := kernel.NewGaussianIso(1e-7)
	dec := degenerateFit(t, d, k, 1)
	got := ClassifyDegenerate(k, d.X, 1, dec)
	if got.Kind != DegenerateConstant || got.PredictedPos != 0 || got.PredictedNeg != 100 ||
		!strings.Contains(got.Reason, "nearly constant") || !strings.Contains(got.Reason, "; the final SVM predicts one class (-1)") {
		t.Errorf("got %+v, want constant with the one-class outcome in the reason", got)
	}
}

// TestClassifyDegenerateSampled checks the sampled median on 700 diabetes
// rows (244,650 pairs): 20,000 fixed pairs, the same on every call, and the
// sample median between the exact 48th and 52nd percentiles of all pairs.
func TestClassifyDegenerateSampled(t *testing.T) {
	t.Parallel()
	full := spdLoadBuiltin(t, "diabetes")
	idx := make([]int, 700)
	for i := range idx {
		idx[i] = i
	}
	d, _, _ := normalizedSplit(t, full.Subset(idx), full.Subset(idx[:1]))
	k, _ := kernel.NewGaussianIso(0.1)
	dec := make([]float64, d.Len())
	for i := range dec {
		dec[i] = float64(i%2) - 0.5
	}
	got := ClassifyDegenerate(k, d.X, 1, dec)
	if !got.Sampled || got.Pairs != degeneratePairs || got.Rows != degenerateRows || got.Kind != "" || got.PredictedPos != 350 {
		t.Fatalf("got %+v, want 20000 sampled pairs and 200 rows, not degenerate, 350 predicted +1", got)
	}
	again := ClassifyDegenerate(k, d.X, 1, dec)
	if deref(again.MedianK) != deref(got.MedianK) || deref(again.NearestK) != deref(got.NearestK) {
		t.Errorf("second call: median %v, first %v: the sample must be fixed", deref(again.MedianK), deref(got.MedianK))
	}
	K := k.Gram(d.X)
	var all []float64
	for i := 0; i < d.Len(); i++ {
		for j := i + 1; j < d.Len(); j++ {
			all = append(all, K.At(i, j))
		}
	}
	median(all) // sorts
	lo, hi := all[len(all)*48/100], all[len(all)*52/100]
	if m := deref(got.MedianK); !(m >= lo && m <= hi) {
		t.Errorf("sampled median %v outside the exact 48–52nd percentiles [%v, %v]", m, lo, hi)
	}
}

// TestClassifyDegenerateL1: the L1 kernel has no fixed scale, so only the
// one-class test applies.
func TestClassifyDegenerateL1(t *testing.T) {
	d := heartHead(t, 60)
	theta := make([]float64, d.Dim())
	for i := range theta {
		theta[i] = 1e-6 // huge |K| values: no shape verdict either way
	}
	k, err := kernel.NewL1(theta)
	if err != nil {
		t.Fatal(err)
	}
	dec := make([]float64, d.Len())
	for i := range dec {
		dec[i] = d.Y[i]
	}
	if got := ClassifyDegenerate(k, d.X, 1, dec); got.Kind != "" || got.MedianK != nil || got.NearestK != nil || got.Pairs != 0 {
		t.Errorf("L1 kernel, both classes predicted: %+v, want not degenerate and no median", got)
	}
	for i := range dec {
		dec[i] = 1
	}
	if got := ClassifyDegenerate(k, d.X, 1, dec); got.Kind != DegenerateOneClass || got.Reason != "the final SVM predicts one class (+1) for all 60 training points" {
		t.Errorf("L1 kernel, all +1: %+v, want one-class", got)
	}
}
