package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// narrowHeart writes heart_scale's 270 rows without features 11-13 (a
// LIBSVM file whose highest index is 10) and returns its path.
func narrowHeart(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	narrow := regexp.MustCompile(` 1[123]:\S+`).ReplaceAllString(string(raw), "")
	return writeFile(t, dir, "heart10", narrow)
}

// A --test file with another number of features than DATA is refused by
// every command that takes --test, naming both files and both counts and
// the flag that reads both at one width, as predict refuses the same
// mismatch; with --features N both are read at N and the command runs.
// (Before, a narrower LIBSVM test file was read at the training file's
// width: tune, train and compare exited 0 with a test accuracy.)
func TestTestFileOfOtherWidthIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	narrow := narrowHeart(t, dir)
	want := "test file " + narrow + " has 10 features, training file builtin:heart has 13"
	hint := "if features 11-13 are 0 in every row of the narrower file, read both as 13 features with --features 13"
	study := writeFile(t, dir, "s.yaml", "methods: [svm]\ndatasets:\n  - path: builtin:heart\n    test: "+narrow+"\n")
	for _, args := range [][]string{
		{"tune", "builtin:heart", "--test", narrow, "--method", "svm"},
		{"train", "builtin:heart", "--test", narrow},
		{"compare", "builtin:heart", "--test", narrow, "--methods", "svm"},
		{"compare", "--study", study},
	} {
		out, errOut, code := runCLI(t, args...)
		if code != ExitError || !strings.Contains(errOut, want) || !strings.Contains(errOut, hint) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q with %q", strings.Join(args, " "), code, out, errOut, ExitError, want, hint)
		}
	}
	// Wider the other way round: the test file mentions features the
	// training file does not.
	_, errOut, code := runCLI(t, "train", narrow, "--test", heartScale)
	if code != ExitError || !strings.Contains(errOut, "test file "+heartScale+" has 13 features, training file "+narrow+" has 10") {
		t.Errorf("train 10 --test 13: exit %d, stderr %q", code, errOut)
	}
	// --features 13 states the width: both are read as 13 features, the
	// narrow file's rows as heart's with features 11-13 at 0: the scores are
	// those of the same rows written out with those zeros.
	raw, err := os.ReadFile(narrow)
	if err != nil {
		t.Fatal(err)
	}
	zeros := writeFile(t, dir, "heart10zeros", strings.ReplaceAll(string(raw), "\n", " 11:0 12:0 13:0\n"))
	r := trainJSON(t, "builtin:heart", "--test", narrow, "--features", "13", "-c", "1", "-g", "0.1")
	z := trainJSON(t, "builtin:heart", "--test", zeros, "-c", "1", "-g", "0.1")
	if r.Features != 13 || r.NTest != 270 || r.TestAccuracy == nil || z.TestAccuracy == nil || *r.TestAccuracy != *z.TestAccuracy || r.TestCorrect != z.TestCorrect {
		t.Fatalf("--features 13: %d features, %d test rows, %d correct; the explicit zeros: %d correct", r.Features, r.NTest, r.TestCorrect, z.TestCorrect)
	}
	if r.TestCorrect >= 270*9/10 || r.TestCorrect <= 270/2 {
		t.Errorf("--features 13: %d of 270 correct, want a model that lost three features' worth, above chance", r.TestCorrect)
	}
	tuned := tuneJSON(t, "builtin:heart", "--test", narrow, "--features", "13", "--method", "svm")
	if tuned.NTest != 270 || tuned.Features != 13 || tuned.TestAccuracy == nil {
		t.Errorf("tune --features 13: %d test rows, %d features", tuned.NTest, tuned.Features)
	}
	// A study's dataset states the width with its features key.
	wide := writeFile(t, dir, "w.yaml", "methods: [svm]\ndatasets:\n  - path: builtin:heart\n    test: "+filepath.Base(narrow)+"\n    features: 13\n")
	if out, errOut, code := runCLI(t, "compare", "--study", wide, "--format", "csv", "-q"); code != 0 || !strings.Contains(out, "heart,svm,1,1,0,0,0,") {
		t.Errorf("study with features: 13: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
