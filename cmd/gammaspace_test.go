package cmd

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/model"
)

// unitRangeNote is train's note on heart_scale (every feature in [-1, 1])
// under the default normalisation.
const unitRangeNote = "kerneltune: note: every feature of %s lies within [-1, 1] (as svm-scale leaves a file), yet the default --normalize auto z-scores them: " +
	"the kernel (γ) acts on z-scored features, so the model is not svm-train's on this file; give --normalize none to keep the features as given (svm-train's model)\n"

// TestTrainNotesAlreadyScaledFile (issue 41, item 1): `train FILE -c C -g G`
// on a file already scaled to [-1, 1] z-scores it by default, which is not
// svm-train's model on FILE: train says so on stderr before training, and
// --normalize none gives svm-train's model (the #SV of the LIBSVM golden
// run, testdata/libsvm-golden) without the note. The note is a note: -q
// drops it (the table's gamma row still names the space), and an explicit
// --normalize, a file whose normalisation changes nothing (a1a's 0/1
// features under maxabs) or one beyond [-1, 1] gets none.
func TestTrainNotesAlreadyScaledFile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(cmdTestdata, "libsvm-golden", "golden.json"))
	if err != nil {
		t.Fatalf("LIBSVM golden values: %v", err)
	}
	var g libsvmGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	i := 0
	for i < len(g.Runs) && !(g.Runs[i].File == "heart_scale" && g.Runs[i].C == 1 && g.Runs[i].Gamma == 0.5 && g.Runs[i].WPos <= 1) {
		i++
	}
	if i == len(g.Runs) {
		t.Fatal("golden.json has no heart_scale run at -c 1 -g 0.5")
	}
	run := g.Runs[i] // svm-train -c 1 -g 0.5 -e 1e-5 heart_scale: 193 SVs
	trainOf := func(args ...string) (model.TrainResult, string) {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"train", heartScale, "-c", "1", "-g", "0.5", "--eps", "1e-5", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("train %v: exit %d: %s", args, code, errOut)
		}
		var r model.TrainResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r, errOut
	}
	def, errOut := trainOf()
	if want := strings.ReplaceAll(unitRangeNote, "%s", heartScale); errOut != want {
		t.Errorf("default normalisation: stderr %q, want %q", errOut, want)
	}
	if def.Normalize != "zscore" || def.NSV != 258 || run.NSV != 193 {
		t.Errorf("default: normalize %q, #SV %d; want zscore, 258 (svm-train %d)", def.Normalize, def.NSV, run.NSV)
	}
	none, errOut := trainOf("--normalize", "none")
	if errOut != "" || none.Normalize != "none" || absInt(none.NSV-run.NSV) > 1 {
		t.Errorf("--normalize none: stderr %q, #SV %d; want no note and svm-train's %d", errOut, none.NSV, run.NSV)
	}
	for _, args := range [][]string{{"-q"}, {"--normalize", "zscore"}, {"--normalize", "minmax11"}} {
		if r, errOut := trainOf(args...); errOut != "" {
			t.Errorf("train %v: stderr %q, want none (#SV %d)", args, errOut, r.NSV)
		}
	}
	for _, data := range []string{filepath.Join(cmdTestdata, "libsvm", "a1a"), filepath.Join(cmdTestdata, "uci", "heart.dat")} {
		if _, errOut, code := runCLI(t, "train", data, "-c", "1"); code != 0 || errOut != "" {
			t.Errorf("train %s: exit %d, stderr %q; want 0 and no note", data, code, errOut)
		}
	}
}

// rawHeart writes testdata/uci/heart.dat (the raw UCI features: ages,
// cholesterol, ...; label last) as LIBSVM files, its first 200 rows and its
// last 70, for svm-scale.
func rawHeart(t *testing.T, dir string) (train, test string) {
	t.Helper()
	lines := readFileLines(t, filepath.Join(cmdTestdata, "uci", "heart.dat"))
	var tr, te strings.Builder
	for i, l := range lines {
		f := strings.Fields(l)
		b := &tr
		if i >= 200 {
			b = &te
		}
		b.WriteString(f[len(f)-1])
		for j, v := range f[:len(f)-1] {
			if x, err := strconv.ParseFloat(v, 64); err != nil {
				t.Fatalf("heart.dat line %d: %v", i+1, err)
			} else if x != 0 {
				b.WriteString(" " + strconv.Itoa(j+1) + ":" + v)
			}
		}
		b.WriteString("\n")
	}
	return writeFile(t, dir, "heart.raw", tr.String()), writeFile(t, dir, "heart.raw.t", te.String())
}

// readLIBSVMRows reads a LIBSVM file's labels and rows (d features, dense).
func readLIBSVMRows(t *testing.T, text string, d int) (labels []float64, rows [][]float64) {
	t.Helper()
	for n, l := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(l)
		y, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatalf("line %d: %q", n+1, l)
		}
		row := make([]float64, d)
		for _, tok := range f[1:] {
			k, v, _ := strings.Cut(tok, ":")
			j, err1 := strconv.Atoi(k)
			x, err2 := strconv.ParseFloat(v, 64)
			if err1 != nil || err2 != nil || j < 1 || j > d {
				t.Fatalf("line %d: token %q", n+1, tok)
			}
			row[j-1] = x
		}
		labels, rows = append(labels, y), append(rows, row)
	}
	return labels, rows
}

// tool runs a LIBSVM tool in dir and returns its stdout.
func tool(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// TestExportRangeFileForRawData (issue 41, item 1): tune --export-libsvm
// writes the normalisation composed with an isotropic γ or a diagonal Q as
// a range file, with which LIBSVM's own tools apply the tuned model to new
// raw data: svm-scale -r raw.range on the raw training and test files gives
// train.libsvm and test.libsvm to the 6 significant digits svm-scale prints,
// and svm-predict on the scaled raw test file, with the model svm-train
// makes by the README's command, predicts every row as kerneltune predict
// does on the raw file. Here on UCI heart's raw features (ages, mmHg, ...),
// z-scored (svm) and min-max scaled (spd, diagonal Q); a full Q gets no
// range file and a README that says why.
func TestExportRangeFileForRawData(t *testing.T) {
	t.Parallel()
	needLIBSVMTools(t, "the round trip through svm-scale -r is unchecked")
	if _, err := exec.LookPath("svm-scale"); err != nil {
		t.Skip("svm-scale is not installed (apt-get install libsvm-tools): the round trip through svm-scale -r is unchecked")
	}
	dir := t.TempDir()
	rawTrain, rawTest := rawHeart(t, dir)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"svm-zscore", []string{"--method", "svm"}},
		{"spd-diag-minmax01", []string{"--method", "spd", "--max-iter", "5", "--normalize", "minmax01"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp, modelPath := filepath.Join(dir, tc.name), filepath.Join(dir, tc.name+".json")
			mustRun(t, append([]string{"tune", rawTrain, "--test", rawTest, "--export-libsvm", exp, "-o", modelPath, "-q"}, tc.args...)...)
			for _, f := range [][2]string{{rawTrain, "train.libsvm"}, {rawTest, "test.libsvm"}} {
				scaled := tool(t, exp, "svm-scale", "-r", "raw.range", f[0])
				want, err := os.ReadFile(filepath.Join(exp, f[1]))
				if err != nil {
					t.Fatal(err)
				}
				gy, got := readLIBSVMRows(t, scaled, 13)
				wy, rows := readLIBSVMRows(t, string(want), 13)
				if len(got) != len(rows) || len(rows) == 0 {
					t.Fatalf("svm-scale -r gives %d rows, %s has %d", len(got), f[1], len(rows))
				}
				worst := 0.0
				for i := range rows {
					if gy[i] != wy[i] {
						t.Fatalf("%s row %d: label %v, svm-scale's %v", f[1], i+1, wy[i], gy[i])
					}
					for j, v := range rows[i] {
						if e := math.Abs(got[i][j] - v); e > 5e-6*math.Abs(v)+1e-12 {
							t.Fatalf("%s row %d feature %d: %v, svm-scale -r gives %v", f[1], i+1, j+1, v, got[i][j])
						} else if v != 0 {
							worst = max(worst, e/math.Abs(v))
						}
					}
				}
				t.Logf("%s: svm-scale -r raw.range agrees to a relative %.2g", f[1], worst)
			}
			cmds := readmeCommands(t, exp)
			train := strings.Fields(cmds[0])
			tool(t, exp, train[0], train[1:]...)
			scaledTest := writeFile(t, exp, "raw-test.scaled", tool(t, exp, "svm-scale", "-r", "raw.range", rawTest))
			tool(t, exp, "svm-predict", scaledTest, "tuned.model", "raw-test.predictions")
			libsvm := readFileLines(t, filepath.Join(exp, "raw-test.predictions"))
			ours := strings.Fields(mustRun(t, "predict", modelPath, rawTest, "--format", "labels", "-q"))
			if len(ours) != 70 || len(libsvm) != 70 {
				t.Fatalf("%d predictions by kerneltune, %d by svm-predict; want 70", len(ours), len(libsvm))
			}
			for i := range ours {
				a, _ := strconv.ParseFloat(ours[i], 64)
				b, _ := strconv.ParseFloat(libsvm[i], 64)
				if a != b {
					t.Errorf("raw test row %d: kerneltune predict %s, svm-predict on svm-scale -r %s", i+1, ours[i], libsvm[i])
				}
			}
		})
	}
	full := filepath.Join(dir, "full")
	mustRun(t, "tune", rawTrain, "--method", "spd", "--param", "full", "--max-iter", "2", "--export-libsvm", full, "-q")
	readme, err := os.ReadFile(filepath.Join(full, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(full, "raw.range")); err == nil || !strings.Contains(string(readme), "the learned metric Q is full, not diagonal") {
		t.Errorf("full Q: raw.range (stat: %v) and README:\n%s", err, readme)
	}
}

// TestGammaSpaceIsSaid (issue 41, item 1): every γ a command prints or
// records says which features it acts on, kerneltune's normalised ones or
// the file's as given: train's and tune's gamma row, their JSON
// (gamma_space, beside normalize), the model file (gamma_space, beside
// the kernel) and compare's records (and so report --per-job).
func TestGammaSpaceIsSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	modelPath := filepath.Join(dir, "m.json")
	out := mustRun(t, "train", heartScale, "-g", "0.5", "-q", "-o", modelPath)
	if want := "│ gamma (LIBSVM) │ 0.5 on z-scored features (kerneltune's normalisation), not the file's values │"; !strings.Contains(out, want) {
		t.Errorf("train's table lacks %q:\n%s", want, out)
	}
	out = mustRun(t, "train", heartScale, "-g", "0.5", "--normalize", "none")
	if want := "│ gamma (LIBSVM) │ 0.5 on the file's features as given (svm-train's -g on the same file) │"; !strings.Contains(out, want) {
		t.Errorf("train --normalize none's table lacks %q:\n%s", want, out)
	}
	raw, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		GammaSpace string `json:"gamma_space"`
		Kernel     struct{ Gamma float64 }
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.GammaSpace != "zscore" || m.Kernel.Gamma != 0.5 {
		t.Errorf("model file: gamma_space %q, kernel γ %v (%v); want zscore, 0.5", m.GammaSpace, m.Kernel.Gamma, err)
	}
	if p, _ := predictJSON(t, modelPath, heartScale); !(p.Accuracy > 0.99) {
		t.Errorf("the saved model with its gamma_space predicts heart_scale at %v", p.Accuracy)
	}
	for _, tc := range []struct{ normalize, words string }{
		{"minmax01", "│ gamma (LIBSVM)     │ 0.0078125 on features scaled to [0, 1] (kerneltune's normalisation), not the file's values │"},
		{"maxabs", "│ gamma (LIBSVM)     │ 0.0078125 on features over their largest |value| (kerneltune's normalisation), not the file's values │"},
	} {
		out := mustRun(t, "tune", heartScale, "--method", "svm", "--log2g", "-7,-7,1", "--log2c", "0,0,1", "--normalize", tc.normalize, "-q")
		if !strings.Contains(out, tc.words) {
			t.Errorf("tune --normalize %s lacks %q:\n%s", tc.normalize, tc.words, out)
		}
		r := tuneJSON(t, heartScale, "--method", "svm", "--log2g", "-7,-7,1", "--log2c", "0,0,1", "--normalize", tc.normalize, "-q")
		if r.GammaSpace != tc.normalize || r.Gamma != 0.0078125 {
			t.Errorf("tune --normalize %s JSON: gamma_space %q, gamma %v", tc.normalize, r.GammaSpace, r.Gamma)
		}
	}
	recs := filepath.Join(dir, "run.jsonl")
	mustRun(t, "compare", heartScale, "--methods", "svm", "--partitions", "1", "--normalize", "none", "--out", recs, "-q")
	var rec struct {
		GammaSpace string `json:"gamma_space"`
		Kernel     struct{ Gamma float64 }
	}
	if lines := readFileLines(t, recs); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &rec) != nil || rec.GammaSpace != "none" || !(rec.Kernel.Gamma > 0) {
		t.Errorf("compare's record: gamma_space %q, γ %v; want none and a γ", rec.GammaSpace, rec.Kernel.Gamma)
	}
}
