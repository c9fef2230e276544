package cmd

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// westonFiles writes a Weston training and test sample as CSV.
func westonFiles(t *testing.T, ntr, nte int) (train, test string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, f := range []struct {
		name string
		n    int
	}{{"train.csv", ntr}, {"test.csv", nte}} {
		d := dataio.Weston(f.n, 20, rng)
		var b bytes.Buffer
		if err := dataio.WriteCSV(&b, d); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, f.name, b.String())
	}
	return filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
}

// TestTuneMissingData: a data error is exit 1 and names the file. The
// flag checks of tune, exit 2, are in TestTuneFlagErrors, which stops before
// tune runs.
func TestTuneMissingData(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "tune", "no-such-file.csv", "--method", "svm")
	if code != ExitError || !strings.Contains(errOut, "no-such-file.csv") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

func TestTuneHelpListsMethods(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "tune", "--help")
	for _, name := range methods.Names() {
		if !regexp.MustCompile(`(?m)^  ` + name + ` +\S`).MatchString(out) {
			t.Errorf("help does not list method %s with a description:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "--param diag|full (default diag)") {
		t.Error("help does not list spd's params")
	}
}

// TestTuneSVM: the baseline through the CLI matches the method called
// directly, and the saved model predicts the printed test accuracy.
func TestTuneSVM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	modelPath := filepath.Join(dir, "m.json")
	r := tuneJSON(t, "builtin:heart", "--method", "svm", "--test-fraction", "0.4", "-o", modelPath)
	if r.Method != "svm" || r.Margin != "l1" || r.Gamma == 0 || r.Kernel.Gamma != r.Gamma {
		t.Fatalf("result %+v", r)
	}
	lg, lc := math.Log2(r.Gamma), math.Log2(r.C)
	if lg != math.Round(lg) || lc != math.Round(lc) {
		t.Errorf("(γ, C) = (%g, %g) is not on the grid", r.Gamma, r.C)
	}
	if r.Solves < 100 || r.Solves > 551 || r.NTrain != 162 || r.NTest != 108 || r.TestAccuracy == nil {
		t.Errorf("solves %d (want ≤ 551: 550 CV solves at most, then the final fit), n %d/%d", r.Solves, r.NTrain, r.NTest)
	}
	if *r.TestAccuracy < 0.7 {
		t.Errorf("test accuracy %g on heart", *r.TestAccuracy)
	}
	m, err := model.LoadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	if m.Provenance.Method != "svm" || len(m.Tuning) == 0 || m.Kernel.Gamma != r.Gamma || m.C != r.C {
		t.Errorf("model provenance %+v, kernel %+v, C %g", m.Provenance, m.Kernel, m.C)
	}
	var tr methods.Result
	if err := json.Unmarshal(m.Tuning, &tr); err != nil || tr.Method != "svm" {
		t.Errorf("model's tuning result: %v %+v", err, tr)
	}
	if m.NSV() != r.NSV {
		t.Errorf("model has %d SVs, tune printed %d", m.NSV(), r.NSV)
	}
}

// TestTuneSVMGridRows: on more training rows than --grid-rows the grid runs
// on a stratified subset and the choice is refined on all rows, which the
// result's init says with the subset's choice; the final (C, γ) is within
// one log2 step of it. Below the limit (the default 5,000 here) the result
// is the full grid's, as with --grid-rows -1.
func TestTuneSVMGridRows(t *testing.T) {
	t.Parallel()
	r := tuneJSON(t, "builtin:heart", "--method", "svm", "--test-fraction", "0.4", "--grid-rows", "100")
	m := regexp.MustCompile(`large data: the grid on a stratified subset of 100 of the 162 rows chose C = 2\^(-?\d+), gamma = 2\^(-?\d+); then the 3×3 region around it, log2 step 1, on all rows`).FindStringSubmatch(r.Init)
	if m == nil {
		t.Fatalf("init %q does not describe the subset grid", r.Init)
	}
	c0, _ := strconv.Atoi(m[1])
	g0, _ := strconv.Atoi(m[2])
	if lc, lg := math.Log2(r.C), math.Log2(r.Gamma); math.Abs(lc-float64(c0)) > 1 || math.Abs(lg-float64(g0)) > 1 {
		t.Errorf("chose (C, γ) = (2^%g, 2^%g), more than a step from the subset's (2^%d, 2^%d)", lc, lg, c0, g0)
	}
	def := tuneJSON(t, "builtin:heart", "--method", "svm", "--test-fraction", "0.4")
	all := tuneJSON(t, "builtin:heart", "--method", "svm", "--test-fraction", "0.4", "--grid-rows", "-1")
	if strings.Contains(def.Init, "large data") || def.C != all.C || def.Gamma != all.Gamma || def.Init != all.Init {
		t.Errorf("162 rows: default (C %g, γ %g, %q), --grid-rows -1 (C %g, γ %g)", def.C, def.Gamma, def.Init, all.C, all.Gamma)
	}
}

// TestTuneSPDWeston: spd diag on a Weston sample finds features 1 and 2 and
// classifies far above chance; the trace has one line per iteration; the
// table shows the relevance.
func TestTuneSPDWeston(t *testing.T) {
	t.Parallel()
	train, test := westonFiles(t, 100, 300)
	tracePath := filepath.Join(t.TempDir(), "trace.csv")
	r := tuneJSON(t, train, "--method", "spd", "--test", test, "--trace", tracePath)
	if r.Param != "diag" || len(r.Relevance) != 52 {
		t.Fatalf("param %q, %d relevance entries", r.Param, len(r.Relevance))
	}
	best := map[string]bool{}
	for _, fw := range r.Relevance {
		if fw.Relative == 1 {
			best[fw.Feature] = true
		}
	}
	second := ""
	secondQ := -1.0
	for _, fw := range r.Relevance {
		if !best[fw.Feature] && fw.Q > secondQ {
			second, secondQ = fw.Feature, fw.Q
		}
	}
	if !(best["x1"] || best["x2"]) || (second != "x1" && second != "x2") {
		t.Errorf("top features %v, %s; want x1 and x2", best, second)
	}
	if *r.TestAccuracy < 0.85 {
		t.Errorf("test accuracy %.3f, want ≥ 0.85", *r.TestAccuracy)
	}
	if !(r.CriterionEnd < r.CriterionStart) {
		t.Errorf("criterion %g -> %g", r.CriterionStart, r.CriterionEnd)
	}
	f, err := os.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != r.Iter+2 || strings.Join(rows[0], ",") != "iter,objective,step,nsv,elapsed_s" {
		t.Errorf("trace has %d lines for %d iterations, header %v", len(rows), r.Iter, rows[0])
	}

	out := mustRun(t, "tune", train, "--method", "spd", "--test", test, "--max-iter", "3")
	for _, want := range []string{"per-feature relevance", "x1 (1)", "criterion at start", "test accuracy", "heuristic: gamma0", "iteration-limit"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestTuneExportLibsvm: training LIBSVM's RBF kernel with γ = 0.5 on the
// exported data (here with kerneltune's own train, which matches svm-train)
// gives the tuned model's accuracies and #SV, for a full Q.
func TestTuneExportLibsvm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := tuneJSON(t, "builtin:heart", "--method", "spd", "--param", "full", "--test-fraction", "0.5", "--max-iter", "5", "--export-libsvm", dir)
	if len(r.Kernel.Q) != 13 || len(r.Eigenvalues) != 13 || r.Eigenvalues[0] <= 0 {
		t.Fatalf("kernel %+v, eigenvalues %v", r.Kernel, r.Eigenvalues)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "svm-train -s 0 -t 2 -g 0.5 -c 1 ") {
		t.Errorf("README lacks the svm-train command:\n%s", readme)
	}
	tr := trainJSON(t, filepath.Join(dir, "train.libsvm"), "--test", filepath.Join(dir, "test.libsvm"),
		"--normalize", "none", "-g", "0.5", "-c", "1")
	if tr.NSV != r.NSV || tr.TrainCorrect != r.TrainCorrect || tr.TestCorrect != r.TestCorrect {
		t.Errorf("exported data: #SV %d, correct %d/%d; tuned model: #SV %d, correct %d/%d",
			tr.NSV, tr.TrainCorrect, tr.TestCorrect, r.NSV, r.TrainCorrect, r.TestCorrect)
	}
	if !strings.Contains(mustRun(t, "tune", "builtin:heart", "--method", "spd", "--param", "full", "--max-iter", "2"), "eigenvalues of Q") {
		t.Error("table lacks the eigenvalues of a full Q")
	}
}

// TestTuneDeterministic: the same seed gives the same JSON apart from times.
func TestTuneDeterministic(t *testing.T) {
	t.Parallel()
	args := []string{"tune", "builtin:breast-wisconsin", "--method", "spd", "--test-fraction", "0.8", "--seed", "3", "--format", "json", "--max-iter", "10"}
	a := maskTuneTiming(mustRun(t, args...))
	b := maskTuneTiming(mustRun(t, args...))
	if a != b {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
}

// TestTuneGolden pins the table and JSON output of tune (svm and spd) in
// testdata/golden/tune_*.golden; refresh with go test ./cmd -run TestTuneGolden -update.
func TestTuneGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"tune_svm_table.golden", []string{"tune", "builtin:heart", "--method", "svm", "--test-fraction", "0.5"}},
		{"tune_spd_full_table.golden", []string{"tune", "builtin:heart", "--method", "spd", "--param", "full", "--test-fraction", "0.5", "--max-iter", "5"}},
		{"tune_spd_diag_json.golden", []string{"tune", "builtin:heart", "--method", "spd", "--test-fraction", "0.5", "--max-iter", "5", "--format", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, maskTuneTiming(mustRun(t, tc.args...)))
		})
	}
}

// TestTuneQuietAndCanceled: on a non-terminal stderr a short run prints
// its plain start line only (the next comes after 30 s), with -q nothing;
// a cancelled run exits with 130.
func TestTuneQuietAndCanceled(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "spd", "--max-iter", "3")
	if want := "tune spd:   0%  stage 1/2  0/3  elapsed Xs  ETA ?  spd: up to 3 iterations on 270 rows\n"; code != 0 || maskElapsed(errOut) != want {
		t.Errorf("exit %d, stderr %q: want 0 and the start line %q on a non-terminal stderr", code, errOut, want)
	}
	if _, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "spd", "--max-iter", "3", "-q"); code != 0 || errOut != "" {
		t.Errorf("-q: exit %d, stderr %q: want 0 and nothing", code, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, eo, code := runCLIContext(ctx, t, "", "tune", "builtin:heart", "--method", "spd"); code != ExitInterrupted {
		t.Errorf("cancelled: exit %d (%s), want %d", code, eo, ExitInterrupted)
	}
}

// The export README reads right with one file ("train.libsvm hold …"
// before).
func TestTuneExportReadmeWording(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustRun(t, "tune", "builtin:heart", "--method", "svm", "--export-libsvm", dir, "-q")
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"train.libsvm holds the data", "the learned metric (svm, iso)."} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
}

// readmeCommands returns the svm-train and svm-predict command lines of an
// export's README.txt, in order, up to its part on new raw data.
func readmeCommands(t *testing.T, dir string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "New raw data") {
			break
		}
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "svm-train ") || strings.HasPrefix(l, "svm-predict ") {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// flagValue returns the value after flag in a command line.
func flagValue(t *testing.T, cmdline, flag string) string {
	t.Helper()
	f := strings.Fields(cmdline)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == flag {
			return f[i+1]
		}
	}
	t.Fatalf("%q has no %s", cmdline, flag)
	return ""
}

// readKernelFile reads an exported precomputed kernel file.
func readKernelFile(t *testing.T, path string) (*mat.Dense, []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	K, y, err := model.ReadPrecomputed(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return K, y
}

// TestTuneExportPrecomputed: for the results LIBSVM's RBF kernel cannot
// express — lccp's L1-distance kernel, the L2 margin of lccp and twolevel —
// tune exports a precomputed kernel, K + I/C on the training rows, and a
// C-SVC with the README's C solved on train.kernel (here by our own solver,
// the same SMO as svm-train's: see TestTuneExportLibsvmTools for LIBSVM
// itself) has the tuned model's #SV and, scored on test.kernel and
// train-eval.kernel, its test and training accuracy; its bias and decision
// values agree with the model's.
func TestTuneExportPrecomputed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"lccp", []string{"--method", "lccp", "--max-iter", "3"}},
		{"twolevel", []string{"--method", "twolevel", "--max-iter", "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			modelPath := filepath.Join(dir, "m.json")
			exp := filepath.Join(dir, "export")
			args := append([]string{"builtin:heart", "--test-fraction", "0.3", "--export-libsvm", exp, "-o", modelPath}, tc.args...)
			r := tuneJSON(t, args...)
			if r.Margin != "l2" || r.ExportKind != "precomputed" || r.TestAccuracy == nil {
				t.Fatalf("margin %q, export %q", r.Margin, r.ExportKind)
			}
			m, err := model.LoadFile(modelPath)
			if err != nil {
				t.Fatal(err)
			}
			cmds := readmeCommands(t, exp)
			want := []string{
				"svm-train -s 0 -t 4 -c " + strconv.FormatFloat(m.HardC(), 'g', -1, 64) + " -e 0.001 train.kernel tuned.model",
				"svm-predict train-eval.kernel tuned.model train.predictions",
				"svm-predict test.kernel tuned.model test.predictions",
			}
			if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
				t.Fatalf("README commands:\n%s\nwant:\n%s", strings.Join(cmds, "\n"), strings.Join(want, "\n"))
			}
			bigC, err := strconv.ParseFloat(flagValue(t, cmds[0], "-c"), 64)
			if err != nil {
				t.Fatal(err)
			}

			K, y := readKernelFile(t, filepath.Join(exp, "train.kernel"))
			E, _ := readKernelFile(t, filepath.Join(exp, "train-eval.kernel"))
			n, c := K.Dims()
			if n != r.NTrain || c != n {
				t.Fatalf("train.kernel is %d×%d, want %d×%d", n, c, r.NTrain, r.NTrain)
			}
			// train.kernel = train-eval.kernel + I/C.
			sym := mat.NewSymDense(n, nil)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					d := 0.0
					if i == j {
						d = 1 / r.C
					}
					if math.Abs(K.At(i, j)-E.At(i, j)-d) > 1e-12*(1+math.Abs(K.At(i, j))) {
						t.Fatalf("train.kernel(%d,%d) = %v, train-eval.kernel %v: want a difference of %v", i+1, j+1, K.At(i, j), E.At(i, j), d)
					}
					sym.SetSym(i, j, K.At(i, j))
				}
			}
			res, err := solver.TrainSVC(context.Background(), kernel.Precomputed(sym), y,
				solver.SVCParams{Margin: solver.L1, C: bigC}, solver.Settings{Eps: 1e-3}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.NSV != r.NSV || res.NBSV != 0 {
				t.Errorf("C-SVC on train.kernel: #SV %d (%d at the box C = %g); tuned model #SV %d", res.NSV, res.NBSV, bigC, r.NSV)
			}
			if math.Abs(res.Bias-m.Bias) > 1e-6*(1+math.Abs(m.Bias)) {
				t.Errorf("bias %v, model's %v", res.Bias, m.Bias)
			}
			score := func(file string, wantCorrect int) {
				Kx, yx := readKernelFile(t, filepath.Join(exp, file))
				f := solver.Decision(nil, Kx, res.Coef, res.Bias)
				correct := 0
				for i, v := range f {
					if (v > 0) == (yx[i] > 0) {
						correct++
					}
				}
				if correct != wantCorrect {
					t.Errorf("%s: %d correct, the tuned model %d", file, correct, wantCorrect)
				}
			}
			score("train-eval.kernel", r.TrainCorrect)
			score("test.kernel", r.TestCorrect)
		})
	}
}

// TestTuneExportHardMargin: a Gaussian hard-margin result is exported as
// mapped data for LIBSVM's RBF kernel with a C no dual variable reaches;
// the C-SVC on it (our train, which matches svm-train) is the tuned model.
func TestTuneExportHardMargin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := tuneJSON(t, "builtin:heart", "--method", "gi", "--margin", "hard", "--param", "A", "--steps", "5", "--test-fraction", "0.3", "--export-libsvm", dir)
	if r.Margin != "hard" || r.ExportKind != "rbf" {
		t.Fatalf("margin %q, export %q", r.Margin, r.ExportKind)
	}
	cmds := readmeCommands(t, dir)
	if len(cmds) != 3 || !strings.HasPrefix(cmds[0], "svm-train -s 0 -t 2 -g 0.5 -c ") {
		t.Fatalf("README commands %q", cmds)
	}
	if c, err := strconv.ParseFloat(flagValue(t, cmds[0], "-c"), 64); err != nil || c < 1000 {
		t.Fatalf("-c %v (%v): a hard margin needs a C far above every dual variable", c, err)
	}
	tr := trainJSON(t, filepath.Join(dir, "train.libsvm"), "--test", filepath.Join(dir, "test.libsvm"),
		"--normalize", "none", "-g", "0.5", "-c", flagValue(t, cmds[0], "-c"))
	if tr.NSV != r.NSV || tr.TrainCorrect != r.TrainCorrect || tr.TestCorrect != r.TestCorrect {
		t.Errorf("C-SVC on the export: #SV %d, correct %d/%d; tuned model: #SV %d, correct %d/%d",
			tr.NSV, tr.TrainCorrect, tr.TestCorrect, r.NSV, r.TrainCorrect, r.TestCorrect)
	}
}

// libsvmAccuracy matches svm-predict's summary line.
var libsvmAccuracy = regexp.MustCompile(`Accuracy = [0-9.]+% \(([0-9]+)/([0-9]+)\)`)

// TestTuneExportLibsvmTools runs the commands of the export's README.txt
// with LIBSVM's own svm-train and svm-predict (Debian's libsvm-tools), for
// every kind of export: the model file's total_sv is the tuned #SV, and
// svm-predict's accuracies on the training and the test rows are the tuned
// model's.
func TestTuneExportLibsvmTools(t *testing.T) {
	t.Parallel()
	needLIBSVMTools(t, "LIBSVM not checked; TestTuneExportPrecomputed and TestTuneExportHardMargin check the exports with our own solver")
	for _, tc := range []struct {
		name string
		args []string
		kind string
	}{
		{"spd-l1", []string{"--method", "spd", "--param", "full", "--max-iter", "5"}, "rbf"},
		{"gi-hard", []string{"--method", "gi", "--margin", "hard", "--param", "A", "--steps", "5"}, "rbf"},
		{"lccp-l2", []string{"--method", "lccp", "--max-iter", "3"}, "precomputed"},
		{"twolevel-l2", []string{"--method", "twolevel", "--max-iter", "5"}, "precomputed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := tuneJSON(t, append([]string{"builtin:heart", "--test-fraction", "0.3", "--export-libsvm", dir}, tc.args...)...)
			if r.ExportKind != tc.kind {
				t.Fatalf("export %q, want %q", r.ExportKind, tc.kind)
			}
			var correct []int
			for _, line := range readmeCommands(t, dir) {
				c := exec.Command("sh", "-c", line)
				c.Dir = dir
				out, err := c.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", line, err, out)
				}
				if strings.HasPrefix(line, "svm-predict") {
					m := libsvmAccuracy.FindStringSubmatch(string(out))
					if m == nil {
						t.Fatalf("%s: no accuracy in %q", line, out)
					}
					k, _ := strconv.Atoi(m[1])
					correct = append(correct, k)
				}
			}
			raw, err := os.ReadFile(filepath.Join(dir, "tuned.model"))
			if err != nil {
				t.Fatal(err)
			}
			nsv := regexp.MustCompile(`(?m)^total_sv ([0-9]+)$`).FindStringSubmatch(string(raw))
			if nsv == nil || nsv[1] != strconv.Itoa(r.NSV) {
				t.Errorf("LIBSVM's model has total_sv %v, the tuned model %d", nsv, r.NSV)
			}
			if len(correct) != 2 || correct[0] != r.TrainCorrect || correct[1] != r.TestCorrect {
				t.Errorf("svm-predict: %v correct on train, test; tuned model %d, %d", correct, r.TrainCorrect, r.TestCorrect)
			}
		})
	}
}

// An --export-libsvm path that cannot be a directory fails before the
// tuning, naming the flag and the path.
func TestTuneExportDirCheckedFirst(t *testing.T) {
	t.Parallel()
	file := writeFile(t, t.TempDir(), "taken", "x")
	out, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "lccp", "--export-libsvm", file)
	if code != ExitError || out != "" || !strings.Contains(errOut, "--export-libsvm "+file) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Every kind of result is exported: lccp's L1-distance kernel too.
	if !strings.Contains(mustRun(t, "tune", "--help"), "the L1-distance kernel (lccp) or the L2 margin") {
		t.Error("help does not say which export is used when")
	}
}

// TestTuneExportProbability: a model with probability estimates exports
// LIBSVM's -b 1 commands; run with svm-train and svm-predict, they give a
// model with probA and probB near the tuned model's (LIBSVM draws its own
// CV folds) and predictions with a probability per class, the labels
// header first, and the tuned model's accuracy.
func TestTuneExportProbability(t *testing.T) {
	t.Parallel()
	needLIBSVMTools(t, "")
	dir := t.TempDir()
	r := tuneJSON(t, "builtin:heart", "--test-fraction", "0.3", "--method", "spd", "--max-iter", "5", "--probability", "--export-libsvm", dir)
	if r.Probability == nil {
		t.Fatal("no probability estimates in the tuned model")
	}
	cmds := readmeCommands(t, dir)
	if len(cmds) != 3 || !strings.HasPrefix(cmds[0], "svm-train -b 1 ") || !strings.HasPrefix(cmds[1], "svm-predict -b 1 ") || !strings.HasPrefix(cmds[2], "svm-predict -b 1 ") {
		t.Fatalf("README.txt commands %q, want svm-train -b 1 and two svm-predict -b 1", cmds)
	}
	var correct []int
	for _, line := range cmds {
		c := exec.Command("sh", "-c", line)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		if m := libsvmAccuracy.FindStringSubmatch(string(out)); m != nil {
			k, _ := strconv.Atoi(m[1])
			correct = append(correct, k)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "tuned.model"))
	if err != nil {
		t.Fatal(err)
	}
	pa := regexp.MustCompile(`(?m)^probA (\S+)$`).FindStringSubmatch(string(raw))
	pb := regexp.MustCompile(`(?m)^probB (\S+)$`).FindStringSubmatch(string(raw))
	if pa == nil || pb == nil {
		t.Fatalf("LIBSVM's model has no probA/probB:\n%.400s", raw)
	}
	a, _ := strconv.ParseFloat(pa[1], 64)
	b, _ := strconv.ParseFloat(pb[1], 64)
	if math.Abs(a-r.Probability.A) > 0.5 || math.Abs(b-r.Probability.B) > 0.5 {
		t.Errorf("LIBSVM's probA %v, probB %v; the tuned model's %v, %v", a, b, r.Probability.A, r.Probability.B)
	}
	t.Logf("LIBSVM probA %v probB %v, ours %v %v; correct %v vs %d %d", a, b, r.Probability.A, r.Probability.B, correct, r.TrainCorrect, r.TestCorrect)
	pred, err := os.ReadFile(filepath.Join(dir, "test.predictions"))
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(pred), "\n"); !strings.HasPrefix(first, "labels ") {
		t.Errorf("svm-predict -b 1's first line %q, want the labels header", first)
	}
	// svm-predict -b 1 predicts the most probable class, which can differ
	// from the decision function's on a row or two.
	if len(correct) != 2 || abs(correct[0]-r.TrainCorrect) > 3 || abs(correct[1]-r.TestCorrect) > 3 {
		t.Errorf("svm-predict -b 1: %v correct on train, test; tuned model %d, %d", correct, r.TrainCorrect, r.TestCorrect)
	}
}

// Off a terminal (a batch job, a Slurm log), tune's progress is plain
// lines, at most one per KERNELTUNE_PROGRESS_INTERVAL (here 10 ms): the
// start, then done/total, elapsed and one ETA for the whole run over its
// three stages (the grid on a subset of 100 rows, the refinement on all
// 270, the final fit), the share done never going back, and a last line
// when it ends.
func TestTuneProgressPlainLines(t *testing.T) {
	t.Setenv("KERNELTUNE_PROGRESS_INTERVAL", "10ms")
	_, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "svm", "--grid-rows", "100", "--workers", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.ContainsAny(errOut, "\r\033") {
		t.Fatalf("terminal codes in a plain log: %q", errOut)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if want := "tune svm:   0%  stage 1/3  0/50  elapsed Xs  ETA ?  grid search: 10×11 points, 5-fold CV on 100 rows"; maskElapsed(lines[0]) != want {
		t.Errorf("start line %q, want %q", lines[0], want)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "tune svm: ended after ") {
		t.Errorf("last line %q", last)
	}
	line := regexp.MustCompile(`^tune svm: +(\d+)%  stage (\d)/3  (\d+)/(\d+)  elapsed \S+  ETA \S+  (grid search|refinement|final SVM)`)
	prev, n := -1, 0
	for _, l := range lines[:len(lines)-1] {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("line %q is not a progress line", l)
			continue
		}
		pct, _ := strconv.Atoi(m[1])
		if pct < prev {
			t.Errorf("the share done went back from %d%% to %d%%: %q", prev, pct, l)
		}
		prev, n = pct, n+1
	}
	if n < 2 {
		t.Errorf("%d progress lines in a run of several intervals:\n%s", n, errOut)
	}
}

// maskElapsed masks the elapsed times of plain progress lines.
func maskElapsed(s string) string {
	return regexp.MustCompile(`elapsed [0-9hms.]+`).ReplaceAllString(s, "elapsed Xs")
}

// Every method's progress starts from its whole plan: bo's and random's
// total is their budget (bo showed "25/25" of a budget of 30: the total
// was the iterations seen), the kernel-learning methods' their iteration
// limit with the choice of C and the final fit among the stages, halving's
// its rounds.
func TestTuneProgressStartLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "bo", "--budget", "30"}, "tune bo:   0%  stage 1/2  0/30  elapsed Xs  ETA ?  bo: 30 points, 5-fold CV on 270 rows"},
		{[]string{"--method", "random", "--budget", "5"}, "tune random:   0%  stage 1/2  0/5  elapsed Xs  ETA ?  random: 5 points, 5-fold CV on 270 rows"},
		{[]string{"--method", "rcsc", "--max-iter", "2"}, "tune rcsc:   0%  stage 1/3  0/2  elapsed Xs  ETA ?  rcsc: up to 2 iterations on 270 rows"},
		{[]string{"--method", "lccp", "--max-iter", "2"}, "tune lccp:   0%  stage 1/3  0/5  elapsed Xs  ETA ?  choosing C: 7 values, 5-fold CV on 270 rows"},
		{[]string{"--method", "gi", "--steps", "2"}, "tune gi:   0%  stage 1/3  0/50  elapsed Xs  ETA ?  grid search: 10×11 points, 5-fold CV on 270 rows"},
		{[]string{"--method", "twolevel", "--max-iter", "2"}, "tune twolevel:   0%  stage 1/2  0/2  elapsed Xs  ETA ?  twolevel: up to 2 iterations on 270 rows"},
		{[]string{"--method", "halving"}, "tune halving:   0%  stage 1/4  0/50  elapsed Xs  ETA ?  halving round 1: 110 candidates, 5-fold CV on 20 rows"},
	} {
		_, errOut, code := runCLI(t, append([]string{"tune", "builtin:heart", "--workers", "1"}, tc.args...)...)
		lines := strings.Split(strings.TrimSuffix(maskElapsed(errOut), "\n"), "\n")
		if code != 0 || lines[0] != tc.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
		// A run past progress.DefaultInterval (30 s: gi's grid took 36 s
		// in a loaded race run) adds its periodic lines and the last one,
		// and nothing else.
		label := strings.Fields(tc.want)[1] // "gi:"
		more := regexp.MustCompile(`^tune ` + regexp.QuoteMeta(label) + ` (\s*\d+%  stage \d/\d  \d+/\d+  elapsed Xs  ETA \S+  |ended after )`)
		for _, l := range lines[1:] {
			if !more.MatchString(l) {
				t.Errorf("%v: line %q after the start line is not a progress line", tc.args, l)
			}
		}
	}
}
