package dataio

import (
	"errors"
	"testing"
)

// Bytes that are not line-oriented UTF-8 text get an error that says so,
// not "x is not a number" on line 1 or 2 (what they got before).
func TestNotText(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"utf16.csv", "\xff\xfea\x00,\x00l\x00\n\x001\x00,\x001\x00\n", "utf16.csv: the file is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8"},
		{"heart.csv.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03abc", "heart.csv.gz: not a text file (a NUL byte at offset 3): CSV or LIBSVM text is needed; decompress a .gz or .zip file, export a spreadsheet as CSV"},
		{"mac.csv", "a,label\r1,1\r2,-1\r", `mac.csv: lines end in a lone carriage return (\r, classic Mac): convert the line ends to \n`},
		{"mac.libsvm", "1 1:1\r-1 1:2\r", `mac.libsvm: lines end in a lone carriage return (\r, classic Mac): convert the line ends to \n`},
	} {
		_, err := readBytes([]byte(tc.data), tc.name, ReadOptions{})
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrNotText) {
			t.Errorf("%s: err = %v, want %q (ErrNotText)", tc.name, err, tc.want)
		}
	}
	// Text is still text: CRLF, a UTF-8 BOM, a final lone \r.
	for _, data := range []string{"a,label\r\n1,1\r\n2,-1\r\n", "\xef\xbb\xbfa,label\n1,1\n2,-1\n", "1 1:1\n-1 1:2\r"} {
		if d, err := readBytes([]byte(data), "ok", ReadOptions{}); err != nil || d.Len() != 2 {
			t.Errorf("%q: %v", data, err)
		}
	}
}
