package experiment

import (
	"slices"
	"testing"
)

// The default method list is the six methods compare always ran; "all"
// adds the practitioners' baselines, each with its default settings.
func TestParseEntriesDefaultAndAll(t *testing.T) {
	names := func(list string) []string {
		es, err := ParseEntries(list)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.String())
		}
		return out
	}
	six := []string{"svm", "spd", "gi", "lccp", "rcsc", "twolevel"}
	for _, list := range []string{"", "default", " default "} {
		if got := names(list); !slices.Equal(got, six) {
			t.Errorf("ParseEntries(%q) = %v, want %v", list, got, six)
		}
	}
	if got, want := names("all"), append(six, "random", "halving", "bo"); !slices.Equal(got, want) {
		t.Errorf(`ParseEntries("all") = %v, want %v`, got, want)
	}
	if got := names("bo:ard,random"); !slices.Equal(got, []string{"bo:ard", "random"}) {
		t.Errorf("an explicit list: %v", got)
	}
}
