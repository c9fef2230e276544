package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// TestTuneDegenerate provokes each kind of degenerate outcome through the
// command a user types and checks the JSON field, the warning on stderr and
// the warning under the table: spd from a start with σ = 0.01 (K ≈ I, and
// the descent barely moves), spd from σ = 10⁶ with C = 1 (K ≈ 11ᵀ), and the
// svm baseline forced to C = 10⁻⁴ (a moderate kernel, every training point
// predicted -1). The default spd run on heart is not degenerate.
func TestTuneDegenerate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		kind string
		note string
	}{
		{[]string{"--method", "spd", "--init", "sigma=0.01"}, "diagonal", "the median over points of the nearest neighbour's K is 0 < 0.01"},
		{[]string{"--method", "spd", "--init", "sigma=1e6"}, "constant", "C·(1 - median off-diagonal K) = 1·0.00231 = 0.00231 < 0.01; the final SVM predicts one class (-1) for all 135 training points"},
		{[]string{"--method", "svm", "--C", "1e-4"}, "one-class", "the final SVM predicts one class (-1) for all 135 training points"},
		{[]string{"--method", "spd"}, "", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"tune", "builtin:heart", "--test-fraction", "0.5", "--format", "json"}, tc.args...)
			out, errOut, code := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &raw); err != nil {
				t.Fatal(err)
			}
			want := `"` + tc.kind + `"`
			if tc.kind == "" {
				want = "null"
			}
			if got := string(raw["degenerate"]); got != want {
				t.Errorf(`"degenerate": %s, want %s`, got, want)
			}
			warn := "tune: WARNING: degenerate (" + tc.kind + "): "
			if tc.kind == "" {
				if strings.Contains(errOut, "WARNING: degenerate") {
					t.Errorf("stderr warns of a degenerate kernel:\n%s", errOut)
				}
				return
			}
			if !strings.Contains(errOut, warn) || !strings.Contains(errOut, tc.note) {
				t.Errorf("stderr:\n%s\nwant %q … %q", errOut, warn, tc.note)
			}
			table := mustRun(t, append([]string{"tune", "builtin:heart", "--test-fraction", "0.5"}, tc.args...)...)
			if !strings.Contains(table, "\nWARNING: degenerate ("+tc.kind+"): ") || !strings.Contains(table, tc.note) {
				t.Errorf("table output has no warning %q … %q:\n%s", tc.kind, tc.note, table)
			}
		})
	}
}

// TestCompareDegenerate runs compare with C forced to 10⁻⁴, where every
// method's final SVM predicts one class: each table row counts 2/2, the
// note names the kind, the JSON rows count 2, every record of --out says
// "one-class", and the means are still over both runs.
func TestCompareDegenerate(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	table := mustRun(t, "compare", "builtin:heart", "--methods", "svm,rcsc", "--C", "1e-4", "--partitions", "2", "--out", out)
	for _, want := range []string{
		"│ svm *  │             51.50 ± 0.71 │", // the -1 share of the test parts
		"│        2/2 │",
		"degenerate runs (kept in the means): svm 2 one-class; rcsc 2 one-class; on the training part,",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	recs, err := experiment.ReadRecordsFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Degenerate != "one-class" || !strings.HasPrefix(r.DegenerateReason, "the final SVM predicts one class (-1) for all 100 training points") {
			t.Errorf("record %v: degenerate %q (%s), want one-class", r.Key(), r.Degenerate, r.DegenerateReason)
		}
	}
	var js struct {
		Tables []report.DatasetTable `json:"tables"`
	}
	raw := mustRun(t, "report", out, "--format", "json")
	if err := json.Unmarshal([]byte(raw), &js); err != nil {
		t.Fatal(err)
	}
	for _, r := range js.Tables[0].Rows {
		if r.Degenerate != 2 || r.Runs != 2 {
			t.Errorf("row %s: degenerate %d of %d runs, want 2 of 2", r.Entry, r.Degenerate, r.Runs)
		}
	}
	_ = os.Remove(out)
}
