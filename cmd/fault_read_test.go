package cmd

// Inputs without bound (issue 42, item 12): reading a data file counts in
// --mem-mb, for train and predict as for tune and compare. A file whose
// reading and values would need more is refused, exit 1, naming the rows
// that fit, before its rows are held — instead of growing until the
// machine's memory runs out (a 2.5 MB LIBSVM file of one value a row but a
// high index held a 2 GB matrix twice).
//
// The expected numbers follow from dataio's cost of reading (membound.go),
// per row: twice its bytes (the file and its line), 96 bytes of line
// bookkeeping, 32 per CSV field or 24 per LIBSVM index:value pair, and
// three float64 copies of its values (24 bytes a feature).

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// sameRowsCSV writes n rows of ten features 0.125 and a label 1 or 0: 62
// bytes a row, 812 bytes of reading cost (2·62 + 96 + 11·32 + 24·10).
func sameRowsCSV(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d\n", strings.Repeat("0.125,", 10), i%2)
	}
	return writeFile(t, dir, "rows.csv", b.String())
}

// TestReadBoundLIBSVM: 2,000 rows "±1 1000:1" (10 bytes each) held dense
// (--storage dense; the storage rule holds them sparse) are 2,000 × 1,000
// values: 24,140 bytes a row (2·10 + 96 + 24 + 24·1000), 48.3 MB in all;
// 8 MiB hold 347 of them. Before the bound, train read and trained on them
// whatever --mem-mb (it had no such flag).
func TestReadBoundLIBSVM(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "%s 1000:1\n", []string{"+1", "-1"}[i%2])
	}
	path := writeFile(t, t.TempDir(), "wide.libsvm", b.String())
	_, errOut, code := runCLI(t, "train", path, "--mem-mb", "8", "--storage", "dense")
	want := path + ": at most 347 rows of 1000 features fit in --mem-mb 8: reading and holding 2000 rows × 1000 features needs about 47 MB"
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "raise --mem-mb (-1: no bound), or read fewer rows") {
		t.Fatalf("train --mem-mb 8: exit %d, want 1 and %q\n%s", code, want, errOut)
	}
	// Within the bound it trains as before: the bound changes no number.
	got := trainJSON(t, path, "--mem-mb", "64", "--test-fraction", "0.5", "--storage", "dense")
	ref := trainJSON(t, path, "--test-fraction", "0.5", "--storage", "dense")
	if got.Features != 1000 || got.NTrain != 1000 || got.TestCorrect != ref.TestCorrect || got.Obj != ref.Obj || got.NSV != ref.NSV {
		t.Fatalf("train --mem-mb 64: %d features, %d correct, obj %v, %d SVs; without it %d, %v, %d", got.Features, got.TestCorrect, got.Obj, got.NSV, ref.TestCorrect, ref.Obj, ref.NSV)
	}
}

// TestReadBoundCSV: 20,000 rows of sameRowsCSV need 16.2 MB to read and
// hold; --mem-mb 4 holds 5,165 of them (4 MiB / 812), for train and for
// predict (a model trained on 40 of them); compare --mem-mb 1, where the
// file's 1.24 MB read twice exceed the bound, refuses it before reading
// it, its rows estimated from its first MB: 1,291 fit (1 MiB / 812).
func TestReadBoundCSV(t *testing.T) {
	dir := t.TempDir()
	path := sameRowsCSV(t, dir, 20000)
	for _, args := range [][]string{{"train", path}, {"predict", "MODEL", path}} {
		if args[0] == "predict" {
			small := writeFile(t, dir, "small.csv", strings.Repeat(strings.Repeat("0.125,", 10)+"1\n"+strings.Repeat("0.25,", 10)+"0\n", 20))
			args[1] = filepath.Join(dir, "m.json")
			mustRun(t, "train", small, "-o", args[1], "-q")
		}
		_, errOut, code := runCLI(t, append(args, "--mem-mb", "4")...)
		want := path + ": at most 5165 rows of 10 features fit in --mem-mb 4: reading and holding 20000 rows × 10 features needs about 16 MB"
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s --mem-mb 4: exit %d, want 1 and %q\n%s", args[0], code, want, errOut)
		}
	}
	out := filepath.Join(dir, "r.jsonl")
	_, errOut, code := runCLI(t, "compare", path, "--mem-mb", "1", "--out", out)
	want := path + ": at most 1291 rows of 10 features fit in --mem-mb 1: reading and holding about 20000 rows (estimated from its first 1.0 MB, of 1.2 MB) × 10 features needs about 16 MB"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("compare --mem-mb 1: exit %d, want 1 and %q\n%s", code, want, errOut)
	}
	// The default bound (half of the RAM) reads it.
	if _, errOut, code := runCLI(t, "predict", filepath.Join(dir, "m.json"), path); code != 0 {
		t.Errorf("predict without --mem-mb: exit %d\n%s", code, errOut)
	}
}

// TestReadBoundFlag: --mem-mb of train and predict is checked as tune's.
func TestReadBoundFlag(t *testing.T) {
	for _, cmd := range [][]string{{"train", heartScale}, {"predict", "m.json", heartScale}} {
		_, errOut, code := runCLI(t, append(cmd, "--mem-mb", "-2")...)
		if code != 2 || !strings.Contains(errOut, "--mem-mb must be a size in MB, 0 (half of the RAM) or -1 (no bound), got -2") {
			t.Errorf("%s --mem-mb -2: exit %d\n%s", cmd[0], code, errOut)
		}
	}
}
