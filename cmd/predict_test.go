package cmd

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// predictCSV runs predict with --format csv, fails the test unless it exits
// with 0, and returns the parsed records and stderr.
func predictCSV(t *testing.T, args ...string) (recs [][]string, stderr string) {
	t.Helper()
	out, errOut, code := runCLI(t, append(append([]string{"predict"}, args...), "--format", "csv")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs, errOut
}

// heartModel trains on the first 200 rows of heart_scale (zscore) and
// returns the model file and the 70-row test file.
func heartModel(t *testing.T) (modelPath, testFile string) {
	t.Helper()
	trainFile, testFile := splitHeart(t)
	modelPath = filepath.Join(t.TempDir(), "heart.json")
	mustRun(t, "train", trainFile, "-g", "0.05", "-o", modelPath)
	return modelPath, testFile
}

func TestPredictFormats(t *testing.T) {
	t.Parallel()
	modelPath, testFile := heartModel(t)
	ref, _ := predictJSON(t, modelPath, testFile)
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
	recs, errOut := predictCSV(t, modelPath, testFile)
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
	_, errOut, _ = runCLI(t, "predict", modelPath, testFile, "--format", "csv", "-q")
	if errOut != "" {
		t.Errorf("-q: stderr %q", errOut)
	}

	// labels: one predicted label per line, as svm-predict writes.
	out := mustRun(t, "predict", modelPath, testFile, "--format", "labels")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 70 || lines[0] != ref.Predictions[0].Predicted || lines[69] != ref.Predictions[69].Predicted {
		t.Errorf("labels output: %d lines", len(lines))
	}

	// -o: the rows go to the file, the summary to stdout.
	file := filepath.Join(t.TempDir(), "pred.csv")
	out = mustRun(t, "predict", modelPath, testFile, "--format", "csv", "-o", file)
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

	// table: the summary only, first the accuracy, then the confusion
	// matrix with the class counts, and a hint where the rows are.
	out = mustRun(t, "predict", modelPath, testFile)
	acc := report.Fixed(100*ref.Accuracy, 2) + "%"
	iAcc, iConf := strings.Index(out, acc), strings.Index(out, "label \\ predicted")
	if iAcc < 0 || iConf < iAcc || strings.Contains(out, "│ row │") || strings.Contains(out, "wrong") {
		t.Errorf("table: want the accuracy %s, then the confusion matrix, and no rows:\n%s", acc, out)
	}
	pos := ref.TruePos + ref.FalseNeg
	for _, want := range []string{
		fmt.Sprintf(`│ "1" (+1)          │ %8d │ %9d │ %4d │`, ref.TruePos, ref.FalseNeg, pos),
		fmt.Sprintf(`│ rows              │ %8d │ %9d │ %4d │`, ref.TruePos+ref.FalsePos, ref.FalseNeg+ref.TrueNeg, 70),
		"per-row predictions: --per-point, or --format labels|csv|json",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// --per-point: the same summary first, then the rows, each error marked.
	per := mustRun(t, "predict", modelPath, testFile, "--per-point")
	if !strings.HasPrefix(per, out[:iConf]) || strings.Index(per, "│ row │") < strings.Index(per, "label \\ predicted") {
		t.Errorf("--per-point: the summary does not come first:\n%s", per)
	}
	if got, want := strings.Count(per, " wrong "), 70-ref.Correct; got != want {
		t.Errorf("--per-point marks %d rows wrong, want %d", got, want)
	}
	// --per-point belongs to the table; the other formats have a line per row.
	if _, errOut, code := runCLI(t, "predict", modelPath, testFile, "--per-point", "--format", "csv"); code != ExitUsage || !strings.Contains(errOut, "--per-point is for --format table") {
		t.Errorf("--per-point with csv: exit %d, %q", code, errOut)
	}
}

func TestPredictErrors(t *testing.T) {
	t.Parallel()
	modelPath, testFile := heartModel(t)
	dir := t.TempDir()
	raw, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}

	// A model file from a future kerneltune.
	v7 := writeFile(t, dir, "v7.json", strings.Replace(string(raw), `"format_version": 1`, `"format_version": 7`, 1))
	_, errOut, code := runCLI(t, "predict", v7, testFile)
	if want := "kerneltune: read model " + v7 + ": unsupported format_version 7 (this kerneltune reads 1, 2, 3, 4, 5 and 6)\n"; code != ExitError || errOut != want {
		t.Errorf("version 7: exit %d, %q; want 1, %q", code, errOut, want)
	}
	// An unknown kernel kind.
	poly := writeFile(t, dir, "poly.json", strings.Replace(string(raw), `"kind": "gaussian"`, `"kind": "poly"`, 1))
	_, errOut, code = runCLI(t, "predict", poly, testFile)
	if code != ExitError || !strings.Contains(errOut, `unknown kernel kind "poly"`) {
		t.Errorf("kind poly: exit %d, %q", code, errOut)
	}
	// Labels the model does not know: UCI's heart.dat says 1/2.
	_, errOut, code = runCLI(t, "predict", modelPath, filepath.Join(cmdTestdata, "uci/heart.dat"))
	if code != ExitError || !strings.Contains(errOut, `label "2" is neither of the training labels`) {
		t.Errorf("foreign labels: exit %d, %q", code, errOut)
	}
	// Another number of features.
	csvFile := writeFile(t, dir, "three.csv", "a,b,c,y\n1,2,3,1\n2,3,4,-1\n")
	_, errOut, code = runCLI(t, "predict", modelPath, csvFile)
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
		if _, errOut, code := runCLI(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, %q; want 2", args[1:], code, errOut)
		}
	}
	// A missing model file.
	if _, errOut, code := runCLI(t, "predict", filepath.Join(dir, "none.json"), testFile); code != ExitError || !strings.Contains(errOut, "none.json") {
		t.Errorf("missing model: exit %d, %q", code, errOut)
	}
}

// shapesCSV is a small CSV data set with a header and text labels: 40 points
// (10x, y) on a grid, "small" when x + y ≤ 6, else "large"; labelled has the
// class column, unlabelled not.
func shapesCSV() (labelled, unlabelled string) {
	var lab, unl strings.Builder
	lab.WriteString("width,height,class\n")
	unl.WriteString("width,height\n")
	for i := 0; i < 40; i++ {
		x, y := float64(i%8), float64(i/8)
		cls := "small"
		if x+y > 6 {
			cls = "large"
		}
		row := strconv.FormatFloat(x*10, 'g', -1, 64) + "," + strconv.FormatFloat(y, 'g', -1, 64)
		lab.WriteString(row + "," + cls + "\n")
		unl.WriteString(row + "\n")
	}
	return lab.String(), unl.String()
}

// TestPredictCSVModel: a CSV with text labels and a header; predict prints
// the original label texts and notes columns that changed names.
func TestPredictCSVModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shapes, _ := shapesCSV()
	data := writeFile(t, dir, "shapes.csv", shapes)
	modelPath := filepath.Join(dir, "m.json")
	r := trainJSON(t, data, "-c", "100", "-g", "1", "-o", modelPath)
	if r.Labels.Positive != "small" || r.Labels.Negative != "large" || r.TrainCorrect != 40 {
		t.Fatalf("labels %+v, %d/40 correct", r.Labels, r.TrainCorrect)
	}
	p, _ := predictJSON(t, modelPath, data)
	if p.Correct != 40 || p.Predictions[0].Predicted != "small" || p.Predictions[39].Predicted != "large" ||
		len(p.Notes) != 1 || !strings.Contains(p.Notes[0].String(), "all 40 rows of "+data+" were training rows of the model") {
		t.Errorf("predict: %d/40, first %q, last %q, notes %v", p.Correct, p.Predictions[0].Predicted, p.Predictions[39].Predicted, p.Notes)
	}
	swapped := writeFile(t, dir, "swapped.csv", strings.Replace(shapes, "width,height", "height,width", 1))
	out := mustRun(t, "predict", modelPath, swapped)
	if !strings.Contains(out, `feature 1 is "height" in the data but "width" in the model`) {
		t.Errorf("no note on renamed columns:\n%s", out[max(0, len(out)-600):])
	}
}

// TestPredictDecisionMatchesTrain: predict on the training file itself
// (raw rows through the saved normaliser) reproduces train's training
// accuracy, and the decision values are finite.
func TestPredictDecisionMatchesTrain(t *testing.T) {
	t.Parallel()
	modelPath := filepath.Join(t.TempDir(), "m.json")
	r := trainJSON(t, "builtin:diabetes", "--margin", "l2", "-c", "0.5", "-o", modelPath)
	p, _ := predictJSON(t, modelPath, "builtin:diabetes")
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
	t.Parallel()
	modelPath, testFile := heartModel(t)
	recs, errOut := predictCSV(t, modelPath, testFile)
	// Decision values rounded to 8 digits: the last bits depend on the BLAS
	// summation order, which is not what this golden file is about.
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
	golden(t, "predict_heart_csv.golden", b.String())
	golden(t, "predict_heart_summary.golden", strings.NewReplacer(modelPath, "MODEL", testFile, "DATA").Replace(errOut))
	// The default output: the summary and where the rows are.
	golden(t, "predict_heart_table.golden", strings.NewReplacer(modelPath, "MODEL", testFile, "DATA").Replace(mustRun(t, "predict", modelPath, testFile)))
}

// TestPredictFeatureCount: data with another number of features than the
// model is an error naming both numbers and the flag (it used to be padded,
// with a note after the accuracy); --features pad reads the missing ones as
// 0, --features truncate drops the extra ones, --features N reads a LIBSVM
// file as N features; each gives the decision values of the padded or cut
// file itself.
func TestPredictFeatureCount(t *testing.T) {
	t.Parallel()
	modelPath, testFile := heartModel(t)
	dir := t.TempDir()
	short := writeFile(t, dir, "short.libsvm", "+1 1:0.5 2:1\n-1 1:-0.5 3:1\n")
	full := writeFile(t, dir, "full.libsvm", "+1 1:0.5 2:1 13:0\n-1 1:-0.5 3:1 13:0\n")
	_, errOut, code := runCLI(t, "predict", modelPath, short)
	if want := "predict: " + short + " has 3 features, the model " + modelPath + " was trained on 13 (a LIBSVM file need not mention its last features: if features 4-13 are 0 in every row, give --features pad)"; code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("short LIBSVM file: exit %d, %q; want 1, %q", code, errOut, want)
	}
	ref, _ := predictJSON(t, modelPath, full)
	for _, args := range [][]string{{"--features", "pad"}, {"--features", "13"}} {
		p, _ := predictJSON(t, append([]string{modelPath, short}, args...)...)
		if p.N != 2 || p.Predictions[0].Decision != ref.Predictions[0].Decision || p.Predictions[1].Decision != ref.Predictions[1].Decision {
			t.Errorf("%v: decisions %+v, want those of the 13-feature file %+v", args, p.Predictions, ref.Predictions)
		}
		if args[1] == "pad" && (len(p.Notes) != 1 || !strings.Contains(p.Notes[0].String(), short+" has 3 features, the model 13: features 4-13 are read as 0 (--features pad)")) {
			t.Errorf("pad: notes %q", p.Notes)
		}
	}
	if _, errOut, code := runCLI(t, "predict", modelPath, short, "--features", "12"); code != ExitUsage || !strings.Contains(errOut, "--features 12: the model "+modelPath+" has 13 features") {
		t.Errorf("--features 12: exit %d, %q", code, errOut)
	}
	for _, bad := range []string{"0", "zero", "-3"} {
		if _, errOut, code := runCLI(t, "predict", modelPath, short, "--features", bad); code != ExitUsage || !strings.Contains(errOut, "--features: want pad, truncate or a number") {
			t.Errorf("--features %s: exit %d, %q", bad, code, errOut)
		}
	}

	// A CSV file two features wider than the model (and its label).
	test, err := dataio.Load(testFile, dataio.ReadOptions{Features: 13})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; i < test.Len(); i++ {
		for j := 0; j < 13; j++ {
			b.WriteString(strconv.FormatFloat(test.X.At(i, j), 'g', -1, 64) + ",")
		}
		b.WriteString("7,-7," + strconv.FormatFloat(test.Y[i], 'g', -1, 64) + "\n")
	}
	wide := writeFile(t, dir, "wide.csv", b.String())
	_, errOut, code = runCLI(t, "predict", modelPath, wide)
	if want := "has 15 features, the model " + modelPath + " was trained on 13: DATA needs 13 columns, or 14 with a label column; --features truncate drops features 14-15"; code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("wide csv: exit %d, %q; want %q", code, errOut, want)
	}
	want, _ := predictJSON(t, modelPath, testFile)
	got, _ := predictJSON(t, modelPath, wide, "--features", "truncate")
	if got.Correct != want.Correct || got.N != 70 || len(got.Notes) != 1 || !strings.Contains(got.Notes[0].String(), "features 14-15 are dropped (--features truncate)") {
		t.Errorf("truncate: %d/%d correct (want %d), notes %q", got.Correct, got.N, want.Correct, got.Notes)
	}
	for i := range got.Predictions {
		if math.Abs(got.Predictions[i].Decision-want.Predictions[i].Decision) > 1e-12 {
			t.Fatalf("truncate row %d: %v, want %v", i+1, got.Predictions[i].Decision, want.Predictions[i].Decision)
		}
	}
}

// writeFeatures writes the rows of d without labels to dir/name, as CSV
// (comma separated, header names if given) or as LIBSVM index:value lines,
// and returns the path.
func writeFeatures(t *testing.T, d *dataio.Dataset, dir, name, format string, header []string) string {
	t.Helper()
	var b strings.Builder
	if header != nil {
		b.WriteString(strings.Join(header, ",") + "\n")
	}
	for i := 0; i < d.Len(); i++ {
		var toks []string
		for j := 0; j < d.Dim(); j++ {
			v := d.X.At(i, j)
			s := strconv.FormatFloat(v, 'g', -1, 64)
			switch {
			case format == "csv":
				toks = append(toks, s)
			case v != 0:
				toks = append(toks, strconv.Itoa(j+1)+":"+s)
			}
		}
		sep := " "
		if format == "csv" {
			sep = ","
		}
		b.WriteString(strings.Join(toks, sep) + "\n")
	}
	return writeFile(t, dir, name, b.String())
}

// TestPredictUnlabeled: the test part's features without labels, as CSV
// and as LIBSVM, detected or forced with --no-labels, on a file or on
// standard input, give the labelled run's decision values and labels in
// every format, and no accuracy.
func TestPredictUnlabeled(t *testing.T) {
	t.Parallel()
	modelPath, testFile := heartModel(t)
	ref, rawRef := predictJSON(t, modelPath, testFile)
	if !ref.Labeled || ref.Scores == nil || rawRef["accuracy"] == nil || ref.Correct < 50 {
		t.Fatalf("labelled run: labeled %v, scores %+v", ref.Labeled, ref.Scores)
	}
	refPos := 0
	for _, p := range ref.Predictions {
		if p.Predicted == "1" {
			refPos++
		}
	}
	if ref.PredictedPos != refPos || ref.PredictedNeg != 70-refPos {
		t.Errorf("labelled run counts %d/%d predicted, want %d/%d", ref.PredictedPos, ref.PredictedNeg, refPos, 70-refPos)
	}

	test, err := dataio.Load(testFile, dataio.ReadOptions{Features: 13})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	csvFile := writeFeatures(t, test, dir, "new.csv", "csv", nil)
	svmFile := writeFeatures(t, test, dir, "new_points", "libsvm", nil)
	csvText, err := os.ReadFile(csvFile)
	if err != nil {
		t.Fatal(err)
	}

	same := func(name string, r model.Predictions, raw map[string]any) {
		t.Helper()
		if r.Labeled || r.Scores != nil || r.N != 70 || len(r.Predictions) != 70 {
			t.Fatalf("%s: labeled %v, scores %+v, %d rows", name, r.Labeled, r.Scores, len(r.Predictions))
		}
		for _, key := range []string{"accuracy", "correct", "true_pos", "false_neg"} {
			if _, ok := raw[key]; ok {
				t.Errorf("%s: JSON has %q without labels", name, key)
			}
		}
		if r.PredictedPos != refPos || r.PredictedNeg != 70-refPos {
			t.Errorf("%s: %d/%d predicted, want %d/%d", name, r.PredictedPos, r.PredictedNeg, refPos, 70-refPos)
		}
		for i, p := range r.Predictions {
			q := ref.Predictions[i]
			if p.Row != q.Row || p.Predicted != q.Predicted || p.Label != "" || math.Abs(p.Decision-q.Decision) > 1e-12*(1+math.Abs(q.Decision)) {
				t.Fatalf("%s: row %d %+v, labelled run %+v", name, i+1, p, q)
			}
		}
	}

	r, raw := predictJSON(t, modelPath, csvFile)
	same("csv", r, raw)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0].String(), csvFile+" has no labels: its 13 columns are the model's 13 features") {
		t.Errorf("csv: notes %q", r.Notes)
	}
	r, raw = predictJSON(t, modelPath, csvFile, "--no-labels")
	same("csv --no-labels", r, raw)
	if len(r.Notes) != 0 {
		t.Errorf("--no-labels: notes %q", r.Notes)
	}
	r, raw = predictJSON(t, modelPath, svmFile)
	same("libsvm", r, raw)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0].String(), "has no labels (its lines start with index:value)") {
		t.Errorf("libsvm: notes %q", r.Notes)
	}
	r, raw = predictJSON(t, modelPath, svmFile, "--no-labels", "--input-format", "libsvm")
	same("libsvm --no-labels", r, raw)

	// Standard input.
	out, errOut, code := runCLIStdin(t, string(csvText), "predict", modelPath, "-", "--format", "json")
	if code != 0 {
		t.Fatalf("stdin: exit %d: %s", code, errOut)
	}
	r = model.Predictions{}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	same("stdin", r, raw)
	if len(r.Notes) != 1 || !strings.HasPrefix(r.Notes[0].String(), "note: standard input has no labels") {
		t.Errorf("stdin: notes %q", r.Notes)
	}

	// labels: one predicted label per line, as with labels.
	lines := strings.Split(strings.TrimSuffix(mustRun(t, "predict", modelPath, csvFile, "--format", "labels"), "\n"), "\n")
	if len(lines) != 70 {
		t.Fatalf("labels: %d lines", len(lines))
	}
	for i, l := range lines {
		if l != ref.Predictions[i].Predicted {
			t.Fatalf("labels line %d: %q, want %q", i+1, l, ref.Predictions[i].Predicted)
		}
	}

	// csv: no label column; the class counts go to stderr.
	recs, errS := predictCSV(t, modelPath, csvFile)
	if len(recs) != 71 || strings.Join(recs[0], ",") != "row,decision,predicted" {
		t.Fatalf("csv: %d records, header %v", len(recs), recs[0])
	}
	for i, rec := range recs[1:] {
		if rec[2] != ref.Predictions[i].Predicted {
			t.Fatalf("csv row %d: %v", i+1, rec)
		}
	}
	if !strings.Contains(errS, "no labels, so no accuracy") || strings.Contains(errS, "accuracy │") {
		t.Errorf("csv summary on stderr:\n%s", errS)
	}

	// table --per-point: the class counts, then rows without a label column
	// or marks.
	outS := mustRun(t, "predict", modelPath, csvFile, "--per-point")
	for _, want := range []string{"│ row │", "no labels, so no accuracy", `predicted "1" (+1)`, "│   70 │", " " + strconv.Itoa(refPos) + " │", "has no labels: its 13 columns"} {
		if !strings.Contains(outS, want) {
			t.Errorf("table lacks %q:\n%s", want, outS)
		}
	}
	for _, bad := range []string{"wrong", "label \\ predicted", "%"} {
		if strings.Contains(outS, bad) {
			t.Errorf("table without labels has %q:\n%s", bad, outS)
		}
	}

	// A width that fits neither reading.
	narrow := writeFile(t, dir, "narrow.csv", "1,2,3,4,1\n5,6,7,8,-1\n")
	_, errS, code = runCLI(t, "predict", modelPath, narrow)
	if want := "has 4 features, the model " + modelPath + " was trained on 13: DATA needs 13 columns, or 14 with a label column"; code != ExitError || !strings.Contains(errS, want) {
		t.Errorf("5 columns: exit %d, %q; want %q", code, errS, want)
	}

	// --header: numeric column names are data unless --header yes.
	header := make([]string, 13)
	for j := range header {
		header[j] = strconv.Itoa(2000 + j)
	}
	named := writeFeatures(t, test, dir, "named.csv", "csv", header)
	if r, _ := predictJSON(t, modelPath, named); r.N != 71 {
		t.Errorf("header auto: %d rows, want 71 (the names read as a row)", r.N)
	}
	r, raw = predictJSON(t, modelPath, named, "--header", "yes")
	same("--header yes", r, raw)
}

// TestPredictUnlabeledText: a model with text labels predicts them on
// unlabelled rows with a header; forcing --no-labels on a labelled file, or
// a width that fits neither reading, is an error that says why.
func TestPredictUnlabeledText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lab, unl := shapesCSV()
	labFile, unlFile := writeFile(t, dir, "shapes.csv", lab), writeFile(t, dir, "new.csv", unl)
	modelPath := filepath.Join(dir, "m.json")
	mustRun(t, "train", labFile, "-c", "100", "-g", "1", "-o", modelPath)
	ref, _ := predictJSON(t, modelPath, labFile)
	r, _ := predictJSON(t, modelPath, unlFile)
	if ref.Correct != 40 || r.Labeled || r.N != 40 || r.PredictedPos != 25 || r.PredictedNeg != 15 {
		t.Fatalf("labelled %d/40 correct; unlabelled: labeled %v, %d rows, %d/%d predicted", ref.Correct, r.Labeled, r.N, r.PredictedPos, r.PredictedNeg)
	}
	for i, p := range r.Predictions {
		if p.Predicted != ref.Predictions[i].Predicted || p.Predicted != ref.Predictions[i].Label {
			t.Fatalf("row %d: %q, labelled run %+v", i+1, p.Predicted, ref.Predictions[i])
		}
	}
	if !strings.Contains(mustRun(t, "predict", modelPath, unlFile), `predicted "small" (+1)`) {
		t.Error("table does not name the classes by their labels")
	}

	_, errOut, code := runCLI(t, "predict", modelPath, labFile, "--no-labels")
	if want := labFile + `:2:3: "small" is not a number (the data are read without labels, so every column is a feature: is column 3 a label?)`; code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("--no-labels on labelled data: exit %d, %q; want %q", code, errOut, want)
	}
	// Too wide for either reading: the last column is read as a label.
	wide := writeFile(t, dir, "wide.csv", "1,2,3,4\n5,6,7,8\n")
	_, errOut, code = runCLI(t, "predict", modelPath, wide)
	if want := wide + `:1: label "4" is neither of the training labels "small" (+1) and "large" (-1) (data without labels need exactly 2 columns, one per feature of the model, or --no-labels)`; !strings.Contains(errOut, want) || code != ExitError {
		t.Errorf("4 columns: exit %d, %q; want %q", code, errOut, want)
	}
	_, errOut, code = runCLI(t, "predict", modelPath, wide, "--no-labels")
	if !strings.Contains(errOut, "has 4 features (read without labels), the model "+modelPath+" was trained on 2: with --no-labels every column is a feature, so DATA needs 2 columns") || code != ExitError {
		t.Errorf("4 columns, --no-labels: exit %d, %q", code, errOut)
	}
	// --label-col says the file has labels, whatever its width.
	_, errOut, code = runCLI(t, "predict", modelPath, unlFile, "--label-col", "2")
	if code != ExitError || !strings.Contains(errOut, `new.csv:2: label "0" is neither`) {
		t.Errorf("--label-col on 2 columns: exit %d, %q", code, errOut)
	}
	// A builtin set is labelled.
	_, errOut, code = runCLI(t, "predict", modelPath, "builtin:heart", "--no-labels")
	if code != ExitError || !strings.Contains(errOut, "builtin heart is labelled") {
		t.Errorf("builtin --no-labels: exit %d, %q", code, errOut)
	}
	// Usage errors.
	for _, args := range [][]string{
		{"--no-labels", "--label-col", "3"},
		{"--no-labels=maybe"},
		{"--header", "sometimes"},
	} {
		if _, errOut, code := runCLI(t, append([]string{"predict", modelPath, unlFile}, args...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, %q; want 2", args, code, errOut)
		}
	}
}
