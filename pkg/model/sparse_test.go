package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// textSets returns rcv1-shaped data (dataio.TextLike, 300 × 2,000, about 30
// non-zeros a row) held in compressed rows, and the same rows held dense.
func textSets(t *testing.T, n int) (sp, dense *dataio.Dataset) {
	t.Helper()
	sp = dataio.TextLike(n, 2000, 30, rand.New(rand.NewPCG(46, 7)))
	if !sp.IsSparse() {
		t.Fatal("TextLike gave dense rows")
	}
	c := *sp
	c.X, c.Sparse = sp.Sparse.ToDense(), nil
	return sp, &c
}

// multi makes three classes of a binary data set: its label, and every
// fourth row a third class.
func multi(d *dataio.Dataset) *dataio.Dataset {
	c := *d
	c.Y, c.Labels = nil, dataio.LabelMap{}
	c.ClassLabels = []string{"a", "b", "c"}
	c.Class = make([]int, d.Len())
	for i, y := range d.Y {
		switch {
		case i%4 == 0:
			c.Class[i] = 2
		case y > 0:
			c.Class[i] = 0
		default:
			c.Class[i] = 1
		}
	}
	return &c
}

// denseX returns a sparse support vector's features in full.
func denseX(sv SupportVector, d int) []float64 {
	if sv.X != nil {
		return sv.X
	}
	x := make([]float64, d)
	for p, k := range sv.Index {
		x[k-1] = sv.Value[p]
	}
	return x
}

// sameModel checks that a sparse model has the dense model's support
// vectors, and its coefficients and bias to tol relative (0: to the last
// bit).
func sameModel(t *testing.T, what string, sp, de *Model, tol float64) {
	t.Helper()
	if !sp.Sparse || de.Sparse || sp.FormatVersion != 5 {
		t.Fatalf("%s: sparse %v (version %d), dense %v", what, sp.Sparse, sp.FormatVersion, de.Sparse)
	}
	near := func(a, b float64) bool { return a == b || math.Abs(a-b) <= tol*math.Abs(b) }
	if sp.NSV() != de.NSV() || sp.NSV() == 0 || !near(sp.Bias, de.Bias) {
		t.Fatalf("%s: #SV %d, bias %v; dense %d, %v", what, sp.NSV(), sp.Bias, de.NSV(), de.Bias)
	}
	for i, sv := range sp.SupportVectors {
		if !near(sv.Coef, de.SupportVectors[i].Coef) || !slices.Equal(denseX(sv, sp.NumFeatures), de.SupportVectors[i].X) {
			t.Fatalf("%s: support vector %d differs", what, i+1)
		}
	}
}

// TestSparseFitMatchesDense: on text rows, the model fitted on compressed
// rows is the model fitted on the same rows held dense (whose isotropic
// Gaussian takes the same sparse route, to the last bit): the same support
// vectors, coefficients and bias, the same decision values on rows held
// either way, and the same after a save and a load (format version 5,
// index/value pairs); the linear and the diagonal kernels agree too.
func TestSparseFitMatchesDense(t *testing.T) {
	sp, de := textSets(t, 300)
	train, test := sp.SplitAt(240)
	dtrain, dtest := de.SplitAt(240)
	fs, err := Fit(context.Background(), FitSettings{Train: train, Test: test, Kernel: iso(1), Margin: L1, C: 10})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := Fit(context.Background(), FitSettings{Train: dtrain, Test: dtest, Kernel: iso(1), Margin: L1, C: 10})
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, "isotropic", fs.Model, fd.Model, 0)
	if fs.Model.Training.Iter != fd.Model.Training.Iter {
		t.Errorf("%d iterations, dense %d", fs.Model.Training.Iter, fd.Model.Training.Iter)
	}
	if fs.TrainCorrect != fd.TrainCorrect || *fs.TestAccuracy != *fd.TestAccuracy || fs.Model.Training.W2 != fd.Model.Training.W2 {
		t.Errorf("sparse: train %d, test %v, w2 %v; dense %d, %v, %v", fs.TrainCorrect, *fs.TestAccuracy, fs.Model.Training.W2, fd.TrainCorrect, *fd.TestAccuracy, fd.Model.Training.W2)
	}
	want := fd.Model.DecisionNormalized(dtest.X)
	for _, X := range []struct {
		name string
		f    []float64
	}{
		{"compressed rows", fs.Model.DecisionNormalized(test.Sparse)},
		{"dense rows", fs.Model.DecisionNormalized(dtest.X)},
		{"compressed rows, dense model", fd.Model.DecisionNormalized(test.Sparse)},
	} {
		if !slices.Equal(X.f, want) {
			t.Errorf("decision on %s differs from the dense model's on dense rows", X.name)
		}
	}
	if w2 := fs.Model.W2(); math.Abs(w2-fd.Model.W2()) > 1e-12*w2 {
		t.Errorf("W2 %v, dense %v", w2, fd.Model.W2())
	}
	// Save and load: version 5, index/value pairs from 1, the same
	// decisions.
	var buf bytes.Buffer
	if err := fs.Model.Save(&buf); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Version int                          `json:"format_version"`
		Sparse  bool                         `json:"sparse_support_vectors"`
		SVs     []map[string]json.RawMessage `json:"support_vectors"`
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if _, hasX := raw.SVs[0]["x"]; raw.Version != 5 || !raw.Sparse || hasX || raw.SVs[0]["index"] == nil || raw.SVs[0]["value"] == nil {
		t.Fatalf("saved: version %d, sparse %v, support vector 1's keys %v", raw.Version, raw.Sparse, raw.SVs[0])
	}
	back, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(); err != nil {
		t.Fatal(err)
	}
	sv0 := fs.Model.SupportVectors[0]
	if b0 := back.SupportVectors[0]; !slices.Equal(b0.Index, sv0.Index) || !slices.Equal(b0.Value, sv0.Value) || sv0.Index[0] < 1 {
		t.Fatalf("support vector 1 read back as %v, want %v", b0, sv0)
	}
	if got := back.DecisionNormalized(test.Sparse); !slices.Equal(got, want) {
		t.Error("the loaded model's decisions differ")
	}
	// Training rows are known by their hashes, whichever way held.
	for name, d := range map[string]*dataio.Dataset{"compressed": train, "dense": dtrain} {
		if n := countTrue(back.TrainingRowsIn(d.Features())); n != train.Len() {
			t.Errorf("%s training rows: %d of %d known", name, n, train.Len())
		}
	}
	if n := countTrue(back.TrainingRowsIn(test.Sparse)); n != 0 {
		t.Errorf("%d test rows taken for training rows", n)
	}

	// The linear kernel and a diagonal metric: the same model to 1e-9
	// (their dense routes sum in another order), the same predictions.
	q := make([]float64, 2000)
	for k := range q {
		q[k] = 1 + float64(k%5)/2
	}
	for _, spec := range []kernel.Spec{{Kind: kernel.KindLinear}, {Kind: kernel.KindGaussian, Diag: q}} {
		fs, err := Fit(context.Background(), FitSettings{Train: train, Test: test, Kernel: spec, Margin: L1, C: 10})
		if err != nil {
			t.Fatal(err)
		}
		fd, err := Fit(context.Background(), FitSettings{Train: dtrain, Test: dtest, Kernel: spec, Margin: L1, C: 10})
		if err != nil {
			t.Fatal(err)
		}
		if fs.Model.NSV() != fd.Model.NSV() || math.Abs(fs.Model.Bias-fd.Model.Bias) > 1e-9*(1+math.Abs(fd.Model.Bias)) {
			t.Errorf("%s: #SV %d, bias %v; dense %d, %v", spec.Kind, fs.Model.NSV(), fs.Model.Bias, fd.Model.NSV(), fd.Model.Bias)
		}
		a, b := fs.Model.DecisionNormalized(test.Sparse), fd.Model.DecisionNormalized(dtest.X)
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9*(1+math.Abs(b[i])) || (a[i] > 0) != (b[i] > 0) {
				t.Fatalf("%s: decision %d = %v, dense %v", spec.Kind, i, a[i], b[i])
			}
		}
	}
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// TestSparseMultiClassAndProbability: one-vs-one pairs and probability
// estimates on compressed rows give the dense model's pairs, votes and
// probabilities, and survive a save and a load. (A dense pair's rows are
// shifted by their columns' majority value, which a few columns of a
// pair's rows do not have at 0, so the dense kernel rounds differently
// there: 1e-12.)
func TestSparseMultiClassAndProbability(t *testing.T) {
	sp, de := textSets(t, 240)
	mtrain, mdense := multi(sp), multi(de)
	fs, err := Fit(context.Background(), FitSettings{Train: mtrain, Kernel: iso(1), Margin: L1, C: 10, Probability: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := Fit(context.Background(), FitSettings{Train: mdense, Kernel: iso(1), Margin: L1, C: 10, Probability: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Model.Pairs) != 3 || fs.Model.FormatVersion != 5 || fs.TrainCorrect != fd.TrainCorrect {
		t.Fatalf("%d pairs, version %d, train correct %d (dense %d)", len(fs.Model.Pairs), fs.Model.FormatVersion, fs.TrainCorrect, fd.TrainCorrect)
	}
	for p := range fs.Model.Pairs {
		sameModel(t, "pair", fs.Model.Pairs[p], fd.Model.Pairs[p], 1e-12)
		a, b := *fs.Model.Pairs[p].Probability, *fd.Model.Pairs[p].Probability
		if math.Abs(a.A-b.A) > 1e-9*math.Abs(b.A) || math.Abs(a.B-b.B) > 1e-9*(1+math.Abs(b.B)) {
			t.Errorf("pair %d: sigmoid %v, dense %v", p+1, *fs.Model.Pairs[p].Probability, *fd.Model.Pairs[p].Probability)
		}
	}
	var buf bytes.Buffer
	if err := fs.Model.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.PredictClasses(mtrain.Sparse), fd.Model.PredictClasses(mdense.X); !slices.Equal(got, want) {
		t.Error("the loaded sparse model's classes differ from the dense model's")
	}
	pa, pb := back.Probabilities(mtrain.Sparse), fd.Model.Probabilities(mdense.X)
	for i := range pa {
		for j := range pb[i] {
			if math.Abs(pa[i][j]-pb[i][j]) <= 1e-9 {
				continue
			}
			t.Fatalf("row %d: probabilities %v, dense %v", i, pa[i], pb[i])
		}
	}
}

// TestSparseModelRefused: a sparse model file with a support vector's
// index out of order or range, a lost index list, "x" among index/value
// pairs, or a full metric, is refused by name.
func TestSparseModelRefused(t *testing.T) {
	sp, _ := textSets(t, 120)
	f, err := Fit(context.Background(), FitSettings{Train: sp, Kernel: iso(1), Margin: L1, C: 10})
	if err != nil {
		t.Fatal(err)
	}
	m := f.Model
	for _, c := range []struct {
		name string
		edit func(m *Model)
		want string
	}{
		{"index descending", func(m *Model) {
			ix := m.SupportVectors[0].Index
			ix[0], ix[1] = ix[1], ix[0]
		}, "support vector 1: index"},
		{"index beyond the features", func(m *Model) {
			ix := m.SupportVectors[1].Index
			ix[len(ix)-1] = 2001
		}, "support vector 2: index 2001"},
		{"index from 0", func(m *Model) { m.SupportVectors[0].Index[0] = 0 }, "support vector 1: index 0 after 0 (want ascending, from 1 to 2000)"},
		{"value lost", func(m *Model) { m.SupportVectors[0].Value = m.SupportVectors[0].Value[1:] }, "indices and"},
		{"x", func(m *Model) { m.SupportVectors[0].X = make([]float64, 2000) }, `has "x"`},
		{"version 4", func(m *Model) { m.FormatVersion = 4 }, "sparse support vectors in a format_version 4 file (they need 5)"},
		{"l1 kernel", func(m *Model) {
			m.Kernel = kernel.Spec{Kind: kernel.KindL1, Theta: slices.Repeat([]float64{1}, 2000)}
		}, "l1 kernel does not compute on sparse data"},
	} {
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(m); err != nil {
			t.Fatal(err)
		}
		c2, err := Load(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		c.edit(c2)
		err = c2.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A file that lost a support vector's "index" is refused on reading.
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(buf.String(), `"index": [`, `"ndex": [`, 1)
	if _, err := Load(strings.NewReader(s)); err == nil || !strings.Contains(err.Error(), "no field support_vectors[0].index") {
		t.Errorf("lost index: %v", err)
	}
	// Fit refuses the L1 kernel and a full metric on compressed rows with
	// the kernel's typed error.
	_, err = Fit(context.Background(), FitSettings{Train: sp, Kernel: kernel.Spec{Kind: kernel.KindL1, Theta: slices.Repeat([]float64{1}, 2000)}, Margin: L1, C: 1})
	var se *kernel.SparseError
	if !errors.As(err, &se) || se.Features != 2000 {
		t.Errorf("L1 on sparse data: %v, want a *kernel.SparseError", err)
	}
}

// TestSparseExportLIBSVM: the LIBSVM export of a model of compressed rows
// writes the rows compressed, each value times √(2γ) (L of Q = 2γI), so
// that svm-train -g 0.5 on them is the model: with LIBSVM installed, the
// same #SV and ρ to 1e-6; the range file maps the features one by one.
func TestSparseExportLIBSVM(t *testing.T) {
	sp, _ := textSets(t, 200)
	f, err := Fit(context.Background(), FitSettings{Train: sp, Kernel: iso(1), Margin: L1, C: 10, Eps: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kind, err := ExportLIBSVM(dir, f.Model, sp, nil, ExportSettings{Method: "train", Kernel: iso(1), Eps: 1e-5, Command: "test"})
	if err != nil || kind != ExportRBF {
		t.Fatalf("export: %q, %v", kind, err)
	}
	back, err := dataio.Load(filepath.Join(dir, "train.libsvm"), dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !back.IsSparse() || back.Sparse.NNZ() != sp.Sparse.NNZ() {
		t.Fatalf("train.libsvm: sparse %v, %d non-zeros, want %d", back.IsSparse(), back.Sparse.NNZ(), sp.Sparse.NNZ())
	}
	for p, v := range sp.Sparse.Val {
		if w := v * math.Sqrt2; math.Abs(back.Sparse.Val[p]-w) > 1e-15*w {
			t.Fatalf("value %d written %v, want %v", p, back.Sparse.Val[p], w)
		}
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil || !strings.Contains(string(readme), "svm-train -s 0 -t 2 -g 0.5 -c 10 -e 1e-05 train.libsvm tuned.model") {
		t.Fatalf("README.txt: %v\n%s", err, readme)
	}
	if _, err := os.Stat(filepath.Join(dir, RangeFile)); err != nil {
		t.Errorf("no range file: %v", err)
	}
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("svm-train is not installed (apt-get install libsvm-tools): the export is not trained by LIBSVM")
	}
	out, err := exec.Command("svm-train", "-s", "0", "-t", "2", "-g", "0.5", "-c", "10", "-e", "1e-05", filepath.Join(dir, "train.libsvm"), filepath.Join(dir, "tuned.model")).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-train: %v\n%s", err, out)
	}
	var nsv int
	var rho float64
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "nSV = ") {
			fmt.Sscanf(line, "nSV = %d", &nsv)
		}
		if i := strings.Index(line, "rho = "); i >= 0 {
			fmt.Sscanf(line[i:], "rho = %g", &rho)
		}
	}
	if nsv != f.Model.NSV() || math.Abs(rho-f.Model.Training.Rho) > 1e-5 {
		t.Errorf("svm-train on the export: nSV %d, rho %v; the model %d, %v", nsv, rho, f.Model.NSV(), f.Model.Training.Rho)
	}
}
