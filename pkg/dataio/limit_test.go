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
	"unsafe"
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

// TestParseLIBSVMLinesInPlace: parsing a LIBSVM file held in memory reads
// its lines in place, not each copied (the copies were as large as the
// file: on 10,000 rows of 778 features 12 MB beside the file's 12 MB);
// what it allocates is the rows (an index and a value per pair, a row
// start), the labels and the classes, well under the file's size here; and
// the labels kept are not slices of the file.
func TestParseLIBSVMLinesInPlace(t *testing.T) {
	var text bytes.Buffer
	text.WriteString("\xef\xbb\xbf# a comment\n")
	rows, pairs := 0, 0
	for i := 0; text.Len() < 3<<20; i++ {
		fmt.Fprintf(&text, "%d", i%3)
		for k := 1; k <= 40; k += 3 {
			v := (i*k)%999983 + 1
			fmt.Fprintf(&text, " %d:%d", k, v)
			pairs++
		}
		text.WriteString(" \r\n")
		if i%500 == 0 {
			text.WriteString("\n   \n")
		}
		rows++
	}
	data := text.Bytes()
	var d *Dataset
	var err error
	got := allocated(func() { d, err = parseLIBSVM(data, "big.libsvm", ReadOptions{Storage: StorageSparse}) })
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != rows || d.Sparse.NNZ() != pairs {
		t.Fatalf("%d rows, %d values; want %d, %d", d.Len(), d.Sparse.NNZ(), rows, pairs)
	}
	// A value's index and value (12 bytes); a row's start, label text and
	// line number (appended: twice that at most), class, y and canonical
	// label: under 160 bytes.
	parsed := uint64(12*pairs + 160*rows + 256<<10)
	t.Logf("parsing %d bytes (%d rows, %d values) allocated %d bytes; the rows and labels about %d", len(data), rows, pairs, got, parsed)
	if got > parsed {
		t.Errorf("parsing a %d-byte file of %d rows allocated %.1f MB, more than its rows and labels (%.1f MB): are the lines copied?", len(data), rows, float64(got)/1e6, float64(parsed)/1e6)
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	for _, l := range d.ClassLabels {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(l))); p >= lo && p <= hi {
			t.Fatalf("class label %q is a slice of the file's text", l)
		}
	}
}
