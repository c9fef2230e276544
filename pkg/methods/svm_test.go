package methods

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

func TestSVMTune(t *testing.T) {
	t.Parallel()
	d := heartHead(t, 100)
	res, err := SVMSettings{Common: Common{Seed: 1}}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gridSearchCV(context.Background(), d, Common{Seed: 1}, Space{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != "svm" || res.Margin != solver.L1 || res.Kernel.Kind != "gaussian" {
		t.Errorf("result %+v", res)
	}
	if res.Kernel.Gamma != g.Gamma || res.C != g.C || res.Solves != g.Solves || res.CriterionEnd != g.Accuracy {
		t.Errorf("result (γ %g, C %g, solves %d, acc %g), grid search (%g, %g, %d, %g)",
			res.Kernel.Gamma, res.C, res.Solves, res.CriterionEnd, g.Gamma, g.C, g.Solves, g.Accuracy)
	}
	want := []string{"cv accuracy", "log2 C", "log2 gamma"}
	vals := []float64{g.Accuracy, math.Log2(g.C), math.Log2(g.Gamma)}
	if len(res.Figures) != len(want) {
		t.Fatalf("figures %+v", res.Figures)
	}
	for i, f := range res.Figures {
		if f.Name != want[i] || f.Value != vals[i] {
			t.Errorf("figure %d = %+v, want %s = %g", i, f, want[i], vals[i])
		}
	}
	if res.Status != status.Converged || res.Init == "" {
		t.Errorf("status %v, init %q", res.Status, res.Init)
	}

	fixed, err := SVMSettings{Common: Common{Seed: 1, C: 4}}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.C != 4 || fixed.Solves != 10*5 {
		t.Errorf("C fixed at 4: got C %g after %d solves, want 4 after 50", fixed.C, fixed.Solves)
	}
}

func TestSVMOptionErrors(t *testing.T) {
	d := heartHead(t, 40)
	// svm has one parameterisation (iso) and no margin field: the registry
	// refuses another param before any settings exist.
	if _, err := New("svm", "diag", ""); err == nil || !strings.HasPrefix(err.Error(), "svm: ") {
		t.Errorf("param diag: error %v, want one starting svm:", err)
	}
	for _, s := range []SVMSettings{{Common: Common{C: -1}}, {Common: Common{Folds: 1}}} {
		if _, err := s.tune(context.Background(), d); err == nil || !strings.HasPrefix(err.Error(), "svm: ") {
			t.Errorf("settings %+v: error %v, want one starting svm:", s, err)
		}
	}
}

func TestSVMCanceled(t *testing.T) {
	d := heartHead(t, 60)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (SVMSettings{}).tune(ctx, d); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v, want context.Canceled", err)
	}
}
