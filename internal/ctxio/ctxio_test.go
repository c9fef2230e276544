package ctxio

import (
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
