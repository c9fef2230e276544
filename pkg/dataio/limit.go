package dataio

import (
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

// ReadAllLimited reads r to its end, or fails with a *TooLargeError naming
// name once it has given more than limit bytes.
func ReadAllLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, &TooLargeError{Name: path, Limit: limit}
	}
	b, err := ReadAllLimited(f, path, limit)
	var te *TooLargeError
	if err != nil && !errors.As(err, &te) {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return b, err
}
