package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/model"
)

// train --multiclass ovr on iris (-c 1 -g 0.5): a binary SVM per class
// against the rest on all 105 training rows, the test part scored by the
// largest decision value (the table is a golden file); the model file says
// "ovr", survives a save/load round trip byte for byte, and predict
// predicts the class of the largest of the three decision values it
// reports, with the same test accuracy as train.
func TestTrainPredictOneVsRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	iris := filepath.Join(mcDir, "iris.scale")
	m := filepath.Join(dir, "iris-ovr.json")
	args := []string{"train", iris, "-c", "1", "-g", "0.5", "--test-fraction", "0.3", "--multiclass", "ovr"}
	golden(t, "train_ovr_iris.golden", maskTrainTiming(mustRun(t, args...)))
	mustRun(t, append(args, "-o", m)...)

	raw, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"multiclass": "ovr"`)) {
		t.Errorf("the model file does not say one-vs-rest")
	}
	mod, err := model.LoadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if mod.Multiclass != "ovr" || len(mod.Pairs) != 3 || mod.Pairs[1].Labels.Positive != "2" || mod.Pairs[1].Labels.Negative != "not 2" ||
		mod.Pairs[1].Training.N != 105 {
		t.Fatalf("loaded model: scheme %q, %d SVMs, SVM 2 %+v on %d rows", mod.Multiclass, len(mod.Pairs), mod.Pairs[1].Labels, mod.Pairs[1].Training.N)
	}
	again := filepath.Join(dir, "again.json")
	if err := mod.SaveFile(again); err != nil {
		t.Fatal(err)
	}
	if raw2, err := os.ReadFile(again); err != nil || !bytes.Equal(raw, raw2) {
		t.Errorf("save after load changed the file (%v)", err)
	}

	p, _ := runJSON[model.Predictions](t, "predict", m, iris)
	if p.Multiclass != "ovr" || p.N != 150 || p.Correct != 148 || p.Others == nil || p.Others.Correct != 41 || p.Others.N != 43 {
		t.Errorf("predict: scheme %q, %d rows, %d correct, others %+v", p.Multiclass, p.N, p.Correct, p.Others)
	}
	for _, r := range p.Predictions {
		best := 0
		for c, v := range r.PairDecisions {
			if v > r.PairDecisions[best] {
				best = c
			}
		}
		if r.Predicted != mod.Classes[best] || r.Decision != r.PairDecisions[best] || r.Votes != 0 {
			t.Fatalf("row %d: predicted %s with decision %g, votes %d; decisions %v", r.Row, r.Predicted, r.Decision, r.Votes, r.PairDecisions)
		}
	}
	table := mustRun(t, "predict", m, iris, "--per-point")
	if !strings.Contains(table, "│ row │  decision │ predicted │ label │") || !strings.Contains(table, "│   1 │   1.18436 │         1 │     1 │") {
		t.Errorf("predict --per-point: no decision column for one-vs-rest:\n%s", table[:min(len(table), 2000)])
	}
}

// On iris and wine, one-vs-rest and one-vs-one at the same C and γ are both
// accurate on the held-out part: iris 43 of 45 each (95.6%); wine 48 and
// 49 of 53 (90.6% and 92.5%: γ = 0.5 is narrow for 13 z-scored features).
func TestOneVsRestAgainstOneVsOne(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file     string
		ovo, ovr int // correct of the test part
		n        int
	}{{"iris.scale", 43, 43, 45}, {"wine.scale", 48, 49, 53}} {
		data := filepath.Join(mcDir, c.file)
		args := []string{data, "-c", "1", "-g", "0.5", "--test-fraction", "0.3"}
		ovo := trainJSON(t, args...)
		ovr := trainJSON(t, append(args, "--multiclass", "ovr")...)
		if ovo.NTest != c.n || ovo.TestCorrect != c.ovo || ovr.TestCorrect != c.ovr || len(ovr.Pairs) != 3 || ovr.FitData.Multiclass != "ovr" {
			t.Errorf("%s: test part %d rows, ovo %d correct, ovr %d (%d SVMs); want %d, %d, %d", c.file, ovo.NTest, ovo.TestCorrect, ovr.TestCorrect, len(ovr.Pairs), c.n, c.ovo, c.ovr)
		}
	}
}

// --multiclass takes ovo or ovr only; a one-vs-rest model on binary data is
// the binary model (the flag only matters with more than two classes).
func TestMulticlassFlagErrors(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "train", filepath.Join(mcDir, "iris.scale"), "--multiclass", "ova")
	if code != ExitUsage || !strings.Contains(errOut, `--multiclass: unknown setting "ova" (want ovo or ovr)`) {
		t.Errorf("--multiclass ova: exit %d, %q", code, errOut)
	}
	bin := trainJSON(t, filepath.Join(cmdTestdata, "libsvm", "heart_scale"), "--multiclass", "ovr", "-c", "1", "-g", "0.5")
	plain := trainJSON(t, filepath.Join(cmdTestdata, "libsvm", "heart_scale"), "-c", "1", "-g", "0.5")
	if bin.Pairs != nil || bin.FitData.Multiclass != "" || bin.NSV != plain.NSV || bin.TrainCorrect != plain.TrainCorrect || !slices.Equal(bin.FitData.Classes, plain.FitData.Classes) {
		t.Errorf("heart with --multiclass ovr: %d SVMs, scheme %q, #SV %d (plain %d)", len(bin.Pairs), bin.FitData.Multiclass, bin.NSV, plain.NSV)
	}
}

// tune --multiclass ovr on wine: rcsc tunes each class against the rest on
// all 125 training rows (a table row per class); the svm baseline chooses
// one (C, γ) by the CV accuracy of the largest decision value. A class's
// SVM that puts every row on the rest's side (the baseline's small C) is
// not marked degenerate: the argmax uses its values.
func TestTuneOneVsRest(t *testing.T) {
	t.Parallel()
	wine := filepath.Join(mcDir, "wine.scale")
	out := mustRun(t, "tune", wine, "--method", "rcsc", "--test-fraction", "0.3", "--multiclass", "ovr")
	for _, want := range []string{
		`tune ` + wine + ` --method rcsc --param iso: 125 training rows, 13 features; 3 classes "1", "2", "3": one-vs-rest, 3 classes against the rest`,
		"│ kernel and C       │ one per class against the rest (3 tunings, below), on z-scored features (kerneltune's normalisation), not the file's values │",
		"│ #SV                │ 85 (training rows that are an SV of some class's SVM) ",
		"│ test accuracy      │ 100.00% (53/53) ",
		"one-vs-rest: 3 classes, 3 tunings, one per class against the rest on all training rows (our extension: the paper is binary); prediction by the largest decision value",
		`│ "1" vs "not 1" │  125 │ γ = 0.1716, C = 2   │   2790.82 │  68 │ no         │`,
		`│ "2" vs "not 2" │  125 │ γ = 0.1882, C = 2   │   1923.08 │  78 │ no         │`,
		`│ "3" vs "not 3" │  125 │ γ = 0.1536, C = 0.5 │   2372.98 │  70 │ no         │`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tune output lacks %q:\n%s", want, out)
		}
	}
	m := filepath.Join(t.TempDir(), "svm.json")
	r := tuneJSON(t, wine, "--method", "svm", "--test-fraction", "0.3", "--multiclass", "ovr", "-o", m)
	if r.Criterion != "5-fold CV accuracy (one-vs-rest, the largest decision value)" || r.FitData.Multiclass != "ovr" || len(r.Pairs) != 3 ||
		r.Pairs[0].Kernel.Gamma != 0.03125 || r.Pairs[2].C != 8 || r.CriterionEnd != 0.984 || r.TestCorrect != 53 || r.Pairs[1].Rows != 125 {
		t.Errorf("svm: %q (%q), %d SVMs, criterion %v, test %d correct, pairs %+v", r.Criterion, r.FitData.Multiclass, len(r.Pairs), r.CriterionEnd, r.TestCorrect, r.Pairs)
	}
	p, _ := runJSON[model.Predictions](t, "predict", m, wine)
	if p.Multiclass != "ovr" || p.Others == nil || p.Others.N != 53 || p.Others.Correct != r.TestCorrect {
		t.Errorf("predict on wine: scheme %q, others %+v; tune's test part %d correct", p.Multiclass, p.Others, r.TestCorrect)
	}
}

// compare --multiclass ovr: records say one-vs-rest (provenance, read
// options, notes) and the run's id differs from one-vs-one's, whose
// settings do not mention the scheme (ovo runs keep their ids); a study
// file takes "multiclass: ovr" per dataset, into the dataset's key.
func TestCompareOneVsRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	iris := filepath.Join(mcDir, "iris.scale")
	type record struct {
		Run          string   `json:"run"`
		Entry        string   `json:"entry"`
		TestAccuracy float64  `json:"test_accuracy"`
		Notes        []string `json:"notes"`
		Identity     struct {
			Read struct {
				Multiclass string `json:"multiclass"`
			} `json:"read"`
		} `json:"dataset_identity"`
		Provenance struct {
			Data struct {
				Read      map[string]string `json:"read"`
				OneVsOne  []string          `json:"one_vs_one"`
				OneVsRest []string          `json:"one_vs_rest"`
			} `json:"data"`
		} `json:"provenance"`
	}
	records := func(path string) []record {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []record
		for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var r record
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	args := []string{"compare", iris, "--train-fraction", "0.5", "--partitions", "2", "--methods", "svm,rcsc"}
	mustRun(t, append(args, "--multiclass", "ovr", "-o", filepath.Join(dir, "ovr.jsonl"))...)
	mustRun(t, append(args, "-o", filepath.Join(dir, "ovo.jsonl"))...)
	ovr, ovo := records(filepath.Join(dir, "ovr.jsonl")), records(filepath.Join(dir, "ovo.jsonl"))
	if len(ovr) != 4 || len(ovo) != 4 || ovr[0].Run == ovo[0].Run {
		t.Fatalf("%d and %d records, runs %s and %s", len(ovr), len(ovo), ovr[0].Run, ovo[0].Run)
	}
	for _, r := range ovr {
		d := r.Provenance.Data
		if r.Identity.Read.Multiclass != "ovr" || d.Read["multiclass"] != "ovr" || d.OneVsOne != nil || !slices.Equal(d.OneVsRest, []string{"1", "2", "3"}) || r.TestAccuracy < 0.9 {
			t.Errorf("ovr record %s: identity %+v, data %+v, accuracy %v", r.Entry, r.Identity, d, r.TestAccuracy)
		}
		if r.Entry == "rcsc" && !slices.Contains(r.Notes, `one-vs-rest over 3 classes: 3 tunings; kernel and C are the first class's ("1" vs "not 1")`) {
			t.Errorf("rcsc notes %q", r.Notes)
		}
	}
	for _, r := range ovo {
		if r.Identity.Read.Multiclass != "" || r.Provenance.Data.Read != nil || r.Provenance.Data.OneVsRest != nil {
			t.Errorf("ovo record mentions the scheme: %+v %+v", r.Identity, r.Provenance.Data)
		}
	}

	wineStudy(t, dir, "    multiclass: ovr\n", "s.jsonl", "│ svm *  │             97.19 ± 0.79 │ 89.0 │", "│ rcsc   │             96.63 ± 0.00 │ 63.0 │")
	if s := records(filepath.Join(dir, "s.jsonl")); s[0].Identity.Read.Multiclass != "ovr" {
		t.Errorf("study dataset identity %+v", s[0].Identity)
	}
	wine, err := filepath.Abs(filepath.Join(mcDir, "wine.scale"))
	if err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, dir, "bad.yaml", "name: mc\nmethods: [svm]\ndatasets:\n  - path: "+wine+"\n    multiclass: ova\n")
	_, errOut, code := runCLI(t, "compare", "--study", bad)
	if code == 0 || !strings.Contains(errOut, `bad.yaml:5: multiclass: unknown setting "ova" (want ovo or ovr)`) {
		t.Errorf("study multiclass: ova: exit %d, %q", code, errOut)
	}
}

// --export-libsvm of a one-vs-rest model, with LIBSVM's own tools: a
// directory per class, whose svm-train model's decision values (computed
// from tuned.model's support vectors, coefficients and rho, as
// svm_predict_values does), signed as the README says for that class's
// label line, give predict's labels on the test part by the largest value,
// row by row, for the svm baseline (one kernel) and rcsc (one per class).
func TestTuneExportOneVsRestLibsvmTools(t *testing.T) {
	t.Parallel()
	dir, train, test := irisHalvesForLIBSVM(t)
	for _, method := range []string{"svm", "rcsc"} {
		ex, m := filepath.Join(dir, method), filepath.Join(dir, method+".json")
		r := tuneJSON(t, train, "--test", test, "--method", method, "--multiclass", "ovr", "-o", m, "--export-libsvm", ex)
		if r.ExportKind != model.ExportOneVsRest {
			t.Fatalf("%s: export %q", method, r.ExportKind)
		}
		want := strings.Fields(mustRun(t, "predict", m, test, "--format", "labels"))
		readme, err := os.ReadFile(filepath.Join(ex, "README.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), "Predict the class with the largest decision value") {
			t.Errorf("%s: README.txt does not say how to combine the classes:\n%s", method, readme)
		}
		classes := r.FitData.Classes
		dec := make([][]float64, len(classes))
		for c := range classes {
			sub := filepath.Join(ex, fmt.Sprintf("class-%d", c+1))
			runReadme(t, sub)
			f, labels := libsvmDecisions(t, filepath.Join(sub, "tuned.model"), filepath.Join(sub, "test.libsvm"))
			if line := fmt.Sprintf("class-%d   class %s (1) against the rest (-1)\n", c+1, classes[c]); !strings.Contains(string(readme), line) {
				t.Fatalf("%s: README.txt lacks %q", method, line)
			}
			if labels != "1 -1" {
				t.Errorf("%s class %d: LIBSVM's label line %q, the README says \"1 -1\"", method, c+1, labels)
			}
			if labels == "-1 1" {
				for i := range f {
					f[i] = -f[i]
				}
			}
			dec[c] = f
		}
		var got []string
		for i := range want {
			best := 0
			for c := range classes {
				if dec[c][i] > dec[best][i] {
					best = c
				}
			}
			got = append(got, classes[best])
		}
		if len(got) != 75 || !slices.Equal(got, want) {
			t.Errorf("%s: the largest LIBSVM decision value differs from predict in %d of %d rows", method, differ(strings.Join(got, ""), strings.Join(want, "")), len(want))
		}
	}
}

// libsvmDecisions computes, as LIBSVM's svm_predict_values, the decision
// values of an RBF model file (svm-train -t 2) on the rows of a LIBSVM data
// file: f(x) = Σ coef_i exp(-γ‖sv_i - x‖²) - rho, positive for the model's
// first label; it returns them and the model's label line. (Both methods
// here export RBF: the svm baseline's γ, rcsc's isotropic kernel.)
func libsvmDecisions(t *testing.T, modelFile, dataFile string) ([]float64, string) {
	t.Helper()
	parse := func(fields []string) map[int]float64 {
		x := map[int]float64{}
		for _, f := range fields {
			k, v, ok := strings.Cut(f, ":")
			if !ok {
				t.Fatalf("%s: bad token %q", dataFile, f)
			}
			var i int
			var val float64
			if _, err := fmt.Sscan(k, &i); err != nil {
				t.Fatal(err)
			}
			if _, err := fmt.Sscan(v, &val); err != nil {
				t.Fatal(err)
			}
			x[i] = val
		}
		return x
	}
	var (
		gamma, rho float64
		labels     string
		coef       []float64
		svs        []map[int]float64
		inSV       bool
	)
	for _, l := range readFileLines(t, modelFile) {
		f := strings.Fields(l)
		switch {
		case inSV:
			var c float64
			fmt.Sscan(f[0], &c)
			coef, svs = append(coef, c), append(svs, parse(f[1:]))
		case f[0] == "kernel_type" && f[1] != "rbf":
			t.Fatalf("%s: kernel %s, want rbf", modelFile, f[1])
		case f[0] == "gamma":
			fmt.Sscan(f[1], &gamma)
		case f[0] == "rho":
			fmt.Sscan(f[1], &rho)
		case f[0] == "label":
			labels = strings.Join(f[1:], " ")
		case f[0] == "SV":
			inSV = true
		}
	}
	var out []float64
	for _, l := range readFileLines(t, dataFile) {
		x := parse(strings.Fields(l)[1:])
		s := -rho
		for i, sv := range svs {
			d := 0.0
			for k, v := range sv {
				d += (v - x[k]) * (v - x[k])
			}
			for k, v := range x {
				if _, ok := sv[k]; !ok {
					d += v * v
				}
			}
			s += coef[i] * math.Exp(-gamma*d)
		}
		out = append(out, s)
	}
	return out, labels
}

// readFileLines returns the non-empty lines of a file.
func readFileLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// With LIBSVM installed: train --multiclass ovr's SVM of class c is
// svm-train's on the file relabelled c = 1, the others -1 (same C, γ and
// eps, no scaling): #BSV equal, #SV within 2, obj to 1e-4 relative and rho
// to 1e-3, on iris and wine.
func TestTrainOneVsRestMatchesLibsvmBinary(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("svm-train is not installed (apt-get install libsvm-tools)")
	}
	dir := t.TempDir()
	re := regexp.MustCompile(`obj = (\S+), rho = (\S+)\nnSV = (\d+), nBSV = (\d+)`)
	for _, c := range []struct{ file, C, gamma string }{{"iris.scale", "1", "0.5"}, {"wine.scale", "8", "0.125"}} {
		data := filepath.Join(mcDir, c.file)
		r := trainJSON(t, data, "--normalize", "none", "-c", c.C, "-g", c.gamma, "--eps", "1e-5", "--multiclass", "ovr")
		lines := readFileLines(t, data)
		for k, cls := range r.FitData.Classes {
			var b strings.Builder
			for _, l := range lines {
				label, rest, _ := strings.Cut(l, " ")
				y := "-1"
				if label == cls {
					y = "1"
				}
				b.WriteString(y + " " + rest + "\n")
			}
			f := writeFile(t, dir, "rel", b.String())
			out, err := exec.Command("svm-train", "-s", "0", "-t", "2", "-c", c.C, "-g", c.gamma, "-e", "1e-5", f, filepath.Join(dir, "m")).Output()
			if err != nil {
				t.Fatal(err)
			}
			m := re.FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("svm-train output: %s", out)
			}
			var obj, rho float64
			var nsv, nbsv int
			fmt.Sscan(m[1], &obj)
			fmt.Sscan(m[2], &rho)
			fmt.Sscan(m[3], &nsv)
			fmt.Sscan(m[4], &nbsv)
			p := r.Pairs[k]
			if p.Positive != cls || p.N != len(lines) || abs(p.NSV-nsv) > 2 || p.NBSV != nbsv ||
				math.Abs(p.Obj-obj) > 1e-4*math.Abs(obj)+1e-6 || math.Abs(p.Rho-rho) > 1e-3*max(1, math.Abs(rho)) {
				t.Errorf("%s class %s: %d rows, #SV %d, #BSV %d, obj %.9g, rho %.9g; svm-train %d, %d, %g, %g",
					c.file, cls, p.N, p.NSV, p.NBSV, p.Obj, p.Rho, nsv, nbsv, obj, rho)
			}
		}
	}
}
