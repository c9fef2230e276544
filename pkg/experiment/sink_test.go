package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileSinkLock: a second sink on a file is refused while the first is
// open, naming the holder (this process), and allowed once it is closed.
func TestFileSinkLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	a, err := OpenFileSink(path, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenFileSink(path, true)
	var le *LockedError
	if !errors.As(err, &le) || le.Path != path {
		t.Fatalf("second sink: err = %v, want a *LockedError", err)
	}
	if _, statErr := os.Stat("/proc/locks"); statErr == nil && le.PID != os.Getpid() {
		t.Errorf("holder pid %d, want this process's %d", le.PID, os.Getpid())
	}
	a.Close()
	b, err := OpenFileSink(path, true)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	b.Close()
}

// TestFileSinkRepairsTheLastLine: a newline-less whole record is completed
// and counted; a torn one is cut and not counted; the next record starts on
// a line of its own.
func TestFileSinkRepairsTheLastLine(t *testing.T) {
	other := strings.Replace(goodLine, `"partition":2`, `"partition":3`, 1)
	for _, tc := range []struct {
		name, text, want string
		n                int
	}{
		{"newline missing", goodLine, goodLine + "\n", 1},
		{"torn", goodLine + "\n" + other[:30], goodLine + "\n", 1},
		{"whole", goodLine + "\n", goodLine + "\n", 1},
		{"blank tail", goodLine + "\n  ", goodLine + "\n  \n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			os.WriteFile(path, []byte(tc.text), 0o644)
			s, err := OpenFileSink(path, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Records()) != tc.n {
				t.Errorf("%d records, want %d", len(s.Records()), tc.n)
			}
			s.Close()
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Errorf("file after opening:\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestCompareRefusesALockedOutBeforeWork: a results file another writer
// holds is refused before any work, Laanaya's selection of the baseline
// (which tunes SVMs on the data) included.
func TestCompareRefusesALockedOutBeforeWork(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	held, err := OpenFileSink(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	entries, err := ParseEntries("svm")
	if err != nil {
		t.Fatal(err)
	}
	var notices []Notice
	p, err := Prepare(context.Background(), CompareSettings{
		Entries: entries, Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 50, TestSize: 50}),
		LaanayaSelect: true, Out: path,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Run(context.Background(), Observer{Notice: func(n Notice) { notices = append(notices, n) }})
	if le := (*LockedError)(nil); !errors.As(err, &le) || len(notices) != 0 {
		t.Fatalf("err = %v, %d notices; want a *LockedError before the baseline is chosen", err, len(notices))
	}
}
