// Package ctxio holds a reader and a writer that stop at a context's end. It
// is a package of its own, not a part of cmd, because it is I/O plumbing
// that knows nothing of the commands: cmd wraps standard input and output
// in them so that Ctrl-C ends 'kerneltune info -' waiting on a terminal or
// a stalled pipe, and 'kerneltune tune > fifo' whose reader stopped reading.
package ctxio

import (
	"context"
	"io"
	"time"
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

// WriteGrace is how long a Writer still waits for a write that is under
// way, or starts, after its context is done: long enough for a healthy
// pipe or terminal to take a command's last lines (a partial table, what
// was saved), short enough that one Ctrl-C ends a command whose reader has
// stopped reading.
const WriteGrace = 2 * time.Second

// Writer writes to W until Ctx is done and Grace (WriteGrace when zero)
// has passed; a Write that blocks past that (a stalled pipe or FIFO, a
// terminal on hold) then fails with Ctx's error, so that the first
// SIGINT/SIGTERM ends the command instead of a write the signal cannot
// interrupt (issue 34, item 7). Writes stay in order: each waits for its
// predecessor, and a write that timed out leaves the Writer failed.
type Writer struct {
	Ctx   context.Context
	W     io.Writer
	Grace time.Duration

	stuck bool  // a write timed out and may still be running
	err   error // the first write's error
}

// Err is the error of the first write that failed, nil for none: a caller
// that cannot see its writes' errors (cobra's --help and --version) asks.
func (c *Writer) Err() error { return c.err }

func (c *Writer) Write(p []byte) (n int, err error) {
	defer func() {
		if c.err == nil {
			c.err = err
		}
	}()
	if c.stuck {
		return 0, context.Cause(c.Ctx)
	}
	type result struct {
		n   int
		err error
	}
	// A copy: a write that times out may still finish after Write has
	// returned, when the caller has reused p.
	buf := append([]byte(nil), p...)
	done := make(chan result, 1)
	go func() {
		n, err := c.W.Write(buf)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-c.Ctx.Done():
	}
	grace := c.Grace
	if grace == 0 {
		grace = WriteGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case r := <-done:
		return r.n, r.err
	case <-t.C:
		c.stuck = true
		return 0, context.Cause(c.Ctx)
	}
}
