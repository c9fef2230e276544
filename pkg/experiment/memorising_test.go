package experiment

import (
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// TestCheckMemorisation: the rule's three conditions and the held-out
// accuracy's source, on the cases that decide it: rcsc on heart (172 of 189
// rows SVs, 100 % train, 77.78 % CV) memorises; a model that underfits
// overlapping classes with every row an SV (train 76 %, CV 74 %) does not;
// nor does one with few SVs, or a gap under 2 points; without CV the test
// accuracy is the held-out one, and without either nothing is assessed.
func TestCheckMemorisation(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name              string
		nsv, n            int
		train, cv, test   float64
		wantFlag          bool
		wantSrc           string
		wantShare, wantHO float64
	}{
		{"rcsc on heart", 172, 189, 1, 0.7778, 0.7901, true, HeldOutCV, 172.0 / 189, 0.7778},
		{"the issue's 50,000 rows: 55 % SVs, train 99.9 %, CV 97 %", 55, 100, 0.999, 0.97, nan, true, HeldOutCV, 0.55, 0.97},
		{"underfit: every row an SV, train close to CV", 100, 100, 0.76, 0.74, 0.75, false, HeldOutCV, 1, 0.74},
		{"few SVs", 40, 100, 1, 0.8, 0.8, false, HeldOutCV, 0.4, 0.8},
		{"half the rows SVs is not more than half", 50, 100, 1, 0.8, 0.8, false, HeldOutCV, 0.5, 0.8},
		{"gap under 2 points", 90, 100, 1, 0.99, 0.99, false, HeldOutCV, 0.9, 0.99},
		{"gap of exactly 2 points", 90, 100, 1, 0.98, 0.99, true, HeldOutCV, 0.9, 0.98},
		{"train error over a quarter of the held-out error", 90, 100, 0.9, 0.85, 0.85, false, HeldOutCV, 0.9, 0.85},
		{"no CV: the test accuracy", 96, 100, 1, nan, 0.75, true, HeldOutTest, 0.96, 0.75},
		{"neither: not assessed", 96, 100, 1, nan, nan, false, "", 0.96, 0},
	} {
		m := CheckMemorisation(c.nsv, c.n, c.train, c.cv, HeldOutCV, c.test)
		if m.Memorising != c.wantFlag || m.HeldOut != c.wantSrc || math.Abs(m.SVShare-c.wantShare) > 1e-12 || math.Abs(m.HeldOutAcc-c.wantHO) > 1e-12 || m.TrainAccuracy != c.train {
			t.Errorf("%s: %+v, want flag %v, held-out %q %v, share %v", c.name, m, c.wantFlag, c.wantSrc, c.wantHO, c.wantShare)
		}
		if (m.Reason() != "") != c.wantFlag {
			t.Errorf("%s: reason %q", c.name, m.Reason())
		}
	}
	if got := CheckMemorisation(172, 189, 1, 0.7778, HeldOutCV, nan).Reason(); got != "91% of the training rows are support vectors and the training accuracy, 100.00%, is 22.22 points above the cv accuracy, 77.78%" {
		t.Errorf("reason %q", got)
	}
}

// TestMethodHeldOut: the held-out accuracy each kind of method measures.
func TestMethodHeldOut(t *testing.T) {
	for _, c := range []struct {
		name      string
		criterion string
		end       float64
		figures   []methods.Figure
		want      float64
		src       string
	}{
		{"svm's grid", "5-fold CV accuracy", 0.8624, nil, 0.8624, HeldOutCV},
		{"rcsc's C", "J_reg = Tr((λI + S_w)⁻¹ S_b)", 647.3, []methods.Figure{{Name: "gamma", Value: 0.3}, {Name: "cv_accuracy", Value: 0.7778}}, 0.7778, HeldOutCV},
		{"twolevel", "Σ max(0, -f_i)", 3.2, []methods.Figure{{Name: "e_end (validation %)", Value: 12.5}}, 0.875, HeldOutValidation},
		{"gi", "radius-margin quotient", 12.1, nil, math.NaN(), ""},
	} {
		got, src := MethodHeldOut(c.criterion, c.end, c.figures, 0)
		if src != c.src || !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s: %v %q, want %v %q", c.name, got, src, c.want, c.src)
		}
	}
	// Learned on a subset (rcsc on w8a: 5,000 of 49,749 rows, CV 97.20 %):
	// its CV is of another model; the test accuracy is the held-out one,
	// and the final model (66 % SVs, 99.46 % train, 99.45 % test) is not
	// flagged, where the subset's CV flagged it.
	figs := []methods.Figure{{Name: "cv_accuracy", Value: 0.972}}
	if got, src := MethodHeldOut("J_reg", 1, figs, 5000); !math.IsNaN(got) || src != "" {
		t.Errorf("learned on a subset: %v %q, want none", got, src)
	}
	r := Record{NSV: 32963, TrainSize: 49749, TrainAccuracy: 49478.0 / 49749, TestAccuracy: 14869.0 / 14951, TestSize: 14951,
		Criterion: "J_reg", Figures: figs, LearnedOn: 5000}
	if m := RecordMemorisation(r); m.Memorising || m.HeldOut != HeldOutTest {
		t.Errorf("w8a: %+v, want held out by the test part and not flagged", m)
	}
	r.LearnedOn = 0
	if m := RecordMemorisation(r); !m.Memorising || m.HeldOut != HeldOutCV {
		t.Errorf("w8a with the CV taken as the final model's: %+v, want flagged (what the subset's CV said)", m)
	}
}
