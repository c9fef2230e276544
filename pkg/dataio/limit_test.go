package dataio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A NUL byte ends a read at once, naming its byte and line, across reads of
// any size (issue 34: /dev/zero was read to the 1 GiB limit first).
func TestReadAllLimitedRefusesNUL(t *testing.T) {
	text := "a,b\n1,2\n3,4\n5,\x006\n7,8\n"
	for _, chunk := range []int{1, 3, 64} {
		_, err := ReadAllLimited(&chunked{s: text, n: chunk}, "x.csv", 1<<20)
		var be *BinaryError
		if !errors.As(err, &be) || be.Byte != 15 || be.Line != 4 || !strings.HasPrefix(err.Error(), "x.csv:4: byte 15 is a NUL byte") {
			t.Errorf("chunks of %d: %v; want x.csv:4: byte 15", chunk, err)
		}
	}
	if b, err := ReadAllLimited(strings.NewReader("a\nb\n"), "t", 1<<20); err != nil || string(b) != "a\nb\n" {
		t.Errorf("text: %q, %v", b, err)
	}
}

// chunked reads s n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// TestReadFileLimitedOneBuffer: a regular file is read into one buffer of
// its size, not grown by appending (io.ReadAll held up to twice the file,
// the largest part of train's peak while it reads a 12 MB LIBSVM file);
// the bytes are the file's.
func TestReadFileLimitedOneBuffer(t *testing.T) {
	var text bytes.Buffer
	for i := 0; text.Len() < 3<<20; i++ {
		fmt.Fprintf(&text, "%d 1:%d 7:0.%d\n", i%3, i, i%97)
	}
	path := filepath.Join(t.TempDir(), "big.libsvm")
	if err := os.WriteFile(path, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var (
		b   []byte
		err error
		a0  runtime.MemStats
		a1  runtime.MemStats
	)
	runtime.ReadMemStats(&a0)
	b, err = ReadFileLimited(path, 1<<30)
	runtime.ReadMemStats(&a1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, text.Bytes()) {
		t.Fatalf("read %d bytes, not the file's %d", len(b), text.Len())
	}
	if got, max := a1.TotalAlloc-a0.TotalAlloc, uint64(text.Len())+64<<10; got > max {
		t.Errorf("reading a %d-byte file allocated %d bytes, want at most %d (one buffer of its size)", text.Len(), got, max)
	}
}
