package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// mcDir holds the multi-class sets (LIBSVM's multi-class page).
var mcDir = filepath.Join(cmdTestdata, "multiclass")

// libsvmMultiGolden is testdata/libsvm-golden/golden-multiclass.json (made
// by generate.py with LIBSVM's svm-train and svm-predict).
type libsvmMultiGolden struct {
	Runs []struct {
		File         string   `json:"file"`
		C            float64  `json:"C"`
		Gamma        float64  `json:"gamma"`
		Eps          float64  `json:"eps"`
		Cmd          string   `json:"cmd"`
		Labels       []string `json:"labels"`
		TotalSV      int      `json:"total_sv"`
		TrainPred    string   `json:"train_pred"` // one label digit per row
		TrainCorrect int      `json:"train_correct"`
		TestFile     string   `json:"test_file"`
		TestPred     string   `json:"test_pred"`
		TestCorrect  int      `json:"test_correct"`
		Pairs        []struct {
			Obj  float64 `json:"obj"`
			Rho  float64 `json:"rho"`
			NSV  int     `json:"nsv"`
			NBSV int     `json:"nbsv"`
		} `json:"pairs"`
	} `json:"runs"`
}

// predictLabels runs predict with --format labels and returns the labels
// as one string (every label of these sets is one digit).
func predictLabels(t *testing.T, modelPath, data string) string {
	t.Helper()
	return strings.Join(strings.Fields(mustRun(t, "predict", modelPath, data, "--format", "labels")), "")
}

// train with LIBSVM's C, γ and eps on a multi-class file predicts exactly
// svm-predict's labels, row by row, on the training file and the test file
// (dna), with svm-train's total #SV and every pair's #BSV, and every pair's
// obj, ρ and #SV as far as two solutions within the stopping tolerance
// (eps 1e-5) agree: obj to 1e-4 relative, ρ to 1e-3 (relative above 1), #SV
// within 2 (dna: 701 against LIBSVM's 703 in one pair, at the tolerance's
// edge).
func TestTrainPredictReproduceLIBSVMMultiClass(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(cmdTestdata, "libsvm-golden", "golden-multiclass.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g libsvmMultiGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Runs) < 10 {
		t.Fatalf("golden-multiclass.json has %d runs, want 10", len(g.Runs))
	}
	dir := t.TempDir()
	for _, run := range g.Runs {
		if testing.Short() && run.File == "dna.scale" && run.C > 1 {
			continue
		}
		t.Run(strings.TrimPrefix(run.Cmd, "svm-train "), func(t *testing.T) {
			data := filepath.Join(mcDir, run.File)
			modelPath := filepath.Join(dir, "m.json")
			args := []string{data, "--normalize", "none", "-c", report.Sig(run.C, 17), "-g", report.Sig(run.Gamma, 17),
				"--eps", report.Sig(run.Eps, 17), "-o", modelPath}
			if run.TestFile != "" {
				args = append(args, "--test", filepath.Join(mcDir, run.TestFile))
			}
			r := trainJSON(t, args...)
			if !slices.Equal(r.FitData.Classes, run.Labels) || r.NSV != run.TotalSV || len(r.Pairs) != len(run.Pairs) {
				t.Fatalf("classes %q, total #SV %d, %d pairs; LIBSVM %q, %d, %d", r.FitData.Classes, r.NSV, len(r.Pairs), run.Labels, run.TotalSV, len(run.Pairs))
			}
			for p, lp := range run.Pairs {
				kp := r.Pairs[p]
				if abs(kp.NSV-lp.NSV) > 2 || kp.NBSV != lp.NBSV || math.Abs(kp.Obj-lp.Obj) > 1e-4*math.Abs(lp.Obj)+1e-6 ||
					math.Abs(kp.Rho-lp.Rho) > 1e-3*max(1, math.Abs(lp.Rho)) {
					t.Errorf("pair %d (%s vs %s): #SV %d, #BSV %d, obj %.9g, rho %.9g; LIBSVM %d, %d, %g, %g",
						p+1, kp.Positive, kp.Negative, kp.NSV, kp.NBSV, kp.Obj, kp.Rho, lp.NSV, lp.NBSV, lp.Obj, lp.Rho)
				}
			}
			if r.TrainCorrect != run.TrainCorrect {
				t.Errorf("train accuracy %d correct, svm-predict %d", r.TrainCorrect, run.TrainCorrect)
			}
			if got := predictLabels(t, modelPath, data); got != run.TrainPred {
				t.Errorf("predict on %s differs from svm-predict in %d rows", run.File, differ(got, run.TrainPred))
			}
			if run.TestFile != "" {
				if r.TestCorrect != run.TestCorrect {
					t.Errorf("test accuracy %d correct, svm-predict %d", r.TestCorrect, run.TestCorrect)
				}
				if got := predictLabels(t, modelPath, filepath.Join(mcDir, run.TestFile)); got != run.TestPred {
					t.Errorf("predict on %s differs from svm-predict in %d rows", run.TestFile, differ(got, run.TestPred))
				}
			}
		})
	}
}

func abs(v int) int { return max(v, -v) }

// differ counts the positions where a and b differ (and the length
// difference).
func differ(a, b string) int {
	n := max(len(a), len(b)) - min(len(a), len(b))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// With LIBSVM installed, svm-train and svm-predict themselves: train and
// predict on wine.scale and svmguide2 at settings the golden file does not
// hold give svm-predict's labels, row by row.
func TestTrainPredictAgainstLIBSVMMultiClass(t *testing.T) {
	t.Parallel()
	needLIBSVMTools(t, "")
	dir := t.TempDir()
	for _, c := range []struct{ file, C, gamma string }{{"wine.scale", "2", "0.25"}, {"svmguide2", "16", "4"}, {"iris.scale", "0.5", "1"}} {
		data := filepath.Join(mcDir, c.file)
		lm, lp := filepath.Join(dir, "l.model"), filepath.Join(dir, "l.pred")
		if out, err := exec.Command("svm-train", "-q", "-c", c.C, "-g", c.gamma, "-e", "1e-5", data, lm).CombinedOutput(); err != nil {
			t.Fatalf("svm-train: %v\n%s", err, out)
		}
		if out, err := exec.Command("svm-predict", data, lm, lp).CombinedOutput(); err != nil {
			t.Fatalf("svm-predict: %v\n%s", err, out)
		}
		raw, _ := os.ReadFile(lp)
		want := strings.Join(strings.Fields(string(raw)), "")
		km := filepath.Join(dir, "k.json")
		mustRun(t, "train", data, "--normalize", "none", "-c", c.C, "-g", c.gamma, "--eps", "1e-5", "-o", km)
		if got := predictLabels(t, km, data); got != want {
			t.Errorf("%s -c %s -g %s: predict differs from svm-predict in %d rows", c.file, c.C, c.gamma, differ(got, want))
		}
	}
}

// train on iris: the table names the classes and the pairs, with a row per
// pair and the test part's confusion matrix; the model predicts by vote, and
// predict's table shows the 3×3 confusion matrix.
func TestTrainPredictMultiClassOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := filepath.Join(dir, "iris.json")
	out := mustRun(t, "train", filepath.Join(mcDir, "iris.scale"), "--test-fraction", "0.3", "-o", m)
	for _, want := range []string{
		`105 training rows, 4 features; 3 classes "1", "2", "3": one-vs-one, 3 pairs`,
		"│ test accuracy  │ 93.33% (42/45) ",
		"│ gamma (LIBSVM) │ 0.25 on z-scored features (kerneltune's normalisation), not the file's values │",
		"│ #SV            │ 42 (training rows that are an SV of some pair: LIBSVM's total_sv) ",
		`│ "1" vs "2" │   74 │  10 │    0 │`,
		`│ "2" vs "3" │   68 │  31 │   23 │`,
		"confusion matrix on the test part",
		`│ "2"               │   0 │  11 │   2 │   13 │`,
		`│ rows              │  13 │  12 │  20 │   45 │`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
	mod, err := model.LoadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if mod.FormatVersion != 3 || len(mod.Pairs) != 3 || !slices.Equal(mod.Classes, []string{"1", "2", "3"}) {
		t.Errorf("model: version %d, %d pairs, classes %q", mod.FormatVersion, len(mod.Pairs), mod.Classes)
	}
	out = mustRun(t, "predict", m, filepath.Join(mcDir, "iris.scale"))
	for _, want := range []string{
		"│ 150                  │     146 │   97.33% │", "│ 43 not training rows │      40 │   93.02% │",
		`│ label \ predicted │ "1" │ "2" │ "3" │ rows │`,
		`│ "2"               │   0 │  47 │   3 │   50 │`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("predict output lacks %q:\n%s", want, out)
		}
	}
	p, _ := runJSON[model.Predictions](t, "predict", m, filepath.Join(mcDir, "iris.scale"))
	if p.Correct != 146 || len(p.ConfusionMatrix) != 3 || p.ConfusionMatrix[1][2] != 3 || p.Others == nil || p.Others.N != 43 ||
		p.Others.Correct != 40 || len(p.Predictions[0].PairDecisions) != 3 || p.Predictions[0].Votes != 2 {
		t.Errorf("predict JSON: %d correct, confusion %v, others %+v, row 1 %+v", p.Correct, p.ConfusionMatrix, p.Others, p.Predictions[0])
	}
	// A label the model does not know is an error naming the file and line.
	bad := writeFile(t, dir, "bad.libsvm", "1 1:0.1\n7 1:0.2\n")
	_, errOut, code := runCLI(t, "predict", m, bad, "--features", "pad")
	if code != ExitError || !strings.Contains(errOut, `bad.libsvm:2: label "7" is not one of the training classes "1", "2", "3"`) {
		t.Errorf("unknown class: exit %d %q", code, errOut)
	}
}

// tune on wine (3 classes) with rcsc: one tuning per pair, a row per pair
// with its classes, rows, parameters, criterion, #SV and degenerate check,
// and the test part's confusion matrix; the JSON carries the same.
func TestTuneMultiClassPairs(t *testing.T) {
	t.Parallel()
	wine := filepath.Join(mcDir, "wine.scale")
	out := mustRun(t, "tune", wine, "--method", "rcsc", "--test-fraction", "0.3")
	for _, want := range []string{
		`tune ` + wine + ` --method rcsc --param iso: 125 training rows, 13 features; 3 classes "1", "2", "3": one-vs-one, 3 pairs`,
		"│ kernel and C       │ one per pair of classes (3 tunings, below), on z-scored features (kerneltune's normalisation), not the file's values │",
		"│ #SV                │ 87 (LIBSVM's total_sv) ",
		"│ test accuracy      │ 100.00% (53/53) ",
		"one-vs-one: 3 classes, 3 tunings, one per pair of classes on its training rows (our extension: the paper is binary)",
		"│ classes    │ rows │ parameters             │ criterion │ #SV │ degenerate │",
		`│ "1" vs "2" │   93 │ γ = 0.177, C = 2       │    3304.4 │  52 │ no         │`,
		`│ "1" vs "3" │   72 │ γ = 0.09137, C = 0.125 │   7717.36 │  52 │ no         │`,
		`│ "2" vs "3" │   85 │ γ = 0.1577, C = 0.5    │   3078.78 │  56 │ no         │`,
		"confusion matrix on the test part",
		`│ "2"               │   0 │  18 │   0 │   18 │`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tune output lacks %q:\n%s", want, out)
		}
	}
	r := tuneJSON(t, wine, "--method", "rcsc", "--test-fraction", "0.3")
	if len(r.Pairs) != 3 || r.Pairs[1].Positive != "1" || r.Pairs[1].Negative != "3" || r.Pairs[1].Rows != 72 || r.Pairs[1].Criterion == nil ||
		r.Pairs[1].Degenerate != nil || r.NSV != 87 || len(r.Confusion.Counts) != 3 || r.Confusion.Counts[1][1] != 18 {
		t.Errorf("tune JSON: %+v, #SV %d, confusion %v", r.Pairs, r.NSV, r.Confusion)
	}
	// The svm baseline: one (C, γ) for every pair, its multi-class CV
	// accuracy the criterion; the model saved predicts by vote.
	m := filepath.Join(t.TempDir(), "svm.json")
	r = tuneJSON(t, wine, "--method", "svm", "--test-fraction", "0.3", "-o", m)
	if r.Criterion != "5-fold CV accuracy (one-vs-one vote)" || r.Pairs[0].Kernel.Gamma != r.Pairs[2].Kernel.Gamma || r.Pairs[0].C != r.Pairs[2].C || r.Pairs[0].Criterion != nil {
		t.Errorf("svm: %q, pairs %+v", r.Criterion, r.Pairs)
	}
	p, _ := runJSON[model.Predictions](t, "predict", m, wine)
	if p.N != 178 || p.Others == nil || p.Others.N != 53 || p.Others.Correct != r.TestCorrect {
		t.Errorf("predict on wine: %d rows, others %+v; tune's test part %d correct", p.N, p.Others, r.TestCorrect)
	}
}

// info lists every class of a multi-class file with its rows, and says how
// the commands learn them; one class is still an error.
func TestInfoMultiClass(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "info", filepath.Join(mcDir, "svmguide2"))
	for _, want := range []string{
		"│ classes           │ 3 ",
		`│ "1"               │ 221 (56.5%) `,
		`│ "2"               │ 117 (29.9%) `,
		`│ "3"               │ 53 (13.6%) `,
		"note: 3 classes: train, tune and compare learn them one-vs-one (a binary SVM per pair of classes, LIBSVM's vote)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	one := writeFile(t, t.TempDir(), "one.libsvm", "2 1:0.5\n2 1:1\n")
	_, errOut, code := runCLI(t, "train", one)
	if code != ExitError || !strings.Contains(errOut, `only one class: "2" (2 rows)`) {
		t.Errorf("one class: exit %d %q", code, errOut)
	}
}

// compare on a multi-class set: every method runs (one-vs-one), the records
// hold accuracies and the provenance names the classes.
func TestCompareMultiClass(t *testing.T) {
	t.Parallel()
	res := filepath.Join(t.TempDir(), "run.jsonl")
	mustRun(t, "compare", filepath.Join(mcDir, "iris.scale"), "--train-fraction", "0.5", "--partitions", "2",
		"--methods", "svm,rcsc", "-o", res)
	raw, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d records, want 4", len(lines))
	}
	for _, l := range lines {
		var rec struct {
			Status       string  `json:"status"`
			TestAccuracy float64 `json:"test_accuracy"`
			TrainSize    int     `json:"train_size"`
			NSV          int     `json:"nsv"`
			Provenance   struct {
				Data struct {
					OneVsOne []string `json:"one_vs_one"`
				} `json:"data"`
			} `json:"provenance"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Status != "converged" || rec.TestAccuracy < 0.85 || rec.TrainSize != 75 || rec.NSV == 0 || !slices.Equal(rec.Provenance.Data.OneVsOne, []string{"1", "2", "3"}) {
			t.Errorf("record %s", l)
		}
	}
}

// A study file takes multi-class data with no option: one-vs-one.
func TestStudyMultiClass(t *testing.T) {
	t.Parallel()
	wineStudy(t, t.TempDir(), "", "r.jsonl", "│ svm *  │             96.07 ± 0.79 │ 52.0 │", "│ rcsc   │             94.38 ± 0.00 │ 70.5 │")
}

// wineStudy runs a study of svm and rcsc on two halves of wine.scale, with
// extra lines for the dataset's entry, writing the records to dir/records,
// and checks that its output holds each of want.
func wineStudy(t *testing.T, dir, extra, records string, want ...string) {
	t.Helper()
	wine, err := filepath.Abs(filepath.Join(mcDir, "wine.scale"))
	if err != nil {
		t.Fatal(err)
	}
	study := writeFile(t, dir, "s.yaml", "name: mc\nseed: 1\npartitions: 2\nmethods: [svm, rcsc]\ndatasets:\n  - path: "+wine+"\n    name: wine\n    train-fraction: 0.5\n"+extra)
	out := mustRun(t, "compare", "--study", study, "-o", filepath.Join(dir, records))
	for _, w := range append([]string{"wine (2 partitions: 89 train / 89 test of 178 rows)"}, want...) {
		if !strings.Contains(out, w) {
			t.Errorf("study output lacks %q:\n%s", w, out)
		}
	}
}

// runReadme runs the svm-train and svm-predict commands of dir's README.txt.
func runReadme(t *testing.T, dir string) {
	t.Helper()
	cmds := readmeCommands(t, dir)
	if len(cmds) < 2 {
		t.Fatalf("%s/README.txt has %d commands", dir, len(cmds))
	}
	for _, line := range cmds {
		c := exec.Command("sh", "-c", line)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
}

// readLines returns the lines of a file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(raw))
}

// --export-libsvm of a multi-class model, with LIBSVM's own tools: the svm
// baseline (one kernel for all pairs) is one multi-class LIBSVM data set,
// whose svm-predict labels are predict's, row by row; rcsc (a kernel per
// pair) is a directory per pair, and LIBSVM's vote over the pairs'
// svm-predict labels, as the README says, is predict's too.
func TestTuneExportMultiClassLibsvmTools(t *testing.T) {
	t.Parallel()
	dir, train, test := irisHalvesForLIBSVM(t)
	for _, method := range []string{"svm", "rcsc"} {
		ex, m := filepath.Join(dir, method), filepath.Join(dir, method+".json")
		r := tuneJSON(t, train, "--test", test, "--method", method, "-o", m, "--export-libsvm", ex)
		want := strings.Fields(mustRun(t, "predict", m, test, "--format", "labels"))
		var got []string
		switch method {
		case "svm":
			if r.ExportKind != model.ExportRBF {
				t.Fatalf("svm: export %q", r.ExportKind)
			}
			runReadme(t, ex)
			got = readLines(t, filepath.Join(ex, "test.predictions"))
		default:
			if r.ExportKind != model.ExportPairs {
				t.Fatalf("rcsc: export %q", r.ExportKind)
			}
			classes := r.FitData.Classes
			votes := make([][]int, len(want))
			for i := range votes {
				votes[i] = make([]int, len(classes))
			}
			for _, ij := range model.PairIndex(len(classes)) {
				sub := filepath.Join(ex, fmt.Sprintf("pair-%d-%d", ij[0]+1, ij[1]+1))
				runReadme(t, sub)
				for i, l := range readLines(t, filepath.Join(sub, "test.predictions")) {
					votes[i][slices.Index(classes, l)]++
				}
			}
			for _, v := range votes {
				best := 0
				for c := range v {
					if v[c] > v[best] {
						best = c
					}
				}
				got = append(got, classes[best])
			}
		}
		if len(got) != 75 || !slices.Equal(got, want) {
			t.Errorf("%s: LIBSVM's predictions differ from predict's in %d of %d rows", method, differ(strings.Join(got, ""), strings.Join(want, "")), len(want))
		}
	}
}

// generate blobs writes a k-class set that the other commands read as
// multi-class; bad --classes is a usage error.
func TestGenerateBlobsCommand(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "b6.libsvm")
	mustRun(t, "generate", "blobs", "--classes", "6", "--n", "300", "-o", path)
	out := mustRun(t, "info", path)
	for _, want := range []string{"│ rows              │ 300 ", "│ classes           │ 6 ", `│ "6"               │ 50 (16.7%) `} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	_, errOut, code := runCLI(t, "generate", "blobs", "--classes", "1")
	if code != ExitUsage || !strings.Contains(errOut, "--classes must be 2 to 100") {
		t.Errorf("--classes 1: exit %d %q", code, errOut)
	}
}

// irisHalvesForLIBSVM skips the test unless svm-train and svm-predict are
// installed, and writes iris.scale's even rows (training) and odd rows
// (test) into a new temporary directory.
func irisHalvesForLIBSVM(t *testing.T) (dir, train, test string) {
	t.Helper()
	needLIBSVMTools(t, "")
	dir = t.TempDir()
	raw, err := os.ReadFile(filepath.Join(mcDir, "iris.scale"))
	if err != nil {
		t.Fatal(err)
	}
	var tr, te []string
	for i, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if i%2 == 0 {
			tr = append(tr, l)
		} else {
			te = append(te, l)
		}
	}
	return dir, writeFile(t, dir, "tr.libsvm", strings.Join(tr, "\n")+"\n"), writeFile(t, dir, "te.libsvm", strings.Join(te, "\n")+"\n")
}
