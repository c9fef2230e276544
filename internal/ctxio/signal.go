package ctxio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// SignalError is the cause of a context cancelled by a signal (Notify).
type SignalError struct{ Sig os.Signal }

func (e *SignalError) Error() string {
	switch e.Sig {
	case syscall.SIGHUP:
		return "SIGHUP (the terminal was closed, or the session ended)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return "SIGINT"
}

// Signals are the signals Notify turns into a cancelled context: SIGINT,
// SIGTERM, SIGHUP (the terminal closed) and SIGQUIT (Ctrl-\, which would
// otherwise end the process with a dump of its goroutines; a crash still
// prints its traceback as GOTRACEBACK says).
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// ForceGrace is how long a command may wind down after a signal before
// Notify's force ends it: past WriteGrace, so that a blocked write to
// standard output says so first.
const ForceGrace = 5 * time.Second

// Notify returns a context cancelled by the first of Signals, with a
// *SignalError as its cause. One signal always ends the process: when a
// second one comes, or the command has not ended grace after the first
// (it is blocked in an open or a write that no signal interrupts: a FIFO
// without a reader), force is called with the first signal's Line, and
// must end the process. stop releases the signals; force is not called
// after it.
func Notify(parent context.Context, grace time.Duration, force func(line string, hangup bool)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, Signals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(&SignalError{s})
		case <-done:
			return
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-sigs:
		case <-t.C:
		case <-done:
			return
		}
		force(Line(ctx, nil))
	}()
	var once sync.Once
	return ctx, func() { once.Do(func() { signal.Stop(sigs); close(done); cancel(nil) }) }
}

// SignalOf returns the signal that cancelled ctx (Notify), nil for none.
func SignalOf(ctx context.Context) *SignalError {
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	return nil
}

// Line is the command line's one line on a command interrupted (ctx
// cancelled) that ended in err: the signal that did it, when one did, and
// the command's own word (an *Interrupted's hint) or how to go on; hangup
// says it was SIGHUP (exit 129, not 130).
func Line(ctx context.Context, err error) (line string, hangup bool) {
	var ie *Interrupted
	se := SignalOf(ctx)
	switch {
	case errors.As(err, &ie) && se != nil:
		return fmt.Sprintf("interrupted by %v; %s", se, ie.Hint), se.Sig == syscall.SIGHUP
	case errors.As(err, &ie):
		return ie.Error(), false
	case se != nil:
		return fmt.Sprintf("interrupted by %v: run the command again to finish (a compare with --out: add --resume to keep the jobs that finished)", se), se.Sig == syscall.SIGHUP
	}
	return "interrupted", false
}
