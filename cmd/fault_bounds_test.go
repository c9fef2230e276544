package cmd

// The fault suite's cases of issue 42, items 9, 12, 13, 14, 16, 17 and 18:
// inputs without bound, one dataset counted twice, the same data spelled
// differently, names that make malformed or colliding outputs.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// Issue 42, item 13: --budget is bounded as --partitions is (1e12 crashed
// out of memory, MaxInt64 was "internal error: makeslice", 3e8 allocated
// 4.7 GB and never ended), in tune, compare and a compare of a study alike,
// and the memory estimate counts it (bo's Gaussian process is budget²).
func TestFaultBudgetBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(st, []byte("seed: 1\npartitions: 1\nmethods: [random]\ndatasets:\n  - path: builtin:heart\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", heartScale, "--method", "random", "--budget", "9223372036854775807", "-q"},
			"kerneltune: --budget 9223372036854775807: random: want a number of CV evaluations between 1 and 100000 (0 for the default 60)\n"},
		{[]string{"tune", heartScale, "--method", "bo", "--budget", "1000000000000", "-q"},
			"kerneltune: --budget 1000000000000: bo: want a number of CV evaluations between 1 and 100000 (0 for the default 30)\n"},
		{[]string{"compare", "builtin:heart", "--methods", "random", "--budget", "300000000", "--partitions", "1", "-q"},
			"kerneltune: --budget 300000000: random: want a number of CV evaluations between 1 and 100000 (0 for the default 60)\n"},
		{[]string{"compare", "--study", st, "--budget", "100001", "-q"},
			"kerneltune: --budget 100001: random: want a number of CV evaluations between 1 and 100000 (0 for the default 60)\n"},
		// Within the bound, bo's GP over 100,000 points (two 80 GB
		// matrices) is counted by the memory estimate.
		{[]string{"compare", "builtin:heart", "--methods", "bo", "--budget", "100000", "--partitions", "1", "--mem-mb", "4000", "-q"},
			"kerneltune: compare: bo on heart needs about 183180 MB for 1 job at once (--workers), 183148 MB each for 100 training rows × 13 features besides the runtime's 32 MB, more than --mem-mb 4000"},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != ExitUsage || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errOut, ExitUsage, tc.want)
		}
	}
	_, errOut, _ := runCLI(t, "compare", "builtin:heart", "--methods", "bo", "--budget", "100000", "--partitions", "1", "--mem-mb", "4000", "-q")
	if !strings.Contains(errOut, "a smaller --budget") {
		t.Errorf("bo's memory refusal does not name --budget: %q", errOut)
	}
}

// Issue 42, item 17: report --methods spd:diag finds the records of entry
// spd, whose param is diag by default (and spd@diag, svm:iso alike); a param
// the records were not run with is still refused.
func TestFaultReportMethodsResolved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	mustRun(t, "compare", "builtin:heart", "--methods", "svm,spd", "--partitions", "2", "--train-size", "60", "--test-size", "60", "--out", out, "-q")
	for _, m := range []string{"spd:diag", "spd@diag", "svm:iso"} {
		stdout, errOut, code := runCLI(t, "report", out, "--methods", m, "--format", "csv")
		method, _, _ := strings.Cut(m, ":")
		method, _, _ = strings.Cut(method, "@")
		if code != 0 || strings.Count(stdout, "\nheart,"+method+",") != 1 || strings.Count(stdout, "\n") != 2 {
			t.Errorf("--methods %s: exit %d, %s\n%s; want one row of %s", m, code, errOut, stdout, method)
		}
	}
	_, errOut, code := runCLI(t, "report", out, "--methods", "spd:full")
	if want := "kerneltune: --methods: no records of method \"spd:full\" (the records hold spd, svm)\n"; code != ExitUsage || !strings.HasPrefix(errOut, want) {
		t.Errorf("spd:full: exit %d, %q; want %q", code, errOut, want)
	}
}

// Issue 42, item 14: a record whose grid says 2⁶³−1 partitions (or whose
// partition is past the bound of a run) hung report, which then ignored
// SIGTERM; records are checked against --partitions' bound when read, by
// report and by compare --resume alike.
func TestFaultRecordPartitionsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	args := []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--train-size", "60", "--test-size", "60", "-q"}
	mustRun(t, append(args, "--out", out)...)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		old, new, want string
	}{
		{`"partitions":2`, `"partitions":9223372036854775807`, ":1: grid: dataset heart has 9223372036854775807 partitions, outside the bound of a run (0 to 100000, as compare's --partitions)\n"},
		{`"partitions":2`, `"partitions":100001`, ":1: grid: dataset heart has 100001 partitions, outside the bound of a run (0 to 100000, as compare's --partitions)\n"},
		{`"partition":1,`, `"partition":9223372036854775806,`, ": partition 9223372036854775806 is outside the bound of a run (at most 100000 partitions: 0 to 99999)\n"},
	} {
		bad := filepath.Join(dir, "bad.jsonl")
		edited := strings.ReplaceAll(string(data), tc.old, tc.new)
		if tc.old == `"partition":1,` { // no grid: the partition alone
			edited = regexp.MustCompile(`"grid":\{[^}]*\}[^}]*\},?`).ReplaceAllString(edited, "")
		}
		if err := os.WriteFile(bad, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI(t, "report", bad)
		if code != ExitError || !strings.HasPrefix(errOut, "kerneltune: "+bad) || !strings.HasSuffix(errOut, tc.want) {
			t.Errorf("report %s: exit %d, %q; want exit 1 and %q", tc.new, code, errOut, tc.want)
		}
		_, errOut, code = runCLI(t, append(args, "--out", bad, "--resume")...)
		if code == 0 || !strings.Contains(errOut, strings.TrimSuffix(tc.want, "\n")) {
			t.Errorf("compare --resume %s: exit %d, %q; want %q", tc.new, code, errOut, tc.want)
		}
	}
}

// Issue 42, item 9: one dataset given twice (two spellings of a path, a
// symlink, builtin:heart and a copy of its file) counted as two datasets
// in Friedman, Nemenyi, Holm and the signed-rank test. compare refuses it
// up front naming both arguments; report merges two runs of one identity
// under two names (--name h1, --name h2) as one dataset, with a note.
func TestFaultOneIdentityOneDataset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(dir, "x.libsvm")
	if err := os.WriteFile(x, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(x, filepath.Join(dir, "y.libsvm")); err != nil {
		t.Fatal(err)
	}
	y := filepath.Join(dir, "y.libsvm")
	dotX := dir + "/./x.libsvm" // not cleaned: another spelling of x
	run := []string{"--methods", "svm", "--partitions", "1", "--train-size", "60", "--test-size", "60", "-q"}
	const sha = "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9"
	for _, pair := range [][2]string{{x, dotX}, {x, y}, {"builtin:heart", x}} {
		_, errOut, code := runCLI(t, append([]string{"compare", pair[0], pair[1]}, run...)...)
		want := "kerneltune: DATA: " + pair[0] + " and " + pair[1] + " are one dataset (the same data, SHA-256 " + sha + ", read, partitioned and normalised the same way): give it once"
		if code != ExitUsage || !strings.HasPrefix(errOut, want) {
			t.Errorf("compare %s %s: exit %d, %q; want exit 2 and %q", pair[0], pair[1], code, errOut, want)
		}
	}
	// Other data, or the same data read another way, are other datasets.
	mustRun(t, append([]string{"compare", "builtin:heart", "builtin:breast-wisconsin"}, run...)...)

	files := map[string]string{}
	for _, name := range []string{"h1", "h2"} {
		files[name] = filepath.Join(dir, name+".jsonl")
		mustRun(t, "compare", "builtin:heart", "--name", name, "--methods", "svm,spd", "--partitions", "3", "--train-size", "60", "--test-size", "60", "--out", files[name], "-q")
	}
	files["b"] = filepath.Join(dir, "b.jsonl")
	mustRun(t, "compare", "builtin:breast-wisconsin", "--methods", "svm,spd", "--partitions", "3", "--train-size", "60", "--test-size", "60", "--out", files["b"], "-q")
	out, errOut, code := runCLI(t, "report", files["h1"], files["h2"], files["b"])
	note := "h2 of " + files["h2"] + " is dataset h1 (one identity "
	if code != 0 || !strings.Contains(errOut, note) || !strings.Contains(errOut, "reported as h1, one dataset") {
		t.Fatalf("report h1 h2 b: exit %d, stderr %q; want the note %q", code, errOut, note)
	}
	if !strings.Contains(out, "across 2 datasets") || !strings.Contains(out, "datasets: h1, breast-wisconsin\n") || strings.Contains(out, "h2") {
		t.Errorf("report h1 h2 b counts h2 apart:\n%s", out)
	}
	// The merged h1 is the jobs of one run (the same 3 partitions), not 6.
	csv := mustRun(t, "report", files["h1"], files["h2"], "--format", "csv")
	if !strings.Contains(csv, "\nh1,svm,3,3,0,0,") || strings.Count(csv, "\n") != 3 {
		t.Errorf("report h1 h2 --format csv:\n%s", csv)
	}
}

// Issue 42, item 18: --split-identities gives another identity of heart
// a name no dataset has (a user's own heart#2 keeps its name and its
// records); names with control characters are refused (they made
// malformed SVG); datasets "a b" and "a_b" write two figure files, not one.
func TestFaultNamesSplitsAndFigureFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := []string{"--methods", "svm", "--partitions", "2", "--train-size", "60", "--test-size", "60", "-q"}
	file := func(name string, args ...string) string {
		p := filepath.Join(dir, name+".jsonl")
		mustRun(t, append(append(args, "--out", p), run...)...)
		return p
	}
	a := file("a", "compare", "builtin:heart")
	b := file("b", "compare", "builtin:heart", "--seed", "7")
	c := file("c", "compare", "builtin:breast-wisconsin", "--name", "heart#2")
	for _, order := range [][]string{{a, b, c}, {c, a, b}} {
		out, errOut, code := runCLI(t, append([]string{"report", "--split-identities", "--format", "csv"}, order...)...)
		if code != 0 || !strings.Contains(out, "\nheart#2,svm,2,2,0,0,0,0,0.95,") || !strings.Contains(out, "\nheart#3,svm,2,2,") ||
			!strings.Contains(errOut, "heart#3 is dataset heart of "+b+" (seed 1 vs 7)") {
			t.Errorf("report --split-identities %v: exit %d, %s\n%s; want heart, heart#3 (heart of seed 7) and the user's heart#2 (breast-wisconsin, 95%%)", order, code, errOut, out)
		}
	}

	for _, name := range []string{"he\nart", "a\tb", "x\x1b[31m"} {
		_, errOut, code := runCLI(t, append([]string{"compare", "builtin:heart", "--name", name}, run...)...)
		want := "kerneltune: compare: \"builtin:heart\": dataset name " + strconv.Quote(name) + " holds the control character"
		if code != ExitUsage || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "(--name, or name: in a study)") {
			t.Errorf("--name %q: exit %d, %q; want exit 2 and %q", name, code, errOut, want)
		}
	}
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(strings.ReplaceAll(string(data), `"heart"`, `"he\nart"`)), 0o644)
	if _, errOut, code := runCLI(t, "report", bad); code != ExitError || !strings.HasPrefix(errOut, "kerneltune: "+bad+":1: dataset name \"he\\nart\" holds the control character U+000A") {
		t.Errorf("report of a record named he\\nart: exit %d, %q", code, errOut)
	}

	heart, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(heart), "\n")
	os.WriteFile(filepath.Join(dir, "a b"), heart, 0o644)
	os.WriteFile(filepath.Join(dir, "a_b"), []byte(strings.Join(lines[:200], "")), 0o644)
	figs := filepath.Join(dir, "figs")
	mustRun(t, "compare", filepath.Join(dir, "a b"), filepath.Join(dir, "a_b"), "--methods", "svm,spd", "--partitions", "2", "--train-size", "60", "--test-size", "60", "-q", "--plot", figs)
	for _, f := range []string{"a_b-spd-trace.svg", "a_b-c8687a-spd-trace.svg", "a_b-spd-weights.svg", "a_b-c8687a-spd-weights.svg"} {
		if _, err := os.Stat(filepath.Join(figs, f)); err != nil {
			t.Errorf("--plot of datasets \"a b\" and a_b: %v", err)
		}
	}
}

// Issue 42, item 18: info --feature-stats showed std inf for |x| > 1e154
// (the squares overflowed) and 0 below 1e-162, and --format json then
// failed on the Inf; the values are scaled by a power of two first.
func TestFaultInfoStatsOfHugeAndTinyValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		exp             string
		mean, std, text string
	}{
		{"e200", "1.2499999999999999e+200", "1.479019945774904e+200", "│ 1 │ f1   │ -1e+200 │ 3e+200 │ 1.25e+200 │ 1.47902e+200 │"},
		{"e-200", "1.25e-200", "1.479019945774904e-200", "│ 1 │ f1   │ -1e-200 │ 3e-200 │ 1.25e-200 │ 1.47902e-200 │"},
		{"e307", "1.25e+307", "1.479019945774904e+307", "│ 1 │ f1   │ -1e+307 │ 3e+307 │ 1.25e+307 │ 1.47902e+307 │"},
	} {
		p := filepath.Join(dir, "x"+tc.exp)
		body := fmt.Sprintf("1 1:1%[1]s 2:1\n-1 1:3%[1]s 2:2\n1 1:2%[1]s 2:0.5\n-1 1:-1%[1]s 2:3\n", tc.exp)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if out := mustRun(t, "info", p, "--feature-stats"); !strings.Contains(out, tc.text) {
			t.Errorf("%s: want the row %q in\n%s", tc.exp, tc.text, out)
		}
		js := mustRun(t, "info", p, "--feature-stats", "--format", "json")
		var got struct {
			Stats []map[string]any `json:"feature_stats"`
		}
		dec := json.NewDecoder(strings.NewReader(js))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil || len(got.Stats) != 2 {
			t.Fatalf("%s: %v\n%s", tc.exp, err, js)
		}
		if s := got.Stats[0]; s["mean"] != json.Number(tc.mean) || s["std"] != json.Number(tc.std) || got.Stats[1]["std"] != json.Number("0.960143218483576") {
			t.Errorf("%s: feature stats %v, want mean %s std %s", tc.exp, got.Stats, tc.mean, tc.std)
		}
	}
}

// Issue 42, item 16 (in part): the same settings spelled differently were
// refused by report's merge: grid.py's grid spelled out (--log2c -5,15,2
// --log2g 3,-15,-2), and the same method with more partitions in a second
// file (the partition count was compared, though partition k is drawn from
// the seed and k alone). An option that changes the data still makes
// another dataset.
func TestFaultSameDataSpelledDifferently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := []string{"compare", heartScale, "--methods", "svm,random", "--budget", "6", "--train-size", "60", "--test-size", "60", "-q"}
	spelled := []string{"--log2c", "-5,15,2", "--log2g", "3,-15,-2"}
	plain := filepath.Join(dir, "plain.jsonl")
	mustRun(t, append(base, "--partitions", "2", "--out", plain)...)
	// A second file, with the grid spelled out and more partitions.
	more := filepath.Join(dir, "more.jsonl")
	mustRun(t, append(append(base, "--partitions", "3", "--out", more), spelled...)...)
	out, errOut, code := runCLI(t, "report", plain, more, "--format", "csv")
	if code != 0 || !strings.Contains(out, "\nheart_scale,svm,3,3,0,0,") || !strings.Contains(out, "\nheart_scale,random,3,3,0,0,") || strings.Count(out, "\n") != 3 {
		t.Errorf("report plain more: exit %d, %s\n%s; want one dataset of 3 partitions", code, errOut, out)
	}
	// The records of the partitions both files hold are the same jobs.
	pr, _ := readMasked(t, plain)
	mr, _ := readMasked(t, more)
	for i := range pr {
		j := slices.IndexFunc(mr, func(r experiment.Record) bool { return r.Entry == pr[i].Entry && r.Partition == pr[i].Partition })
		if j < 0 || mr[j].TestAccuracy != pr[i].TestAccuracy || mr[j].Identity != pr[i].Identity || mr[j].Run == pr[i].Run {
			t.Errorf("%s/%d: the two files disagree", pr[i].Entry, pr[i].Partition)
		}
	}
	// Another grid is other settings; another +1 class another dataset.
	other := filepath.Join(dir, "other.jsonl")
	mustRun(t, append(base, "--partitions", "2", "--out", other, "--log2c", "-5,15,4")...)
	if _, errOut, code := runCLI(t, "report", plain, other); code != ExitError || !strings.Contains(errOut, "--log2c (default) vs -5,15,4") {
		t.Errorf("report plain other: exit %d, %q; want the settings conflict", code, errOut)
	}
	flipped := filepath.Join(dir, "flipped.jsonl")
	mustRun(t, append(base, "--partitions", "2", "--out", flipped, "--positive", "-1")...)
	if _, errOut, code := runCLI(t, "report", plain, flipped); code != ExitError || !strings.Contains(errOut, "read.labels.positive 1 vs -1") {
		t.Errorf("report plain flipped: exit %d, %q; want the identity conflict", code, errOut)
	}
}
