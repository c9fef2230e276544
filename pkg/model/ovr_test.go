package model

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// A one-vs-rest model of wine: three binary SVMs on all 178 rows, class c
// (+1) against the others, each the binary model of that relabelled data;
// it predicts the class of the largest decision value, saves with
// "multiclass": "ovr" and loads back predicting the same. A file without
// the key is one-vs-one (the version-3 files written before), which the
// one-vs-rest SVMs' labels then contradict; an unknown scheme, or one on a
// binary model, is refused.
func TestOneVsRestModel(t *testing.T) {
	d, tr, _, spec, f := wineOneVsRest(t)
	m := f.Model
	if m.Multiclass != dataio.OneVsRest || len(m.Pairs) != 3 || m.Training.N != 178 || f.TrainCorrect != 178 {
		t.Fatalf("model: scheme %q, %d SVMs, n %d, %d training rows right", m.Multiclass, len(m.Pairs), m.Training.N, f.TrainCorrect)
	}
	// SVM 2 is the binary model of "2" against the rest.
	bin, err := Fit(context.Background(), FitSettings{Train: tr.Sub(dataio.Subproblem{Pos: 1, Neg: dataio.Rest}), Kernel: spec, Margin: L1, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	dec := m.PairDecisionsNormalized(tr.X)
	want := bin.Model.DecisionNormalized(tr.X)
	// The multi-class model computes one kernel block against all its
	// SVMs' support vectors (sharedSVs), the binary model against its
	// own: the same sums up to rounding (the blocks centre the rows on
	// different means), 1e-12 relative.
	for i := range want {
		if math.Abs(dec[1][i]-want[i]) > 1e-12*max(1, math.Abs(want[i])) {
			t.Fatalf("row %d: SVM 2's decision %v, the binary model's %v", i+1, dec[1][i], want[i])
		}
	}
	if got := m.PredictClassesNormalized(tr.X); !slices.Equal(got, dataio.Combine(dec, 3, dataio.OneVsRest)) {
		t.Error("PredictClasses is not the largest decision value")
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"multiclass": "ovr"`) {
		t.Error(`the file lacks "multiclass": "ovr"`)
	}
	back, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if back.Multiclass != dataio.OneVsRest || !slices.Equal(back.PredictClasses(d.X), m.PredictClasses(d.X)) {
		t.Errorf("loaded: scheme %q, predicts differently", back.Multiclass)
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"scheme lost", `"multiclass": "ovr",`, ``, `pair 1 has classes "1" and "not 1", want "1" and "2"`},
		{"unknown scheme", `"multiclass": "ovr"`, `"multiclass": "ova"`, `multiclass "ova" (want absent for one-vs-one, or "ovr")`},
	} {
		s := strings.Replace(buf.String(), c.old, c.new, 1)
		if s == buf.String() {
			t.Fatalf("%s: %q not in the file", c.name, c.old)
		}
		if _, err := Load(strings.NewReader(s)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	b := &Model{}
	*b = *bin.Model
	b.Multiclass = dataio.OneVsRest
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), `multiclass "ovr" in a binary model`) {
		t.Errorf("binary model with a scheme: %v", err)
	}
}

// The export of a one-vs-rest model (no LIBSVM needed; cmd tests run
// svm-train on it): a class-C directory per class whose training file is
// every row labelled 1 for class C and -1 for the others (wine's class "2":
// 71 of 178), and a README that says how to combine them.
func TestExportOneVsRest(t *testing.T) {
	_, tr, _, spec, f := wineOneVsRest(t)
	dir := t.TempDir()
	kind, err := ExportLIBSVM(dir, f.Model, tr, nil, ExportSettings{Method: "svm", Kernel: spec, Eps: 1e-3, Command: "test"})
	if err != nil || kind != ExportOneVsRest {
		t.Fatalf("export: %q, %v", kind, err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Predict the class with the largest decision value", "class-2   class 2 (1) against the rest (-1)"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.txt lacks %q:\n%s", want, readme)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "class-2", "train.libsvm"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		label, _, _ := strings.Cut(l, " ")
		counts[label]++
	}
	if len(counts) != 2 || counts["1"] != 71 || counts["-1"] != 107 {
		t.Errorf("class-2/train.libsvm labels %v, want 71 × 1 and 107 × -1", counts)
	}
}

// wineOneVsRest fits wine.scale one-vs-rest, z-scored, with γ = 0.1 and
// C = 1: the data, its normalised copy, the normaliser, the kernel and the
// fit.
func wineOneVsRest(t *testing.T) (d, tr *dataio.Dataset, norm *dataio.Normalizer, spec kernel.Spec, f *FitResult) {
	t.Helper()
	d, err := dataio.Load(filepath.Join("..", "..", "testdata", "multiclass", "wine.scale"), dataio.ReadOptions{Multiclass: dataio.OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	norm, _ = dataio.FitNormalizer(dataio.ZScore, d.X)
	tr = norm.ApplyDataset(d)
	spec = kernel.Spec{Kind: kernel.KindGaussian, Gamma: 0.1}
	f, err = Fit(context.Background(), FitSettings{Train: tr, Norm: norm, Kernel: spec, Margin: L1, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	return d, tr, norm, spec, f
}
