package dataio

import (
	"errors"
	"io"
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
