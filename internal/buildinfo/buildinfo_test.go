package buildinfo

import "testing"

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"data/heart.csv": "data/heart.csv",
		"a b":            "'a b'",
		"it's":           `'it'\''s'`,
		"":               "''",
		"spd:full@lbfgs": "spd:full@lbfgs",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A test binary has build information: its version is the module's or
// "(devel)", never empty.
func TestVersion(t *testing.T) {
	if v := Version(); v == "" || v == "unknown" {
		t.Fatalf("Version() = %q", v)
	}
}
