package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const gridJSON = `"grid":{"datasets":[{"name":"heart","partitions":24}],"entries":["svm","rcsc"]}`

const goodLine = `{"schema_version":1,"dataset":"heart","entry":"svm","method":"svm","partition":2,"run":"abc","status":"converged","test_accuracy":0.8,"nsv":10,"train_size":40,"test_size":40,"iterations":1,"svm_solves":1,"seconds":0.1}`

func TestReadRecords(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		n          int    // records, when no error
		err        string // substring of the error
	}{
		{"one record", goodLine + "\n", 1, ""},
		{"blank lines, a job twice with the same values", "\n" + goodLine + "\n\n" + goodLine + "\n", 1, ""},
		{"a job twice, wall times aside", goodLine + "\n" + strings.Replace(goodLine, `}`, `,"seconds":3}`, 1) + "\n", 1, ""},
		{"a job twice with different values", goodLine + "\n\n" + strings.Replace(goodLine, "0.8", "0.9", 1) + "\n", 0,
			"x.jsonl:3: job (dataset heart, entry svm, partition 2) is recorded twice with different values: at x.jsonl:1 and x.jsonl:3 (test_accuracy 0.8 vs 0.9)"},
		{"accuracy above 1", strings.Replace(goodLine, "0.8", "1.7", 1) + "\n", 0, "x.jsonl:1: test_accuracy 1.7 is not in [0, 1]"},
		{"negative accuracy", strings.Replace(goodLine, "}", `,"train_accuracy":-0.1}`, 1) + "\n", 0, "x.jsonl:1: train_accuracy -0.1 is not in [0, 1]"},
		{"negative nsv", goodLine + "\n" + strings.Replace(goodLine, "}", `,"partition":3,"nsv":-4}`, 1) + "\n", 0, "x.jsonl:2: nsv -4 < 0"},
		{"more SVs than points", strings.Replace(goodLine, "}", `,"nsv":70,"train_size":60}`, 1) + "\n", 0, "x.jsonl:1: nsv 70 > train_size 60"},
		{"negative time", strings.Replace(goodLine, "}", `,"seconds":-1}`, 1) + "\n", 0, "x.jsonl:1: seconds -1 is not a wall time"},
		{"partition outside the grid", strings.Replace(goodLine, "}", `,"partition":999,`+gridJSON+`}`, 1) + "\n", 0,
			"x.jsonl:1: partition 999 is outside the run's grid (heart has 24 partitions: 0 to 23)"},
		{"partition within the grid", strings.Replace(goodLine, "}", `,`+gridJSON+`}`, 1) + "\n", 1, ""},
		{"dataset outside the grid", strings.Replace(strings.Replace(goodLine, "}", `,`+gridJSON+`}`, 1), `"heart"`, `"iris"`, 1) + "\n", 0,
			`x.jsonl:1: dataset "iris" is not in the run's grid`},
		{"entry outside the grid", strings.Replace(strings.Replace(goodLine, "}", `,`+gridJSON+`}`, 1), `"entry":"svm"`, `"entry":"gi"`, 1) + "\n", 0,
			`x.jsonl:1: entry "gi" is not in the run's grid (svm, rcsc)`},
		{"no final newline", goodLine, 1, ""},
		{"torn last line", goodLine + "\n" + `{"schema_version":1,"dataset":"heart","en`, 1, ""},
		{"empty", "", 0, ""},
		{"bad line before the end", goodLine + "\n" + `{"schema_version":1,"dataset":` + "\n" + goodLine + "\n", 0, "x.jsonl:2: not a result record"},
		{"complete bad last line", goodLine + "\n" + "[1,2]\n", 0, "x.jsonl:2: not a result record"},
		{"another tool's JSON", `{"foo": 1}` + "\n", 0, "x.jsonl:1: not a result record of 'kerneltune compare --out': no dataset, entry, method, run, status"},
		{"no run", `{"schema_version":1,"dataset":"d","entry":"svm","method":"svm","status":"converged"}` + "\n", 0, "x.jsonl:1: not a result record of 'kerneltune compare --out': no run"},
		{"negative partition", strings.Replace(goodLine, `"partition":2`, `"partition":-1`, 1) + "\n", 0, "x.jsonl:1: partition -1 < 0"},
		{"a confusion matrix", strings.Replace(goodLine, "}", `,"test_size":5,"test_confusion":{"labels":["a","b"],"counts":[[2,1],[0,2]]},"test_auc":0.75}`, 1) + "\n", 1, ""},
		{"a confusion matrix of other rows", strings.Replace(goodLine, "}", `,"test_size":6,"test_confusion":{"labels":["a","b"],"counts":[[2,1],[0,2]]}}`, 1) + "\n", 0,
			"x.jsonl:1: test_confusion counts 5 rows, test_size is 6"},
		{"a confusion matrix not square", strings.Replace(goodLine, "}", `,"test_size":3,"test_confusion":{"labels":["a","b"],"counts":[[2,1]]}}`, 1) + "\n", 0,
			"x.jsonl:1: test_confusion: confusion matrix has 1 rows for 2 classes"},
		{"a job twice, once with the test metrics", goodLine + "\n" + strings.Replace(goodLine, "}", `,"test_confusion":{"labels":["a","b"],"counts":[[20,4],[4,12]]},"test_auc":0.5}`, 1) + "\n", 1, ""},
		{"a job twice, the test metrics differ", strings.Replace(goodLine, "}", `,"test_size":0,"test_auc":0.25,"test_confusion":{"labels":["a","b"],"counts":[[0,0],[0,0]]}}`, 1) + "\n" + strings.Replace(goodLine, "}", `,"test_size":0,"test_confusion":{"labels":["a","b"],"counts":[[0,0],[0,0]]},"test_auc":0.5}`, 1) + "\n", 0,
			"is recorded twice with different values"},
		{"an accuracy the confusion matrix contradicts", strings.Replace(goodLine, "}", `,"test_size":5,"test_confusion":{"labels":["a","b"],"counts":[[2,1],[1,1]]}}`, 1) + "\n", 0,
			"x.jsonl:1: test_accuracy 0.8 contradicts test_confusion (3 of 5 test rows right: 0.6)"},
		{"test_accuracy missing", strings.Replace(goodLine, `"test_accuracy":0.8,`, ``, 1) + "\n", 0,
			"x.jsonl:1: no field test_accuracy (every record compare writes has one; it would be read as 0)"},
		{"test_accuracy null", strings.Replace(goodLine, `"test_accuracy":0.8`, `"test_accuracy":null`, 1) + "\n", 0,
			"x.jsonl:1: field test_accuracy is null, not a number"},
		{"nsv and seconds missing", strings.Replace(strings.Replace(goodLine, `"nsv":10,`, ``, 1), `,"seconds":0.1`, ``, 1) + "\n", 0,
			"x.jsonl:1: no field nsv, seconds"},
		{"AUC above 1", strings.Replace(goodLine, "}", `,"test_auc":1.5}`, 1) + "\n", 0, "x.jsonl:1: test_auc 1.5 is not in [0, 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := ReadRecords(strings.NewReader(tc.text), "x.jsonl")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tc.n {
				t.Fatalf("%d records, want %d", len(recs), tc.n)
			}
			for _, r := range recs {
				if r.Key() != (Key{Dataset: "heart", Entry: "svm", Partition: 2}) || r.TestAccuracy != 0.8 {
					t.Errorf("record %+v", r)
				}
				if strings.Contains(tc.name, "once with the test metrics") && (r.TestAUC == nil || *r.TestAUC != 0.5) {
					t.Errorf("the record kept is not the one with the test metrics: %+v", r)
				}
			}
		})
	}
}

func TestReadRecordsFileDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadRecordsFile(dir)
	if want := dir + " is a directory, not a results file"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	path := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(path, []byte(goodLine+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRecordsFile(path)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records, err %v", len(recs), err)
	}
}

// TestMergeRefusesConflictingRecords: the same job in two files with other
// values is an error naming both files:lines and what differs, as within
// one file (one jobSet); with the same values it counts once.
func TestMergeRefusesConflictingRecords(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	c := filepath.Join(dir, "c.jsonl")
	os.WriteFile(a, []byte(goodLine+"\n"), 0o644)
	os.WriteFile(b, []byte(goodLine+"\n"), 0o644)
	os.WriteFile(c, []byte(strings.Replace(goodLine, "0.8", "0.75", 1)+"\n"), 0o644)
	res, err := MergeFiles(context.Background(), MergeSettings{Files: []string{a, b}})
	if err != nil || len(res.Records) != 1 {
		t.Fatalf("same values: %v", err)
	}
	_, err = MergeFiles(context.Background(), MergeSettings{Files: []string{a, b, c}})
	want := c + ":1: job (dataset heart, entry svm, partition 2) is recorded twice with different values: at " + a + ":1 and " + c + ":1 (test_accuracy 0.8 vs 0.75)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// TestOneMergePath: ReadRecords, Merge and MergeFiles share one jobSet, so
// one set of rules: a job is its key; the same result twice is kept once
// (the first record, unless a later one adds the test metrics); what
// identifies the run is set aside only between records of two runs; two
// results of one job are an error naming both places and what differs.
func TestOneMergePath(t *testing.T) {
	parse := func(line string) Record {
		r, err := parseRecord([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	withMetrics := strings.Replace(goodLine, "}", `,"test_confusion":{"labels":["a","b"],"counts":[[20,4],[4,12]]},"test_auc":0.5}`, 1)
	otherRun := strings.Replace(goodLine, `"run":"abc"`, `"run":"def","settings":{"seed":2},`+gridJSON, 1)
	otherSettings := strings.Replace(goodLine, `"run":"abc"`, `"run":"abc","settings":{"seed":2}`, 1)
	for _, tc := range []struct {
		name        string
		first, then string
		err         string // "" when the two are one result
		kept        string // the line kept
	}{
		{"the same record", goodLine, goodLine, "", goodLine},
		{"the later adds the test metrics", goodLine, withMetrics, "", withMetrics},
		{"the later lacks them", withMetrics, goodLine, "", withMetrics},
		{"another run, the same result", goodLine, otherRun, "", goodLine},
		{"one run, other settings", goodLine, otherSettings, `at a:1 and b:7 (settings)`, ""},
		{"another result", goodLine, strings.Replace(otherRun, `"nsv":10`, `"nsv":11`, 1), "at a:1 and b:7 (nsv 10 vs 11)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := parse(tc.first), parse(tc.then)
			got, err := mergeSets([]recordSet{{name: "a", recs: []Record{a}, at: []RecordPos{{"a", 1}}},
				{name: "b", recs: []Record{b}, at: []RecordPos{{"b", 7}}}})
			if tc.err != "" {
				var de *DuplicateJobError
				if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want a *DuplicateJobError with %q", err, tc.err)
				}
				return
			}
			if err != nil || len(got) != 1 {
				t.Fatalf("%d records, err %v", len(got), err)
			}
			want := parse(tc.kept)
			if got[0].Run != want.Run || (got[0].TestConfusion == nil) != (want.TestConfusion == nil) {
				t.Errorf("kept %+v, want %s", got[0], tc.kept)
			}
			if a.Run != b.Run && (got[0].Grid == nil || !slices.Equal(got[0].Grid.Entries, []string{"svm", "rcsc"})) {
				t.Errorf("records of two runs: grid %+v, want the union of their grids", got[0].Grid)
			}
		})
	}
}
