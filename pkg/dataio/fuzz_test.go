package dataio

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// fuzzLimit keeps hostile inputs (a LIBSVM index of 10⁷) from allocating
// gigabytes while fuzzing; it is an error, not a panic, to exceed it.
const fuzzLimit = 1 << 16

// seedCorpus adds the bad files, the CRLF/tab/semicolon variants and the
// first lines of the supplied data files.
func seedCorpus(f *testing.F, globs ...string) {
	for _, g := range globs {
		paths, _ := filepath.Glob(filepath.Join(td, g))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			if len(b) > 4096 {
				b = b[:bytes.LastIndexByte(b[:4096], '\n')+1]
			}
			f.Add(b)
		}
	}
}

func FuzzReadLIBSVM(f *testing.F) {
	seedCorpus(f, "bad/*.libsvm", "libsvm/*", "good/heart_scale_crlf")
	f.Add([]byte("1 1:1e-320 2:-0\n-1 3:0x1p-3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseLIBSVM(data, "fuzz", ReadOptions{MaxCells: fuzzLimit})
		if err != nil {
			return
		}
		checkDataset(t, d)
		var buf bytes.Buffer
		if err := WriteLIBSVM(&buf, d); err != nil {
			t.Fatal(err)
		}
		back, err := parseLIBSVM(buf.Bytes(), "back", ReadOptions{MaxCells: fuzzLimit})
		if err != nil {
			t.Fatalf("re-reading written LIBSVM: %v\n%s", err, buf.Bytes())
		}
		if !equalData(d, back) {
			t.Fatalf("LIBSVM round trip changed the data\n%q\n→\n%q", data, buf.Bytes())
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	seedCorpus(f, "bad/*.csv", "bad/*.tsv", "bad/*.dat", "uci/*", "good/*.csv", "good/*.tsv", "good/*.txt")
	f.Add([]byte("\"a,b\",\" c\",y\n1,2,yes\n3,4,no\n"))
	f.Add([]byte("x;y;label\n1,5;2;B\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, miss := range []string{"", "drop"} {
			d, err := parseCSV(data, "fuzz", ReadOptions{MaxCells: fuzzLimit, Missing: miss})
			if err != nil {
				continue
			}
			checkDataset(t, d)
			var buf bytes.Buffer
			if err := WriteCSV(&buf, d); err != nil {
				t.Fatal(err)
			}
			back, err := parseCSV(buf.Bytes(), "back", ReadOptions{MaxCells: fuzzLimit})
			if err != nil {
				t.Fatalf("re-reading written CSV: %v\n%q\n→\n%q", err, data, buf.Bytes())
			}
			if !equalData(d, back) {
				t.Fatalf("CSV round trip changed the data\n%q\n→\n%q", data, buf.Bytes())
			}
		}
	})
}

// checkDataset asserts the invariants every reader guarantees.
func checkDataset(t *testing.T, d *Dataset) {
	t.Helper()
	n, dim := d.Len(), d.Dim()
	if n == 0 || dim == 0 || len(d.FeatureNames) != dim {
		t.Fatalf("%d×%d with %d names", n, dim, len(d.FeatureNames))
	}
	if r, c := d.X.Dims(); r != n || c != dim {
		t.Fatalf("X %d×%d for %d labels", r, c, n)
	}
	for _, v := range d.Y {
		if v != 1 && v != -1 {
			t.Fatalf("label %v", v)
		}
	}
	if d.MultiClass() {
		if len(d.ClassLabels) < 3 || len(d.Class) != n || d.Y != nil {
			t.Fatalf("multi-class: %d classes, %d class indices for %d rows, Y %v", len(d.ClassLabels), len(d.Class), n, d.Y != nil)
		}
		for _, c := range d.Class {
			if c < 0 || c >= len(d.ClassLabels) {
				t.Fatalf("class index %d of %d", c, len(d.ClassLabels))
			}
		}
		return
	}
	if d.Labels.Positive == d.Labels.Negative {
		t.Fatalf("label map %+v", d.Labels)
	}
}

// Writing then reading gives the same data for every supplied file and the
// generators (full float64 precision, labels as their original text).
func TestWriteReadRoundTrip(t *testing.T) {
	var sets []*Dataset
	for _, p := range []string{"builtin:heart", "builtin:breast-wisconsin", filepath.Join(td, "uci/bupa.data"), filepath.Join(td, "uci/heart.dat"), filepath.Join(td, "ida/breast-cancer")} {
		d, err := Load(p, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, d)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	sets = append(sets, Weston(100, 20, rng))
	cb, _ := Chessboard(100, 3, 3, rng)
	sets = append(sets, cb)
	for _, d := range sets {
		for _, w := range []struct {
			name  string
			write func(*bytes.Buffer, *Dataset) error
			read  func([]byte, string, ReadOptions) (*Dataset, error)
		}{
			{"csv", func(b *bytes.Buffer, d *Dataset) error { return WriteCSV(b, d) }, parseCSV},
			{"libsvm", func(b *bytes.Buffer, d *Dataset) error { return WriteLIBSVM(b, d) }, parseLIBSVM},
		} {
			var buf bytes.Buffer
			if err := w.write(&buf, d); err != nil {
				t.Fatal(err)
			}
			back, err := w.read(buf.Bytes(), d.Name, ReadOptions{})
			if err != nil {
				t.Fatalf("%s as %s: %v", d.Name, w.name, err)
			}
			if !equalData(d, back) {
				t.Errorf("%s as %s: round trip changed the data", d.Name, w.name)
			}
			if w.name == "csv" && d.FeatureNames[0] != back.FeatureNames[0] {
				t.Errorf("%s: feature name %q came back as %q", d.Name, d.FeatureNames[0], back.FeatureNames[0])
			}
		}
	}
}

// FuzzReadUnlabeled reads any input without labels, as CSV and as LIBSVM,
// and writes what it read back: never a panic, and the round trip keeps the
// data.
func FuzzReadUnlabeled(f *testing.F) {
	seedCorpus(f, "bad/*", "good/*", "uci/*")
	f.Add([]byte("1:0.5 3:-1\n2:2\n1:0\n"))
	f.Add([]byte("a,b\n1,2\n3,4\n"))
	f.Add([]byte("0.5\n-1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []struct {
			name  string
			read  func([]byte, string, ReadOptions) (*Dataset, error)
			write func(*bytes.Buffer, *Dataset) error
		}{
			{"csv", parseCSV, func(b *bytes.Buffer, d *Dataset) error { return WriteCSV(b, d) }},
			{"libsvm", parseLIBSVM, func(b *bytes.Buffer, d *Dataset) error { return WriteLIBSVM(b, d) }},
		} {
			opts := ReadOptions{MaxCells: fuzzLimit, Unlabeled: true}
			d, err := p.read(data, "fuzz", opts)
			if err != nil {
				continue
			}
			n, dim := d.Len(), d.Dim()
			if d.Labeled() || n == 0 || dim == 0 || len(d.FeatureNames) != dim {
				t.Fatalf("%s: %d×%d, labelled %v, %d names", p.name, n, dim, d.Labeled(), len(d.FeatureNames))
			}
			Describe(d)
			d.Subset([]int{n - 1, 0})
			var buf bytes.Buffer
			if err := p.write(&buf, d); err != nil {
				t.Fatal(err)
			}
			back, err := p.read(buf.Bytes(), "back", opts)
			if err != nil {
				t.Fatalf("%s: re-reading written data: %v\n%q\n→\n%q", p.name, err, data, buf.Bytes())
			}
			if !equalData(d, back) {
				t.Fatalf("%s: round trip changed the data\n%q\n→\n%q", p.name, data, buf.Bytes())
			}
		}
	})
}

// FuzzReadARFF reads any input as ARFF, nominal features as codes, with
// and without dropping missing values: never a panic; what it reads keeps
// the invariants of every reader, its codes are within their categories,
// and the one-hot encoding fitted on it gives 0/1 columns with one 1 per
// nominal feature and row, the same for any subset of the rows.
func FuzzReadARFF(f *testing.F) {
	seedCorpus(f, "arff/*.arff", "bad/*.arff")
	f.Add([]byte("@relation r\n@attribute 'a b' {x,'y z'}\n@attribute n real\n@attribute c {p,q}\n@data\n{0 'y z', 2 q}\nx,1e3,p\n"))
	f.Add([]byte("@RELATION r\n@ATTRIBUTE s STRING\n@ATTRIBUTE c {p,q}\n@DATA\n'a',p\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, miss := range []string{"", "drop"} {
			d, err := parseARFF(data, "fuzz", ReadOptions{MaxCells: fuzzLimit, Missing: miss, Categorical: "codes"})
			if err != nil {
				continue
			}
			checkDataset(t, d)
			for _, nf := range d.Nominal {
				for i := 0; i < d.Len(); i++ {
					if v := d.X.At(i, nf.Index); v < 0 || int(v) >= len(nf.Levels) || v != float64(int(v)) {
						t.Fatalf("row %d code %v of %d categories", i, v, len(nf.Levels))
					}
				}
			}
			enc, err := FitOneHot(d)
			if err != nil {
				t.Fatal(err)
			}
			if enc == nil {
				continue
			}
			e, err := enc.Apply(d)
			if err != nil {
				t.Fatal(err)
			}
			if e.Dim() != enc.Dim() || len(e.FeatureNames) != e.Dim() {
				t.Fatalf("%d features, %d names, encoder says %d", e.Dim(), len(e.FeatureNames), enc.Dim())
			}
			block := map[int]int{} // input feature → categories
			for _, c := range enc.Columns {
				block[c.Feature] = len(c.Levels)
			}
			for i := 0; i < e.Len(); i++ {
				row, k := e.X.RawRowView(i), 0
				for j := 0; j < enc.InputFeatures; j++ {
					m, ok := block[j]
					if !ok {
						k++
						continue
					}
					sum := 0.0
					for _, v := range row[k : k+m] {
						if v != 0 && v != 1 {
							t.Fatalf("row %d: one-hot value %v", i, v)
						}
						sum += v
					}
					if sum != 1 {
						t.Fatalf("row %d feature %d: %v ones, want 1 (fitted on these rows)", i, j+1, sum)
					}
					k += m
				}
			}
			// Encoding a subset gives the subset's rows of the encoded whole.
			idx := []int{d.Len() - 1, 0}
			sub, err := enc.Apply(d.Subset(idx))
			if err != nil {
				t.Fatal(err)
			}
			for k, i := range idx {
				for j := 0; j < e.Dim(); j++ {
					if sub.X.At(k, j) != e.X.At(i, j) {
						t.Fatalf("row %d of a subset encodes differently from row %d of the whole", k, i)
					}
				}
			}
		}
	})
}
