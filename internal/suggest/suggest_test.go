package suggest

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	names := []string{"method", "param", "partitions", "plot", "plot-format", "seed", "test-fraction"}
	for _, c := range []struct{ typed, want string }{
		{"methods", "method"},       // one insertion
		{"metod", "method"},         // one deletion
		{"partition", "partitions"}, // what was typed is a prefix
		{"plot-fromat", "plot-format"},
		{"sede", "seed"},
		{"features", ""}, // nothing near
		{"x", ""},
	} {
		if got := Closest(c.typed, names, 2); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"γ", "g", 1}} {
		if got := distance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestUnknownFlag(t *testing.T) {
	for msg, want := range map[string]string{
		"unknown flag: --methods":           "methods",
		"unknown flag: --methods=svm":       "methods",
		"unknown shorthand flag: 'x' in -x": "",
		"invalid argument":                  "",
	} {
		if got := UnknownFlag(msg); got != want {
			t.Errorf("UnknownFlag(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestLIBSVMHintsAreDocumented: every LIBSVM option the error explains is in
// the page the error names, as `-option`, and each hint names a kerneltune
// flag or says that there is no equivalent.
func TestLIBSVMHintsAreDocumented(t *testing.T) {
	b, err := os.ReadFile("../../" + LIBSVMDoc)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for opt, hint := range libsvmHints {
		if !strings.Contains(page, "`-"+opt) {
			t.Errorf("-%s is not in %s", opt, LIBSVMDoc)
		}
		if !strings.Contains(hint, "--") && !strings.Contains(hint, "no equivalent") && !strings.Contains(hint, "does not") {
			t.Errorf("-%s: the hint names no flag: %q", opt, hint)
		}
	}
}

func TestLIBSVMParsesPflagsMessage(t *testing.T) {
	for msg, want := range map[string]string{
		"unknown shorthand flag: 'l' in -log2c":  "--log2c begin,end,step",
		"unknown shorthand flag: 'b' in -b=1":    "--probability",
		"unknown shorthand flag: 'v' in -qv":     "--folds n",
		"unknown shorthand flag: 'x' in -x":      "",
		"unknown flag: --log2c":                  "",
		"invalid argument \"a\" for \"-c, --C\"": "",
	} {
		got := LIBSVM(errors.New(msg)).Error()
		if want == "" && got != msg || want != "" && !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q in it", msg, got, want)
		}
	}
}
