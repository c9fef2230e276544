package cmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProbabilityRefused: predict --probability on a model trained without
// it exits with 1, naming the flag and what to do, and prints nothing on
// standard output.
func TestProbabilityRefused(t *testing.T) {
	t.Parallel()
	modelPath, testFile := heartModel(t)
	out, errOut, code := runCLI(t, "predict", modelPath, testFile, "--probability")
	if code != ExitError || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"predict --probability", modelPath, "no probability estimates", "trained without --probability", "train or tune it again with --probability"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	// One-vs-rest has none to fit.
	_, errOut, code = runCLI(t, "train", filepath.Join(cmdTestdata, "multiclass", "iris.scale"), "--multiclass", "ovr", "--probability")
	if code != ExitError || !strings.Contains(errOut, "one-vs-rest model has none") {
		t.Errorf("train --multiclass ovr --probability: exit %d, %q", code, errOut)
	}
}

// TestProbabilityRoundTrip: train --probability, then predict --probability
// prints a probability column per class (the model's label order, as
// svm-predict -b 1's "labels 1 -1"), rows summing to 1, the log-loss and
// the Brier score, in the table, CSV and JSON; the predicted labels are the
// decision function's, as without --probability.
func TestProbabilityRoundTrip(t *testing.T) {
	t.Parallel()
	trainFile, testFile := splitHeart(t)
	modelPath := filepath.Join(t.TempDir(), "heart.json")
	tr := trainJSON(t, trainFile, "-g", "0.05", "--probability", "-o", modelPath)
	if tr.Probability == nil || !(tr.Probability.A < 0) {
		t.Fatalf("train JSON probability %+v", tr.Probability)
	}
	plain, _ := predictJSON(t, modelPath, testFile)
	r, raw := predictJSON(t, modelPath, testFile, "--probability")
	if got := strings.Join(r.ProbabilityClasses, " "); got != "1 -1" {
		t.Errorf("probability_classes %q, want \"1 -1\"", got)
	}
	if r.LogLoss == nil || r.Brier == nil || !(*r.LogLoss > 0.2 && *r.LogLoss < 0.6) || !(*r.Brier > 0.1 && *r.Brier < 0.4) {
		t.Errorf("log-loss %v, Brier %v", r.LogLoss, r.Brier)
	}
	if _, ok := raw["log_loss"]; !ok {
		t.Error("JSON lacks log_loss")
	}
	ll := 0.0
	for i, p := range r.Predictions {
		if len(p.Probabilities) != 2 || math.Abs(p.Probabilities[0]+p.Probabilities[1]-1) > 1e-12 || p.Predicted != plain.Predictions[i].Predicted {
			t.Fatalf("row %d: %+v (without --probability: %q)", p.Row, p, plain.Predictions[i].Predicted)
		}
		k := 0
		if p.Label == "-1" {
			k = 1
		}
		ll -= math.Log(p.Probabilities[k])
	}
	if math.Abs(ll/70-*r.LogLoss) > 1e-12 {
		t.Errorf("log-loss %v, the rows' mean -log p %v", *r.LogLoss, ll/70)
	}
	recs, _ := predictCSV(t, modelPath, testFile, "--probability")
	if got := strings.Join(recs[0], ","); got != "row,decision,predicted,P(1),P(-1),label" {
		t.Errorf("CSV header %q", got)
	}
	p1, err1 := strconv.ParseFloat(recs[1][3], 64)
	p2, err2 := strconv.ParseFloat(recs[1][4], 64)
	if err1 != nil || err2 != nil || p1 != r.Predictions[0].Probabilities[0] || p2 != r.Predictions[0].Probabilities[1] {
		t.Errorf("CSV row 1 %v, JSON %v", recs[1], r.Predictions[0].Probabilities)
	}
	table := mustRun(t, "predict", modelPath, testFile, "--probability", "--per-point")
	for _, want := range []string{"log-loss", "Brier", "P(1)", "P(-1)", `probabilities of the classes "1", "-1"`, strconv.FormatFloat(*r.LogLoss, 'f', 4, 64)} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// TestProbabilityLIBSVMCLI: the commands a user types, against svm-train
// -b 1 and svm-predict -b 1 on heart_scale and wine
// (testdata/libsvm-prob/golden.json): the held-in log-loss within 5% of
// LIBSVM's (the CV folds are ours, drawn from --seed, not LIBSVM's rand()).
func TestProbabilityLIBSVMCLI(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(cmdTestdata, "libsvm-prob", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Sets []struct {
			Name, File    string
			C, Gamma, Eps float64
			LogLoss       float64 `json:"libsvm_log_loss"`
		}
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	for _, s := range g.Sets {
		if s.Name == "iris" {
			continue // pkg/model's TestProbabilityLIBSVM has it
		}
		t.Run(s.Name, func(t *testing.T) {
			file := filepath.Join("..", s.File)
			modelPath := filepath.Join(t.TempDir(), "m.json")
			f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
			mustRun(t, "train", file, "--normalize", "none", "-c", f(s.C), "-g", f(s.Gamma), "--eps", f(s.Eps), "--probability", "-o", modelPath)
			r, _ := predictJSON(t, modelPath, file, "--probability")
			if r.LogLoss == nil || math.Abs(*r.LogLoss/s.LogLoss-1) > 0.05 {
				t.Errorf("log-loss %v, svm-predict -b 1 %.5f", r.LogLoss, s.LogLoss)
			} else {
				t.Logf("log-loss %.5f, svm-predict -b 1 %.5f", *r.LogLoss, s.LogLoss)
			}
		})
	}
}

// TestProbabilityTune: tune --probability fits the final model's sigmoid
// and scores the test part's probabilities; the saved model gives them to
// predict.
func TestProbabilityTune(t *testing.T) {
	t.Parallel()
	modelPath := filepath.Join(t.TempDir(), "tuned.json")
	r := tuneJSON(t, "builtin:heart", "--method", "spd", "--test-fraction", "0.3", "--probability", "-o", modelPath)
	if r.Probability == nil || r.TestScores == nil || r.TestScores.LogLoss == nil || r.TestScores.Brier == nil {
		t.Fatalf("tune JSON: probability %+v, test scores %+v", r.Probability, r.TestScores)
	}
	// The sigmoid's five CV solves count among the run's SVM solves.
	if plain := tuneJSON(t, "builtin:heart", "--method", "spd", "--test-fraction", "0.3"); r.Solves != plain.Solves+5 {
		t.Errorf("SVM solves with --probability %d, without %d: want 5 more (the sigmoid's CV)", r.Solves, plain.Solves)
	}
	p, _ := predictJSON(t, modelPath, "builtin:heart", "--probability")
	if p.Others == nil || p.Others.LogLoss == nil || math.Abs(*p.Others.LogLoss-*r.TestScores.LogLoss) > 1e-12 {
		t.Errorf("predict's log-loss on the rows tune held out %v, tune's test log-loss %v", p.Others, *r.TestScores.LogLoss)
	}
}

// A training part smaller than the 5 CV folds (3 rows here; a pair of two
// tiny classes alike) trains with --probability: the empty folds train
// nothing. It panicked on an empty prediction before.
func TestProbabilityFewerRowsThanFolds(t *testing.T) {
	t.Parallel()
	data := writeFile(t, t.TempDir(), "three.csv", "x1,label\n1,a\n2,a\n3,b\n")
	if _, errOut, code := runCLI(t, "train", data, "--probability", "-q"); code != ExitOK {
		t.Errorf("train --probability on 3 rows: exit %d, %s", code, errOut)
	}
}

// predict --probability --format labels writes svm-predict -b 1's output
// file: the "labels" line in the model's class order, then each row's label
// and one probability per class, summing to 1.
func TestProbabilityLabelsFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := filepath.Join(dir, "iris.json")
	iris := filepath.Join(mcDir, "iris.scale")
	mustRun(t, "train", iris, "--probability", "-o", m, "-q")
	out := mustRun(t, "predict", m, iris, "--probability", "--format", "labels", "-q")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 151 || lines[0] != "labels 1 2 3" {
		t.Fatalf("%d lines, first %q; want 151 and \"labels 1 2 3\"", len(lines), lines[0])
	}
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		sum := 0.0
		for _, v := range f[1:] {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			sum += p
		}
		if len(f) != 4 || math.Abs(sum-1) > 1e-5 {
			t.Errorf("row %d: %q: want a label and 3 probabilities summing to 1", i+1, l)
		}
	}
	if plain := mustRun(t, "predict", m, iris, "--format", "labels", "-q"); strings.HasPrefix(plain, "labels") || strings.Count(plain, "\n") != 150 {
		t.Errorf("without --probability: %.40q…, want one label per line", plain)
	}
}
