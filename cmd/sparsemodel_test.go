package cmd

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// textSparse is a text-like LIBSVM file read into compressed rows: 300 rows
// of 2,000 features, about 27 non-zeros a row (dataio.TextLike(300, 2000,
// 25) written by dataio.WriteLIBSVM; testdata/PROVENANCE.md).
const textSparse = cmdTestdata + "/sparse/text300.svm"

// libsvmModel is what the test reads of an svm-train model file: ρ, the
// labels in LIBSVM's order, and each support vector's coefficient by its
// feature indices.
type libsvmModel struct {
	rho    float64
	labels []string
	coef   map[string]float64 // "i1 i2 …" (the non-zero features) → y_iα_i
}

func readLIBSVMModel(t *testing.T, path string) libsvmModel {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := libsvmModel{coef: map[string]float64{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	inSV := false
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case inSV:
			c, err := strconv.ParseFloat(fields[0], 64)
			if err != nil {
				t.Fatal(err)
			}
			var idx []string
			for _, p := range fields[1:] {
				k, v, _ := strings.Cut(p, ":")
				if v != "0" { // the explicit 0 that marks the file's last feature
					idx = append(idx, k)
				}
			}
			m.coef[strings.Join(idx, " ")] = c
		case fields[0] == "rho":
			m.rho, _ = strconv.ParseFloat(fields[1], 64)
		case fields[0] == "label":
			m.labels = fields[1:]
		case fields[0] == "SV":
			inSV = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTrainPredictSparseMatchesLIBSVM: `train` and `predict` on a
// text-like LIBSVM file held in compressed rows give svm-train's model and
// svm-predict's label on every row, with svm-train's -m and -e set to
// kerneltune's defaults (200 MB, 1e-3): the same support vectors, ρ to 1e-6
// relative, and the dual objective of svm-train's α, evaluated in float64,
// to 1e-6 relative of kerneltune's. The coefficients themselves agree to
// 1e-4 relative (measured: 1.2e-5), not 1e-6: svm-train computes on
// float32 kernel columns, and this kernel matrix (γ = 1 on unit rows, 293
// of 300 rows support vectors, none at C) is ill-conditioned enough that
// float32 rounding moves α there (at -e 1e-6 both move further apart, to
// 1.2e-4, each to its own optimum, at the same objective). The model file
// holds the support vectors as index/value pairs (format version 5; 6 with
// its normaliser in the sparse form).
func TestTrainPredictSparseMatchesLIBSVM(t *testing.T) {
	t.Parallel()
	needLIBSVMTools(t, "the sparse model against svm-train's")
	dir := t.TempDir()
	mPath, lPath, outPath := filepath.Join(dir, "m.json"), filepath.Join(dir, "text.model"), filepath.Join(dir, "text.out")
	r := trainJSON(t, textSparse, "-c", "10", "-g", "1", "--normalize", "none", "-o", mPath)
	if r.NTrain != 300 || r.Features != 2000 || r.NSV == 0 || r.Status != "converged" {
		t.Fatalf("train: %d rows, %d features, %d SVs, %s", r.NTrain, r.Features, r.NSV, r.Status)
	}
	if out, err := exec.Command("svm-train", "-q", "-c", "10", "-g", "1", "-m", "200", "-e", "0.001", textSparse, lPath).CombinedOutput(); err != nil {
		t.Fatalf("svm-train: %v\n%s", err, out)
	}
	if out, err := exec.Command("svm-predict", textSparse, lPath, outPath).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	lm := readLIBSVMModel(t, lPath)
	sign := 1.0 // LIBSVM's first label is its +1
	if len(lm.labels) != 2 {
		t.Fatalf("svm-train's labels %v", lm.labels)
	}
	if lm.labels[0] != r.Labels.Positive {
		sign = -1
	}

	m, err := model.LoadFile(mPath)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(mPath)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Version int                          `json:"format_version"`
		Sparse  bool                         `json:"sparse_support_vectors"`
		SVs     []map[string]json.RawMessage `json:"support_vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	// Version 6: the none normaliser of 2,000 features is held in its
	// sparse form (no entries), which version 5 cannot hold.
	if _, hasX := file.SVs[0]["x"]; file.Version != 6 || !file.Sparse || hasX {
		t.Fatalf("model file: version %d, sparse_support_vectors %v, \"x\" %v", file.Version, file.Sparse, hasX)
	}
	if m.NSV() != len(lm.coef) {
		t.Errorf("#SV %d, svm-train %d", m.NSV(), len(lm.coef))
	}
	// The rows of the file by their non-zero features.
	data, err := dataio.Load(textSparse, dataio.ReadOptions{})
	if err != nil || !data.IsSparse() {
		t.Fatalf("read %s: %v (sparse %v)", textSparse, err, err == nil && data.IsSparse())
	}
	row := map[string]int{}
	for i := 0; i < data.Len(); i++ {
		ind, _ := data.Sparse.Row(i)
		idx := make([]string, len(ind))
		for p, k := range ind {
			idx[p] = strconv.Itoa(int(k) + 1)
		}
		row[strings.Join(idx, " ")] = i
	}
	var (
		lrows []int
		lcoef []float64
	)
	worst := 0.0
	for i, sv := range m.SupportVectors {
		idx := make([]string, len(sv.Index))
		for p, k := range sv.Index {
			idx[p] = strconv.Itoa(int(k))
		}
		c, ok := lm.coef[strings.Join(idx, " ")]
		if !ok {
			t.Fatalf("support vector %d (features %v) is not one of svm-train's", i+1, idx)
		}
		c *= sign
		lrows = append(lrows, row[strings.Join(idx, " ")])
		lcoef = append(lcoef, c)
		e := math.Abs(sv.Coef-c) / math.Abs(c)
		worst = math.Max(worst, e)
		if e > 1e-4 {
			t.Errorf("support vector %d: coefficient %.10g, svm-train %.10g", i+1, sv.Coef, c)
		}
	}
	rho := sign * lm.rho
	if math.Abs(r.Rho-rho) > 1e-6*math.Max(1, math.Abs(rho)) {
		t.Errorf("rho %.12g, svm-train %.12g", r.Rho, rho)
	}
	// svm-train's α in float64: ½ cᵀKc − Σ|c|.
	k, _ := kernel.NewGaussianIso(1)
	K := k.Gram(data.Subset(lrows).Features())
	objL := 0.0
	for i := range lrows {
		objL -= math.Abs(lcoef[i])
		for j := range lrows {
			objL += 0.5 * lcoef[i] * lcoef[j] * K.At(i, j)
		}
	}
	if math.Abs(r.Obj-objL) > 1e-6*math.Abs(objL) {
		t.Errorf("obj %.10g, of svm-train's α %.10g", r.Obj, objL)
	}
	t.Logf("%d support vectors, coefficients within %.2g relative; rho %.10g, svm-train %.10g; obj %.10g, of svm-train's α %.10g", m.NSV(), worst, r.Rho, rho, r.Obj, objL)

	p, _ := predictJSON(t, mPath, textSparse)
	want, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(want))
	if len(p.Predictions) != len(lines) || len(lines) != 300 {
		t.Fatalf("%d predictions, svm-predict %d", len(p.Predictions), len(lines))
	}
	for i, q := range p.Predictions {
		if q.Predicted != lines[i] {
			t.Errorf("row %d: decision %g predicts %s, svm-predict %s", i+1, q.Decision, q.Predicted, lines[i])
		}
	}
	if p.Scores == nil || p.Scores.Correct != 300 {
		t.Errorf("training accuracy: %+v", p.Scores)
	}
}

// TestTrainSparseRefusesL1: the L1 kernel on data held in compressed rows
// is refused, naming the kernel and the feature count, not densified.
func TestTrainSparseRefusesL1(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "train", textSparse, "--kernel", "l1", "--normalize", "none")
	want := "the l1 kernel does not compute on sparse data of 2000 features; the isotropic, diagonal Gaussian and linear kernels do"
	if code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want %d and %q", code, errOut, ExitError, want)
	}
}

// TestPredictOlderModelFiles: model files written by the kerneltune before
// sparse support vectors (format versions 1 and 4: a binary model, and a
// multi-class one with probabilities) still read, and predict what that
// kerneltune predicted, to the last digit.
func TestPredictOlderModelFiles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ model, data string }{
		{"heart-v1", heartScale},
		{"wine-v4", cmdTestdata + "/multiclass/wine.scale"},
	} {
		args := []string{"predict", filepath.Join(cmdTestdata, "models", c.model+".json"), c.data, "--format", "csv"}
		if c.model == "wine-v4" {
			args = append(args, "--probability")
		}
		got := mustRun(t, args...)
		want, err := os.ReadFile(filepath.Join(cmdTestdata, "models", c.model+".predict.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: predictions differ from the older kerneltune's", c.model)
		}
	}
}
