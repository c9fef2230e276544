package cmd

// Sparse data through the commands (issue 46, stages 1, 3 and 5): generate
// text, info on compressed rows, --storage, the normalisations of sparse
// data and the memory bound by non-zeros.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// textData writes generate text --n n --features d --nnz nnz into a
// temporary directory and returns its path.
func textData(t *testing.T, n, d, nnz int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "text.svm")
	mustRun(t, "generate", "text", "--n", fmt.Sprint(n), "--features", fmt.Sprint(d), "--nnz", fmt.Sprint(nnz), "-o", path, "-q")
	return path
}

func TestGenerateText(t *testing.T) {
	t.Parallel()
	// The first lines of a seed, as they are written: LIBSVM by default,
	// the width kept by the last feature of the first row.
	out := mustRun(t, "generate", "text", "--n", "2", "--features", "5000", "--nnz", "5", "--seed", "3")
	want := "-1 552:0.5390235095079648 840:0.31835596792577886 1225:0.31835596792577886 1706:0.31835596792577886 2137:0.31835596792577886 3244:0.31835596792577886 4244:0.31835596792577886 4802:0.31835596792577886 5000:0\n" +
		"-1 628:0.4082482904638631 2031:0.4082482904638631 2164:0.4082482904638631 4524:0.4082482904638631 4742:0.4082482904638631 4952:0.4082482904638631\n"
	if out != want {
		t.Errorf("generate text --seed 3:\n%s\nwant\n%s", out, want)
	}
	path := filepath.Join(t.TempDir(), "t.svm")
	_, errOut, code := runCLI(t, "generate", "text", "--n", "300", "--features", "3000", "--nnz", "15", "-o", path)
	if code != 0 || !strings.Contains(errOut, "wrote 300 rows × 3000 features (text, seed 1)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil || !d.IsSparse() || d.Len() != 300 || d.Dim() != 3000 {
		t.Fatalf("read back: %v", err)
	}
	ref := dataio.TextLike(300, 3000, 15, genTestRand(1, dataio.GenerateStream))
	if !slices.Equal(d.Sparse.Ptr, ref.Sparse.Ptr) || !slices.Equal(d.Sparse.Ind, ref.Sparse.Ind) || !slices.Equal(d.Sparse.Val, ref.Sparse.Val) || !slices.Equal(d.Y, ref.Y) {
		t.Error("generate text differs from dataio.TextLike with the generate stream")
	}
	// CSV writes every value: of a small set, as asked.
	csv := mustRun(t, "generate", "text", "--n", "2", "--features", "5000", "--nnz", "5", "--seed", "3", "--format", "csv")
	if lines := strings.Split(csv, "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "w1,w2,") || strings.Count(lines[1], ",") != 5000 {
		t.Errorf("csv: %d lines", len(lines))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nnz", "0"}, "--nnz must be between 1 and --features (47236), got 0"},
		{[]string{"--features", "1"}, "--features must be between 2 and 67108864, got 1"},
		{[]string{"--features", "10", "--nnz", "11"}, "--nnz must be between 1 and --features (10), got 11"},
		{[]string{"--format", "csv"}, "--format csv writes every one of the 5000 × 47236 values of text data, nearly all 0, and is read back dense: at most 100000000 values; write LIBSVM (--format libsvm, the default for text)"},
		{[]string{"--n", "2000000"}, "--n 2000000 × 60 non-zeros a row is more than 100000000 values: at most --n 1639344"},
	} {
		_, errOut, code := runCLI(t, append([]string{"generate", "text"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// info describes sparse data on its compressed rows: its storage, non-zeros
// and density, the features no row sets, and per-feature statistics only
// when asked (news20 has 1,355,191 features).
func TestInfoSparse(t *testing.T) {
	t.Parallel()
	path := textData(t, 300, 3000, 15)
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nnz := d.Sparse.NNZ()
	unset := 0
	for _, c := range d.Sparse.ColumnNNZ() {
		if c == 0 {
			unset++
		}
	}
	out := mustRun(t, "info", path)
	for _, want := range []string{
		fmt.Sprintf("│ storage           │ sparse (compressed rows): %s non-zeros, %.3g%% of the values", thousandsOf(nnz), 100*float64(nnz)/900000),
		fmt.Sprintf("│ constant features │ %s never set (zero in every row); no other", thousandsOf(unset)),
		"│ duplicate rows    │ 0 (same features as an earlier row)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info does not say %q:\n%s", want, out)
		}
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--format", "json", path)), &s); err != nil {
		t.Fatal(err)
	}
	if s["storage"] != "sparse" || s["nonzeros"] != float64(nnz) || s["unset_features"] != float64(unset) || s["features"] != 3000.0 {
		t.Errorf("json: storage %v, nonzeros %v (want %d), unset %v (want %d)", s["storage"], s["nonzeros"], nnz, s["unset_features"], unset)
	}
	if _, ok := s["feature_stats"]; ok {
		t.Error("json: feature_stats of sparse data without --feature-stats")
	}
	var st dataio.Summary
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--format", "json", "--feature-stats", path)), &st); err != nil || len(st.Stats) != 3000 {
		t.Fatalf("--feature-stats: %d stats, %v", len(st.Stats), err)
	}
	// The same file held dense: the same counts, the dense fields.
	var sd dataio.Summary
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--format", "json", "--storage", "dense", path)), &sd); err != nil {
		t.Fatal(err)
	}
	if sd.Storage != "dense" || sd.NonZeros != int64(nnz) || sd.ValueRange != st.ValueRange || len(sd.Constant) != unset || sd.UnsetFeatures != 0 {
		t.Errorf("--storage dense: %s, %d non-zeros, range %v (sparse %v), %d constant", sd.Storage, sd.NonZeros, sd.ValueRange, st.ValueRange, len(sd.Constant))
	}
}

func thousandsOf(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// --storage: dense past the limit of dense data names the sparse storage;
// sparse is refused for a CSV file; a bad value is a usage error.
func TestStorageFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// 3,000 rows × 100,000 features pass the dense limit (2²⁸ values) with
	// 4,500 non-zeros. (A width near LIBSVM's largest index, 67,000,000, took
	// 54 s under the race detector for info's per-feature arrays.)
	wide := writeFile(t, dir, "wide.svm", strings.Repeat("1 1:1 100000:1\n-1 2:1\n", 1500))
	out := mustRun(t, "info", wide)
	if !strings.Contains(out, "│ features          │ 100000") || !strings.Contains(out, "sparse (compressed rows): 4,500 non-zeros") {
		t.Errorf("info of 3,000 rows × 100,000 features:\n%s", out)
	}
	_, errOut, code := runCLI(t, "info", "--storage", "dense", wide)
	want := wide + ": 3000 rows × 100000 features exceed the limit of 268435456 values of dense data (at most 2684 rows of 100000 features); its 4500 non-zeros (0.0015% of the cells) fit in compressed rows: read it with --storage sparse"
	if code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("--storage dense: exit %d, %q; want 1 and %q", code, errOut, want)
	}
	csv := writeFile(t, dir, "x.csv", "a,b,y\n1,0,1\n0,1,0\n")
	_, errOut, code = runCLI(t, "train", "--storage", "sparse", csv)
	want = csv + ": --storage sparse holds a LIBSVM file in compressed rows; a CSV file is read into dense rows (write it as LIBSVM to keep only its non-zeros, or read it with --storage auto)"
	if code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("csv --storage sparse: exit %d, %q; want 1 and %q", code, errOut, want)
	}
	_, errOut, code = runCLI(t, "info", "--storage", "csr", wide)
	if code != ExitUsage || !strings.Contains(errOut, `--storage: unknown storage "csr" (want auto, dense or sparse)`) {
		t.Errorf("--storage csr: exit %d, %q", code, errOut)
	}
	// --storage sparse holds a narrow LIBSVM file sparse too.
	var s dataio.Summary
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--format", "json", "--storage", "sparse", heartScale)), &s); err != nil || s.Storage != "sparse" || s.Rows != 270 || s.Features != 13 {
		t.Errorf("heart_scale --storage sparse: %+v %v", s, err)
	}
}

// zscore and minmax shift every feature: on sparse data train densifies
// within the bound (the same model as the file read dense) and refuses
// past it, naming the normalisations that keep it sparse.
func TestNormalizeSparseData(t *testing.T) {
	t.Parallel()
	path := textData(t, 300, 3000, 15) // 900,000 values dense: 21.6 MB in three copies
	_, errOut, code := runCLI(t, "train", path, "--normalize", "zscore", "--mem-mb", "16")
	want := "zscore normalisation shifts every feature, so no zero stays zero: the 300 rows × 3000 features of sparse data would become 900000 dense values, about 21 MB, more than fits in --mem-mb 16; keep the data sparse with --normalize maxabs (x / max|x| per feature, zeros stay zeros) or --normalize none"
	if code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("zscore in 16 MB: exit %d, %q; want 1 and %q", code, errOut, want)
	}
	for _, kind := range []string{"zscore", "minmax11"} {
		got := trainJSON(t, path, "--normalize", kind, "--test-fraction", "0.25", "--mem-mb", "64")
		ref := trainJSON(t, path, "--normalize", kind, "--test-fraction", "0.25", "--storage", "dense")
		if got.Features != 3000 || got.NTrain != 225 || got.Obj != ref.Obj || got.NSV != ref.NSV || got.TestCorrect != ref.TestCorrect {
			t.Errorf("%s: %d features, %d rows, obj %v, %d SVs, %d correct; dense read: obj %v, %d SVs, %d correct",
				kind, got.Features, got.NTrain, got.Obj, got.NSV, got.TestCorrect, ref.Obj, ref.NSV, ref.TestCorrect)
		}
	}
}

// --mem-mb bounds the reading of sparse data by its non-zeros: a file
// whose dense matrix would need 140 MB is read within 64 MB, and refused
// within 2 MB naming its non-zeros.
func TestReadBoundSparse(t *testing.T) {
	t.Parallel()
	path := textData(t, 2000, 3000, 15)
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "compare", path, "--mem-mb", "64", "--dry-run"); code != 0 {
		t.Errorf("compare --mem-mb 64: exit %d\n%s", code, errOut)
	}
	_, errOut, code := runCLI(t, "compare", path, "--mem-mb", "64", "--dry-run", "--storage", "dense")
	if code != ExitError || !strings.Contains(errOut, "2000 rows × 3000 features needs about 140 MB") {
		t.Errorf("compare --mem-mb 64 --storage dense: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runCLI(t, "train", path, "--mem-mb", "2")
	want := fmt.Sprintf("fit in --mem-mb 2: reading and holding 2000 rows × 3000 features in compressed rows (%d non-zeros) needs about", d.Sparse.NNZ())
	if code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("train --mem-mb 2: exit %d, %q; want 1 and %q", code, errOut, want)
	}
}

// A study's storage key, at the top level and per dataset, is the flag's.
func TestStudyStorage(t *testing.T) {
	t.Parallel()
	heart, _ := filepath.Abs(heartScale)
	a1a, _ := filepath.Abs(filepath.Join(cmdTestdata, "libsvm/a1a"))
	study := writeFile(t, t.TempDir(), "s.yaml", fmt.Sprintf("storage: sparse\ndatasets:\n  - path: %s\n    storage: dense\n  - path: %s\n", heart, a1a))
	out := mustRun(t, "compare", "--study", study, "--dry-run")
	if !strings.Contains(out, "path          "+heart+"\n") || strings.Count(out, "read options  storage=dense") != 1 || strings.Count(out, "read options  storage=sparse") != 1 {
		t.Errorf("compare --study --dry-run:\n%s", out)
	}
	bad := writeFile(t, t.TempDir(), "b.yaml", fmt.Sprintf("datasets:\n  - path: %s\n    storage: csr\n", heart))
	_, errOut, code := runCLI(t, "compare", "--study", bad, "--dry-run")
	if code != ExitUsage || !strings.Contains(errOut, `storage: unknown storage "csr" (want auto, dense or sparse)`) {
		t.Errorf("storage: csr: exit %d, %q", code, errOut)
	}
}
