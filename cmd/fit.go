package cmd

// What train and tune share: the final SVM, fitted with the chosen kernel
// and C on the whole training part; its accuracies; the model's provenance;
// and the parts of their results and tables that describe these.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// title is the line above a run's table: what ran, on how much data, and
// the label mapping.
func fitTitle(d *model.FitData, what string) string {
	return fmt.Sprintf("%s: %d training rows, %d features; +1 = %q, -1 = %q",
		what, d.NTrain, d.Features, d.Labels.Positive, d.Labels.Negative)
}

// setProvenance records the run that made m: the seed, DATA as the user
// named it, this kerneltune's version and the command line.
func setProvenance(m *model.Model, seed uint64, data, command string) {
	m.Provenance.Seed = seed
	m.Provenance.Data = data
	m.Provenance.Version = buildVersion()
	m.Provenance.Command = []string{command}
}

// addKernelRows adds the rows that describe the kernel and the SVM: the
// kernel, LIBSVM's γ, the margin and (soft margins) C.
func addKernelRows(t *table, k kernel.Spec, margin string, c float64) {
	t.Add("kernel", kernelText(k))
	t.Add("gamma (LIBSVM)", gammaText(k))
	switch margin {
	case "hard":
		t.Add("SVM", "hard margin")
	case "l2":
		t.Add("SVM", "l2 soft margin (K + I/C)")
		t.Add("C", fmtSig(c, 6))
	default:
		t.Add("SVM", "l1 soft margin (C-SVC)")
		t.Add("C", fmtSig(c, 6))
	}
}

// addRows adds the train and test accuracy rows; noTest is the test row's
// value when there is no test part.
func addAccuracyRows(t *table, a *model.Accuracies, d *model.FitData, noTest string) {
	t.Add("train accuracy", accText(a.TrainAccuracy, a.TrainCorrect, d.NTrain))
	if a.TestAccuracy != nil {
		t.Add("test accuracy", accText(*a.TestAccuracy, a.TestCorrect, d.NTest))
	} else {
		t.Add("test accuracy", noTest)
	}
}

func accText(acc float64, correct, n int) string {
	return fmt.Sprintf("%s%% (%d/%d)", fmtFixed(100*acc, 2), correct, n)
}

// featureName is the name of feature k (0-based), f1, f2, … without one.
func featureName(names []string, k int) string {
	if k < len(names) && names[k] != "" {
		return names[k]
	}
	return "f" + strconv.Itoa(k+1)
}

// featureList names the features idx (0-based), the first eight of them.
func featureList(idx []int, names []string) string {
	const show = 8
	var parts []string
	for k, j := range idx {
		if k == show {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(idx)-show))
			break
		}
		parts = append(parts, featureName(names, j))
	}
	return strings.Join(parts, ", ")
}

// kernelText describes a kernel spec in words.
func kernelText(s kernel.Spec) string {
	switch s.Kind {
	case kernel.KindGaussian:
		switch {
		case s.Gamma != 0:
			return fmt.Sprintf("gaussian exp(-γ‖x-z‖²), γ = %s (σ = %s)", fmtSig(s.Gamma, 6), fmtSig(1/math.Sqrt(2*s.Gamma), 6))
		case s.Diag != nil:
			return fmt.Sprintf("gaussian, diagonal Q (%d entries, %s … %s)", len(s.Diag), fmtSig(minOf(s.Diag), 4), fmtSig(maxOf(s.Diag), 4))
		}
		return fmt.Sprintf("gaussian, full %d×%d Q", len(s.Q), len(s.Q))
	case kernel.KindL1:
		if minOf(s.Theta) == maxOf(s.Theta) {
			return fmt.Sprintf("l1 -Σ|x_k-z_k|/θ_k, θ = %s", fmtSig(s.Theta[0], 6))
		}
		return fmt.Sprintf("l1 -Σ|x_k-z_k|/θ_k, θ in [%s, %s]", fmtSig(minOf(s.Theta), 4), fmtSig(maxOf(s.Theta), 4))
	}
	return s.Kind
}

// gammaText is LIBSVM's γ where the kernel has one.
func gammaText(s kernel.Spec) string {
	switch {
	case s.Kind == kernel.KindGaussian && s.Gamma != 0:
		return fmtSig(s.Gamma, 6)
	case s.Kind == kernel.KindGaussian:
		return "- (not isotropic: see Q)"
	}
	return "- (not a Gaussian kernel)"
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// commandLine rebuilds the command line from the arguments and the flags
// that were set, for a model's provenance (os.Args would be the test binary
// in tests).
func commandLine(cmd *cobra.Command, args []string) string {
	parts := []string{cmd.CommandPath()}
	parts = append(parts, args...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		parts = append(parts, "--"+f.Name+"="+f.Value.String())
	})
	return strings.Join(parts, " ")
}

// checkOutputDirs returns an error naming the flag when the directory of an
// output file does not exist, so that train and tune fail before the work
// and not when they save its result. Flags given "" are skipped.
func checkOutputDirs(files ...[2]string) error {
	for _, f := range files {
		flag, path := f[0], f[1]
		if path == "" {
			continue
		}
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil {
			return fmt.Errorf("%s %s: %w", flag, path, err)
		} else if !st.IsDir() {
			return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
		}
	}
	return nil
}

// buildVersion is the kerneltune version from the build information: the
// module version, or "(devel)" plus the VCS revision in a source build.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
