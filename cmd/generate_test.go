package cmd

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

func TestGenerateWeston(t *testing.T) {
	t.Parallel()
	out, _, code := runCLI(t, "generate", "weston", "--n", "40", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	again, _, _ := runCLI(t, "generate", "weston", "--n", "40", "--seed", "3")
	other, _, _ := runCLI(t, "generate", "weston", "--n", "40", "--seed", "4")
	if out != again {
		t.Error("two runs with --seed 3 differ")
	}
	if out == other {
		t.Error("--seed 3 and 4 give the same data")
	}
	if !strings.HasPrefix(out, "x1,x2,x3,") {
		t.Errorf("no CSV header: %.40q", out)
	}
	d, err := dataio.LoadReader(strings.NewReader(out), "weston.csv", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pos, neg := d.ClassCounts()
	if d.Len() != 40 || d.Dim() != 52 || pos != 20 || neg != 20 {
		t.Errorf("%d×%d, %d/%d", d.Len(), d.Dim(), pos, neg)
	}
	// The CLI draws from dataio.GenerateStream: the same data as the package call.
	want := dataio.Weston(40, 20, genTestRand(3, dataio.GenerateStream))
	if !mat.Equal(d.X, want.X) {
		t.Error("CLI data differ from dataio.Weston with the generate stream")
	}
}

func TestGenerateToFileLIBSVM(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.libsvm")
	out, errOut, code := runCLI(t, "generate", "weston", "--n", "30", "--noise-std", "5", "-o", path)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, "wrote 30 rows × 52 features") {
		t.Errorf("stderr %q", errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if dataio.DetectFormat("x", b) != "libsvm" {
		t.Errorf("-o .libsvm did not write LIBSVM: %.60q", b)
	}
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil || d.Len() != 30 || d.Dim() != 52 {
		t.Fatalf("%v %v", d, err)
	}
	// --quiet silences the note.
	_, errOut, _ = runCLI(t, "generate", "weston", "--n", "3", "-q", "-o", path)
	if errOut != "" {
		t.Errorf("--quiet printed %q", errOut)
	}
}

func TestGenerateChessboardTransform(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLI(t, "generate", "chessboard", "--n", "300", "--dim", "3", "--stretch", "4", "--print-transform", "--seed", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "# chessboard transform") {
		t.Fatalf("stderr %q", errOut)
	}
	B := mat.NewDense(3, 3, nil)
	for i, l := range lines[1:] {
		for j, f := range strings.Fields(l) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			B.Set(i, j, v)
		}
	}
	if det := mat.Det(B); math.Abs(det-1) > 1e-12 {
		t.Errorf("det B̃ = %v, want 1", det)
	}
	d, err := dataio.LoadReader(strings.NewReader(out), "chess.csv", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Undo the printed B̃: every row's cell parity matches its label.
	var xt mat.Dense
	if err := xt.Solve(B, d.X.T()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < d.Len(); i++ {
		s := 0
		for j := 0; j < 3; j++ {
			s += int(math.Floor(xt.At(j, i)))
		}
		if (s%2 == 0) != (d.Y[i] > 0) {
			t.Fatalf("row %d: parity %d, label %v", i+1, s, d.Y[i])
		}
	}
}

func TestGenerateUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"generate"},
		{"generate", "weston", "--n", "0"},
		{"generate", "weston", "--format", "xml"},
		{"generate", "weston", "--noise-std", "-1"},
		{"generate", "weston", "--n", "ten"},
		{"generate", "chessboard", "--dim", "1"},
		{"generate", "chessboard", "--stretch", "0"},
		{"generate", "chessboard", "extra"},
		// Drawn in memory: a huge --n was the runtime's out-of-memory crash.
		{"generate", "weston", "--n", "100000000000"},
		{"generate", "chessboard", "--n", "1000000", "--dim", "1000"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut)
		}
		if !strings.Contains(errOut, "kerneltune: ") {
			t.Errorf("%v: stderr %q", args, errOut)
		}
	}
	// An unwritable -o is an error (1), not a usage error.
	_, errOut, code := runCLI(t, "generate", "weston", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.csv"))
	if code != ExitError || !strings.Contains(errOut, "no such file") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func genTestRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// generate sparse writes the a1a-like set: LIBSVM rows of 123 binary
// features, the data of dataio.SparseBinary with the generate stream, and
// the svm baseline finds its classes overlapping (CV accuracy between the
// 74% majority and 90%, 83% at this seed).
func TestGenerateSparse(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.libsvm")
	_, errOut, code := runCLI(t, "generate", "sparse", "--n", "300", "--seed", "4", "-o", path)
	if code != 0 || !strings.Contains(errOut, "wrote 300 rows × 123 features (sparse, seed 4)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil || d.Len() != 300 || d.Dim() != 123 {
		t.Fatalf("%v %v", d, err)
	}
	want := dataio.SparseBinary(300, genTestRand(4, dataio.GenerateStream))
	if !mat.Equal(d.X, want.X) || !slices.Equal(d.Y, want.Y) {
		t.Error("CLI data differ from dataio.SparseBinary with the generate stream")
	}
	res, _ := runJSON[struct{ Figures []methods.Figure }](t, "tune", path, "--method", "svm", "--workers", "2")
	acc := -1.0
	for _, f := range res.Figures {
		if f.Name == "cv accuracy" {
			acc = f.Value
		}
	}
	if acc < 0.74 || acc > 0.9 {
		t.Errorf("svm CV accuracy %v on generate sparse, want overlapping classes (0.74–0.9)", acc)
	}
	_, errOut, code = runCLI(t, "generate", "sparse", "--n", "0")
	if code != 2 || !strings.Contains(errOut, "--n must be at least 1") {
		t.Errorf("--n 0: exit %d, %q", code, errOut)
	}
}

// TestGenerateTestFile: --test-n draws test rows from the training rows'
// distribution (the rows after them in one draw); the training file is the
// same as without it, and the usage errors name both flags.
func TestGenerateTestFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, test := filepath.Join(dir, "a.csv"), filepath.Join(dir, "a.t.csv")
	_, errOut, code := runCLI(t, "generate", "sparse", "--n", "50", "--test-n", "20", "-o", train, "--test-output", test, "--seed", "4")
	if code != 0 || !strings.Contains(errOut, "wrote 20 test rows of the same distribution to "+test) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	alone, _, _ := runCLI(t, "generate", "sparse", "--n", "50", "--seed", "4")
	both, _, _ := runCLI(t, "generate", "sparse", "--n", "70", "--seed", "4")
	b, err := os.ReadFile(train)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != alone {
		t.Error("the training file differs from the same --n without --test-n")
	}
	tb, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	// CSV: each file has the header line, then its rows.
	_, testRows, _ := strings.Cut(string(tb), "\n")
	if string(b)+testRows != both {
		t.Error("training and test rows are not the 70 rows of one draw")
	}
	for _, args := range [][]string{{"--test-n", "5"}, {"--test-output", test}, {"--test-n", "-1", "--test-output", test}} {
		_, errOut, code := runCLI(t, append([]string{"generate", "sparse", "--n", "10", "-o", train}, args...)...)
		if code != 2 || !strings.Contains(errOut, "--test-n and --test-output go together") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
