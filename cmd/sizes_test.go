package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare's tables name each dataset's partition sizes and the rows they
// were drawn from, in every format, and report prints them from the
// records alone; a default training part under a tenth of the file is
// noted on stderr before the work, with the flags that change it. (Before,
// "a1a (2 partitions)" said nothing of the 100 of 1,605 rows each
// partition trained on.)
func TestCompareTablesNamePartitionSizes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a1a := filepath.Join(cmdTestdata, "libsvm", "a1a")
	out := filepath.Join(dir, "a1a.jsonl")
	const title = "a1a (2 partitions: 100 train / 100 test of 1,605 rows)"
	note := "kerneltune: note: each of the 2 partitions of " + a1a + " trains on 100 of its 1,605 rows and tests on 100 (Laanaya et al.'s protocol: the default --train-size and --test-size); give --train-fraction 0.5 (half of the rows train, the rest test) or a larger --train-size and --test-size to learn from more of the file\n"
	stdout, errOut, code := runCLI(t, "compare", a1a, "--partitions", "2", "--methods", "svm", "--out", out)
	if code != 0 || !strings.HasPrefix(stdout, title+"\n") {
		t.Fatalf("compare a1a: exit %d, stdout %q", code, stdout)
	}
	// The note comes first, before the progress of the jobs.
	if !strings.HasPrefix(errOut, note) {
		t.Errorf("stderr %q, want it to begin with %q", errOut, note)
	}
	// Sizes the user gives are not noted; a fraction of the file shows in
	// the title.
	for _, args := range [][]string{{"--train-size", "100", "--test-size", "50"}, {"--train-fraction", "0.1"}} {
		stdout, errOut, code := runCLI(t, append([]string{"compare", a1a, "--partitions", "1", "--methods", "svm", "--format", "csv"}, args...)...)
		if code != 0 || strings.Contains(errOut, "note:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
		if args[0] == "--train-fraction" && !strings.Contains(stdout, ",161,1444,1605\n") {
			t.Errorf("--train-fraction 0.1: csv %q, want train_size 161, test_size 1444, rows 1605", stdout)
		}
	}
	// A study's dataset alike: noted under the default size, not under a
	// train-size the study gives.
	for _, c := range []struct {
		keys string
		note bool
	}{{"", true}, {"train-size: 100\n", false}} {
		abs, err := filepath.Abs(a1a)
		if err != nil {
			t.Fatal(err)
		}
		study := writeFile(t, dir, "s.yaml", "methods: [svm]\npartitions: 1\n"+c.keys+"datasets:\n  - path: "+abs+"\n")
		_, errOut, code := runCLI(t, "compare", "--study", study)
		want := "kerneltune: note: the partition of " + abs + " trains on 100 of its 1,605 rows and tests on 100"
		if code != 0 || strings.HasPrefix(errOut, want) != c.note {
			t.Errorf("study %q: exit %d, stderr %q; want the note %v", c.keys, code, errOut, c.note)
		}
	}
	// report, from the records alone, in every format.
	for _, c := range []struct{ format, want string }{
		{"table", title + "\n"},
		{"markdown", "**" + title + "**"},
		{"latex", `\caption{` + title + "}\n\\label{tab:a1a-2-partitions}"},
	} {
		if got := mustRun(t, "report", out, "--format", c.format); !strings.Contains(got, c.want) {
			t.Errorf("report --format %s lacks %q:\n%s", c.format, c.want, got)
		}
	}
	csv := mustRun(t, "report", out, "--format", "csv")
	if lines := strings.Split(csv, "\n"); !strings.HasSuffix(lines[0], ",p_better,train_size,test_size,rows") || !strings.HasSuffix(lines[1], ",100,100,1605") {
		t.Errorf("report --format csv: %q", csv)
	}
	var js struct {
		Tables []struct {
			Sizes struct {
				Train int `json:"train_size"`
				Test  int `json:"test_size"`
				Rows  int `json:"rows"`
			} `json:"sizes"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "report", out, "--format", "json")), &js); err != nil || len(js.Tables) != 1 ||
		js.Tables[0].Sizes.Train != 100 || js.Tables[0].Sizes.Test != 100 || js.Tables[0].Sizes.Rows != 1605 {
		t.Errorf("report --format json: sizes %+v (%v)", js.Tables, err)
	}
	page := filepath.Join(dir, "a1a.html")
	mustRun(t, "report", out, "--html", page, "-q")
	if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), "a1a (2 partitions: 100 train / 100 test of 1,605 rows)</h2>") {
		t.Errorf("report --html: no section headed %q (%v)", title, err)
	}
	// Records without provenance (testdata/crossdata's) say their
	// partitions' sizes, not the rows they were drawn from.
	bare, _, _ := runCLI(t, "report", filepath.Join(cmdTestdata, "crossdata", "run.jsonl"))
	if want := "\nheart (8 partitions: 60 train / 100 test, rows of the data not recorded)\n"; !strings.Contains(bare, want) {
		t.Errorf("report of records without provenance: %.300q, want it to say %q", bare, want)
	}
	// The tables over datasets say each one's sizes: the HTML page's
	// matrix of means in a note, LaTeX's paper table in its caption.
	sizes := "partitions: heart 30 train / 30 test of 270 rows; diabetes 30 train / 30 test of 768 rows"
	two := []string{"compare", "builtin:heart", "builtin:diabetes", "--partitions", "1", "--train-size", "30", "--test-size", "30", "--methods", "svm,spd", "-q"}
	mustRun(t, append(two, "--html", page)...)
	if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), sizes) {
		t.Errorf("compare --html of two datasets: the matrix lacks the note %q (%v)", sizes, err)
	}
	if got := mustRun(t, append(two, "--format", "latex")...); !strings.Contains(got, "(two-sided paired Wilcoxon $p < 0.05$); "+sizes+"}\n\\label{tab:kerneltune-summary}") {
		t.Errorf("compare --format latex: the paper table's caption lacks %q:\n%s", sizes, got)
	}
	// A given test file: the training part of the training file, the test
	// file's rows.
	train, test := splitHeart(t)
	if got := mustRun(t, "compare", train, "--test", test, "--methods", "svm", "-q"); !strings.HasPrefix(got, "heart_train (1 partition: 200 train of 200 rows / 70 test in heart_test)\n") {
		t.Errorf("compare --test: %q", got)
	}
}
