package cmd

// compare --resume of a results file whose records are of the same run id
// but another dataset: the run id of a list of files does not hold its read
// options, and a resume with another --positive gave the old records the
// new run's identity, exit 0 (issue 42, "nothing silently wrong"; issue 43,
// one identity).

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// resumeBase is the small run the resume tests interrupt: 2 partitions of
// one method, 2 jobs.
var resumeBase = []string{"--methods", "svm", "--partitions", "2", "--train-size", "50", "--test-size", "50", "-q"}

// TestFaultResumeOtherDatasetRefused: a resume whose dataset is read,
// normalised or made otherwise than its records' is refused before any job
// runs, exit 1, naming the dataset and what differs; the file is left as
// it was. Before the fix --positive -1, --label-col 2 and --features 20
// resumed with exit 0 and reported the old records as the new run's.
func TestFaultResumeOtherDatasetRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file string // file: testdata's, copied in as data
		data       string // the name given on the command line
		flags      []string
		edit       func(t *testing.T, path string) // the data changed under its name
		want       []string
	}{
		{name: "positive", file: "libsvm/heart_scale", data: "x.libsvm", flags: []string{"--positive", "-1"},
			want: []string{"dataset x ", "read.labels.positive: 1 → -1"}},
		{name: "label column", file: "uci/heart.dat", data: "h.dat", flags: []string{"--label-col", "2"},
			want: []string{"dataset h ", "read.label_col: (default) → 2"}},
		{name: "features", file: "libsvm/heart_scale", data: "x.libsvm", flags: []string{"--features", "20"},
			want: []string{"dataset x ", "read.features: 13 → 20"}},
		// The normalisation and the data's hash: these were refused before
		// the fix too.
		{name: "normalize", file: "libsvm/heart_scale", data: "x.libsvm", flags: []string{"--normalize", "minmax01"},
			want: []string{"dataset x ", "normalize: zscore → minmax01"}},
		{name: "data changed", file: "libsvm/heart_scale", data: "x.libsvm",
			edit: func(t *testing.T, path string) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.SplitAfter(string(b), "\n")
				if err := os.WriteFile(path, []byte(strings.Join(lines[1:], "")), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"dataset x ", "sha256: 5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9 → "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data, out := filepath.Join(dir, c.data), filepath.Join(dir, "r.jsonl")
			copyFile(t, filepath.Join(cmdTestdata, c.file), data)
			args := append([]string{"compare", data, "--out", out}, resumeBase...)
			mustRun(t, args...)
			before, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if c.edit != nil {
				c.edit(t, data)
			}
			stdout, stderr, code := runCLI(t, append(append(args, "--resume"), c.flags...)...)
			if code != 1 {
				t.Fatalf("resume with %v: exit %d, want 1 (the records are of another dataset)\nstdout:\n%s\nstderr:\n%s", c.flags, code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("resume with %v: stderr %q does not say %q", c.flags, stderr, w)
				}
			}
			if stdout != "" {
				t.Errorf("a refused resume printed a table:\n%s", stdout)
			}
			after, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != string(before) {
				t.Error("a refused resume changed the results file")
			}
		})
	}
}

// TestFaultResumeSameDatasetGoesOn: a resume with the same command, or
// with settings that do not change results (--workers, --out spelled
// otherwise, --shard), goes on and ends with the records of an
// uninterrupted run.
func TestFaultResumeSameDatasetGoesOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "x.libsvm")
	copyFile(t, heartScale, data)
	// Read options given, so that the check compares them.
	run := append([]string{"compare", data, "--positive", "-1", "--features", "13"}, resumeBase...)
	ref := filepath.Join(dir, "ref.jsonl")
	mustRun(t, append(run, "--out", ref)...)
	want, lines := readMasked(t, ref)
	if len(want) != 2 || lines != 2 {
		t.Fatalf("uninterrupted run: %d records on %d lines, want 2", len(want), lines)
	}
	full, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	first := full[:strings.IndexByte(string(full), '\n')+1]
	for _, c := range []struct {
		name  string
		start []byte   // the file as the interrupted run left it (nil: its shard 1/2)
		flags []string // the resume's
	}{
		{"same command", first, nil},
		{"workers and out spelled otherwise", first, []string{"--workers", "1", "--out-dot"}},
		{"after shard 1 of 2", nil, nil},
		{"shard 2 of 2", nil, []string{"--shard", "2/2"}},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
		if c.start != nil {
			if err := os.WriteFile(out, c.start, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			mustRun(t, append(run, "--out", out, "--shard", "1/2")...)
		}
		args := append(run, "--resume")
		for _, f := range c.flags {
			if f == "--out-dot" {
				// The same file through another spelling.
				args = append(args, "--out", dir+string(filepath.Separator)+"."+string(filepath.Separator)+filepath.Base(out))
				continue
			}
			args = append(args, f)
		}
		if !strings.Contains(strings.Join(args, " "), "--out ") {
			args = append(args, "--out", out)
		}
		if _, stderr, code := runCLI(t, args...); code != 0 {
			t.Fatalf("%s: resume: exit %d\n%s", c.name, code, stderr)
		}
		got, n := readMasked(t, out)
		if n != 2 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d lines after resume; records equal to the uninterrupted run's: %v", c.name, n, reflect.DeepEqual(got, want))
		}
	}
}

// copyFile copies the file src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
