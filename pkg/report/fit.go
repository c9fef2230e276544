package report

// The tables of train and tune: the kernel and the SVM, the accuracies.

import (
	"fmt"
	"strconv"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// TrainTable lays out what `kerneltune train` reports.
func TrainTable(r *model.TrainResult) *Table {
	t := &Table{Title: fitTitle(&r.FitData, "train "+r.Data), Header: []string{"quantity", "value"}}
	kernelRows(t, r.Kernel, r.Margin, r.C)
	if r.Margin == "l1" && (r.WeightPos != 0 || r.WeightNeg != 0) {
		w := func(v float64) float64 {
			if v == 0 {
				return 1
			}
			return v
		}
		t.Add("C per class", fmt.Sprintf("+1: %s, -1: %s", Sig(r.C*w(r.WeightPos), 6), Sig(r.C*w(r.WeightNeg), 6)))
	}
	t.Add("normalize", r.Normalize)
	accuracyRows(t, &r.Accuracies, &r.FitData, "- (no test part)")
	t.Add("#SV", strconv.Itoa(r.NSV))
	t.Add("#BSV", strconv.Itoa(r.NBSV))
	t.Add("dual objective", Sig(r.Obj, 8))
	t.Add("margin 1/‖w‖", Sig(float64(r.Geo), 6))
	t.Add("rho", Sig(r.Rho, 6))
	t.Add("iterations", strconv.Itoa(r.Iter))
	t.Add("status", r.Status)
	t.Add("time", Fixed(r.Seconds, 3)+" s")
	if r.ModelFile != "" {
		t.Add("model file", r.ModelFile)
	}
	t.Notes = r.Notes
	return t
}

// fitTitle is the line above a train or tune table: what ran, on how much
// data, and the label mapping.
func fitTitle(d *model.FitData, what string) string {
	return fmt.Sprintf("%s: %d training rows, %d features; +1 = %q, -1 = %q",
		what, d.NTrain, d.Features, d.Labels.Positive, d.Labels.Negative)
}

// kernelRows adds the rows that describe the kernel and the SVM: the
// kernel, LIBSVM's γ, the margin and (soft margins) C.
func kernelRows(t *Table, k kernel.Spec, margin string, c float64) {
	t.Add("kernel", model.DescribeKernel(k))
	t.Add("gamma (LIBSVM)", gammaText(k))
	switch margin {
	case "hard":
		t.Add("SVM", "hard margin")
	case "l2":
		t.Add("SVM", "l2 soft margin (K + I/C)")
		t.Add("C", Sig(c, 6))
	default:
		t.Add("SVM", "l1 soft margin (C-SVC)")
		t.Add("C", Sig(c, 6))
	}
}

// accuracyRows adds the train and test accuracy rows; noTest is the test
// row's value when there is no test part.
func accuracyRows(t *Table, a *model.Accuracies, d *model.FitData, noTest string) {
	t.Add("train accuracy", accText(a.TrainAccuracy, a.TrainCorrect, d.NTrain))
	if a.TestAccuracy != nil {
		t.Add("test accuracy", accText(*a.TestAccuracy, a.TestCorrect, d.NTest))
	} else {
		t.Add("test accuracy", noTest)
	}
}

func accText(acc float64, correct, n int) string {
	return fmt.Sprintf("%s%% (%d/%d)", Fixed(100*acc, 2), correct, n)
}

// gammaText is LIBSVM's γ where the kernel has one.
func gammaText(s kernel.Spec) string {
	switch {
	case s.Kind == kernel.KindGaussian && s.Gamma != 0:
		return Sig(s.Gamma, 6)
	case s.Kind == kernel.KindGaussian:
		return "- (not isotropic: see Q)"
	}
	return "- (not a Gaussian kernel)"
}
