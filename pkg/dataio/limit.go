package dataio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxInputBytes bounds what kerneltune reads of one data or model file, or
// of standard input: reading /dev/zero (or a file given by mistake) ended
// when the memory ran out. Kernel methods hold an n×n kernel, so no data set
// they can learn comes near it (a 1 GiB LIBSVM file holds tens of millions
// of values). Tests lower it.
var MaxInputBytes int64 = 1 << 30

// TooLargeError is an input larger than the limit kerneltune reads.
type TooLargeError struct {
	Name  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most kerneltune reads of one input (is it the right file?)", e.Name, ByteSize(e.Limit))
}

// ByteSize writes n bytes in the largest binary unit that divides it
// ("2 GiB", "64 MiB", "1000 bytes").
func ByteSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// BinaryError is an input that holds a NUL byte: every file kerneltune
// reads (data, models, studies) is text, and a NUL is the mark of a
// compressed, binary or UTF-16 file, or of /dev/zero, which was read to the
// size limit (a GiB, seconds) before this check.
type BinaryError struct {
	Name string
	Byte int64 // 1-based offset of the first NUL
	Line int   // its line
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("%s:%d: byte %d is a NUL byte: kerneltune reads text files (CSV, LIBSVM, ARFF, IDA, JSON, YAML), and this one is compressed, binary or UTF-16 (gunzip it, or save it as UTF-8 text)", e.Name, e.Line, e.Byte)
}

// textReader fails with a *BinaryError at the first NUL byte it passes on.
type textReader struct {
	r    io.Reader
	name string
	off  int64
	line int
}

func (t *textReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		return 0, &BinaryError{Name: t.name, Byte: t.off + int64(i) + 1, Line: t.line + 1 + bytes.Count(p[:i], []byte{'\n'})}
	}
	t.off += int64(n)
	t.line += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}

// ReadAllLimited reads r to its end, or fails with a *TooLargeError naming
// name once it has given more than limit bytes, or with a *BinaryError at
// its first NUL byte (every input kerneltune reads is text).
func ReadAllLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	return readAllSized(r, name, limit, 0)
}

// readAllSized is ReadAllLimited into a buffer made for size bytes (a
// regular file's, from its Stat; 0 when unknown): io.ReadAll grows its
// buffer by appending, to up to twice the file held at once (a 12 MB
// LIBSVM file, ten classes of 778 features: 25 MB, the largest part of
// train's peak while it reads).
func readAllSized(r io.Reader, name string, limit, size int64) ([]byte, error) {
	tr := &textReader{r: io.LimitReader(r, limit+1), name: name}
	var (
		b   []byte
		err error
	)
	if size > 0 && size <= limit {
		b = make([]byte, 0, size+bytes.MinRead) // room to see the end without growing
		for {
			var n int
			n, err = tr.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err == io.EOF {
				err = nil
				break
			}
			if err != nil {
				break
			}
			if len(b) == cap(b) { // the file grew since its Stat
				b = append(b, 0)[:len(b)]
			}
		}
	} else {
		b, err = io.ReadAll(tr)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return b, nil
}

// ReadFileLimited reads the file at path as os.ReadFile does, or fails with
// a *TooLargeError when it holds more than limit bytes: a regular file's size
// is checked before reading, a device's or a pipe's as it is read.
func ReadFileLimited(path string, limit int64) ([]byte, error) {
	return readFileContext(context.Background(), path, limit)
}

// readFileContext is ReadFileLimited stopped by ctx: the file is closed
// when ctx is done, which ends a read that blocks on a pipe (a FIFO whose
// writer stalls) as well as a long one; the caller asks ctx.Err().
func readFileContext(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer context.AfterFunc(ctx, func() { f.Close() })()
	var size int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if size = st.Size(); size > limit {
			return nil, &TooLargeError{Name: path, Limit: limit}
		}
	}
	b, err := readAllSized(f, path, limit, size)
	var (
		te *TooLargeError
		be *BinaryError
	)
	if err != nil && !errors.As(err, &te) && !errors.As(err, &be) {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return b, err
}
