//go:build unix

package cmd

// The fault-injection cases that need Unix: a FIFO as --out, SIGHUP.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

func TestFaultOutFIFO(t *testing.T) {
	dir := t.TempDir()
	args := []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--train-size", "50", "--test-size", "50", "-q", "--format", "json"}
	// Issue 34, item 7: a FIFO whose reader is gone blocked the run forever
	// in a write (SIGINT did not end it); a FIFO or a device is refused
	// before any work, in a child with a deadline, so that a hang fails.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct{ path, what string }{{fifo, "a named pipe (FIFO)"}, {"/dev/zero", "a device"}} {
		c := child(t, dir, append(args, "--out", tc.path)...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			want := "kerneltune: compare: --out " + tc.path + " is " + tc.what + ", not a results file: give a regular file"
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitError || !strings.HasPrefix(stderr.String(), want) {
				t.Errorf("--out %s: %v, %q; want exit 1 and %q", tc.path, err, stderr.String(), want)
			}
		case <-time.After(30 * time.Second):
			c.Process.Kill()
			t.Errorf("--out %s: still running after 30 s", tc.path)
		}
	}
}

// Issue 34, item 10: SIGHUP (the terminal closed) ended a compare with exit
// 129 and no word; it now winds down as SIGINT does, says so in one line
// with how to resume, and exits 129.
func TestFaultSIGHUPSaysSo(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	c, stderr := startAtFirstRecord(t, dir, out, append(faultCompare[:len(faultCompare):len(faultCompare)], "--partitions", "12", "--out", out)...)
	c.Process.Signal(syscall.SIGHUP)
	err := c.Wait()
	ee, ok := err.(*exec.ExitError)
	want := "kerneltune: interrupted by SIGHUP (the terminal was closed, or the session ended): run the command again to finish (a compare with --out: add --resume to keep the jobs that finished)\n"
	if !ok || ee.ExitCode() != ExitHangup || !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("SIGHUP: %v, stderr %q; want exit %d and %q", err, stderr.String(), ExitHangup, want)
	}
	if _, errOut, code := runCLI(t, append(faultCompare[:len(faultCompare):len(faultCompare)], "--partitions", "12", "--out", out, "--resume")...); code != 0 {
		t.Errorf("--resume after SIGHUP: exit %d, %s", code, errOut)
	}
}

// Issue 34, item 7: a command whose standard output is a pipe that nobody
// reads blocked in write, and SIGINT did not end it (a second one did).
// Standard output now gives up on a blocked write ctxio.WriteGrace after
// the first signal, and the command exits 130 saying so.
func TestFaultBlockedStdoutEndsOnOneSIGINT(t *testing.T) {
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// 40,000 rows of 10 features is about 8 MB, far past a pipe's buffer.
	c := child(t, dir, "generate", "weston", "--n", "40000", "-o", "-", "-q")
	c.Stdout = w
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// The 8 MB are drawn in well under a second, then the child blocks on
	// the full pipe. (Were it still drawing, SIGINT would end it too; a
	// child blocked in write is what failed before the fix.)
	time.Sleep(time.Second)
	start := time.Now()
	c.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != ExitInterrupted || !strings.Contains(stderr.String(), "interrupted by SIGINT") {
			t.Errorf("one SIGINT on a blocked stdout: %v after %v, stderr %q; want exit %d and the signal named", err, time.Since(start), stderr.String(), ExitInterrupted)
		}
	case <-time.After(20 * time.Second):
		c.Process.Kill()
		<-done
		t.Fatalf("one SIGINT did not end a command blocked writing stdout in 20 s (stderr %q)", stderr.String())
	}
}

// startAtFirstRecord starts the command args in a child process with its
// stderr kept, and returns once its results file out holds a record (a
// signal then lands mid-run, after the first append).
func startAtFirstRecord(t *testing.T, dir, out string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	c := child(t, dir, args...)
	stderr := new(bytes.Buffer)
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for n := 0; ; n++ {
		if recs, _ := experiment.ReadRecordsFile(out); len(recs) > 0 {
			break
		}
		if n > 2000 {
			c.Process.Kill()
			t.Fatal("no record in 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return c, stderr
}
