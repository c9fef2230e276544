package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// TestTrainHeartLIBSVM: train with LIBSVM's options on heart_scale gives
// LIBSVM's numbers:
//
//	svm-train -c 1 -g 0.5 -e 1e-5 heart_scale → obj = -90.017945, rho = 0.001048, nSV = 193, nBSV = 69
//	svm-predict heart_scale heart_scale.model → Accuracy = 92.963% (251/270)
func TestTrainHeartLIBSVM(t *testing.T) {
	t.Parallel()
	r := trainJSON(t, heartScale, "--normalize", "none", "-c", "1", "-g", "0.5", "--eps", "1e-5")
	if r.NSV != 193 || r.NBSV != 69 || r.TrainCorrect != 251 || r.NTrain != 270 {
		t.Errorf("nSV %d nBSV %d correct %d/%d; LIBSVM 193 69 251/270", r.NSV, r.NBSV, r.TrainCorrect, r.NTrain)
	}
	if math.Abs(r.Obj+90.017945) > 1e-6*90.017945 {
		t.Errorf("obj %.7f, LIBSVM -90.017945", r.Obj)
	}
	if math.Abs(r.Rho-0.001048) > 5e-6 {
		t.Errorf("rho %.7f, LIBSVM 0.001048", r.Rho)
	}
	if r.Gamma != 0.5 || r.Kernel.Gamma != 0.5 || r.C != 1 || r.Margin != "l1" || r.Normalize != "none" || r.Status != "converged" {
		t.Errorf("echoed settings: %+v", r)
	}
	if r.TestAccuracy != nil {
		t.Errorf("test accuracy %v without a test part", *r.TestAccuracy)
	}
	// The printed margin is 1/‖w‖ with ‖w‖² = coefᵀK coef.
	if geo := float64(r.Geo); math.Abs(1/(geo*geo)-r.W2) > 1e-9*r.W2 || !(r.W2 > 0) {
		t.Errorf("margin %v and w2 %v disagree", r.Geo, r.W2)
	}
}

// libsvmGolden is testdata/libsvm-golden/golden.json (made by the solver's
// generate.py with LIBSVM's svm-train and svm-predict).
type libsvmGolden struct {
	LIBSVM string `json:"libsvm"`
	Runs   []struct {
		File  string    `json:"file"`
		C     float64   `json:"C"`
		Gamma float64   `json:"gamma"`
		Eps   float64   `json:"eps"`
		WPos  float64   `json:"wpos"` // LIBSVM's -w1 (0: not given)
		WNeg  float64   `json:"wneg"` // LIBSVM's -w-1
		Cmd   string    `json:"cmd"`
		Obj   float64   `json:"obj"`
		Rho   float64   `json:"rho"`
		NSV   int       `json:"nsv"`
		NBSV  int       `json:"nbsv"`
		Pred  string    `json:"pred"`
		SV    []int     `json:"sv"`   // 0-based rows of LIBSVM's support vectors
		Coef  []float64 `json:"coef"` // their y_i α_i
	} `json:"runs"`
}

// libsvmObjective is the dual objective ½ Σ coef_i coef_j K_ij − Σ α_i of
// LIBSVM's own solution, evaluated in float64. svm-train prints its objective
// from a gradient built on float32 kernel columns, which is off by up to a
// few 1e-6 relative when α is large (C = 2^20); the objective of its α is the
// number to compare with at 1e-6.
func libsvmObjective(t *testing.T, file string, gamma float64, sv []int, coef []float64) float64 {
	t.Helper()
	d, err := dataio.Load(file, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.NewGaussianIso(gamma)
	if err != nil {
		t.Fatal(err)
	}
	K := k.Gram(d.Subset(sv).X)
	obj := 0.0
	for i := range sv {
		obj -= math.Abs(coef[i])
		for j := range sv {
			obj += 0.5 * coef[i] * coef[j] * K.At(i, j)
		}
	}
	return obj
}

// TestTrainPredictReproduceLIBSVM: `train --normalize none -c C -g G --eps E`
// reproduces svm-train's #SV, #BSV, objective and ρ, and `predict` with the
// saved model svm-predict's labels, on every golden run (three files, four C,
// three γ). With -short only the runs with C ≤ 1.
//
// Tolerances are those of the solver's float64 golden test
// (pkg/solver/golden_test.go): LIBSVM caches kernel columns in float32, which
// moves each gradient entry by up to about 6e-8·Σα, so ρ agrees to
// 1e-5 + 1e-6·Σα, the objective to a relative 1e-6, predictions wherever |f|
// exceeds 1e-6·Σα, and #SV/#BSV up to one point whose α sits at 0 or C within
// that rounding. (The solver's own test checks the exact path with float32
// columns.)
func TestTrainPredictReproduceLIBSVM(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(cmdTestdata, "libsvm-golden", "golden.json"))
	if err != nil {
		t.Skipf("no LIBSVM golden values: %v", err)
	}
	var g libsvmGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Runs) == 0 {
		t.Fatal("golden.json has no runs")
	}
	dir := t.TempDir()
	exact := 0
	for _, run := range g.Runs {
		if testing.Short() && run.C > 1 {
			continue
		}
		name := strings.TrimPrefix(run.Cmd, "svm-train ")
		t.Run(name, func(t *testing.T) {
			data := filepath.Join(cmdTestdata, "libsvm", run.File)
			modelPath := filepath.Join(dir, "m.json")
			args := []string{data, "--normalize", "none", "-c", report.Sig(run.C, 17), "-g", report.Sig(run.Gamma, 17),
				"--eps", report.Sig(run.Eps, 17), "-o", modelPath}
			if run.WPos != 0 {
				args = append(args, "--weight-pos", report.Sig(run.WPos, 17))
			}
			if run.WNeg != 0 {
				args = append(args, "--weight-neg", report.Sig(run.WNeg, 17))
			}
			r := trainJSON(t, args...)
			sumAlpha := r.W2/2 - r.Obj // obj = ½‖w‖² - Σα
			slack := 1e-6 * sumAlpha
			if absInt(r.NSV-run.NSV) > 1 || absInt(r.NBSV-run.NBSV) > 1 {
				t.Errorf("nSV %d nBSV %d, LIBSVM %d %d", r.NSV, r.NBSV, run.NSV, run.NBSV)
			}
			objL := libsvmObjective(t, data, run.Gamma, run.SV, run.Coef)
			if math.Abs(r.Obj-objL) > 1e-6*math.Abs(objL) {
				t.Errorf("obj %.9f, objective of LIBSVM's α %.9f (printed %.6f)", r.Obj, objL, run.Obj)
			}
			// The printed value (6 decimals, float32 gradient) agrees more loosely.
			if math.Abs(r.Obj-run.Obj) > math.Max(5e-6*math.Abs(run.Obj), 1e-6) {
				t.Errorf("obj %.7f, LIBSVM printed %.6f", r.Obj, run.Obj)
			}
			if math.Abs(r.Rho-run.Rho) > 1e-5+slack {
				t.Errorf("rho %.8f, LIBSVM %.8f (allowed %.2g)", r.Rho, run.Rho, 1e-5+slack)
			}
			p, _ := predictJSON(t, modelPath, data)
			if len(p.Predictions) != len(run.Pred) {
				t.Fatalf("%d predictions, LIBSVM %d", len(p.Predictions), len(run.Pred))
			}
			for i, q := range p.Predictions {
				want := "1"
				if run.Pred[i] == '-' {
					want = "-1"
				}
				if q.Predicted != want && math.Abs(q.Decision) > slack {
					t.Errorf("row %d: decision %g predicts %s, svm-predict %s", i+1, q.Decision, q.Predicted, want)
				}
			}
			if r.NSV == run.NSV && r.NBSV == run.NBSV && math.Abs(r.Rho-run.Rho) <= 1e-5 {
				exact++
			}
		})
	}
	t.Logf("%d runs agree with LIBSVM in #SV, #BSV and ρ to 1e-5 exactly", exact)
}

func absInt(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// TestTrainStdin: DATA "-" is the command's standard input (here the
// test's, not the process's), read like the file itself.
func TestTrainStdin(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"--normalize", "none", "-c", "1", "-g", "0.5"}
	ref := trainJSON(t, append([]string{heartScale}, flags...)...)
	out, errOut, code := runCLIStdin(t, string(raw), append(append([]string{"train", "-"}, flags...), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r model.TrainResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.NTrain != 270 || r.NSV != ref.NSV || r.Obj != ref.Obj || r.TrainCorrect != ref.TrainCorrect {
		t.Errorf("stdin: n %d, #SV %d, obj %v, correct %d; the file: 270, %d, %v, %d", r.NTrain, r.NSV, r.Obj, r.TrainCorrect, ref.NSV, ref.Obj, ref.TrainCorrect)
	}
}

// TestTrainBuiltinHeart pins the numbers of the default settings (zscore,
// γ = 1/d, C = 1) on the embedded heart data with a 30% test part drawn from
// seed 1.
func TestTrainBuiltinHeart(t *testing.T) {
	t.Parallel()
	r := trainJSON(t, "builtin:heart", "--test-fraction", "0.3")
	if r.NTrain != 189 || r.NTest != 81 || r.Features != 13 {
		t.Fatalf("sizes %d/%d/%d, want 189/81/13", r.NTrain, r.NTest, r.Features)
	}
	if math.Abs(r.Gamma-1.0/13) > 1e-15 || r.Normalize != "zscore" || r.Seed != 1 {
		t.Errorf("gamma %v normalize %q seed %d: want 1/13, zscore, 1", r.Gamma, r.Normalize, r.Seed)
	}
	if r.TrainCorrect != 173 || r.TestAccuracy == nil || r.TestCorrect != 69 || r.NSV != 108 || r.NBSV != 57 {
		t.Errorf("train %d/189, test %d/81, nSV %d, nBSV %d; want 173, 69, 108, 57", r.TrainCorrect, r.TestCorrect, r.NSV, r.NBSV)
	}
	if math.Abs(r.Obj+62.899451) > 1e-5 {
		t.Errorf("obj %.6f, want -62.899451", r.Obj)
	}
	// The same seed gives the same run; another seed another split.
	r2 := trainJSON(t, "builtin:heart", "--test-fraction", "0.3")
	r2.Seconds, r.Seconds = 0, 0
	if !sameJSON(t, r, r2) {
		t.Error("two runs with the same seed differ")
	}
	r3 := trainJSON(t, "builtin:heart", "--test-fraction", "0.3", "--seed", "2")
	if r3.TrainCorrect == r.TrainCorrect && r3.Obj == r.Obj {
		t.Error("--seed 2 gave the same split as --seed 1")
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return bytes.Equal(ja, jb)
}

// TestTrainThenPredict: predict with the saved model on the test file
// reproduces train's test accuracy, through the model's own normaliser on the
// raw test rows, for each normaliser and margin.
func TestTrainThenPredict(t *testing.T) {
	t.Parallel()
	trainFile, testFile := splitHeart(t)
	for _, tc := range []struct{ normalize, margin string }{
		{"zscore", "l1"}, {"minmax01", "l2"}, {"minmax11", "l1"}, {"none", "l2"},
	} {
		t.Run(tc.normalize+"-"+tc.margin, func(t *testing.T) {
			modelPath := filepath.Join(t.TempDir(), "model.json")
			r := trainJSON(t, trainFile, "--test", testFile, "--normalize", tc.normalize, "--margin", tc.margin,
				"--sigma", "3", "-c", "2", "-o", modelPath)
			if r.NTest != 70 || r.TestAccuracy == nil {
				t.Fatalf("no test part: %+v", r)
			}
			if r.Gamma != 1.0/18 {
				t.Errorf("σ = 3 gave γ = %v, want 1/18", r.Gamma)
			}
			p, _ := predictJSON(t, modelPath, testFile)
			if p.N != 70 || p.Correct != r.TestCorrect || p.Accuracy != *r.TestAccuracy {
				t.Errorf("predict: %d/%d = %v; train said %d/70 = %v", p.Correct, p.N, p.Accuracy, r.TestCorrect, *r.TestAccuracy)
			}
			if p.TruePos+p.FalseNeg+p.FalsePos+p.TrueNeg != 70 || p.TruePos+p.TrueNeg != p.Correct {
				t.Errorf("confusion counts %+v", p)
			}
			if p.Accuracy < 0.7 {
				t.Errorf("test accuracy %.3f: the model predicts badly", p.Accuracy)
			}
		})
	}
}

func TestTrainKernels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref := trainJSON(t, heartScale, "-g", "0.1")

	// Q = 2γI is the isotropic kernel: stored as γ, same result.
	var q strings.Builder
	for i := 0; i < 13; i++ {
		for j := 0; j < 13; j++ {
			if j > 0 {
				q.WriteString(" ")
			}
			if i == j {
				q.WriteString("0.2")
			} else {
				q.WriteString("0")
			}
		}
		q.WriteString("\n")
	}
	isoQ := writeFile(t, dir, "iso.txt", "# 2γI with γ = 0.1\n"+q.String())
	r := trainJSON(t, heartScale, "--Q", isoQ)
	if r.Gamma != 0.1 || r.NSV != ref.NSV || math.Abs(r.Obj-ref.Obj) > 1e-9*math.Abs(ref.Obj) {
		t.Errorf("Q = 0.2 I: gamma %v, nSV %d, obj %v; --gamma 0.1 gave %d, %v", r.Gamma, r.NSV, r.Obj, ref.NSV, ref.Obj)
	}

	// A full SPD Q (tridiagonal, comma-separated) is kept in full.
	var full strings.Builder
	for i := 0; i < 13; i++ {
		row := make([]string, 13)
		for j := range row {
			switch {
			case i == j:
				row[j] = "0.3"
			case i-j == 1 || j-i == 1:
				row[j] = "0.1"
			default:
				row[j] = "0"
			}
		}
		full.WriteString(strings.Join(row, ",") + "\n")
	}
	fullQ := writeFile(t, dir, "full.csv", full.String())
	r = trainJSON(t, heartScale, "--Q", fullQ)
	if len(r.Kernel.Q) != 13 || r.Kernel.Q[0][1] != 0.1 || r.Gamma != 0 {
		t.Errorf("full Q: kernel %+v", r.Kernel)
	}
	out := mustRun(t, "train", heartScale, "--Q", fullQ)
	if !strings.Contains(out, "full 13×13 Q") || !strings.Contains(out, "not isotropic") {
		t.Errorf("table does not describe the full Q:\n%s", out)
	}

	r = trainJSON(t, heartScale, "--kernel", "l1", "--theta", "4")
	if r.Kernel.Kind != "l1" || len(r.Kernel.Theta) != 13 || r.Kernel.Theta[12] != 4 || r.TrainAccuracy < 0.8 {
		t.Errorf("l1 kernel: %+v", r)
	}
	r = trainJSON(t, heartScale, "--kernel", "linear", "-c", "0.1")
	if r.Kernel.Kind != "linear" || r.TrainAccuracy < 0.8 {
		t.Errorf("linear kernel: %+v", r)
	}

	// Bad Q files: exit 1 with the file and the problem named.
	for _, tc := range []struct{ name, body, msg string }{
		{"notspd.txt", strings.Replace(q.String(), "0.2", "-0.2", 1), "not positive definite"},
		{"small.txt", "1 0\n0 1\n", "2 rows, but the data has 13 features"},
		{"word.txt", "1 x\n", `:1:2: "x" is not a number`},
		{"ragged.txt", "1 0\n0\n", ":2: 1 numbers, the first row has 2"},
		{"asym.txt", strings.Replace(full.String(), "0.3,0.1", "0.3,0.2", 1), "not symmetric"},
	} {
		_, errOut, code := runCLI(t, "train", heartScale, "--Q", writeFile(t, dir, tc.name, tc.body))
		if code != ExitError || !strings.Contains(errOut, tc.msg) || !strings.Contains(errOut, tc.name) {
			t.Errorf("%s: exit %d, %q; want 1 and %q", tc.name, code, errOut, tc.msg)
		}
	}
}

func TestTrainHardMargin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The same point with both labels cannot be separated by any kernel.
	bad := writeFile(t, dir, "dup.txt", "+1 1:1 2:1\n-1 1:1 2:1\n-1 1:0 2:0\n+1 1:2 2:2\n")
	_, errOut, code := runCLI(t, "train", bad, "--margin", "hard", "--normalize", "none")
	if code != ExitError || !strings.Contains(errOut, "not separable") || !strings.Contains(errOut, "--margin l1 or l2") {
		t.Errorf("non-separable hard margin: exit %d, %q", code, errOut)
	}
	// heart is separable with a narrow enough Gaussian: 100% training accuracy.
	r := trainJSON(t, "builtin:heart", "--margin", "hard", "-g", "0.5")
	if r.TrainCorrect != 270 || r.Margin != "hard" || r.C != 0 || r.NBSV != 0 {
		t.Errorf("hard margin on heart: %d/270 correct, margin %q, C %v, nBSV %d", r.TrainCorrect, r.Margin, r.C, r.NBSV)
	}
}

func TestTrainUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"train"},
		{"train", heartScale, heartScale},
		{"train", heartScale, "--margin", "l3"},
		{"train", heartScale, "--kernel", "poly"},
		{"train", heartScale, "--gamma", "1", "--sigma", "1"},
		{"train", heartScale, "--gamma", "-1"},
		{"train", heartScale, "--sigma", "0"},
		{"train", heartScale, "--sigma", "1e-200"}, // γ = +Inf
		{"train", heartScale, "--sigma", "1e200"},  // γ = 0
		{"train", heartScale, "--label-col", "3"},  // LIBSVM: was ignored
		{"tune", heartScale, "--method", "svm", "--label-col", "3"},
		{"train", heartScale, "--C", "0"},
		{"train", heartScale, "-c", "nan"},
		{"train", heartScale, "--margin", "hard", "--C", "2"},
		{"train", heartScale, "--margin", "l2", "--weight-pos", "2"},
		{"train", heartScale, "--kernel", "linear", "--gamma", "1"},
		{"train", heartScale, "--kernel", "l1", "--theta", "1,x"},
		{"train", heartScale, "--theta", "2"},
		{"train", heartScale, "--eps", "0"},
		{"train", heartScale, "--cache-mb", "0"},
		{"train", heartScale, "--format", "csv"},
		{"train", heartScale, "--normalize", "l2"},
		{"train", heartScale, "--test-fraction", "1.5"},
		{"train", heartScale, "--no-such-flag"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != ExitUsage || !strings.HasPrefix(errOut, "kerneltune: ") {
			t.Errorf("%v: exit %d, %q; want 2", args[1:], code, errOut)
		}
	}
	// Data problems are errors (1), not usage errors.
	_, errOut, code := runCLI(t, "train", "no/such/file")
	if code != ExitError || !strings.Contains(errOut, "no/such/file") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "train", heartScale, "--kernel", "l1", "--theta", "1,2")
	if code != ExitError || !strings.Contains(errOut, "2 values for 13 features") {
		t.Errorf("wrong θ count: exit %d, %q", code, errOut)
	}
}

func TestTrainModelFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.json")
	mustRun(t, "train", "builtin:heart", "-g", "0.05", "-c", "4", "--seed", "7", "--test-fraction", "0.25", "-o", path, "-q")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	prov, _ := m["provenance"].(map[string]any)
	if m["format_version"] != 1.0 || m["margin"] != "l1" || m["C"] != 4.0 || prov["seed"] != 7.0 || prov["data"] != "builtin:heart" {
		t.Errorf("model file header: %v %v %v %v", m["format_version"], m["margin"], m["C"], prov)
	}
	cmdLine, _ := prov["command"].([]any)
	if len(cmdLine) != 1 || !strings.Contains(cmdLine[0].(string), "kerneltune train builtin:heart") || !strings.Contains(cmdLine[0].(string), "--gamma=0.05") {
		t.Errorf("command line %v", prov["command"])
	}
	if h, _ := prov["data_sha256"].(string); len(h) != 64 {
		t.Errorf("data hash %q", h)
	}
	norm, _ := m["normalizer"].(map[string]any)
	if norm["kind"] != "zscore" {
		t.Errorf("normaliser %v", norm)
	}
}

// TestTrainGolden pins the table and JSON layout (timing masked).
func TestTrainGolden(t *testing.T) {
	t.Parallel()
	args := []string{"train", heartScale, "--normalize", "none", "-c", "1", "-g", "0.5"}
	out := mustRun(t, args...)
	golden(t, "train_heart_table.golden", maskTrainTiming(out))
	out = mustRun(t, append(args, "--format", "json")...)
	golden(t, "train_heart_json.golden", maskTrainTiming(out))
}

// TestTrainCanceled: a cancelled context stops train with exit code 130.
func TestTrainCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errOut, code := runCLIContext(ctx, t, "", "train", "builtin:diabetes", "-c", "64", "-g", "2")
	if code != ExitInterrupted || !strings.Contains(errOut, "interrupted") {
		t.Errorf("exit %d, %q; want 130", code, errOut)
	}
}

// TestTrainClassWeights: --weight-pos/--weight-neg are LIBSVM's -w1/-w-1:
//
//	svm-train -c 1 -g 0.125 -w1 2 -w-1 0.5 -e 1e-5 heart_scale
//	  obj = -92.435932, rho = -0.461763, nSV = 160, nBSV = 124; svm-predict 219/270
func TestTrainClassWeights(t *testing.T) {
	t.Parallel()
	r := trainJSON(t, heartScale, "--normalize", "none", "-c", "1", "-g", "0.125", "--weight-pos", "2", "--weight-neg", "0.5", "--eps", "1e-5")
	if r.NSV != 160 || r.NBSV != 124 || r.TrainCorrect != 219 {
		t.Errorf("nSV %d nBSV %d correct %d; LIBSVM 160 124 219", r.NSV, r.NBSV, r.TrainCorrect)
	}
	if math.Abs(r.Obj+92.435932) > 1e-6*92.4 || math.Abs(r.Rho+0.461763) > 1e-5 {
		t.Errorf("obj %.6f rho %.6f; LIBSVM -92.435932 -0.461763", r.Obj, r.Rho)
	}
	if r.WeightPos != 2 || r.WeightNeg != 0.5 {
		t.Errorf("weights %v %v", r.WeightPos, r.WeightNeg)
	}
	out := mustRun(t, "train", heartScale, "--weight-pos", "3")
	if !strings.Contains(out, "+1: 3, -1: 1") {
		t.Errorf("table lacks the per-class C:\n%s", out)
	}
}

// An output file in a directory that does not exist fails before training
// or tuning, naming the flag, not when the result is saved.
func TestOutputDirCheckedFirst(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no", "m.json")
	for _, args := range [][]string{
		{"train", heartScale, "-o", missing},
		{"tune", heartScale, "--method", "rcsc", "-o", missing},
		{"tune", heartScale, "--method", "rcsc", "--trace", missing},
	} {
		flag := args[len(args)-2]
		_, errOut, code := runCLI(t, args...)
		if want := "kerneltune: " + flag + " " + missing + ": stat "; code != ExitError || !strings.HasPrefix(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", args[:2], code, errOut, want)
		}
	}
}

// --label-col on a LIBSVM file (label first on every line) is a usage error
// in predict too, not silently ignored.
func TestPredictLabelColLIBSVM(t *testing.T) {
	t.Parallel()
	m := filepath.Join(t.TempDir(), "m.json")
	mustRun(t, "train", heartScale, "-o", m, "-q")
	_, errOut, code := runCLI(t, "predict", m, heartScale, "--label-col", "1")
	if code != ExitUsage || !strings.Contains(errOut, "is a LIBSVM file, whose label comes first") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// TestTrainExtremeGamma: a γ whose scaled distances overflow is an error
// that names the knob to turn, not a bare solver message.
func TestTrainExtremeGamma(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "train", "builtin:heart", "--gamma", "1e308")
	if code != ExitError || !strings.Contains(errOut, "non-finite") || !strings.Contains(errOut, "--gamma") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming --gamma", code, errOut)
	}
}
