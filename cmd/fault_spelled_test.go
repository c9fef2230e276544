package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// Issue 42, item 16: the same data spelled differently — a default spelled
// out, --normalize maxabs where auto meant maxabs — is the same run and
// the same dataset: compare --resume goes on with the file (under its run
// id and identity) and report merges the files; a genuinely different
// option is still refused.

// spelledDefaults are heart_scale's defaults spelled out.
var spelledDefaults = [][]string{
	{"--input-format", "libsvm"},
	{"--features", "13"},
	{"--positive", "1"},
	{"--missing", "drop"},
	{"--categorical", "onehot"},
	{"--log2c", "-5,15,2", "--log2g", "3,-15,-2"},
}

// spelledBase is a small compare of data (2 partitions, svm and random).
func spelledBase(data string, more ...string) []string {
	return append([]string{"compare", data, "--methods", "svm,random", "--budget", "6", "--train-size", "60", "--test-size", "60", "--partitions", "2", "-q"}, more...)
}

// resumeSpelled copies the first keep lines of full (copyLines) and
// resumes the copy with the extra options; it returns the copy and the
// run's stderr and exit code.
func resumeSpelled(t *testing.T, data, full string, keep int, extra ...string) (string, string, int) {
	t.Helper()
	f := copyLines(t, full, keep)
	_, errOut, code := runCLI(t, spelledBase(data, append(extra, "--out", f, "--resume")...)...)
	return f, errOut, code
}

// copyLines copies the first keep lines of full (all: keep < 0) to a new
// file and returns it.
func copyLines(t *testing.T, full string, keep int) string {
	t.Helper()
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	if keep >= 0 {
		lines := bytes.SplitAfter(b, []byte("\n"))
		b = bytes.Join(lines[:keep], nil)
	}
	f := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// sameRecords reports what differs between the records of two files (run,
// identity and results; the provenance's command line aside).
func sameRecords(t *testing.T, a, b string) []string {
	t.Helper()
	ra, _ := readMasked(t, a)
	rb, _ := readMasked(t, b)
	if len(ra) != len(rb) {
		return []string{"record counts differ"}
	}
	var out []string
	for i := range ra {
		x, y := ra[i], rb[i]
		if x.Run != y.Run || x.Identity != y.Identity || x.Entry != y.Entry || x.Partition != y.Partition ||
			x.TestAccuracy != y.TestAccuracy || x.NSV != y.NSV || x.C != y.C {
			out = append(out, x.Entry+"/"+y.Entry)
		}
	}
	return out
}

func TestFaultSpelledDefaultResumes(t *testing.T) {
	t.Parallel()
	plain := filepath.Join(t.TempDir(), "plain.jsonl")
	mustRun(t, spelledBase(heartScale, "--out", plain)...)
	want, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range spelledDefaults {
		// The whole file: no job runs, the file is as it was.
		f, errOut, code := resumeSpelled(t, heartScale, plain, -1, opt...)
		if got, _ := os.ReadFile(f); code != 0 || !bytes.Equal(got, want) {
			t.Errorf("%v: resume the whole file: exit %d, %s; file changed %v", opt, code, errOut, !bytes.Equal(got, want))
		}
		// The last job lost: it runs again, under the file's run and
		// identity, to the same record.
		f, errOut, code = resumeSpelled(t, heartScale, plain, 3, opt...)
		if d := sameRecords(t, plain, f); code != 0 || len(d) > 0 {
			t.Errorf("%v: resume 3 of 4 records: exit %d, %s; differ %v", opt, code, errOut, d)
		}
	}
	// A study's dataset with its defaults spelled out (its run id hashes
	// them): the study's file resumes.
	abs, err := filepath.Abs(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	study := func(name, more string) string {
		f := filepath.Join(t.TempDir(), name+".yaml")
		y := "name: s\nseed: 1\npartitions: 2\ntrain-size: 60\ntest-size: 60\nmethods: [svm, random]\nbudget: 6\ndatasets:\n  - path: " + abs + "\n    name: heart\n" + more
		if err := os.WriteFile(f, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	studyOut := filepath.Join(t.TempDir(), "study.jsonl")
	mustRun(t, "compare", "--study", study("plain", ""), "--out", studyOut, "-q")
	for _, c := range []struct {
		more string
		ok   bool
	}{
		{"    features: 13\n    input-format: libsvm\n    positive: \"1\"\n    missing: drop\n", true},
		{"    features: 20\n", false},
	} {
		f := copyLines(t, studyOut, 3)
		_, errOut, code := runCLI(t, "compare", "--study", study("spelled", c.more), "--out", f, "--resume", "-q")
		switch d := sameRecords(t, studyOut, f); {
		case c.ok && (code != 0 || len(d) > 0):
			t.Errorf("study %q: resume 3 of 4 records: exit %d, %s; differ %v", c.more, code, errOut, d)
		case !c.ok && (code != ExitError || !strings.Contains(errOut, "holds records of dataset heart that are not of heart as it is now read: read.features: 13 → 20")):
			t.Errorf("study %q: exit %d, %q; want another run", c.more, code, errOut)
		}
	}
	// auto on sparse data is maxabs.
	a1a := cmdTestdata + "/libsvm/a1a"
	auto := filepath.Join(t.TempDir(), "auto.jsonl")
	mustRun(t, spelledBase(a1a, "--out", auto)...)
	f, errOut, code := resumeSpelled(t, a1a, auto, 3, "--normalize", "maxabs")
	if d := sameRecords(t, auto, f); code != 0 || len(d) > 0 {
		t.Errorf("a1a --normalize maxabs: resume 3 of 4 records: exit %d, %s; differ %v", code, errOut, d)
	}
	// Other settings are another run.
	if _, errOut, code := resumeSpelled(t, a1a, auto, 3, "--normalize", "zscore"); code != ExitError || !strings.Contains(errOut, "holds records of dataset a1a that are not of a1a as it is now read: normalize: maxabs → zscore") {
		t.Errorf("a1a --normalize zscore: exit %d, %q; want another run", code, errOut)
	}
	if _, errOut, code := resumeSpelled(t, heartScale, plain, 3, "--log2c", "-5,15,4"); code != ExitError || !strings.Contains(errOut, "written by a run with other settings") || !strings.Contains(errOut, "entry svm: log2c: (default) → -5,15,4") {
		t.Errorf("--log2c -5,15,4: exit %d, %q; want another run", code, errOut)
	}
}

func TestFaultSpelledDefaultMerges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.jsonl")
	mustRun(t, spelledBase(heartScale, "--out", plain)...)
	alone := mustRun(t, "report", plain, "--format", "csv")
	if !strings.Contains(alone, "\nheart_scale,svm,2,2,0,0,") {
		t.Fatalf("report plain:\n%s", alone)
	}
	for i, opt := range spelledDefaults {
		f := filepath.Join(dir, "spelled"+string(rune('a'+i))+".jsonl")
		mustRun(t, spelledBase(heartScale, append(opt, "--out", f)...)...)
		out, errOut, code := runCLI(t, "report", plain, f, "--format", "csv")
		if code != 0 || out != alone || errOut != "" {
			t.Errorf("%v: report plain spelled: exit %d, %s\n%s; want plain's report", opt, code, errOut, out)
		}
	}
	a1a := cmdTestdata + "/libsvm/a1a"
	auto, maxabs, zscore := filepath.Join(dir, "auto.jsonl"), filepath.Join(dir, "maxabs.jsonl"), filepath.Join(dir, "zscore.jsonl")
	mustRun(t, spelledBase(a1a, "--out", auto)...)
	mustRun(t, spelledBase(a1a, "--out", maxabs, "--normalize", "maxabs")...)
	mustRun(t, spelledBase(a1a, "--out", zscore, "--normalize", "zscore")...)
	if out, errOut, code := runCLI(t, "report", auto, maxabs, "--format", "csv"); code != 0 || out != mustRun(t, "report", auto, "--format", "csv") {
		t.Errorf("report auto maxabs: exit %d, %s\n%s; want auto's report", code, errOut, out)
	}
	// Genuinely different options are other datasets.
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{auto, zscore}, "normalize maxabs vs zscore"},
		{[]string{plain, spelledFile(t, dir, "f20", "--features", "20")}, "read.features 13 vs 20"},
		{[]string{plain, spelledFile(t, dir, "neg", "--positive", "-1")}, "read.labels.positive 1 vs -1"},
	} {
		if _, errOut, code := runCLI(t, append([]string{"report"}, c.files...)...); code != ExitError || !strings.Contains(errOut, "is not the dataset heart_scale") && !strings.Contains(errOut, "is not the dataset a1a") || !strings.Contains(errOut, c.want) {
			t.Errorf("report %v: exit %d, %q; want %q", c.files, code, errOut, c.want)
		}
	}
	// Records without provenance: their dataset identity is what they
	// are checked on, so they merge with no note.
	rs, err := experiment.ReadRecordsFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i := range rs {
		rs[i].Provenance = nil
		line, err := json.Marshal(&rs[i])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	bare := filepath.Join(dir, "bare.jsonl")
	if err := os.WriteFile(bare, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f13 := spelledFile(t, dir, "f13", "--features", "13")
	out, errOut, code := runCLI(t, "report", bare, f13, "--format", "csv")
	if code != 0 || !strings.Contains(out, "\nheart_scale,svm,2,2,0,0,") || errOut != "" {
		t.Errorf("report bare f13: exit %d, %q\n%s; want merged, without a note", code, errOut, out)
	}
}

// spelledFile runs the small compare of heart_scale with the options into
// dir/NAME.jsonl.
func spelledFile(t *testing.T, dir, name string, opts ...string) string {
	t.Helper()
	f := filepath.Join(dir, name+".jsonl")
	mustRun(t, spelledBase(heartScale, append(opts, "--out", f)...)...)
	return f
}
