package cmd

// The fault suite's cases of issue 42, items 1 to 3: outputs that destroyed
// the command's own inputs, saves that tore the previous file on a full
// disk, and a results file repaired before it was checked.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot reads every regular file in dir, for "nothing changed" checks.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range es {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] = string(b)
		}
	}
	return m
}

// checkSame reports each file of before that changed or went, and each new
// file in dir.
func checkSame(t *testing.T, what, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for name, b := range before {
		if a, ok := after[name]; !ok {
			t.Errorf("%s: %s is gone", what, name)
		} else if a != b {
			t.Errorf("%s: %s changed: now %.60q", what, name, a)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s: left a new file %s", what, name)
		}
	}
}

// Issue 42, item 1: an output that is one of the command's inputs or
// another of its outputs, however it is spelt (./, dir/../dir, a symbolic
// link, a hard link), replaced the input (every record of a results file
// became an HTML page, exit 0). Each is refused before any work, exit 2,
// naming both, and no file changes.
func TestFaultOutputIsAnInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	dot := func(name string) string { return dir + "/./" + name }
	run := []string{"--methods", "svm", "--partitions", "2", "--train-size", "40", "--test-size", "40", "-q"}
	mustRun(t, append([]string{"compare", "builtin:heart", "--out", p("big.jsonl")}, run...)...)
	heart, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"h.libsvm", "train.libsvm"} {
		if err := os.WriteFile(p(name), heart, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "train", p("h.libsvm"), "-o", p("m.json"), "-q")
	if err := os.Symlink("big.jsonl", p("link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p("h.libsvm"), p("hard.libsvm")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("t.csv"), []byte("an old trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("g"), []byte("old data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"compare", "builtin:heart", "--out", p("big.jsonl"), "--resume", "--html", dot("big.jsonl")}, run...),
			"--out " + p("big.jsonl") + " is --html " + dot("big.jsonl") + " (the same file): writing one would destroy the other; give another file"},
		{[]string{"report", p("big.jsonl"), "--html", p("link.jsonl")},
			"--html " + p("link.jsonl") + " is FILE " + p("big.jsonl") + " (the same file): writing it would destroy that input; give another file"},
		{[]string{"train", p("h.libsvm"), "-o", dir + "/../" + filepath.Base(dir) + "/h.libsvm"}, " is DATA " + p("h.libsvm") + " (the same file)"},
		{[]string{"train", p("h.libsvm"), "-o", p("hard.libsvm")}, "-o " + p("hard.libsvm") + " is DATA " + p("h.libsvm") + " (the same file)"},
		{[]string{"train", p("h.libsvm"), "--test", p("train.libsvm"), "-o", dot("train.libsvm")}, "is --test " + p("train.libsvm")},
		{[]string{"predict", p("m.json"), p("h.libsvm"), "-o", dot("m.json")}, "-o " + dot("m.json") + " is MODEL " + p("m.json")},
		{[]string{"predict", p("m.json"), p("h.libsvm"), "-o", p("h.libsvm")}, "is DATA " + p("h.libsvm")},
		{[]string{"tune", p("h.libsvm"), "--method", "svm", "--trace", p("t.csv"), "-o", dot("t.csv")}, "-o " + dot("t.csv") + " is --trace " + p("t.csv")},
		{[]string{"tune", p("train.libsvm"), "--method", "svm", "--export-libsvm", dir}, "--export-libsvm " + dir + " would write over DATA " + p("train.libsvm") + ", an input of the same command: give another directory"},
		{[]string{"generate", "weston", "-o", p("g"), "--test-n", "3", "--test-output", dot("g")}, "-o " + p("g") + " is --test-output " + dot("g")},
		{append([]string{"compare", "builtin:heart", "--out", p("new.jsonl"), "--plot", dot("new.jsonl")}, run...), "--out " + p("new.jsonl") + " is --plot " + dot("new.jsonl")},
		{append([]string{"compare", p("h.libsvm"), "--out", dot("h.libsvm"), "--resume"}, run...), "--out " + dot("h.libsvm") + " is DATA " + p("h.libsvm")},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, %q; want exit %d and %q", strings.Join(tc.args[:2], " "), code, errOut, ExitUsage, tc.want)
		}
		checkSame(t, strings.Join(tc.args[:2], " "), dir, before)
	}
	// Distinct files in the same directory are not refused: the export
	// writes train.libsvm and README.txt, not h.libsvm.
	mustRun(t, "tune", p("h.libsvm"), "--method", "svm", "-q", "--export-libsvm", dir)
	if b, _ := os.ReadFile(p("h.libsvm")); !bytes.Equal(b, heart) {
		t.Error("the export next to its data changed the data")
	}
}

// mountSmall mounts a tmpfs of size bytes in a directory of its own (root
// only: it skips, saying so, elsewhere), unmounted at the end of the test.
func mountSmall(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is a small tmpfs, which only root can mount")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (a container without CAP_SYS_ADMIN?): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// fill writes a file until the file system of dir is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}

// Issue 42, item 2: a save on a full disk exited 1 but left a torn file
// where the previous good one was. Every output is now written to a
// temporary file and renamed onto it: the old model, data, trace, page
// and figure are intact byte for byte, and no temporary file is left.
func TestFaultFullDiskKeepsThePreviousFile(t *testing.T) {
	dir := mountSmall(t, "128k")
	p := func(name string) string { return filepath.Join(dir, name) }
	heart, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(t.TempDir(), "h30")
	if err := os.WriteFile(small, bytes.Join(bytes.SplitAfter(heart, []byte("\n"))[:30], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(t.TempDir(), "r.jsonl")
	mustRun(t, "compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--train-size", "40", "--test-size", "40", "-q", "--out", res)
	// Small good files, then a full disk, then larger versions of each.
	mustRun(t, "train", small, "-o", p("m.json"), "-q")
	mustRun(t, "generate", "weston", "--n", "3", "-o", p("g.csv"), "-q")
	mustRun(t, "report", res, "--html", p("r.html"), "-q")
	fill(t, dir)
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"train", heartScale, "-o", p("m.json"), "-q"},
		{"tune", heartScale, "--method", "svm", "-o", p("m.json"), "-q"},
		{"generate", "weston", "--n", "500", "-o", p("g.csv")},
		{"report", res, "--html", p("r.html")},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != ExitError || !strings.Contains(errOut, "no space left on device") {
			t.Errorf("%v on a full disk: exit %d, %q; want exit 1 and the full disk named", args[:2], code, errOut)
		}
		checkSame(t, strings.Join(args[:2], " ")+" on a full disk", dir, before)
	}
	if _, errOut, code := runCLI(t, "predict", p("m.json"), heartScale, "-q"); code != 0 {
		t.Errorf("the old model after the failed saves: exit %d, %s", code, errOut)
	}
}

// Issue 42, item 3: compare --out FILE --resume on a file that is not a
// results file cut its last line (a torn record, it thought) before it
// refused the file. The whole file is checked first: it is refused as it
// is, byte for byte.
func TestFaultResumeChecksBeforeRepairing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--train-size", "40", "--test-size", "40", "-q"}
	res := filepath.Join(dir, "r.jsonl")
	mustRun(t, append(args, "--out", res)...)
	recs, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, "--resume")
	for name, text := range map[string]string{
		"notes.txt": "my notes\nline two\nan unfinished line",
		"one.txt":   "one line without its newline",
		"tail.txt":  string(recs) + "a note added without a newline", // records, then text
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI(t, append(args, "--out", path)...)
		if code != ExitError || !strings.Contains(errOut, path+":") || !strings.Contains(errOut, "not a result record") {
			t.Errorf("%s: exit %d, %q; want exit 1, not a results file", name, code, errOut)
		}
		if b, _ := os.ReadFile(path); string(b) != text {
			t.Errorf("%s was changed by the refusal: %q", name, b)
		}
	}
}
