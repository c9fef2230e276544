package ctxio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// The reader passes data through, and a cancelled context ends a Read that
// blocks.
func TestReader(t *testing.T) {
	b, err := io.ReadAll(&Reader{Ctx: context.Background(), R: strings.NewReader("a,b\n1,2\n")})
	if err != nil || string(b) != "a,b\n1,2\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	pr, pw := io.Pipe() // never written: a Read blocks
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if _, err := (&Reader{Ctx: ctx, R: pr}).Read(make([]byte, 8)); !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked read after cancel: err = %v", err)
	}
}

// A Writer returns the bytes of a healthy writer in order, lets a write
// finish within its grace after the context ends, and fails a write that
// blocks past it with the context's cause; after that it stays failed.
func TestWriterGivesUpAfterGrace(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var b bytes.Buffer
	w := &Writer{Ctx: ctx, W: &b, Grace: 50 * time.Millisecond}
	for _, s := range []string{"a", "bc", "def"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if b.String() != "abcdef" {
		t.Fatalf("wrote %q, want abcdef", b.String())
	}
	cause := errors.New("SIGINT")
	cancel(cause)
	// After the end, a write that completes is still taken (a command's
	// last lines on a healthy pipe).
	if n, err := w.Write([]byte("g")); n != 1 || err != nil || b.String() != "abcdefg" {
		t.Fatalf("write after cancel to a healthy writer: %d, %v, %q", n, err, b.String())
	}
	pr, pw := io.Pipe() // no reader: every write blocks
	defer pr.Close()
	w = &Writer{Ctx: ctx, W: pw, Grace: 50 * time.Millisecond}
	start := time.Now()
	if _, err := w.Write([]byte("x")); !errors.Is(err, cause) {
		t.Fatalf("blocked write: %v, want the context's cause", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
		t.Errorf("blocked write returned after %v, want about the grace of 50ms", d)
	}
	if _, err := w.Write([]byte("y")); !errors.Is(err, cause) {
		t.Errorf("write after a timed-out one: %v, want the cause at once", err)
	}
}
