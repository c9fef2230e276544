package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/report"
)

var (
	// compareRunText is a run fingerprint in text output.
	compareRunText = regexp.MustCompile(`run [0-9a-f]{12}`)
	studyFile      = filepath.Join(cmdTestdata, "study", "uci-eight.yaml")
	studyHalfA     = filepath.Join(cmdTestdata, "study", "uci-eight-half-a.yaml")
	studyHalfB     = filepath.Join(cmdTestdata, "study", "uci-eight-half-b.yaml")
	// The flags override the study's top level: fewer partitions and
	// methods keep the test short.
	studySmall = []string{"--partitions", "2", "--methods", "svm,spd", "-q"}
)

// The study run whole, as 4 shards merged by report, and as two halves
// (two study files, two runs) merged by report give the same report,
// timings aside; the tables are the golden file's.
func TestStudyWholeShardsHalvesSameReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	run := func(study, file string, extra ...string) {
		t.Helper()
		args := append([]string{"compare", "--study", study, "--out", out(file)}, studySmall...)
		if _, errOut, code := runCLI(t, append(args, extra...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	report := func(files ...string) (string, report.Summary) {
		t.Helper()
		args := []string{"report"}
		for _, f := range files {
			args = append(args, out(f))
		}
		text, errOut, code := runCLI(t, args...)
		js, _, code2 := runCLI(t, append(args, "--format", "json")...)
		if code != 0 || code2 != 0 {
			t.Fatalf("%v: exit %d, %d: %s", args, code, code2, errOut)
		}
		var sum report.Summary
		if err := json.Unmarshal([]byte(js), &sum); err != nil {
			t.Fatal(err)
		}
		return maskCompareTiming(text, "table"), sum
	}
	run(studyFile, "whole.jsonl")
	for i := 1; i <= 4; i++ {
		run(studyFile, "shard"+string(rune('0'+i))+".jsonl", "--shard", string(rune('0'+i))+"/4")
	}
	run(studyHalfA, "a.jsonl")
	run(studyHalfB, "b.jsonl")

	whole, wsum := report("whole.jsonl")
	shards, ssum := report("shard1.jsonl", "shard2.jsonl", "shard3.jsonl", "shard4.jsonl")
	halves, hsum := report("a.jsonl", "b.jsonl")
	golden(t, "study-report.txt", whole)
	if shards != whole {
		t.Errorf("4 shards' report differs from the whole run's:\n%s", shards)
	}
	if halves != whole {
		t.Errorf("two halves' report differs from the whole run's:\n%s", halves)
	}
	if len(wsum.Tables) != 8 || wsum.JobsPresent != 32 || !wsum.Complete || len(hsum.Runs) != 2 || ssum.Runs != nil {
		t.Errorf("whole: %d tables, %d jobs, complete %v; halves' runs %v; shards' runs %v", len(wsum.Tables), wsum.JobsPresent, wsum.Complete, hsum.Runs, ssum.Runs)
	}
	// Every table says where its data came from.
	for i, tab := range hsum.Tables {
		p := tab.Provenance
		if p == nil || p.Data == nil || p.Data.Name != tab.Dataset || len(p.Data.SHA256) != 64 || p.Data.RowsUsed == 0 || p.Study == "" || len(p.StudySHA256) != 64 ||
			wsum.Tables[i].Provenance.Data.SHA256 != p.Data.SHA256 {
			t.Errorf("table %s: provenance %+v", tab.Dataset, p)
		}
	}
	dna := hsum.Tables[5].Provenance.Data
	if dna.Name != "dna" || dna.TestRows != 1186 || dna.Read["positive"] != "3" || dna.Read["features"] != "180" || dna.TrainSize != 60 {
		t.Errorf("dna: %+v", dna)
	}
	// The HTML page's Settings section shows each dataset's provenance.
	page := out("halves.html")
	if _, errOut, code := runCLI(t, "report", out("a.jsonl"), out("b.jsonl"), "--html", page, "-q"); code != 0 {
		t.Fatalf("report --html: exit %d: %s", code, errOut)
	}
	html, _ := os.ReadFile(page)
	for _, w := range []string{"Dataset votes", "435 read, 232 used, 203 dropped (missing values)", "categorical=onehot label-col=1 missing=drop",
		"32 (16 columns read, nominal ones one-hot encoded)", "uci-eight-half-a.yaml (sha256 ", "runs merged"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("the page lacks %q", w)
		}
	}
}

// --dry-run prints the plan, runs no job and writes no results file.
func TestStudyDryRun(t *testing.T) {
	t.Parallel()
	res := filepath.Join(t.TempDir(), "r.jsonl")
	out, errOut, code := runCLI(t, "compare", "--study", studyFile, "--dry-run", "--out", res)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "study-dry-run.txt", compareRunText.ReplaceAllString(out, "run RUN"))
	if _, err := os.Stat(res); !os.IsNotExist(err) {
		t.Errorf("--dry-run wrote %s (%v)", res, err)
	}
	if !strings.Contains(out, "jobs: 72 = 24 partitions of 8 datasets × 3 methods") {
		t.Errorf("no jobs line:\n%s", out)
	}
}

// A study file's errors name the file, line and key, and exit 2.
func TestStudyErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("seed: 1\ndatasets:\n  - path: x.csv\n    label-colum: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", "--study", bad}, 2, bad + ":4: label-colum: unknown key of a dataset"},
		{[]string{"compare", "--study", studyFile, "builtin:heart"}, 2, "--study names its datasets (give no DATA and no --name)"},
		{[]string{"compare", "--name", "h", "builtin:heart", "builtin:diabetes"}, 2, "--name is the display name of one DATA"},
		{[]string{"compare", "--methods", "svm", filepath.Join(cmdTestdata, "arff/iris.arff"), "--classes", "Iris-versicolor,Iris-virginica"}, 1,
			"100 training + 100 test rows do not fit in 100 rows (each part needs at least one row); iris has 100 rows: give a training fraction (--train-fraction 0.5"},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// report refuses runs whose shared (dataset, method) pair differs, naming
// the pair and the setting; --name names the dataset in tables.
func TestReportConflictingRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	common := []string{"compare", filepath.Join(cmdTestdata, "libsvm/heart_scale"), "--name", "Heart", "--methods", "svm", "--partitions", "2", "--train-size", "60", "--test-size", "60", "-q"}
	out, errOut, code := runCLI(t, append(common, "--out", a)...)
	if code != 0 || !strings.HasPrefix(out, "Heart (2 partitions: 60 train / 60 test of 270 rows)\n") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, append(common, "--out", b, "--C", "2")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "report", a, b)
	want := "Heart/svm was run with other settings in " + b + " than in " + a + ": --C (default) vs 2"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want exit 1 and %q", code, errOut, want)
	}
}
