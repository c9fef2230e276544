//go:build unix

package ctxio

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGQUIT cancels the context as SIGINT does (no goroutine dump), and a
// command still running grace after the first signal is handed to force
// with the signal's line, once; a command that ends first is not.
func TestNotifyForcesAfterGrace(t *testing.T) {
	forced := make(chan string, 2)
	ctx, stop := Notify(context.Background(), 50*time.Millisecond, func(line string, hangup bool) {
		if hangup {
			t.Error("SIGQUIT taken for SIGHUP")
		}
		forced <- line
	})
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGQUIT); err != nil {
		t.Skip(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGQUIT did not cancel the context")
	}
	var se *SignalError
	if !errors.As(context.Cause(ctx), &se) || se.Sig != syscall.SIGQUIT || se.Error() != "SIGQUIT" {
		t.Errorf("cause %v, want SIGQUIT", context.Cause(ctx))
	}
	select {
	case line := <-forced:
		if !strings.HasPrefix(line, "interrupted by SIGQUIT: run the command again") {
			t.Errorf("force's line %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("force was not called after the grace")
	}
	stop()
	select {
	case line := <-forced:
		t.Errorf("force called twice: %q", line)
	case <-time.After(100 * time.Millisecond):
	}
}

// Writer.Err keeps the first failed write's error (cobra's --version and
// --help drop it).
func TestWriterErr(t *testing.T) {
	full := errors.New("no space left on device")
	w := &Writer{Ctx: context.Background(), W: failing{full}}
	if w.Err() != nil {
		t.Fatal("a new Writer has an error")
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, full) || !errors.Is(w.Err(), full) {
		t.Errorf("Write: %v, Err: %v; want %v", err, w.Err(), full)
	}
}

type failing struct{ err error }

func (f failing) Write([]byte) (int, error) { return 0, f.err }
