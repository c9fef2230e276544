package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
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
