package dataio

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A file within the bound reads as without it, to the bit.
func TestReadBoundSameBits(t *testing.T) {
	for _, path := range []string{"libsvm/heart_scale", "uci/heart.dat"} {
		free, err := Load(filepath.Join(td, path), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bound, err := Load(filepath.Join(td, path), ReadOptions{MemBytes: 1 << 20})
		if err != nil {
			t.Fatalf("%s within 1 MiB: %v", path, err)
		}
		if !mat.Equal(free.X, bound.X) || fmt.Sprint(free.Y) != fmt.Sprint(bound.Y) || free.SHA256 != bound.SHA256 {
			t.Errorf("%s: the bound changed what was read", path)
		}
	}
}

// The refusal's numbers: 20,000 CSV rows of ten features, 62 bytes each,
// cost 812 bytes a row (2·62 + 96 + 11·32 + 3·8·10): 16,240,000 bytes;
// 4 MiB hold 5,165 rows. A LIBSVM file read from a reader (standard input)
// is bounded alike: "+1 5:1" rows (7 bytes) cost 2·7 + 96 + 24 + 24·5 =
// 254 bytes; 10,000 of them exceed 1 MiB, which holds 4,128.
func TestReadBoundRefuses(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "%s%d\n", strings.Repeat("0.125,", 10), i%2)
	}
	_, err := ReadCSV(strings.NewReader(b.String()), "rows.csv", ReadOptions{MemBytes: 4 << 20})
	var re *ReadMemoryError
	if !errors.As(err, &re) {
		t.Fatalf("%v, want a *ReadMemoryError", err)
	}
	if re.Rows != 20000 || re.Features != 10 || re.Need != 16240000 || re.MaxRows != 5165 || re.Estimated {
		t.Errorf("%+v, want 20000 rows, 10 features, 16240000 bytes, 5165 rows fit", *re)
	}
	b.Reset()
	for i := range 10000 {
		fmt.Fprintf(&b, "%s 5:1\n", []string{"+1", "-1"}[i%2])
	}
	_, err = LoadReader(strings.NewReader(b.String()), "stdin", ReadOptions{MemBytes: 1 << 20})
	if !errors.As(err, &re) || re.Rows != 10000 || re.Features != 5 || re.Need != 2540000 || re.MaxRows != 4128 {
		t.Errorf("%v, want 10000 rows of 5 features, 2540000 bytes, 4128 fit", err)
	}
	want := "stdin: at most 4128 rows of 5 features fit in the memory bound of 1 MB: reading and holding 10000 rows × 5 features needs about 3 MB"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
}

// An ARFF file is bounded as its rows are held: 5,000 rows "0.5,0.5,a"
// (10 bytes) of two features cost 2·10 + 96 + 3·8·2 = 164 bytes a row
// besides the header's 2·66 bytes: 820,132 bytes, over 512 KiB, which
// hold 3,196 rows.
func TestReadBoundARFF(t *testing.T) {
	var b strings.Builder
	b.WriteString("@relation r\n@attribute x numeric\n@attribute y numeric\n@attribute c {a,b}\n@data\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "0.5,0.5,%s\n", []string{"a", "b"}[i%2])
	}
	_, err := LoadReader(strings.NewReader(b.String()), "r.arff", ReadOptions{Format: "arff", MemBytes: 512 << 10})
	var re *ReadMemoryError
	if !errors.As(err, &re) || re.Rows != 5000 || re.Features != 2 || re.MaxRows != 3196 {
		t.Errorf("%v, want 5000 rows of 2 features, 3196 fit", err)
	}
}
