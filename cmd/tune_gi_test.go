package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// TestGIAutoThroughCLI: gi's default parameterisation is chosen by the data
// and says so: tune on heart (13 features) takes A and prints why; compare
// records the chosen A in every record of the default gi entry; the
// gi-chessboard preset still runs the paper's D as an explicit entry.
func TestGIAutoThroughCLI(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "tune", "builtin:heart", "--method", "gi", "--C", "1", "--steps", "3", "--test-fraction", "0.5")
	for _, want := range []string{
		"tune builtin:heart --method gi --param A: 135 training rows",
		"\ngi: parameterisation A chosen because D's d(d+1)/2 = 91 free parameters exceed n/20 = 6.75 (d = 13, n = 135)",
		"gaussian exp(-γ‖x-z‖²)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tune output lacks %q:\n%s", want, out)
		}
	}

	file := filepath.Join(t.TempDir(), "gi.jsonl")
	mustRun(t, "compare", "builtin:heart", "--methods", "gi", "--C", "1", "--max-iter", "2", "--partitions", "2", "--out", file)
	recs, err := experiment.ReadRecordsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		if r.Entry != "gi" || r.Param != "A" || len(r.Notes) == 0 || !strings.HasPrefix(r.Notes[0], "gi: parameterisation A chosen because") {
			t.Errorf("record %v: entry %q param %q notes %q; want gi with param A and the reason", r.Key(), r.Entry, r.Param, r.Notes)
		}
	}

	p, _ := experiment.LookupPreset("gi-chessboard")
	_, entries, err := p.Build(experiment.PresetSettings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.String())
	}
	if got := strings.Join(names, ","); got != "svm,gi:A,gi:B,gi:C,gi:D,gi:E" {
		t.Errorf("gi-chessboard entries %s, want svm and the explicit gi:A–E (D as the paper)", got)
	}
}
