package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// compareArgs is a small but real comparison: the baseline on three
// partitions of heart with 60/60 points.
var compareArgs = []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "3", "--train-size", "60", "--test-size", "60", "--workers", "2"}

func TestCompareGoldenFormats(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"table", "markdown", "csv", "json", "latex"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runCLI(t, append(compareArgs, "--format", format)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "compare_"+format+".golden", maskCompareTiming(out, format))
		})
	}
}

func TestCompareResumeAndReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "res.jsonl")
	first, errOut, code := runCLI(t, append(compareArgs, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(out)
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Fatalf("%d records in %s, want 3", n, out)
	}
	// Resuming a finished run does no work and prints the same table.
	again, errOut, code := runCLI(t, append(compareArgs, "--out", out, "--resume")...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if maskCompareTiming(again, "table") != maskCompareTiming(first, "table") {
		t.Errorf("resumed table differs:\n%s\n%s", again, first)
	}
	data2, _ := os.ReadFile(out)
	if string(data2) != string(data) {
		t.Error("resuming a finished run rewrote the results file")
	}
	// report re-renders the same table from the file.
	rep, errOut, code := runCLI(t, "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if maskCompareTiming(rep, "table") != maskCompareTiming(first, "table") {
		t.Errorf("report table differs:\n%s\n%s", rep, first)
	}
	// Other settings refuse to resume into the same file.
	_, errOut, code = runCLI(t, append(compareArgs, "--out", out, "--resume", "--seed", "9")...)
	if code != 1 || !strings.Contains(errOut, "other settings") {
		t.Errorf("resume with another seed: exit %d, stderr %q", code, errOut)
	}
}

func TestCompareShardsReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []string
	for _, s := range []string{"1/2", "2/2"} {
		f := filepath.Join(dir, strings.ReplaceAll(s, "/", "of")+".jsonl")
		if _, errOut, code := runCLI(t, append(compareArgs, "--shard", s, "--out", f)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, errOut)
		}
		files = append(files, f)
	}
	merged, errOut, code := runCLI(t, append([]string{"report"}, files...)...)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	single, _, _ := runCLI(t, compareArgs...)
	if maskCompareTiming(merged, "table") != maskCompareTiming(single, "table") {
		t.Errorf("shards + report differ from a single run:\n%s\n%s", merged, single)
	}
}

// TestCompareUsageErrors: through the whole command line, a bad flag is
// exit 2 and a missing file exit 1. Every flag check of compare is in
// TestCompareFlagErrors, which stops before compare runs.
func TestCompareUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"compare", "--methods", "nosuch"},
		{"report"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errOut)
		}
	}
	_, errOut, code := runCLI(t, "compare", "no-such-file.csv", "--methods", "svm")
	if code != 1 || !strings.Contains(errOut, "no-such-file.csv") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

// TestPlotFormatUsageError: report refuses an unknown --plot-format as
// compare does, with exit code 2 and before it reads a file or prints a
// table (it used to print the tables, then fail with exit 1 at the figures).
func TestPlotFormatUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := filepath.Join(dir, "res.jsonl")
	if _, errOut, code := runCLI(t, append(compareArgs, "--out", res, "--partitions", "1")...); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	const want = `--plot-format: want svg, png or pdf, got "xyz"`
	for _, args := range [][]string{
		{"report", res, "--plot-format", "xyz"},
		{"report", res, "--plot-format", "xyz", "--plot", filepath.Join(dir, "figs")},
		{"report", filepath.Join(dir, "no-such.jsonl"), "--plot-format", "xyz"},
		{"compare", "builtin:heart", "--plot-format", "xyz"},
	} {
		out, errOut, code := runCLI(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errOut, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "figs")); !os.IsNotExist(err) {
		t.Errorf("report with a bad --plot-format made the figure directory (%v)", err)
	}
	// A known format still writes its figures.
	figs := filepath.Join(dir, "png")
	if _, errOut, code := runCLI(t, "report", res, "--plot-format", "png", "--plot", figs); code != 0 {
		t.Fatalf("report --plot-format png: exit %d: %s", code, errOut)
	}
	pngs, _ := filepath.Glob(filepath.Join(figs, "*.png"))
	svgs, _ := filepath.Glob(filepath.Join(figs, "*.svg"))
	if len(pngs) == 0 || len(svgs) != 0 {
		t.Errorf("report --plot-format png wrote %q and %q", pngs, svgs)
	}
}

// A rerun without --resume must not truncate the results of an earlier run:
// it is refused before any work, and the file is left as it was.
func TestCompareOutKeepsEarlierResults(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "res.jsonl")
	mustRun(t, append(compareArgs, "--out", out, "--partitions", "1")...)
	before, err := os.ReadFile(out)
	if err != nil || len(before) == 0 {
		t.Fatalf("results file: %v, %d bytes", err, len(before))
	}
	_, errOut, code := runCLI(t, append(compareArgs, "--out", out, "--partitions", "1")...)
	if code != ExitError || !strings.Contains(errOut, "already holds results: add --resume") {
		t.Errorf("rerun without --resume: exit %d, stderr %q", code, errOut)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Error("the refused rerun changed the results file")
	}
	// An empty file (say, from touch) is fine to write.
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, append(compareArgs, "--out", empty, "--partitions", "1")...)
}

// Failed jobs are explained on stderr, each distinct error once with the
// first job that hit it, not only counted in the table.
func TestCompareExplainsFailures(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLI(t, "compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--train-size", "4", "--test-size", "4", "--stratified")
	if code != ExitError {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	want := "compare:   0%  0/2  elapsed Xs  ETA ?  jobs\n" + // the progress start line (stderr is no terminal)
		"kerneltune: compare: 2 job(s) failed (see the failures column):\n" +
		"  heart svm partition 1 (and 1 more): tune: svm: 5-fold cross-validation needs at least 5 rows, got 4\n"
	if errOut = maskElapsed(errOut); errOut != want {
		t.Errorf("stderr\n%s\nwant\n%s", errOut, want)
	}
	if !strings.Contains(out, "heart (2 partitions: 4 train / 4 test of 270 rows)") {
		t.Errorf("no table on stdout:\n%s", out)
	}
}

// CSV has no titles, so compare's CSV names the dataset of every row: two
// datasets used to come out as two unlabelled blocks. A single partition
// has no spread: its std is an empty cell, not 0.
func TestCompareCSVNamesDatasets(t *testing.T) {
	t.Parallel()
	grid := &experiment.Grid{Datasets: []experiment.GridDataset{{Name: "heart", Partitions: 1}, {Name: "bupa", Partitions: 1}}, Entries: []string{"svm"}}
	rs := []experiment.Record{
		{Dataset: "heart", Entry: "svm", Method: "svm", Partition: 0, Status: "converged", TestAccuracy: 0.8, Degenerate: "diagonal", Grid: grid},
		{Dataset: "bupa", Entry: "svm", Method: "svm", Partition: 0, Status: "converged", TestAccuracy: 0.7, Grid: grid},
	}
	var out strings.Builder
	sum := report.Summarize(rs, report.SummaryOptions{Entries: []string{"svm"}})
	if err := writeSummary(&globalOptions{Out: &out}, formatCSV, sum, rs); err != nil {
		t.Fatal(err)
	}
	want := "dataset,method,partitions,runs,failures,missing,degenerate,memorising,mean_test_accuracy,std_test_accuracy,mean_nsv,mean_seconds,mean_svm_solves,baseline,p_value,pairs,best,complete,rope_points,p_worse,p_equivalent,p_better,train_size,test_size,rows\n" +
		"heart,svm,1,1,0,0,1,0,0.8,,0,0,0,svm,,0,true,true,0,,,,,,\n" +
		"bupa,svm,1,1,0,0,0,0,0.7,,0,0,0,svm,,0,true,true,0,,,,,,\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	sum = report.Summarize(rs[:1], report.SummaryOptions{})
	if err := writeSummary(&globalOptions{Out: &out}, formatMarkdown, sum, rs[:1]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "**heart (1 partition: sizes not recorded)**\n") || !strings.Contains(out.String(), "80.00 ± —") || !strings.Contains(out.String(), "**bupa (1 partition: sizes not recorded) — INCOMPLETE: no records (0 of 1 jobs present)**") {
		t.Errorf("title of one partition:\n%s", out.String())
	}
}

// A --plot directory that cannot be made fails before any job runs, not
// after a long run.
func TestComparePlotDirCheckedFirst(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, append(compareArgs, "--plot", filepath.Join(file, "figs"))...)
	if code != ExitError || !strings.Contains(errOut, "compare: --plot: mkdir") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 before any table", code, out, errOut)
	}
}

// Two files with the same base name are two data sets: records are keyed by
// the data set's name, and the second file's results used to replace the
// first's silently (one table instead of two).
func TestCompareSameNamedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	heart, err := os.ReadFile(cmdTestdata + "/uci/heart.dat")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, sub := range []string{"a", "b"} {
		p := filepath.Join(dir, sub, "heart.dat")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := heart
		if i == 1 { // other data: one dataset twice is refused (TestFaultOneIdentityOneDataset)
			body = heart[bytes.IndexByte(heart, '\n')+1:]
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	out := mustRun(t, "compare", paths[0], paths[1], "--methods", "svm", "--partitions", "1", "--train-size", "40", "--test-size", "40", "--format", "csv", "-q")
	for _, p := range paths {
		if !strings.Contains(out, "\n"+p+",svm") {
			t.Errorf("no row for %s:\n%s", p, out)
		}
	}
	_, errOut, code := runCLI(t, "compare", paths[0], paths[0], "--methods", "svm")
	if code != ExitUsage || !strings.Contains(errOut, "given twice") {
		t.Errorf("the same DATA twice: exit %d, %q", code, errOut)
	}
}

// Every option a method refuses on any data is refused before any job
// runs, with exit 2 and the method's own words: --C -1 ran every job, all
// failed, and printed a table of "—". --C is refused by compare's run, for
// the entries that refuse it (twolevel learns C); the other shared flags
// are refused by compare's flag check (TestCompareFlagErrors).
func TestCompareRefusesMethodOptionsUpFront(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--C", "-1"}, "--methods entry svm refuses these options, so every one of its jobs would fail: svm: C -1: want a number from 2^-40 (9.095e-13) to 2^40 (1.1e+12) (or 0 for the method's own choice)"},
		{[]string{"--C", "-1", "--methods", "rcsc,lccp"}, "--methods entry rcsc refuses"},
		// twolevel learns C: --C with the default "all" is refused for it.
		{[]string{"--C", "1"}, "--methods entry twolevel refuses these options, so every one of its jobs would fail: twolevel: C 1: want 0: twolevel learns C"},
		{[]string{"--C", "NaN", "--methods", "gi"}, "--methods entry gi refuses these options, so every one of its jobs would fail: gi: C NaN: want a number from 2^-40"},
		{[]string{"--preset", "gi-chessboard", "--C", "-2"}, "--methods entry svm refuses"},
	} {
		out := filepath.Join(dir, "res.jsonl")
		args := append([]string{"compare", "builtin:heart", "--out", out}, tc.args...)
		if slices.Contains(tc.args, "--preset") {
			args = append([]string{"compare", "--out", out}, tc.args...)
		}
		stdout, errOut, code := runCLI(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, errOut, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: a results file was written before the refusal (%v)", tc.args, err)
		}
	}
	// --C for the methods that take it runs.
	out := mustRun(t, "compare", "builtin:heart", "--methods", "svm,rcsc", "--C", "1", "--partitions", "1", "--train-size", "40", "--test-size", "40", "--format", "csv", "-q")
	if strings.Count(out, "\nheart,") != 2 {
		t.Errorf("compare --C 1 --methods svm,rcsc:\n%s", out)
	}
}

// compare TRAIN --test TEST: one partition, the whole training file against
// the whole test file; with --partitions K, K subsamples of --train-size
// rows of the training file, each against the whole test file.
func TestCompareGivenTestFile(t *testing.T) {
	t.Parallel()
	train, test := splitHeart(t) // 200 and 70 rows
	dir := t.TempDir()
	one := filepath.Join(dir, "one.jsonl")
	mustRun(t, "compare", train, "--test", test, "--methods", "svm,spd", "--out", one, "-q")
	recs, err := experiment.ReadRecordsFile(one)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2 (one partition, two methods)", len(recs))
	}
	for _, r := range recs {
		if r.Partition != 0 || r.TrainSize != 200 || r.TestSize != 70 || r.Failed() {
			t.Errorf("%s: partition %d, %d train / %d test rows, status %s; want 0, 200 / 70", r.Entry, r.Partition, r.TrainSize, r.TestSize, r.Status)
		}
	}
	// The svm row is what tune --test reports for the same files with the
	// partition's method seed: the same grid search on the whole training
	// file, tested on the whole test file.
	seed := strconv.FormatUint(experiment.JobSeed(1, 0), 10)
	tuned := tuneJSON(t, train, "--test", test, "--method", "svm", "--seed", seed)
	// The records are in the order the jobs finished (two workers): find
	// svm's by its entry, not its place.
	k := slices.IndexFunc(recs, func(r experiment.Record) bool { return r.Entry == "svm" })
	if k < 0 {
		t.Fatal("no svm record")
	}
	sv := recs[k]
	if tuned.TestAccuracy == nil || sv.TestAccuracy != *tuned.TestAccuracy || sv.NSV != tuned.NSV || sv.C != tuned.C {
		t.Errorf("compare --test svm: accuracy %v, #SV %d, C %v; tune --test: %v, %d, %v",
			sv.TestAccuracy, sv.NSV, sv.C, tuned.Accuracies, tuned.NSV, tuned.C)
	}

	many := filepath.Join(dir, "many.jsonl")
	mustRun(t, "compare", train, "--test", test, "--methods", "svm", "--partitions", "3", "--train-size", "50", "--out", many, "-q")
	recs, err = experiment.ReadRecordsFile(many)
	if err != nil {
		t.Fatal(err)
	}
	accs := map[float64]bool{}
	for _, r := range recs {
		if r.TrainSize != 50 || r.TestSize != 70 {
			t.Errorf("partition %d: %d train / %d test rows, want 50 / 70", r.Partition, r.TrainSize, r.TestSize)
		}
		accs[r.TestAccuracy] = true
	}
	if len(recs) != 3 || len(accs) < 2 {
		t.Errorf("%d partitions with %d distinct accuracies: the subsamples should differ", len(recs), len(accs))
	}
	// --train-size above the file's rows: every partition would train on
	// all of it, one partition twice over; refused (issue 42,
	// TestFaultSamePartitions).
	_, errOut, code := runCLI(t, "compare", train, "--test", test, "--methods", "svm", "--partitions", "2", "--train-size", "500", "--format", "json")
	if code != 2 || !strings.Contains(errOut, "2 partitions of a training file of 200 rows, not more than the training size 500") {
		t.Errorf("--train-size 500 of 200 rows: exit %d, stderr %q", code, errOut)
	}
	// --partitions without --train-size: the default 100 of 200 rows, said
	// on stderr (a user who meant the whole file would not see it in the
	// table); with --train-size given, no such note.
	_, errOut, code = runCLI(t, "compare", train, "--test", test, "--methods", "svm", "--partitions", "2", "--format", "json")
	if code != 0 || !strings.Contains(errOut, "each of the 2 partitions trains on a random 100 of") || !strings.Contains(errOut, "give --train-size 200 to train on the whole file") {
		t.Errorf("--partitions 2 without --train-size: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, _ := runCLI(t, "compare", train, "--test", test, "--methods", "svm", "--partitions", "2", "--train-size", "50", "--format", "json"); strings.Contains(errOut, "default --train-size") {
		t.Errorf("--train-size 50 given: stderr %q still notes the default", errOut)
	}
	// The flags --test does not go with: TestCompareFlagErrors.
	// A test file of another width is an error naming both files.
	wide := writeFile(t, dir, "wide", "1 1:0.5 20:0.1\n-1 1:0.2\n")
	if _, errOut, code := runCLI(t, "compare", train, "--test", wide, "--methods", "svm"); code != ExitError || !strings.Contains(errOut, "wide has 20 features, training file "+train+" has 13") {
		t.Errorf("narrow test file: exit %d, stderr %q", code, errOut)
	}
}

// Without DATA, compare runs on every embedded dataset, in the order its
// --help names them.
func TestCompareDefaultData(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "compare", "--methods", "svm", "--partitions", "1", "--train-size", "30", "--test-size", "30", "--format", "csv", "-q")
	var ds []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		ds = append(ds, strings.Split(line, ",")[0])
	}
	if want := []string{"heart", "breast-wisconsin", "diabetes"}; !slices.Equal(ds, want) {
		t.Errorf("default datasets %q, want %q", ds, want)
	}
	if help := mustRun(t, "compare", "--help"); !strings.Contains(help, "every embedded dataset: heart, breast-wisconsin and\ndiabetes") {
		t.Errorf("compare --help does not name the default datasets:\n%s", help)
	}
}

// Off a terminal compare prints plain progress lines: its start (with the
// jobs already done when resumed), then at most one per 30 s (a short run
// prints its start line only; internal/progress tests the interval, and
// TestTuneProgressPlainLines the lines of a run of several intervals); -q
// none.
func TestComparePlainProgress(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "res.jsonl")
	_, errOut, code := runCLI(t, append(compareArgs, "--out", out)...)
	if want := "compare:   0%  0/3  elapsed Xs  ETA ?  jobs\n"; code != 0 || maskElapsed(errOut) != want {
		t.Fatalf("exit %d, stderr %q, want the start line %q", code, errOut, want)
	}
	_, errOut, code = runCLI(t, append(compareArgs, "--out", out, "--resume")...)
	if want := "compare: 100%  3/3  elapsed Xs  ETA 0s  jobs\n"; code != 0 || maskElapsed(errOut) != want {
		t.Errorf("resumed: exit %d, stderr %q, want %q", code, errOut, want)
	}
	if _, errOut, code = runCLI(t, append(compareArgs, "--out", out, "--resume", "-q")...); code != 0 || errOut != "" {
		t.Errorf("-q: exit %d, stderr %q", code, errOut)
	}
}
