//go:build unix

package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 45, item 1: a tune cut by a signal (kill -9 included) started again
// at its first step. tune -o keeps a checkpoint beside the model (each
// step's outcome, synced as it ends), and --resume continues from it: the
// model file is the uninterrupted tune's, byte for byte but for the tuning
// time.

// untimedModel reads a model file and returns it with its timings
// (elapsed_ns anywhere) zeroed, as JSON.
func untimedModel(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`"elapsed_ns": ?\d+`).ReplaceAllString(string(b), `"elapsed_ns":0`)
	return regexp.MustCompile(`"checksum": ?"sha256:[0-9a-f]+"`).ReplaceAllString(s, `"checksum":"(of the timings too)"`)
}

// firstDiff is the first line where a and b differ, with its number.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: %.200s ≠ %.200s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines ≠ %d", len(la), len(lb))
}

// checkpointLines is the number of lines of the checkpoint at path (its
// header and its steps), 0 when there is none.
func checkpointLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// killTuneAt starts the tune args in a child, waits until its checkpoint
// holds at least steps steps, sends it sig and waits for it to end.
func killTuneAt(t *testing.T, dir, model string, steps int, sig os.Signal, args []string) (*exec.ExitError, string) {
	t.Helper()
	ck := model + ".checkpoint"
	c := child(t, dir, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for n := 0; checkpointLines(ck) < steps+1; n++ {
		if n > 6000 {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("the checkpoint did not reach %d steps in 60 s (%d lines); stderr %s", steps, checkpointLines(ck), stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Process.Signal(sig)
	err := c.Wait()
	if _, e := os.Stat(model); e == nil {
		t.Fatalf("the tune ended before the signal: the model is written (stderr %s)", stderr.String())
	}
	ee, _ := err.(*exec.ExitError)
	if ee == nil {
		t.Fatalf("%v: the child exited with %v", sig, err)
	}
	return ee, stderr.String()
}

// runChild runs kerneltune with args in a child process in dir and returns
// its stderr and exit code.
func runChild(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	c := child(t, dir, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return stderr.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), 0
}

// killData is the file the kill tests tune, as an absolute path: a tune
// whose steps outlast the tests' polling (10 ms) by far, so that a kill
// after k steps lands before its last step. Without the race detector
// diabetes (768 rows: svm's grid takes about 2 s, gi's 30 steps 0.7 s);
// under it, whose processes run about eight times slower, heart (270 rows:
// a step of svm's grid takes about 17 ms there, of gi's 30 ms, longer than
// diabetes' without it). Diabetes under the race detector took 316 s of the
// cmd package's race run in these three tests.
func killData(t *testing.T) string {
	t.Helper()
	name := "../testdata/libsvm/diabetes_scale"
	if raceBuild {
		name = heartScale
	}
	data, err := filepath.Abs(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The model files are compared whole: the resumed run and the
// uninterrupted one run the same command (-o m.json, each in a directory of
// its own), and the model records the command without --resume.
func TestTuneResumesAfterKill(t *testing.T) {
	data := killData(t)
	type killCase struct {
		name  string
		args  []string
		kills []int // the steps kept before each kill -9
	}
	cases := []killCase{
		{"svm", []string{"--method", "svm"}, []int{3, 25}},
		{"rcsc", []string{"--method", "rcsc", "--mode", "paper", "--max-iter", "60"}, []int{5, 40}},
		{"lccp", []string{"--method", "lccp", "--max-iter", "25", "--tol", "1e-12"}, []int{2, 12}},
		{"gi", []string{"--method", "gi", "--param", "diag", "--steps", "30", "--tol", "1e-12", "-c", "1"}, []int{4, 20}},
	}
	if raceBuild {
		// A search and an iterative method under the race detector, whose
		// children run several times slower; pkg/methods'
		// TestCheckpointResumesEveryMethod resumes every method in process.
		cases = []killCase{cases[0], cases[3]}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			whole, dir := t.TempDir(), t.TempDir()
			args := append([]string{"tune", data, "--workers", "2", "-o", "m.json"}, tc.args...)
			if errOut, code := runChild(t, whole, args...); code != 0 {
				t.Fatalf("uninterrupted: exit %d, %s", code, errOut)
			}
			if _, err := os.Stat(filepath.Join(whole, "m.json.checkpoint")); !os.IsNotExist(err) {
				t.Errorf("the checkpoint of a finished tune is still there: %v", err)
			}
			model := filepath.Join(dir, "m.json")
			done := 0
			for i, k := range tc.kills {
				// kill -9 at k steps; the second kill lands in the
				// resumed run, which goes on from the first's steps.
				a := args
				if i > 0 {
					a = append(args[:len(args):len(args)], "--resume")
				}
				ee, _ := killTuneAt(t, dir, model, k, syscall.SIGKILL, a)
				if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("kill -9: %v", ee)
				}
				done = checkpointLines(model+".checkpoint") - 1
				if done < k {
					t.Fatalf("after kill -9 at %d steps the checkpoint holds %d", k, done)
				}
			}
			// Without --resume the kept steps are not thrown away.
			errOut, code := runChild(t, dir, args...)
			want := "kerneltune: tune: m.json.checkpoint holds " + strconv.Itoa(done) + " steps of an interrupted tune to -o m.json: add --resume to continue it, or delete it to start afresh\n"
			if code != ExitError || errOut != want {
				t.Fatalf("rerun without --resume: exit %d, %q; want exit 1 and %q", code, errOut, want)
			}
			errOut, code = runChild(t, dir, append(args[:len(args):len(args)], "--resume")...)
			if code != 0 {
				t.Fatalf("--resume: exit %d, %s", code, errOut)
			}
			if w := "tune: resuming from m.json.checkpoint: " + strconv.Itoa(done) + " steps done\n"; !strings.Contains(errOut, w) {
				t.Errorf("--resume said %q, want %q", errOut, w)
			}
			if g, w := untimedModel(t, model), untimedModel(t, filepath.Join(whole, "m.json")); g != w {
				t.Errorf("the resumed tune's model differs from the uninterrupted one's: %s", firstDiff(g, w))
			}
			if _, err := os.Stat(model + ".checkpoint"); !os.IsNotExist(err) {
				t.Errorf("the checkpoint is still there after the model was written: %v", err)
			}
		})
	}
}

// SIGTERM (and SIGINT) wind a tune down: exit 130, saying where its steps
// are kept; --resume then gives the uninterrupted model.
func TestTuneResumesAfterSIGTERM(t *testing.T) {
	data := killData(t)
	whole, dir := t.TempDir(), t.TempDir()
	args := []string{"tune", data, "--method", "svm", "--workers", "2", "-q", "-o", "m.json"}
	if errOut, code := runChild(t, whole, args...); code != 0 {
		t.Fatalf("uninterrupted: exit %d, %s", code, errOut)
	}
	model := filepath.Join(dir, "m.json")
	ee, stderr := killTuneAt(t, dir, model, 10, syscall.SIGTERM, args)
	want := "the steps done are kept in m.json.checkpoint: rerun with --resume to continue"
	if ee.ExitCode() != ExitInterrupted || !strings.Contains(stderr, want) {
		t.Fatalf("SIGTERM: exit %d, %q; want exit %d and %q", ee.ExitCode(), stderr, ExitInterrupted, want)
	}
	if errOut, code := runChild(t, dir, append(args, "--resume")...); code != 0 {
		t.Fatalf("--resume: exit %d, %s", code, errOut)
	}
	if g, w := untimedModel(t, model), untimedModel(t, filepath.Join(whole, "m.json")); g != w {
		t.Errorf("the resumed tune's model differs from the uninterrupted one's: %s", firstDiff(g, w))
	}
}

// A checkpoint of other settings or other data is refused, naming what
// differs, and left as it is.
func TestTuneResumeRefusesOtherRun(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	ck := model + ".checkpoint"
	// A checkpoint left by a tune of heart with the default folds.
	if err := os.WriteFile(ck, []byte(checkpointOf(t, dir, "../testdata/libsvm/heart_scale")), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(ck)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"../testdata/libsvm/heart_scale", "--folds", "3"}, "is the checkpoint of another tune: method.Folds: (default) → 3; resume with the data and flags it was made with, or delete it to start afresh"},
		{[]string{"../testdata/libsvm/diabetes_scale"}, "is the checkpoint of another tune: data sha256: "},
		{[]string{"../testdata/libsvm/heart_scale", "--method", "rcsc"}, "method: svm → rcsc"},
		{[]string{"../testdata/libsvm/heart_scale", "--seed", "2"}, "method.Seed: 1 → 2"},
	} {
		args := append([]string{"tune"}, tc.args...)
		if !strings.Contains(strings.Join(args, " "), "--method") {
			args = append(args, "--method", "svm")
		}
		_, errOut, code := runCLI(t, append(args, "-o", model, "--resume", "-q")...)
		if code != ExitError || !strings.Contains(errOut, "kerneltune: tune --resume: "+ck+" ") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if after, _ := os.ReadFile(ck); !bytes.Equal(before, after) {
		t.Errorf("a refused checkpoint was changed")
	}
	if _, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "svm", "--resume"); code != ExitUsage || !strings.Contains(errOut, "--resume continues the tune whose -o is given") {
		t.Errorf("--resume without -o: exit %d, %q", code, errOut)
	}
}

// checkpointOf returns the checkpoint a tune of svm on data leaves when it
// is cut after its first steps (SIGKILL).
func checkpointOf(t *testing.T, dir, data string) string {
	t.Helper()
	abs, err := filepath.Abs(data)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "first.json")
	killTuneAt(t, dir, model, 2, syscall.SIGKILL, []string{"tune", abs, "--method", "svm", "-o", model, "-q", "--workers", "1"})
	b, err := os.ReadFile(model + ".checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &h); err != nil || h["schema_version"] != 1.0 {
		t.Fatalf("the checkpoint's header: %v, %v", h, err)
	}
	return string(b)
}

// A compare job cut by kill -9 resumes mid-job: its checkpoint (beside
// --out) keeps the steps it did, --resume says so and goes on from them, and
// the records are the uninterrupted run's.
func TestCompareResumesMidJob(t *testing.T) {
	data, err := filepath.Abs("../testdata/libsvm/diabetes_scale")
	if err != nil {
		t.Fatal(err)
	}
	// The job must outlast the second before its checkpoint file is made
	// (a shorter job keeps its steps in memory) by 15 steps and more: 614
	// training rows take about 2 s without the race detector (4 CPU s with
	// 2 workers); under it, about eight times slower, 384 rows take 9 CPU s
	// (614 took 24).
	fraction := "0.8"
	if raceBuild {
		fraction = "0.5"
	}
	whole, dir := t.TempDir(), t.TempDir()
	args := []string{"compare", data, "--methods", "svm", "--partitions", "1", "--train-fraction", fraction, "--workers", "2", "--out", "r.jsonl"}
	if errOut, code := runChild(t, whole, append(args, "-q")...); code != 0 {
		t.Fatalf("uninterrupted: exit %d, %s", code, errOut)
	}
	ckDir := filepath.Join(dir, ".r.jsonl.checkpoints")
	c := child(t, dir, append(args, "-q")...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for n := 0; steps < 15; n++ {
		if n > 6000 {
			c.Process.Kill()
			t.Fatalf("no job's checkpoint reached 15 steps in 60 s")
		}
		time.Sleep(10 * time.Millisecond)
		files, _ := filepath.Glob(filepath.Join(ckDir, "*.checkpoint"))
		for _, f := range files {
			steps = max(steps, checkpointLines(f)-1)
		}
	}
	c.Process.Kill()
	c.Wait()
	if recs, _ := readMasked(t, filepath.Join(dir, "r.jsonl")); len(recs) != 0 {
		t.Fatalf("the job finished before kill -9")
	}
	files, _ := filepath.Glob(filepath.Join(ckDir, "*.checkpoint"))
	if len(files) != 1 {
		t.Fatalf("%d checkpoints after kill -9, want 1", len(files))
	}
	steps = checkpointLines(files[0]) - 1
	errOut, code := runChild(t, dir, append(args, "--resume")...)
	if code != 0 {
		t.Fatalf("--resume: exit %d, %s", code, errOut)
	}
	if w := fmt.Sprintf("kerneltune: note: 1 job cut short resumes from its checkpoint (%d steps done)\n", steps); !strings.HasPrefix(errOut, w) {
		t.Errorf("--resume said %q, want it to begin %q", errOut, w)
	}
	got, _ := readMasked(t, filepath.Join(dir, "r.jsonl"))
	want, _ := readMasked(t, filepath.Join(whole, "r.jsonl"))
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("the resumed run's records differ from the uninterrupted run's:\n%s\n%s", g, w)
	}
	if _, err := os.Stat(ckDir); !os.IsNotExist(err) {
		t.Errorf("the checkpoints' directory is still there: %v", err)
	}
}
