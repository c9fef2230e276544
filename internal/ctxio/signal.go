package ctxio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// SignalError is the cause of a context cancelled by a signal (Notify).
type SignalError struct{ Sig os.Signal }

func (e *SignalError) Error() string {
	switch e.Sig {
	case syscall.SIGHUP:
		return "SIGHUP (the terminal was closed, or the session ended)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return "SIGINT"
}

// Notify returns a context cancelled by the first SIGINT, SIGTERM or SIGHUP
// (the terminal closed), with a *SignalError as its cause; the signals'
// default action is then restored, so that a second one ends a command
// that is slow to notice at once. stop releases the signals.
func Notify(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&SignalError{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
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
