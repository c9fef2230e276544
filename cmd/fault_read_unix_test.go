//go:build unix

package cmd

// Ctrl-C during a long read (issue 43, item 4): tune, train and predict
// read DATA through dataio.OpenDataset with the command's context (info
// through DescribeFiles with it), so a read that does not end — a FIFO
// whose writer stalls, the worst case of a slow disk or pipe — stops at
// the first signal. They read with context.Background() before: the
// command stayed blocked in the read until the process was killed.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	modelFile := filepath.Join(dir, "m.json")
	mustRun(t, "train", heartScale, "-o", modelFile, "-q")
	rows, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"tune", "--method", "svm", "-q"},
		{"train", "-q"},
		{"predict", modelFile},
		{"info"},
	} {
		t.Run(args[0], func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "data.libsvm")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip(err)
			}
			// The writer gives half the rows and stalls, holding the FIFO
			// open: the read blocks until the command's context ends it.
			wrote := make(chan *os.File, 1)
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					wrote <- nil
					return
				}
				w.Write(rows[:len(rows)/2])
				wrote <- w
			}()
			ctx, cancel := context.WithCancel(context.Background())
			type result struct {
				stderr string
				code   int
			}
			done := make(chan result, 1)
			go func() {
				_, stderr, code := runCLIContext(ctx, t, "", append(args, fifo)...)
				done <- result{stderr, code}
			}()
			w := <-wrote
			if w == nil {
				t.Fatal("could not open the FIFO for writing")
			}
			defer w.Close() // ends a read that the cancel did not
			time.Sleep(100 * time.Millisecond)
			cancel()
			select {
			case r := <-done:
				if r.code != ExitInterrupted || strings.TrimSpace(r.stderr) != "kerneltune: interrupted" {
					t.Errorf("%s cancelled in its read: exit %d, %q; want exit %d, \"kerneltune: interrupted\"", args[0], r.code, r.stderr, ExitInterrupted)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("%s still reading 10 s after its context was cancelled", args[0])
			}
		})
	}
}
