package cmd

// The fault-injection suite (issue 25): kerneltune killed with SIGKILL at
// random points of a compare, records torn at every byte, concurrent writers
// of one results file, and tables of damaged records and models, each run
// as a user would: through the command line, in a child process where a
// process must die.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/study"
)

// childArgsEnv, set in a child's environment, makes the test binary run
// kerneltune with those arguments (JSON) instead of the tests.
const childArgsEnv = "KERNELTUNE_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == kerneltuneName {
		// A copy of this binary named kerneltune (kerneltuneCopy): the
		// command itself, as the scripts of compare --slurm run it.
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if js := os.Getenv(childArgsEnv); js != "" {
		var args []string
		if err := json.Unmarshal([]byte(js), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(Main(args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child returns a command that runs kerneltune with args in a new process
// (this test binary, re-executed), in dir.
func child(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	js, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe)
	c.Dir = dir
	c.Env = append(os.Environ(), childArgsEnv+"="+string(js))
	return c
}

// faultCompare is the run the kill tests interrupt: 18 jobs of about 20 ms.
var faultCompare = []string{"compare", "builtin:heart", "builtin:breast-wisconsin", "--methods", "svm,rcsc,spd",
	"--partitions", "3", "--train-size", "60", "--test-size", "60", "--workers", "2", "-q"}

const faultJobs = 2 * 3 * 3

// readMasked reads a results file and returns its records sorted, wall
// times masked, and its number of lines.
func readMasked(t *testing.T, path string) ([]experiment.Record, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := experiment.ReadRecordsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	experiment.SortRecords(recs)
	for i := range recs {
		recs[i].Seconds = 0
		// The command line that wrote a record is its provenance: a resumed
		// job's says --resume.
		if p := recs[i].Provenance; p != nil {
			q := *p
			q.Command = ""
			recs[i].Provenance = &q
		}
	}
	return recs, bytes.Count(data, []byte("\n"))
}

// TestKillNineAnywhereResumesToTheSameRecords kills compare with SIGKILL at
// random times (seeded: the same points every run), resumes it, and checks
// that the results file then holds each job once, with the records of an
// uninterrupted run.
func TestKillNineAnywhereResumesToTheSameRecords(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	if out, err := child(t, dir, append(faultCompare, "--out", "ref.jsonl")...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	whole := time.Since(start)
	ref, lines := readMasked(t, filepath.Join(dir, "ref.jsonl"))
	if len(ref) != faultJobs || lines != faultJobs {
		t.Fatalf("uninterrupted run: %d records on %d lines, want %d", len(ref), lines, faultJobs)
	}
	points := 10
	if testing.Short() || raceBuild {
		points = 4
	}
	rng := rand.New(rand.NewPCG(25, 9))
	killed := 0
	for i := range points {
		out := fmt.Sprintf("k%d.jsonl", i)
		args := append(faultCompare, "--out", out)
		// One to three kills in a row at random points, then a resume to
		// the end.
		for k := range 1 + rng.IntN(3) {
			a := args
			if k > 0 {
				a = append(a, "--resume")
			}
			c := child(t, dir, a...)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			// Within the first half of an uninterrupted run's time: the
			// reference run may have been the slow one (a cold cache, a
			// loaded machine), and kills after the end test nothing.
			time.Sleep(time.Duration(rng.Int64N(int64(whole)/2 + 1)))
			c.Process.Kill() // SIGKILL
			if err := c.Wait(); err == nil {
				continue // it had finished
			}
			killed++
			if _, err := os.Stat(filepath.Join(dir, out)); err != nil {
				args = args[:len(faultCompare)+2] // killed before --out was made
			}
		}
		c := child(t, dir, append(args, "--resume")...)
		if msg, err := c.CombinedOutput(); err != nil {
			t.Fatalf("point %d: resume: %v\n%s", i, err, msg)
		}
		got, lines := readMasked(t, filepath.Join(dir, out))
		if lines != faultJobs {
			t.Errorf("point %d: %d lines after resume, want %d (one per job)", i, lines, faultJobs)
		}
		if !reflect.DeepEqual(got, ref) {
			t.Errorf("point %d: records after kill -9 and resume differ from the uninterrupted run's", i)
		}
	}
	t.Logf("%d kill -9s at %d points; every resumed file equals the uninterrupted run's %d records", killed, points, faultJobs)
	if killed == 0 {
		t.Fatal("no run was killed: the points all fell after the end")
	}
}

// TestTornRecordAtEveryByte cuts the results file inside its last record at
// every byte, and with only its newline missing (issue 25's reproducer), and
// resumes: the record is completed or its job run again, never counted and
// then cut.
func TestTornRecordAtEveryByte(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "3", "--train-size", "50",
		"--test-size", "50", "--format", "json", "-q"}
	full := filepath.Join(dir, "full.jsonl")
	mustRun(t, append(args, "--out", full)...)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := readMasked(t, full)
	last := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	// Every byte of the record's start and end, and 12 points between.
	var cuts []int
	for cut := last; cut < len(data); cut++ {
		if cut < last+6 || cut > len(data)-6 || (cut-last)%max(1, (len(data)-last)/12) == 0 {
			cuts = append(cuts, cut)
		}
	}
	for _, cut := range cuts {
		path := filepath.Join(dir, "torn.jsonl")
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := runCLI(t, append(args, "--out", path, "--resume")...); code != 0 {
			t.Fatalf("cut at byte %d: exit %d\n%s", cut, code, errOut)
		}
		got, lines := readMasked(t, path)
		if lines != 3 || !reflect.DeepEqual(got, ref) {
			t.Fatalf("cut at byte %d of %d: %d lines, records equal: %v", cut, len(data), lines, reflect.DeepEqual(got, ref))
		}
	}
}

// TestConcurrentWritersRefused starts a second writer of a results file
// while the first runs: two compares, two resumes, and two shards given the
// same --out. The second is refused at once naming the first's pid; the
// first finishes, and its file is whole.
func TestConcurrentWritersRefused(t *testing.T) {
	base := append(faultCompare[:len(faultCompare):len(faultCompare)], "--partitions", "6")
	for _, tc := range []struct {
		name        string
		first, then []string
		jobs        int
	}{
		{"two compares", nil, nil, 36},
		{"two resumes", []string{"--resume"}, []string{"--resume"}, 36},
		{"two shards", []string{"--shard", "1/2"}, []string{"--shard", "2/2"}, 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "r.jsonl")
			if tc.first != nil && tc.first[0] == "--resume" {
				// A run stopped after two records.
				full := child(t, dir, append(base, "--out", "full.jsonl")...)
				if msg, err := full.CombinedOutput(); err != nil {
					t.Fatalf("%v\n%s", err, msg)
				}
				data, _ := os.ReadFile(filepath.Join(dir, "full.jsonl"))
				lines := bytes.SplitAfter(data, []byte("\n"))
				os.WriteFile(path, bytes.Join(lines[:2], nil), 0o644)
			}
			first := child(t, dir, append(append(base, "--out", "r.jsonl"), tc.first...)...)
			var firstErr bytes.Buffer
			first.Stderr = &firstErr
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the first holds the lock (it has written a record).
			for n := 0; ; n++ {
				if recs, _ := experiment.ReadRecordsFile(path); len(recs) > 2 {
					break
				}
				if n > 2000 {
					first.Process.Kill()
					t.Fatal("the first run wrote no record in 20 s")
				}
				time.Sleep(10 * time.Millisecond)
			}
			second := child(t, dir, append(append(base, "--out", "r.jsonl"), tc.then...)...)
			msg, err := second.CombinedOutput()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != ExitError {
				t.Errorf("second writer: %v, want exit %d\n%s", err, ExitError, msg)
			}
			want := fmt.Sprintf("kerneltune: compare: --out r.jsonl is being written by another kerneltune run (pid %d): wait for it to end, or choose another file\n", first.Process.Pid)
			if string(msg) != want {
				t.Errorf("second writer says\n%s\nwant\n%s", msg, want)
			}
			if err := first.Wait(); err != nil {
				t.Fatalf("first writer: %v\n%s", err, firstErr.String())
			}
			recs, lines := readMasked(t, path)
			if len(recs) != tc.jobs || lines != tc.jobs {
				t.Errorf("%d records on %d lines, want %d", len(recs), lines, tc.jobs)
			}
		})
	}
}

// TestOutNotAFile: --out a directory is named as one, and --out /dev/null
// runs (throwing the records away) instead of failing to sync it.
func TestOutNotAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--train-size", "50", "--test-size", "50", "-q", "--format", "json"}
	_, errOut, code := runCLI(t, append(args, "--out", dir)...)
	if want := "kerneltune: compare: --out " + dir + " is a directory, not a results file\n"; code != ExitError || errOut != want {
		t.Errorf("--out DIR: exit %d, %q; want %d, %q", code, errOut, ExitError, want)
	}
	out, errOut, code := runCLI(t, append(args, "--out", os.DevNull)...)
	if code != 0 || errOut != "" || !strings.Contains(out, `"jobs_present": 2`) {
		t.Errorf("--out /dev/null: exit %d, stderr %q, stdout %.200q", code, errOut, out)
	}
}

// TestDamagedModels is the table of damaged model files: each is refused
// naming what is wrong, or read with a warning (an edit that leaves a
// consistent model: only its checksum tells), refused with --strict.
func TestDamagedModels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "heart.json")
	mustRun(t, "train", heartScale, "-o", good, "-q")
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	const (
		refused = iota
		warned  // no checksum: applied with a warning, refused with --strict
		edited  // a checksum that does not match: refused unless --ignore-checksum
		fine
	)
	for _, tc := range []struct {
		name    string
		mutate  func(m map[string]any)
		outcome int
		msg     string
	}{
		{"re-encoded, unchanged", func(map[string]any) {}, fine, ""},
		{"normalizer removed", func(m map[string]any) { delete(m, "normalizer") }, refused, "invalid model: no field normalizer (every model file has one)"},
		{"bias removed", func(m map[string]any) { delete(m, "bias") }, refused, "invalid model: no field bias (every model file has one)"},
		{"support_vectors removed", func(m map[string]any) { delete(m, "support_vectors") }, refused, "invalid model: no field support_vectors (every model file has one)"},
		{"one coef removed", func(m map[string]any) { sv(m, 3)["coef"] = nil; delete(sv(m, 3), "coef") }, refused, "invalid model: no field support_vectors[3].coef (every model file has one)"},
		{"one support vector removed", func(m map[string]any) { m["support_vectors"] = m["support_vectors"].([]any)[1:] }, refused, "invalid model: training.n_sv = 150, but the model has 149 support_vectors"},
		{"training removed", func(m map[string]any) { delete(m, "training") }, refused, "invalid model: no field training (every model file has one)"},
		{"training.rho removed", func(m map[string]any) { delete(m["training"].(map[string]any), "rho") }, refused, "invalid model: no field training.rho (every model file has one)"},
		{"labels.negative removed", func(m map[string]any) { delete(m["labels"].(map[string]any), "negative") }, refused, "invalid model: no field labels.negative (every model file has one)"},
		{"normalizer.kind unknown", func(m map[string]any) { m["normalizer"].(map[string]any)["kind"] = "whatever" }, refused, `invalid model: check normaliser: unknown kind "whatever" (want zscore, minmax01, minmax11, maxabs or none)`},
		{"margin unknown", func(m map[string]any) { m["margin"] = "soft" }, refused, `invalid model`},
		{"kernel kind unknown", func(m map[string]any) { m["kernel"].(map[string]any)["kind"] = "poly" }, refused, `invalid model: unknown kernel kind "poly" (this kerneltune knows gaussian, l1, linear)`},
		{"format_version 2 without encoder", func(m map[string]any) { m["format_version"] = 2 }, refused, "invalid model: format_version 2 without an encoder (a model without one is version 1)"},
		{"format_version 5 without sparse support vectors", func(m map[string]any) { m["format_version"] = 5 }, refused, "invalid model: format_version 5 without sparse support vectors (a model without them is version 1, 2, 3 or 4)"},
		{"format_version 6 without a sparse normaliser", func(m map[string]any) { m["format_version"] = 6 }, refused, "invalid model: format_version 6 without sparse support vectors (a model without them is version 1, 2, 3 or 4)"},
		{"format_version 7", func(m map[string]any) { m["format_version"] = 7 }, refused, "unsupported format_version 7 (this kerneltune reads 1, 2, 3, 4, 5 and 6)"},
		{"sparse_support_vectors in a dense model", func(m map[string]any) { m["sparse_support_vectors"] = true }, refused, "invalid model: no field support_vectors[0].index (every model file has one)"},
		{"sparse_support_vectors in a version 1 file", func(m map[string]any) {
			m["sparse_support_vectors"] = true
			for _, v := range m["support_vectors"].([]any) {
				sv := v.(map[string]any)
				delete(sv, "x")
				sv["index"], sv["value"] = []any{1}, []any{0.5}
			}
		}, refused, "invalid model: sparse support vectors in a format_version 1 file (they need 5)"},
		{"binary format_version 3", func(m map[string]any) { m["format_version"] = 3 }, refused, "invalid model: format_version 3 without an encoder (a model without one is version 1)"},
		{"a support vector one feature short", func(m map[string]any) { x := sv(m, 0)["x"].([]any); sv(m, 0)["x"] = x[1:] }, refused, "invalid model: support vector 1 has 12 features, want 13"},
		{"normalizer one feature short", func(m map[string]any) {
			n := m["normalizer"].(map[string]any)
			n["shift"], n["scale"] = n["shift"].([]any)[1:], n["scale"].([]any)[1:]
		}, refused, "invalid model: normaliser has 12 features, want 13"},
		{"bias edited", func(m map[string]any) { m["bias"] = m["bias"].(float64) + 0.5 }, refused, "invalid model: bias = "},
		{"bias and rho edited together", func(m map[string]any) {
			m["bias"] = m["bias"].(float64) + 0.5
			m["training"].(map[string]any)["rho"] = -m["bias"].(float64)
		}, edited, "the model's content does not match its checksum: the file was edited after kerneltune wrote it"},
		{"a coefficient edited", func(m map[string]any) { sv(m, 0)["coef"] = 2 * sv(m, 0)["coef"].(float64) }, edited, "the model's content does not match its checksum"},
		{"kernel gamma ×10 (issue 34)", func(m map[string]any) {
			k := m["kernel"].(map[string]any)
			k["gamma"] = 10 * k["gamma"].(float64)
		}, edited, "the model's content does not match its checksum"},
		{"checksum removed", func(m map[string]any) { delete(m, "checksum") }, warned, "the model has no checksum (written by a kerneltune before checksums, or edited): an edit cannot be told"},
		// Issue 42, item 11: without a checksum a null was read as 0.
		{"no checksum, a coef null", func(m map[string]any) { delete(m, "checksum"); sv(m, 3)["coef"] = nil }, refused,
			"invalid model: field support_vectors[3].coef is null, not a value (every model file kerneltune writes has one; it would be read as 0)"},
		{"no checksum, a support vector's value null", func(m map[string]any) { delete(m, "checksum"); sv(m, 2)["x"].([]any)[4] = nil }, refused,
			"invalid model: field support_vectors[2].x[4] is null"},
		{"no checksum, a normaliser shift null", func(m map[string]any) {
			delete(m, "checksum")
			m["normalizer"].(map[string]any)["shift"].([]any)[1] = nil
		}, refused, "invalid model: field normalizer.shift[1] is null"},
		{"no checksum, C null", func(m map[string]any) { delete(m, "checksum"); m["C"] = nil }, refused, "invalid model: field C is null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			tc.mutate(m)
			b, _ := json.MarshalIndent(m, "", "  ")
			path := filepath.Join(dir, "m.json")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLI(t, "predict", path, heartScale, "--format", "json")
			_, strictErr, strictCode := runCLI(t, "predict", "--strict", path, heartScale, "--format", "json")
			switch tc.outcome {
			case fine:
				if code != 0 || errOut != "" || strictCode != 0 || !strings.Contains(out, `"accuracy"`) || !strings.Contains(out, `"checksum": "ok"`) {
					t.Errorf("exit %d, %q; --strict: exit %d, %q", code, errOut, strictCode, strictErr)
				}
			case refused:
				want := "kerneltune: read model " + path + ": "
				if code != ExitError || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, tc.msg) || out != "" {
					t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, ExitError, want+tc.msg)
				}
			case edited:
				// Issue 34, item 4: refused, -q or not, naming the flag that
				// applies it; with the flag, a warning, and JSON says so.
				want := "kerneltune: predict: " + path + ": " + tc.msg
				_, qErr, qCode := runCLI(t, "predict", "-q", path, heartScale, "--format", "json")
				for _, got := range []struct {
					code   int
					stderr string
				}{{code, errOut}, {qCode, qErr}} {
					if got.code != ExitError || !strings.HasPrefix(got.stderr, want) || !strings.HasSuffix(got.stderr, "; pass --ignore-checksum to apply it anyway\n") {
						t.Errorf("exit %d, stderr %q; want exit %d and %q … --ignore-checksum", got.code, got.stderr, ExitError, want)
					}
				}
				out, errOut, code := runCLI(t, "predict", "--ignore-checksum", path, heartScale, "--format", "json")
				if want := "kerneltune: warning: " + path + ": " + tc.msg; code != 0 || !strings.HasPrefix(errOut, want) || !strings.Contains(out, `"checksum": "mismatch"`) {
					t.Errorf("--ignore-checksum: exit %d, stderr %q, checksum in JSON: %v", code, errOut, strings.Contains(out, `"checksum": "mismatch"`))
				}
			case warned:
				// Said with -q too (issue 42, item 11): an edit cannot be told.
				_, qErr, qCode := runCLI(t, "predict", "-q", path, heartScale, "--format", "json")
				if want := "kerneltune: warning: " + path + ": " + tc.msg; code != 0 || !strings.HasPrefix(errOut, want) || !strings.Contains(out, `"checksum": "missing"`) || qCode != 0 || !strings.HasPrefix(qErr, want) {
					t.Errorf("exit %d, stderr %q, with -q exit %d, stderr %q; want exit 0 and %q", code, errOut, qCode, qErr, want)
				}
				if want := "kerneltune: predict: " + path + ": " + tc.msg; strictCode != ExitError || !strings.HasPrefix(strictErr, want) || !strings.HasSuffix(strictErr, " (--strict)\n") {
					t.Errorf("--strict: exit %d, stderr %q; want exit %d and %q", strictCode, strictErr, ExitError, want)
				}
			}
		})
	}
}

// sv returns support vector i of a decoded model file.
func sv(m map[string]any, i int) map[string]any {
	return m["support_vectors"].([]any)[i].(map[string]any)
}

// TestTrainEpsTooLargeSaysSo: a tolerance the starting point already meets
// (its KKT violation is 2) ended the solve at once, "converged" with no
// support vector; it is refused with the range where --eps means something
// (issue 42 item 15). The default keeps its support vectors.
func TestTrainEpsTooLargeSaysSo(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "train", heartScale, "--eps", "1e300")
	if want := "--eps 1e+300: want a number from 1e-15 to 1: the KKT violation at the start is 2"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("--eps 1e300: exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if r := trainJSON(t, heartScale); slices.ContainsFunc(r.Notes, func(n hint.Text) bool { return strings.Contains(n.String(), "first step") }) || r.NSV == 0 {
		t.Errorf("default --eps: n_sv %d, notes %q", r.NSV, r.Notes)
	}
}

// TestDamagedRecords is the table of damaged results files, each read by
// report as a user would: refused naming the file and line, or handled
// (the same tables as the intact file, or a partial run said to be one).
func TestDamagedRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "r.jsonl")
	mustRun(t, "compare", "builtin:heart", "--methods", "svm", "--partitions", "3", "--train-size", "50", "--test-size", "50", "--out", good, "-q")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	intact := mustRun(t, "report", good)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	edit := func(i int, old, new string) string {
		l := slices.Clone(lines)
		if !regexp.MustCompile(old).MatchString(l[i]) {
			t.Fatalf("line %d has no %s", i+1, old)
		}
		l[i] = regexp.MustCompile(old).ReplaceAllString(l[i], new)
		return strings.Join(l, "") + "\n"
	}
	const (
		refused = iota
		same    // the intact file's tables, exit 0
		partial // exit 1, INCOMPLETE
	)
	for _, tc := range []struct {
		name, text string
		outcome    int
		msg        string // refused: after "kerneltune: FILE"
	}{
		{"intact", string(data), same, ""},
		{"last newline missing", strings.TrimSuffix(string(data), "\n"), same, ""},
		{"a job twice, the same values", string(data) + lines[1], same, ""},
		{"a job twice, other wall time", string(data) + regexp.MustCompile(`"seconds":[0-9.e-]+`).ReplaceAllString(lines[1], `"seconds":99`), same, ""},
		{"last record torn", strings.Join(lines[:2], "") + lines[2][:60], partial, ""},
		{"a record lost", strings.Join(lines[:2], ""), partial, ""},
		{"a job twice, other values", string(data) + regexp.MustCompile(`"nsv":[0-9]+`).ReplaceAllString(lines[1], `"nsv":1`), refused,
			":4: job (dataset heart, entry svm, partition " + regexp.MustCompile(`"partition":([0-9]+)`).FindStringSubmatch(lines[1])[1] + ") is recorded twice with different values: at FILE:2 and FILE:4 (nsv " + regexp.MustCompile(`"nsv":([0-9]+)`).FindStringSubmatch(lines[1])[1] + " vs 1)"},
		{"test_accuracy 1.7", edit(0, `"test_accuracy":[0-9.]+`, `"test_accuracy":1.7`), refused, ":1: test_accuracy 1.7 is not in [0, 1]"},
		{"partition 999", edit(1, `"partition":[0-9]+`, `"partition":999`), refused, ":2: partition 999 is outside the run's grid (heart has 3 partitions: 0 to 2)"},
		{"dataset not in the grid", edit(2, `"dataset":"heart"`, `"dataset":"iris"`), refused, `:3: dataset "iris" is not in the run's grid`},
		{"negative nsv", edit(2, `"nsv":[0-9]+`, `"nsv":-3`), refused, ":3: nsv -3 < 0"},
		{"a line of garbage", lines[0] + "{oops\n" + strings.Join(lines[1:], ""), refused, ":2: not a result record of 'kerneltune compare --out': invalid character 'o' looking for beginning of object key string"},
		// Issue 34, item 2: a field a table uses, missing or null, is not
		// read as 0; an accuracy its own confusion matrix contradicts is
		// refused.
		{"test_accuracy removed", edit(1, `"test_accuracy":[0-9.]+,`, ``), refused, ":2: no field test_accuracy (every record compare writes has one; it would be read as 0)"},
		{"test_accuracy null", edit(1, `"test_accuracy":[0-9.]+`, `"test_accuracy":null`), refused, ":2: field test_accuracy is null, not a number (every record compare writes has one; it would be read as 0)"},
		{"nsv removed", edit(2, `"nsv":[0-9]+,`, ``), refused, ":3: no field nsv (every record compare writes has one; it would be read as 0)"},
		{"seconds null", edit(0, `"seconds":[0-9.e-]+`, `"seconds":null`), refused, ":1: field seconds is null, not a number (every record compare writes has one; it would be read as 0)"},
		{"test_accuracy contradicts test_confusion", edit(0, `"test_accuracy":[0-9.]+`, `"test_accuracy":0.99`), refused, ":1: test_accuracy 0.99 contradicts test_confusion ("},
		{"no run", edit(0, `"run":"[0-9a-f]+",`, ``), refused, ":1: not a result record of 'kerneltune compare --out': no run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "m.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLI(t, "report", path)
			switch tc.outcome {
			case same:
				if code != 0 || out != intact {
					t.Errorf("exit %d, stderr %q; tables equal the intact file's: %v", code, errOut, out == intact)
				}
			case partial:
				if code != ExitError || !strings.Contains(errOut, "INCOMPLETE: 2 of 3 jobs present") {
					t.Errorf("exit %d, stderr %q; want exit %d, INCOMPLETE: 2 of 3", code, errOut, ExitError)
				}
			case refused:
				want := "kerneltune: " + path + strings.ReplaceAll(tc.msg, "FILE", path) + "\n"
				match := errOut == want
				if strings.HasSuffix(tc.msg, "(") { // the rest is the record's numbers
					match = strings.HasPrefix(errOut, strings.TrimSuffix(want, "\n"))
				}
				if code != ExitError || !match || out != "" {
					t.Errorf("exit %d, stderr\n%q\nwant exit %d and\n%q", code, errOut, ExitError, want)
				}
			}
		})
	}
}

// Issue 34, item 1: two runs that share no (dataset, method) pair but give
// the name heart to other data (or the same data drawn otherwise) are
// refused by report naming what differs, or shown as two datasets with
// --split-identities.
func TestFaultReportOneNameTwoDatasets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	sizes := []string{"--partitions", "3", "--train-size", "60", "--test-size", "60", "-q"}
	mustRun(t, append([]string{"compare", "builtin:heart", "--methods", "svm", "--out", a}, sizes...)...)
	mustRun(t, append([]string{"compare", "builtin:diabetes", "--name", "heart", "--methods", "spd", "--out", b}, sizes...)...)
	mustRun(t, append([]string{"compare", "builtin:heart", "--methods", "spd", "--seed", "7", "--out", c}, sizes...)...)
	for _, tc := range []struct{ file, diff string }{{b, "read.features 13 vs 8; sha256 "}, {c, "seed 1 vs 7"}} {
		out, errOut, code := runCLI(t, "report", a, tc.file)
		want := "kerneltune: dataset heart in " + tc.file + " is not the dataset heart in " + a + ": " + tc.diff
		if code != ExitError || out != "" || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "--split-identities") {
			t.Errorf("report a %s: exit %d, stdout %.100q, stderr %q; want exit 1 and %q", tc.file, code, out, errOut, want)
		}
		out, errOut, code = runCLI(t, "report", "--split-identities", "--allow-partial", a, tc.file)
		if code != 0 || !strings.Contains(out, "heart#2 (3 partitions: 60 train / 60 test of ") || !strings.Contains(errOut, "heart#2 is dataset heart of "+tc.file) {
			t.Errorf("--split-identities: exit %d, stderr %q, stdout %.300q", code, errOut, out)
		}
	}
}

// Issue 34, item 8: the same job run twice, written with another --out,
// --workers or --shard, is the same record: report merges the files
// (compared on what the job computed, not on the command line that ran it).
func TestFaultReportSameJobOtherInvocation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--train-size", "60", "--test-size", "60", "-q"}
	a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	mustRun(t, append(args, "--out", a)...)
	mustRun(t, append(args, "--out", b, "--workers", "1")...)
	mustRun(t, append(args, "--out", c, "--shard", "2/2")...)
	one := mustRun(t, "report", a)
	if out, errOut, code := runCLI(t, "report", a, b, c); code != 0 || out != one {
		t.Errorf("report a b c: exit %d, %s; tables equal a's: %v", code, errOut, out == one)
	}
}

// devFull opens /dev/full (every write fails with ENOSPC, a full disk), or
// skips when this machine has none.
func devFull(t *testing.T) *os.File {
	t.Helper()
	st, err := os.Stat("/dev/full")
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/full character device here")
	}
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Issue 34, item 3: a write that fails (a full disk: /dev/full) exits 1
// naming the file, in every output format, to standard output (the table
// renderer dropped its writer's errors: predict -o FILE on a full disk
// exited 0); --version and --help too (issue 42, item 18: exit 2, a usage
// error, and 0). /dev/full given as an output file is a device, refused
// before any work since issue 42, item 4 (a full disk under an output file:
// TestFaultFullDiskKeepsThePreviousFile).
func TestFaultWritesToAFullDisk(t *testing.T) {
	full := devFull(t)
	dir := t.TempDir()
	heartScale, err := filepath.Abs(heartScale) // the children run in dir
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "m.json")
	mustRun(t, "train", heartScale, "-o", m, "-q")
	run := []string{"--partitions", "2", "--train-size", "40", "--test-size", "40", "-q"}
	res := filepath.Join(dir, "r.jsonl")
	mustRun(t, append([]string{"compare", "builtin:heart", "--methods", "svm", "--out", res}, run...)...)
	for _, args := range [][]string{
		{"predict", m, heartScale, "-o", "/dev/full"},
		{"predict", m, heartScale, "-o", "/dev/full", "--format", "csv"},
		{"predict", m, heartScale, "-o", "/dev/full", "--format", "labels"},
		{"predict", m, heartScale, "-o", "/dev/full", "--format", "json"},
		{"train", heartScale, "-o", "/dev/full", "-q"},
		{"generate", "weston", "-o", "/dev/full"},
		{"report", res, "--html", "/dev/full"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != ExitError || !strings.Contains(errOut, "/dev/full is a device, not a file") {
			t.Errorf("%v: exit %d, %q; want exit 1 naming /dev/full", args, code, errOut)
		}
	}
	for _, args := range [][]string{
		{"--version"},
		{"--help"},
		{"predict", m, heartScale},
		{"predict", m, heartScale, "--per-point", "-q"},
		{"predict", m, heartScale, "--format", "csv", "-q"},
		{"info", heartScale},
		{"info", heartScale, "--format", "json"},
		{"info", heartScale, "--format", "markdown"},
		// A 2 × 2 grid: the table and JSON are those of the full grid's
		// tune (whose 110 points took 5 of this test's 9-11 CPU s under the
		// race detector), written once the tune ends.
		{"tune", heartScale, "--method", "svm", "-q", "--log2c", "-1,1,2", "--log2g", "-3,-1,2"},
		{"tune", heartScale, "--method", "svm", "-q", "--log2c", "-1,1,2", "--log2g", "-3,-1,2", "--format", "json"},
		{"train", heartScale, "-q"},
		{"generate", "weston"},
		{"report", res},
		{"report", res, "--format", "latex"},
		{"report", res, "--format", "csv"},
		{"compare", "builtin:heart", "--methods", "svm", "--dry-run"},
		append([]string{"compare", "builtin:heart", "--methods", "svm", "--format", "markdown"}, run...),
	} {
		c := child(t, dir, args...)
		c.Stdout = full
		var stderr bytes.Buffer
		c.Stderr = &stderr
		err := c.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != ExitError || !strings.HasSuffix(stderr.String(), "no space left on device\n") {
			t.Errorf("%v > /dev/full: %v, %q; want exit 1 and the failed write", args, err, stderr.String())
		}
	}
	// A failed generate removed its partial file: /dev/full itself, as root.
	if st, err := os.Stat("/dev/full"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("/dev/full is no longer a device: %v, %v", st.Mode(), err)
	}
}

// Issue 34, item 10: generate -o - writes to standard output, as "-" means
// for DATA, not to a file named "-".
func TestFaultGenerateDashIsStdout(t *testing.T) {
	dir := t.TempDir()
	c := child(t, dir, "generate", "weston", "--n", "5", "-o", "-")
	out, err := c.Output()
	if err != nil || !strings.HasPrefix(string(out), "x1,") {
		t.Errorf("generate -o -: %v, stdout %.80q", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error("generate -o - wrote a file named -")
	}
}

// Issue 34, item 5: a multi-class model's pairs are checked field by field
// as a binary model is: a pair's lost bias and rho are refused (they were
// read as 0, and changed the predictions), checksum or not.
func TestFaultMulticlassModelPairFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	iris := filepath.Join(cmdTestdata, "multiclass/iris.scale")
	good := filepath.Join(dir, "iris.json")
	mustRun(t, "train", iris, "-o", good, "-q")
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(m map[string]any)
		msg    string
	}{
		{"pair bias and rho removed, checksum too", func(m map[string]any) {
			p := m["pairs"].([]any)[1].(map[string]any)
			delete(p, "bias")
			delete(p["training"].(map[string]any), "rho")
			delete(m, "checksum")
		}, "invalid model: no field pairs[1].bias (every model file has one)"},
		{"pair rho removed", func(m map[string]any) {
			delete(m["pairs"].([]any)[2].(map[string]any)["training"].(map[string]any), "rho")
		}, "invalid model: no field pairs[2].training.rho (every model file has one)"},
		{"pair support vector coef removed", func(m map[string]any) {
			delete(m["pairs"].([]any)[0].(map[string]any)["support_vectors"].([]any)[0].(map[string]any), "coef")
		}, "invalid model: no field pairs[0].support_vectors[0].coef (every model file has one)"},
	} {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		tc.mutate(m)
		b, _ := json.Marshal(m)
		path := filepath.Join(dir, "m.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"predict", "-q", path, iris}, {"predict", "--ignore-checksum", path, iris}} {
			out, errOut, code := runCLI(t, args...)
			want := "kerneltune: read model " + path + ": " + tc.msg + "\n"
			if code != ExitError || errOut != want || out != "" {
				t.Errorf("%s: %v: exit %d, %q; want exit 1 and %q", tc.name, args, code, errOut, want)
			}
		}
	}
}

// Issue 34, item 6: sizes near MaxInt, a study's partitions out of bounds,
// and inputs without end (/dev/zero) are refused with a clear error, never
// a panic or a read until the memory runs out. The input limits are
// lowered here, so that /dev/zero reaches them at once.
func TestFaultUnboundedInputs(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	defer func(d, m, s int64, r int) {
		dataio.MaxInputBytes, model.MaxFileBytes, study.MaxFileBytes, experiment.MaxRecordBytes = d, m, s, r
	}(dataio.MaxInputBytes, model.MaxFileBytes, study.MaxFileBytes, experiment.MaxRecordBytes)
	dataio.MaxInputBytes, model.MaxFileBytes, study.MaxFileBytes, experiment.MaxRecordBytes = 1<<20, 1<<20, 1<<20, 1<<20
	dir := t.TempDir()
	m := filepath.Join(dir, "m.json")
	mustRun(t, "train", heartScale, "-o", m, "-q")
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(big, bytes.Repeat([]byte("1,2,a\n"), 200000), 0o644); err != nil {
		t.Fatal(err)
	}
	studyFile := func(partitions string) string {
		p := filepath.Join(dir, "s"+partitions+".yaml")
		os.WriteFile(p, []byte("seed: 1\npartitions: "+partitions+"\nmethods: [svm]\ndatasets:\n  - path: builtin:heart\n"), 0o644)
		return p
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", "builtin:heart", "--methods", "svm", "--train-size", "9223372036854775807", "-q"}, 1,
			"kerneltune: compare: builtin:heart: draw partitions: 9223372036854775807 training + 100 test rows do not fit in 270 rows"},
		{[]string{"compare", "builtin:heart", "--methods", "svm", "--train-size", "50", "--test-size", "9223372036854775807", "-q"}, 1,
			"draw partitions: 50 training + 9223372036854775807 test rows do not fit in 270 rows"},
		{[]string{"compare", "--study", studyFile("0"), "-q"}, 2, ":2: partitions: want a number of partitions between 1 and 100000, got 0"},
		{[]string{"compare", "--study", studyFile("9223372036854775807"), "-q"}, 2, ":2: partitions: want a number of partitions between 1 and 100000, got 9223372036854775807"},
		{[]string{"compare", "--study", studyFile("100000000"), "-q"}, 2, ":2: partitions: want a number of partitions between 1 and 100000, got 100000000"},
		// /dev/zero is refused at its first byte (it read 1 GiB before).
		{[]string{"compare", "--study", "/dev/zero", "-q"}, 2, "/dev/zero:1: byte 1 is a NUL byte: kerneltune reads text files"},
		{[]string{"info", "/dev/zero"}, 1, "kerneltune: read data: /dev/zero:1: byte 1 is a NUL byte: kerneltune reads text files (CSV, LIBSVM, ARFF, IDA, JSON, YAML), and this one is compressed, binary or UTF-16 (gunzip it, or save it as UTF-8 text)"},
		{[]string{"predict", m, "/dev/zero"}, 1, "/dev/zero:1: byte 1 is a NUL byte"},
		{[]string{"predict", "/dev/zero", heartScale}, 1, "kerneltune: read model /dev/zero: the model:1: byte 1 is a NUL byte"},
		{[]string{"report", "/dev/zero"}, 1, "kerneltune: /dev/zero:1: a line longer than 1 MiB is not a result record"},
		// Text past the limit, from a file and from standard input.
		{[]string{"info", big}, 1, "kerneltune: read data: " + big + " is larger than 1 MiB, the most kerneltune reads of one input"},
		{[]string{"compare", "--study", big, "-q"}, 2, big + " is larger than 1 MiB, the most kerneltune reads of one input"},
		{[]string{"predict", big, heartScale}, 1, "kerneltune: read model " + big + ": " + big + " is larger than 1 MiB"},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// Issue 34, item 9 (in part): a dry run says when the partitions are too
// few for any paired test to reach p < 0.05, and data too small for the
// default sizes is refused naming the flags that fit it.
func TestFaultDryRunSaysWhatItSees(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "h120")
	os.WriteFile(small, bytes.Join(bytes.SplitAfter(data, []byte("\n"))[:120], nil), 0o644)
	out, errOut, code := runCLI(t, "compare", small, "--methods", "svm,spd", "--partitions", "3", "--train-size", "50", "--test-size", "50", "--dry-run")
	if want := "note: h120: with 3 partitions no paired Wilcoxon test against the reference can reach p < 0.05 (the smallest possible p is 0.25): give --partitions 6 or more\n"; code != 0 || !strings.HasSuffix(out, want) {
		t.Errorf("exit %d, %s, stdout %q; want the note %q", code, errOut, out, want)
	}
	if out, _, _ := runCLI(t, "compare", small, "--methods", "svm,spd", "--partitions", "6", "--train-size", "50", "--test-size", "50", "--dry-run"); strings.Contains(out, "note:") {
		t.Errorf("6 partitions: %q", out)
	}
	_, errOut, code = runCLI(t, "compare", small, "--methods", "svm", "--dry-run")
	if want := "120 rows: give a training fraction (--train-fraction 0.5, train-fraction in a study: half of the rows train, the rest test) or a --train-size and --test-size that fit\n"; code != ExitError || !strings.HasSuffix(errOut, want) {
		t.Errorf("default sizes on 120 rows: exit %d, %q; want %q", code, errOut, want)
	}
}
