package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/spf13/cobra"
)

// The exit code tells a usage error (2) from a failure (1) by where the error
// came from, never by its words: a data value quoted in a parse error must not
// turn a bad file into a usage error. The usage hint names the subcommand.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	words := filepath.Join(dir, "words.csv")
	if err := os.WriteFile(words, []byte("a,b,label\n1,2,1\n3,invalid argument,-1\n5,accepts x,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     []string
		code     int
		hint     string // the usage hint's command, for code 2
		inStderr string
	}{
		{[]string{"train", words}, ExitError, "", `"invalid argument" is not a number`},
		{[]string{"info", "builtin:heart"}, ExitOK, "", ""},
		{[]string{"nope"}, ExitUsage, "kerneltune", `unknown command "nope"`},
		{[]string{"generate", "weston", "nope"}, ExitUsage, "kerneltune generate weston", "unknown command"},
		{[]string{"tune"}, ExitUsage, "kerneltune tune", "exactly one DATA"},
		{[]string{"train", "--bogus", "x"}, ExitUsage, "kerneltune train", "unknown flag: --bogus"},
		{[]string{"report"}, ExitUsage, "kerneltune report", "at least one results file"},
		{[]string{"tune", "builtin:heart", "--method", "nope"}, ExitUsage, "kerneltune tune", `unknown method "nope"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := runCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, errOut)
			}
			if !strings.Contains(errOut, tc.inStderr) {
				t.Errorf("stderr %q does not contain %q", errOut, tc.inStderr)
			}
			hint := "for usage."
			if tc.code == ExitUsage {
				if want := "Run '" + tc.hint + " --help' for usage."; !strings.Contains(errOut, want) {
					t.Errorf("stderr %q does not contain %q", errOut, want)
				}
			} else if strings.Contains(errOut, hint) {
				t.Errorf("exit %d with a usage hint: %q", code, errOut)
			}
		})
	}
}

// A flag whose usage explains its default in words must not also get pflag's
// "(default …)": generate's --format said "(default from the -o extension
// .libsvm/.svm, else csv) (default "csv")", which contradicts itself.
func TestHelpDefaultsSaidOnce(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.LocalFlags().FlagUsages(), "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s: %s", c.CommandPath(), strings.TrimSpace(line))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&globalOptions{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}))
}

// The examples in info's and train's --help run, on the repository's copies
// of the files they name (lines with a pipe, or files the repository does not
// have, such as data.csv, are skipped).
func TestHelpExamplesRun(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"data/heart.dat":  cmdTestdata + "/uci/heart.dat",
		"data/bupa.data":  cmdTestdata + "/uci/bupa.data",
		"data/ida/banana": cmdTestdata + "/ida/banana",
		"a1a":             cmdTestdata + "/libsvm/a1a",
		"heart_scale":     heartScale,
	}
	root := newRootCmd(&globalOptions{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	ran := 0
	for _, name := range []string{"info", "train"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
	lines:
		for _, line := range strings.Split(c.Example, "\n") {
			args := strings.Fields(line)
			if len(args) < 2 || args[0] != "kerneltune" || strings.Contains(line, "|") {
				continue
			}
			args = args[1:]
			for i, a := range args {
				switch {
				case i > 0 && (args[i-1] == "-o" || args[i-1] == "--output"):
					args[i] = filepath.Join(t.TempDir(), filepath.Base(a))
				case files[a] != "":
					args[i] = files[a]
				case strings.HasSuffix(a, ".csv") || strings.HasSuffix(a, ".txt"):
					continue lines
				}
			}
			ran++
			if _, errOut, code := runCLI(t, args...); code != ExitOK {
				t.Errorf("example %q: exit %d: %s", strings.TrimSpace(line), code, errOut)
			}
		}
	}
	if ran < 5 {
		t.Errorf("ran %d examples, want at least 5", ran)
	}
}

// Ctrl-C ends a command blocked on standard input (info - on a terminal, a
// stalled pipe) with exit 130; the read used to ignore the cancellation, and
// the process hung until killed.
func TestInterruptWhileReadingStdin(t *testing.T) {
	pr, pw := io.Pipe() // never written: a read blocks
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan int, 1)
	var errOut strings.Builder
	go func() { done <- run(ctx, []string{"info", "-"}, pr, io.Discard, &errOut) }()
	select {
	case code := <-done:
		if code != ExitInterrupted || !strings.Contains(errOut.String(), "interrupted") {
			t.Errorf("exit %d, stderr %q; want 130", code, errOut.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("info - still reading standard input 5 s after the interrupt")
	}
}

// kerneltune --version prints the build's version (as the model files record
// it) and exits 0; a bare "(devel)" (no VCS stamp, no -X version: a test
// binary) is followed by how to set one.
func TestVersion(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLI(t, "--version")
	want := "kerneltune version " + buildinfo.Version() + "\n"
	if buildinfo.Version() == "(devel)" {
		want += buildinfo.SetVersionHint + "\n"
	}
	if code != ExitOK || out != want {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
