// Package ctxio holds a reader that stops at a context's end. It is a
// package of its own, not a part of cmd, because it is I/O plumbing that
// knows nothing of the commands: cmd wraps standard input in it so that
// Ctrl-C ends 'kerneltune info -' waiting on a terminal or a stalled pipe.
package ctxio

import (
	"context"
	"io"
)

// Reader reads from R until Ctx is done, then fails with Ctx's error at
// once, even while a Read of R blocks, which a plain read of standard input
// ignores (the blocked goroutine ends with the process).
type Reader struct {
	Ctx context.Context
	R   io.Reader
}

func (c *Reader) Read(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	type result struct {
		n   int
		err error
	}
	buf := make([]byte, min(len(p), 64<<10)) // not io.ReadAll's whole spare capacity
	done := make(chan result, 1)
	go func() {
		n, err := c.R.Read(buf)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return copy(p, buf[:r.n]), r.err
	case <-c.Ctx.Done():
		return 0, c.Ctx.Err()
	}
}

// Interrupted is a cancelled command's word on what it leaves behind (what
// is saved, how to go on); it is context.Canceled, and the command line
// prints "interrupted; " and the hint once, instead of its plain line.
type Interrupted struct{ Hint string }

func (e *Interrupted) Error() string { return "interrupted; " + e.Hint }

// Unwrap makes an Interrupted a context.Canceled.
func (e *Interrupted) Unwrap() error { return context.Canceled }
