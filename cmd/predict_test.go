package cmd

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// heartModel trains on the first 200 rows of heart_scale (zscore) and
// returns the model file and the 70-row test file.
func heartModel(t *testing.T) (modelPath, testFile string) {
	t.Helper()
	trainFile, testFile := splitHeart(t)
	modelPath = filepath.Join(t.TempDir(), "heart.json")
	mustRunKT(t, "train", trainFile, "-g", "0.05", "-o", modelPath)
	return modelPath, testFile
}

func TestPredictFormats(t *testing.T) {
	modelPath, testFile := heartModel(t)
	var ref predictResult
	if err := json.Unmarshal([]byte(mustRunKT(t, "predict", modelPath, testFile, "--format", "json")), &ref); err != nil {
		t.Fatal(err)
	}
	if ref.N != 70 || len(ref.Predictions) != 70 || ref.Labels.Positive != "1" || ref.Labels.Negative != "-1" {
		t.Fatalf("predict JSON: %+v", ref)
	}
	if ref.Kernel.Gamma != 0.05 || ref.Margin != "l1" || ref.C != 1 || ref.Normalize != "zscore" || ref.NSV == 0 ||
		ref.Provenance.Seed != 1 || !strings.HasSuffix(ref.Provenance.Data, "heart_train") {
		t.Errorf("model description in predict JSON: %+v", ref)
	}
	if want := float64(ref.Correct) / 70; ref.Accuracy != want || ref.Accuracy < 0.75 {
		t.Errorf("accuracy %v, correct %d/70", ref.Accuracy, ref.Correct)
	}
	for _, p := range ref.Predictions {
		if (p.Decision > 0) != (p.Predicted == "1") {
			t.Fatalf("row %d: decision %v but predicted %q", p.Row, p.Decision, p.Predicted)
		}
	}

	// csv on stdout: parses, full-precision decisions; the summary goes to
	// stderr, and -q silences it.
	out, errOut, code := trainCLI(t, "predict", modelPath, testFile, "--format", "csv")
	if code != 0 {
		t.Fatal(errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 71 || strings.Join(recs[0], ",") != "row,decision,predicted,label" {
		t.Fatalf("csv: %d records, header %v", len(recs), recs[0])
	}
	for i, rec := range recs[1:] {
		v, err := strconv.ParseFloat(rec[1], 64)
		if err != nil || v != ref.Predictions[i].Decision || rec[2] != ref.Predictions[i].Predicted || rec[3] != ref.Predictions[i].Label {
			t.Fatalf("csv row %d: %v; JSON %+v", i+1, rec, ref.Predictions[i])
		}
	}
	if !strings.Contains(errOut, "accuracy") || !strings.Contains(errOut, strconv.Itoa(ref.Correct)) {
		t.Errorf("csv: no summary on stderr: %q", errOut)
	}
	_, errOut, _ = trainCLI(t, "predict", modelPath, testFile, "--format", "csv", "-q")
	if errOut != "" {
		t.Errorf("-q: stderr %q", errOut)
	}

	// labels: one predicted label per line, as svm-predict writes.
	out = mustRunKT(t, "predict", modelPath, testFile, "--format", "labels")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 70 || lines[0] != ref.Predictions[0].Predicted || lines[69] != ref.Predictions[69].Predicted {
		t.Errorf("labels output: %d lines", len(lines))
	}

	// -o: the rows go to the file, the summary to stdout.
	file := filepath.Join(t.TempDir(), "pred.csv")
	out = mustRunKT(t, "predict", modelPath, testFile, "--format", "csv", "-o", file)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(raw), "\n"); got != 71 {
		t.Errorf("-o file has %d lines, want 71", got)
	}
	if !strings.Contains(out, "accuracy") || strings.Contains(out, "row,decision") {
		t.Errorf("-o: stdout %q", out)
	}

	// table: the rows, a "wrong" mark on each error, then the summary.
	out = mustRunKT(t, "predict", modelPath, testFile)
	if got, want := strings.Count(out, " wrong "), 70-ref.Correct; got != want {
		t.Errorf("table marks %d rows wrong, want %d", got, want)
	}
	acc := fmtFixed(100*ref.Accuracy, 2) + "%"
	if !strings.Contains(out, acc) || !strings.Contains(out, "label \\ predicted") {
		t.Errorf("table lacks the accuracy %s or the confusion table:\n%s", acc, out)
	}
}

func TestPredictErrors(t *testing.T) {
	modelPath, testFile := heartModel(t)
	dir := t.TempDir()
	raw, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}

	// A model file from a future kerneltune.
	v7 := filepath.Join(dir, "v7.json")
	if err := os.WriteFile(v7, []byte(strings.Replace(string(raw), `"format_version": 1`, `"format_version": 7`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := trainCLI(t, "predict", v7, testFile)
	if want := "kerneltune: model: " + v7 + ": unsupported format_version 7 (this kerneltune reads 1)\n"; code != ExitError || errOut != want {
		t.Errorf("version 7: exit %d, %q; want 1, %q", code, errOut, want)
	}
	// An unknown kernel kind.
	poly := filepath.Join(dir, "poly.json")
	if err := os.WriteFile(poly, []byte(strings.Replace(string(raw), `"kind": "gaussian"`, `"kind": "poly"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = trainCLI(t, "predict", poly, testFile)
	if code != ExitError || !strings.Contains(errOut, `unknown kernel kind "poly"`) {
		t.Errorf("kind poly: exit %d, %q", code, errOut)
	}
	// Labels the model does not know: UCI's heart.dat says 1/2.
	_, errOut, code = trainCLI(t, "predict", modelPath, "../testdata/uci/heart.dat")
	if code != ExitError || !strings.Contains(errOut, `label "2" is neither of the training labels`) {
		t.Errorf("foreign labels: exit %d, %q", code, errOut)
	}
	// Another number of features.
	csvFile := filepath.Join(dir, "three.csv")
	if err := os.WriteFile(csvFile, []byte("a,b,c,y\n1,2,3,1\n2,3,4,-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = trainCLI(t, "predict", modelPath, csvFile)
	if code != ExitError || !strings.Contains(errOut, "has 3 features, the model") || !strings.Contains(errOut, "trained on 13") {
		t.Errorf("3 features: exit %d, %q", code, errOut)
	}
	// Usage errors.
	for _, args := range [][]string{
		{"predict"},
		{"predict", modelPath},
		{"predict", modelPath, testFile, "extra"},
		{"predict", modelPath, testFile, "--format", "latex"},
		{"predict", modelPath, testFile, "--positive", "1"},
		{"predict", modelPath, testFile, "--missing", "guess"},
	} {
		if _, errOut, code := trainCLI(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, %q; want 2", args[1:], code, errOut)
		}
	}
	// A missing model file.
	if _, errOut, code := trainCLI(t, "predict", filepath.Join(dir, "none.json"), testFile); code != ExitError || !strings.Contains(errOut, "none.json") {
		t.Errorf("missing model: exit %d, %q", code, errOut)
	}
}

// TestPredictCSVModel: a CSV with text labels and a header; predict prints
// the original label texts and notes columns that changed names.
func TestPredictCSVModel(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("width,height,class\n")
	for i := 0; i < 40; i++ {
		x, y := float64(i%8), float64(i/8)
		cls := "small"
		if x+y > 6 {
			cls = "large"
		}
		b.WriteString(strconv.FormatFloat(x*10, 'g', -1, 64) + "," + strconv.FormatFloat(y, 'g', -1, 64) + "," + cls + "\n")
	}
	data := filepath.Join(dir, "shapes.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "m.json")
	r := trainJSON(t, data, "-c", "100", "-g", "1", "-o", modelPath)
	if r.Labels.Positive != "small" || r.Labels.Negative != "large" || r.TrainCorrect != 40 {
		t.Fatalf("labels %+v, %d/40 correct", r.Labels, r.TrainCorrect)
	}
	var p predictResult
	if err := json.Unmarshal([]byte(mustRunKT(t, "predict", modelPath, data, "--format", "json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.Correct != 40 || p.Predictions[0].Predicted != "small" || p.Predictions[39].Predicted != "large" || len(p.Notes) != 0 {
		t.Errorf("predict: %d/40, first %q, last %q, notes %v", p.Correct, p.Predictions[0].Predicted, p.Predictions[39].Predicted, p.Notes)
	}
	swapped := filepath.Join(dir, "swapped.csv")
	if err := os.WriteFile(swapped, []byte(strings.Replace(b.String(), "width,height", "height,width", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRunKT(t, "predict", modelPath, swapped)
	if !strings.Contains(out, `feature 1 is "height" in the data but "width" in the model`) {
		t.Errorf("no note on renamed columns:\n%s", out[max(0, len(out)-600):])
	}
}

// TestPredictDecisionMatchesTrain: predict on the training file itself
// (raw rows through the saved normaliser) reproduces train's training
// accuracy, and the decision values are finite.
func TestPredictDecisionMatchesTrain(t *testing.T) {
	modelPath := filepath.Join(t.TempDir(), "m.json")
	r := trainJSON(t, "builtin:diabetes", "--margin", "l2", "-c", "0.5", "-o", modelPath)
	var p predictResult
	if err := json.Unmarshal([]byte(mustRunKT(t, "predict", modelPath, "builtin:diabetes", "--format", "json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.N != 768 || p.Correct != r.TrainCorrect {
		t.Errorf("predict %d/%d, train %d/%d", p.Correct, p.N, r.TrainCorrect, r.NTrain)
	}
	for _, q := range p.Predictions {
		if math.IsNaN(q.Decision) || math.IsInf(q.Decision, 0) {
			t.Fatalf("row %d: decision %v", q.Row, q.Decision)
		}
	}
}

// TestPredictGolden pins the csv layout and the summary.
func TestPredictGolden(t *testing.T) {
	modelPath, testFile := heartModel(t)
	out, errOut, code := trainCLI(t, "predict", modelPath, testFile, "--format", "csv")
	if code != 0 {
		t.Fatal(errOut)
	}
	// Decision values rounded to 8 digits: the last bits depend on the BLAS
	// summation order, which is not what this golden file is about.
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	for i, rec := range recs {
		if i > 0 {
			v, err := strconv.ParseFloat(rec[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			rec[1] = strconv.FormatFloat(v, 'g', 8, 64)
		}
		w.Write(rec)
	}
	w.Flush()
	checkTrainGolden(t, "predict_heart_csv.golden", b.String())
	checkTrainGolden(t, "predict_heart_summary.golden", strings.NewReplacer(modelPath, "MODEL", testFile, "DATA").Replace(errOut))
}

// TestPredictPadsSparseFile: a LIBSVM file that mentions only the first
// features is padded to the model's width, with a note.
func TestPredictPadsSparseFile(t *testing.T) {
	modelPath, _ := heartModel(t)
	short := filepath.Join(t.TempDir(), "short.libsvm")
	if err := os.WriteFile(short, []byte("+1 1:0.5 2:1\n-1 1:-0.5 3:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var p predictResult
	if err := json.Unmarshal([]byte(mustRunKT(t, "predict", modelPath, short, "--format", "json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.N != 2 || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "highest feature index in "+short+" is 3, the model has 13 features: features 4-13 are read as 0") {
		t.Errorf("n %d, notes %q", p.N, p.Notes)
	}
}
