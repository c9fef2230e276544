//go:build unix

package cmd

// The fault suite's cases of issue 42 that need Unix: outputs that are
// FIFOs, one signal that must end a blocked command, SIGQUIT.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitChild waits for c (started) at most limit; it kills it and fails the
// test when it is still running then.
func waitChild(t *testing.T, c *exec.Cmd, limit time.Duration, what string) (code int, waited time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return code, time.Since(start)
	case <-time.After(limit):
		c.Process.Kill()
		<-done
		t.Fatalf("%s: still running after %v", what, limit)
	}
	return 0, 0
}

// Issue 42, item 4: an output that is a FIFO without a reader blocked the
// command forever (train -o f, tune -o, predict -o, generate -o, --html),
// and a small output to one was thrown away with exit 0. Every output
// refuses a FIFO before any work, as --out does, and leaves it a FIFO.
func TestFaultOutputFIFOsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	m := filepath.Join(dir, "m.json")
	mustRun(t, "train", heartScale, "-o", m, "-q")
	res := filepath.Join(dir, "r.jsonl")
	run := []string{"--methods", "svm", "--partitions", "2", "--train-size", "40", "--test-size", "40", "-q"}
	mustRun(t, append([]string{"compare", "builtin:heart", "--out", res}, run...)...)
	heart, err := filepath.Abs(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag string
		args []string // FIFO stands for the FIFO
	}{
		{"-o", []string{"train", heart, "-q", "-o", "FIFO"}},
		{"-o", []string{"tune", heart, "--method", "svm", "-q", "-o", "FIFO"}},
		{"--trace", []string{"tune", heart, "--method", "rcsc", "-q", "--trace", "FIFO"}},
		{"-o", []string{"predict", m, heart, "-o", "FIFO"}},
		{"-o", []string{"generate", "weston", "--n", "5", "-o", "FIFO"}},
		{"--test-output", []string{"generate", "weston", "--n", "5", "--test-n", "2", "--test-output", "FIFO"}},
		{"--html", []string{"report", res, "--html", "FIFO"}},
		{"--html", append([]string{"compare", "builtin:heart", "--html", "FIFO"}, run...)},
	} {
		var args []string
		for _, a := range tc.args {
			args = append(args, strings.Replace(a, "FIFO", fifo, 1))
		}
		c := child(t, dir, args...)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		code, _ := waitChild(t, c, 30*time.Second, strings.Join(args, " "))
		want := "kerneltune: " + tc.flag + " " + fifo + " is a named pipe (FIFO), not a file: give a regular file\n"
		if code != ExitError || stderr.String() != want || stdout.Len() > 0 {
			t.Errorf("%s %s FIFO: exit %d, stderr %q, stdout %.80q; want exit 1, %q and no work", args[0], tc.flag, code, stderr.String(), stdout.String(), want)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: the FIFO is no longer one: %v", args[0], err)
		}
	}
	// A device is refused too (but /dev/null, which throws the output
	// away), and standard output spelt /dev/stdout is standard output
	// where the command can write there.
	if _, errOut, code := runCLI(t, "train", heartScale, "-q", "-o", "/dev/full"); code != ExitError || errOut != "kerneltune: -o /dev/full is a device, not a file: give a regular file\n" {
		t.Errorf("-o /dev/full: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "train", heartScale, "-q", "-o", "/dev/stdout"); code != ExitError || errOut != "kerneltune: -o /dev/stdout is a standard stream of this process, not a file: give a regular file\n" {
		t.Errorf("train -o /dev/stdout: exit %d, %q", code, errOut)
	}
	if out, errOut, code := runCLI(t, "train", heartScale, "-o", os.DevNull); code != 0 || !strings.Contains(out, "accuracy") {
		t.Errorf("train -o /dev/null: exit %d, %s", code, errOut)
	}
	for _, args := range [][]string{{"predict", m, heartScale, "--format", "labels", "-q"}, {"generate", "weston", "--n", "3"}} {
		want := mustRun(t, args...)
		for _, o := range []string{"-", "/dev/stdout"} {
			if got := mustRun(t, append(args, "-o", o)...); got != want {
				t.Errorf("%s -o %s: %.60q, want standard output %.60q", args[0], o, got, want)
			}
		}
	}
}

// Issue 42, item 4: one SIGTERM did not end a command blocked in an open
// or a write that no signal interrupts (a FIFO without a writer, here as
// DATA: a FIFO output is refused now). The command is ended ForceGrace
// after the first signal, saying so, with the interrupted exit code.
func TestFaultOneSignalEndsABlockedCommand(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	c := child(t, dir, "train", fifo, "-q")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // blocked opening the FIFO
	c.Process.Signal(syscall.SIGTERM)
	code, waited := waitChild(t, c, 30*time.Second, "train FIFO after one SIGTERM")
	want := "kerneltune: stopped at once; interrupted by SIGTERM: run the command again to finish"
	if code != ExitInterrupted || !strings.HasPrefix(stderr.String(), want) || waited > 20*time.Second {
		t.Errorf("one SIGTERM: exit %d after %v, %q; want exit %d, %q", code, waited, stderr.String(), ExitInterrupted, want)
	}
}

// Issue 42, item 18: SIGQUIT (Ctrl-\) ended a compare with a dump of every
// goroutine and exit 2. It is now a signal like SIGINT: the run winds down,
// says so in one line with how to resume, and exits 130; a second SIGQUIT
// ends it at once, without a dump either.
func TestFaultSIGQUITEndsLikeSIGINT(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	args := append(faultCompare[:len(faultCompare):len(faultCompare)], "--partitions", "12", "--out", out)
	for _, signals := range []int{1, 2} {
		os.Remove(out)
		c, stderr := startAtFirstRecord(t, dir, out, args...)
		for range signals {
			c.Process.Signal(syscall.SIGQUIT)
		}
		code, _ := waitChild(t, c, 30*time.Second, "compare after SIGQUIT")
		want := "interrupted by SIGQUIT: run the command again to finish (a compare with --out: add --resume to keep the jobs that finished)\n"
		if code != ExitInterrupted || !strings.HasSuffix(stderr.String(), want) || strings.Contains(stderr.String(), "goroutine") {
			t.Errorf("%d SIGQUIT: exit %d, stderr %.300q; want exit %d, %q and no goroutine dump", signals, code, stderr.String(), ExitInterrupted, want)
		}
	}
}
