package dataio

import (
	"reflect"
	"strings"
	"testing"
)

// textLines keeps content lines with their 1-based line numbers (BOM, CRLF,
// blank and comment lines handled), and a limited split stops after limit
// content lines, as DetectFormat uses it.
func TestTextLines(t *testing.T) {
	data := []byte("\xef\xbb\xbf# head\r\n\r\n+1 1:2\r\n  # indented comment\n-1 3:4\n\n+1 5:6")
	want := []textLine{{text: "+1 1:2", num: 3}, {text: "-1 3:4", num: 5}, {text: "+1 5:6", num: 7}}
	if got := contentLines(data); !reflect.DeepEqual(got, want) {
		t.Errorf("contentLines = %+v, want %+v", got, want)
	}
	for limit := 0; limit <= 4; limit++ {
		got := textLines(data, '#', false, limit)
		if n := min(limit, 3); !reflect.DeepEqual(got, want[:n]) && !(n == 0 && len(got) == 0) {
			t.Errorf("limit %d: %+v, want %+v", limit, got, want[:n])
		}
	}
	arff := []byte("% c\n  @relation r  \n")
	if got := arffLines(arff); len(got) != 1 || got[0].text != "@relation r" || got[0].num != 2 {
		t.Errorf("arffLines = %+v", got)
	}
	// DetectFormat reads only the first 20 content lines: a CSV-looking line
	// after them does not change a LIBSVM file's format.
	var b strings.Builder
	for range 20 {
		b.WriteString("+1 1:0.5 3:1\n")
	}
	b.WriteString("1,2,3\n")
	if f := DetectFormat("x.txt", []byte(b.String())); f != "libsvm" {
		t.Errorf("DetectFormat = %q, want libsvm", f)
	}
	if f := DetectFormat("x.txt", []byte("1,2,3\n+1 1:0.5\n")); f != "csv" {
		t.Errorf("DetectFormat of a CSV first line = %q, want csv", f)
	}
}
