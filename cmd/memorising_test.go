package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// TestTuneFlagsMemorisingModel: rcsc on heart keeps 172 of its 189 training
// rows as SVs and trains at 100 % against a CV accuracy of 77.78 %: tune's
// table says so in a memorising row and a warning, and its JSON in the
// memorisation object; svm's model on the same rows is not flagged (tune
// said nothing of either before).
func TestTuneFlagsMemorisingModel(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "tune", "builtin:heart", "--method", "rcsc", "--test-fraction", "0.3")
	for _, want := range []string{
		"│ memorising         │ YES (SVs 91% of the training rows; train − cv: 22.22 points)",
		"WARNING: memorising: 91% of the training rows are support vectors and the training accuracy, 100.00%, is 22.22 points above the cv accuracy, 77.78%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tune rcsc lacks %q:\n%s", want, out)
		}
	}
	r, _ := runJSON[experiment.TuneResult](t, "tune", "builtin:heart", "--method", "rcsc", "--test-fraction", "0.3")
	m := r.Memorisation
	if !m.Memorising || m.HeldOut != "cv" || m.SVShare != 172.0/189 || m.TrainAccuracy != 1 || m.HeldOutAcc < 0.7777 || m.HeldOutAcc > 0.7778 {
		t.Errorf("tune rcsc JSON memorisation %+v", m)
	}
	out = mustRun(t, "tune", "builtin:heart", "--method", "svm", "--test-fraction", "0.3")
	if !strings.Contains(out, "│ memorising         │ no (SVs 67% of the training rows; train − cv: 0.00 points)") || strings.Contains(out, "WARNING: memorising") {
		t.Errorf("tune svm:\n%s", out)
	}
}

// TestCompareCountsMemorisingRuns: compare's records carry the support-
// vector share, where the held-out accuracy comes from, that accuracy and
// the flag; its table counts the flagged runs beside the degenerate ones
// and names the rule; the JSON summary counts them too.
func TestCompareCountsMemorisingRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "run.jsonl")
	text := mustRun(t, "compare", "builtin:heart", "--methods", "svm,rcsc", "--partitions", "3", "--out", out, "-q")
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flagged := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r experiment.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.SVShare != float64(r.NSV)/float64(r.TrainSize) || r.HeldOut != "cv" || r.HeldOutAccuracy <= 0 {
			t.Errorf("%s %d: sv_share %v (nsv %d of %d), held_out %q %v", r.Entry, r.Partition, r.SVShare, r.NSV, r.TrainSize, r.HeldOut, r.HeldOutAccuracy)
		}
		if r.Memorising != experiment.RecordMemorisation(r).Memorising {
			t.Errorf("%s %d: recorded flag %v is not the rule's", r.Entry, r.Partition, r.Memorising)
		}
		if r.Memorising {
			flagged[r.Entry]++
		}
	}
	if flagged["rcsc"] != 3 || flagged["svm"] != 0 {
		t.Errorf("flagged %v, want rcsc 3 of 3 and svm 0", flagged)
	}
	for _, want := range []string{
		"│ degenerate │ memorising │",
		"│        0/3 │        3/3 │",
		"memorising runs (kept in the means): rcsc 3; more than 50% of the training rows are SVs, and the training error is at least 2 points below the held-out error (the method's CV or validation error, else the test error) and at most 0.25 of it",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("compare table lacks %q:\n%s", want, text)
		}
	}
	sum, _ := runJSON[report.SummaryJSON](t, "report", out)
	for _, r := range sum.Tables[0].Rows {
		if want := map[string]int{"svm": 0, "rcsc": 3}[r.Entry]; r.Memorising != want {
			t.Errorf("report JSON: %s memorising %d, want %d", r.Entry, r.Memorising, want)
		}
	}
}
