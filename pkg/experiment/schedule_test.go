package experiment

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// TestMakespan: list scheduling on the first free core, checked by hand.
// Five jobs 1, 1, 1, 1, 4 on 2 cores: in this order the 4 starts at 2 and
// ends at 6; longest first it ends at 4, the lower bound max(8/2, 4).
func TestMakespan(t *testing.T) {
	d := []float64{1, 1, 1, 1, 4}
	for _, tc := range []struct {
		order   []float64
		workers int
		want    float64
	}{
		{d, 1, 8},
		{d, 2, 6},
		{LongestFirst(d), 2, 4},
		{d, 3, 5},
		{LongestFirst(d), 3, 4},
		{d, 8, 4},
		{[]float64{3, 3, 2, 2, 2}, 2, 7},
		{nil, 4, 0},
	} {
		if got := Makespan(tc.order, tc.workers); got != tc.want {
			t.Errorf("Makespan(%v, %d) = %g, want %g", tc.order, tc.workers, got, tc.want)
		}
	}
	if got := LongestFirst(d); !slices.Equal(got, []float64{4, 1, 1, 1, 1}) || !slices.Equal(d, []float64{1, 1, 1, 1, 4}) {
		t.Errorf("LongestFirst = %v (input now %v)", got, d)
	}
}

// TestLongestFirstOrder: the default entries' jobs start lccp first and
// rcsc last, the plan's order kept among equal costs (partition 0 before
// 1), and a larger dataset's jobs before a smaller one's of the same
// method.
func TestLongestFirstOrder(t *testing.T) {
	entries, err := ParseEntries("default")
	if err != nil {
		t.Fatal(err)
	}
	c := Config{}
	jobs := longestFirst(c.Plan([]Source{heartSource(t, 2, 1)}, entries))
	var got []string
	for _, j := range jobs {
		got = append(got, j.Entry.Method+"/"+string(rune('0'+j.Partition)))
	}
	want := []string{"lccp/0", "lccp/1", "gi/0", "gi/1", "svm/0", "svm/1",
		"twolevel/0", "twolevel/1", "spd/0", "spd/1", "rcsc/0", "rcsc/1"}
	if !slices.Equal(got, want) {
		t.Errorf("order\n got %v\nwant %v", got, want)
	}
	// lccp's cost grows with the features (one kernel parameter each).
	if a, b := JobCost("lccp", 100, 34), JobCost("lccp", 100, 10); math.Abs(a/b-34.0*34/100) > 1e-9 {
		t.Errorf("lccp at d = 34 costs %g × d = 10's, want 11.56", a/b)
	}
	if a, b := JobCost("svm", 200, 5), JobCost("svm", 100, 50); math.Abs(a/b-4) > 1e-9 {
		t.Errorf("svm at n = 200 costs %g × n = 100's, want 4 (n², not d)", a/b)
	}
}

// TestOrderOfJobsChangesNoNumber: the same jobs run one at a time in the
// plan's order and on three workers in reverse order (Run then starts
// them longest first) give the same records, to the last bit, timings
// aside: each job's partition and seed are its own.
func TestOrderOfJobsChangesNoNumber(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs real methods")
	}
	src := []Source{heartSource(t, 3, 5)}
	entries := mustEntries(t, "svm,spd,rcsc,twolevel")
	c := Config{Seed: 5, Workers: 1}
	run := c.Fingerprint(entries, src)
	jobs := c.Plan(src, entries)
	inOrder, err := Run(context.Background(), c, jobs, run, nil, &MemorySink{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(jobs)
	slices.Reverse(rev)
	c.Workers = 3
	reordered, err := Run(context.Background(), c, rev, run, nil, &MemorySink{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(inOrder) != len(jobs) || CountFailures(inOrder) != 0 {
		t.Fatalf("%d records, %d failures; want %d, 0", len(inOrder), CountFailures(inOrder), len(jobs))
	}
	if !reflect.DeepEqual(masked(inOrder), masked(reordered)) {
		for i := range inOrder {
			a, b := masked(inOrder[i : i+1])[0], masked(reordered[i : i+1])[0]
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%v: in order C %g test %g, reordered C %g test %g", a.Key(), a.C, a.TestAccuracy, b.C, b.TestAccuracy)
			}
		}
		t.Fatal("the order of the jobs changed a record")
	}
	// Not vacuous: the methods chose different kernels on the partitions.
	if inOrder[0].C == inOrder[1].C && inOrder[0].TestAccuracy == inOrder[1].TestAccuracy && inOrder[0].Kernel.Gamma == inOrder[1].Kernel.Gamma {
		t.Errorf("the first two records agree in C, γ and test accuracy: the comparison shows nothing")
	}
}

// TestCoresPerJobChangeNoNumber: with fewer jobs than cores each job gets
// its share of them (jobWorkers); every default method gives the same
// record on one core as with two goroutines inside the job.
func TestCoresPerJobChangeNoNumber(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every default method")
	}
	src := []Source{heartSource(t, 1, 7)}
	entries := mustEntries(t, "default")
	one := Config{Seed: 7, Workers: 1}
	shared := Config{Seed: 7, Workers: 2 * len(entries)}
	if w, inner := shared.jobWorkers(len(entries)); w != len(entries) || inner.Workers != 2 {
		t.Fatalf("%d jobs on %d cores: %d at once with %d inside each, want %d with 2", len(entries), shared.Workers, w, inner.Workers, len(entries))
	}
	a, b := runAll(t, one, src, entries), runAll(t, shared, src, entries)
	if len(a) != len(entries) || CountFailures(a) != 0 {
		t.Fatalf("%d records, %d failures; want %d, 0", len(a), CountFailures(a), len(entries))
	}
	if !reflect.DeepEqual(masked(a), masked(b)) {
		for i := range a {
			if x, y := masked(a[i : i+1])[0], masked(b[i : i+1])[0]; !reflect.DeepEqual(x, y) {
				t.Errorf("%s: one core C %g γ %g test %g; two C %g γ %g test %g", x.Entry, x.C, x.Kernel.Gamma, x.TestAccuracy, y.C, y.Kernel.Gamma, y.TestAccuracy)
			}
		}
	}
}

// The svm baseline and gi share their grid search in a run
// (methods.GridMemo): gi's and svm's records are those each writes when it
// runs alone, and each is charged the search's time.
func TestSharedGridChangesNoNumber(t *testing.T) {
	t.Parallel()
	src := []Source{heartSource(t, 2, 7)}
	both := mustEntries(t, "svm,gi")
	c := Config{Seed: 7, Workers: 1}
	together := runAll(t, c, src, both)
	alone := append(runAll(t, c, src, both[:1]), runAll(t, c, src, both[1:])...)
	if len(together) != 4 || len(alone) != 4 || CountFailures(together) != 0 {
		t.Fatalf("%d and %d records, %d failures; want 4, 4, 0", len(together), len(alone), CountFailures(together))
	}
	key := func(r Record) string { return fmt.Sprintf("%s/%d", r.Entry, r.Partition) }
	byKey := map[string]Record{}
	for _, r := range alone {
		byKey[key(r)] = r
	}
	shared := map[int]int{}
	for _, r := range together {
		a := byKey[key(r)]
		if r.Seconds <= 0 || r.SharedSeconds < 0 || r.SharedSeconds > r.Seconds || a.SharedSeconds != 0 {
			t.Errorf("%s: time %g, shared %g (alone %g)", key(r), r.Seconds, r.SharedSeconds, a.SharedSeconds)
		}
		if r.SharedSeconds > 0 {
			shared[r.Partition]++
		}
		r.Seconds, a.Seconds, r.SharedSeconds = 0, 0, 0
		r.Run, a.Run, r.Settings, a.Settings = "", "", nil, nil
		if !reflect.DeepEqual(r, a) {
			t.Errorf("%s with a shared grid: C %g γ %g test %g solves %d; alone: C %g γ %g test %g solves %d",
				key(r), r.C, r.Kernel.Gamma, r.TestAccuracy, r.Solves, a.C, a.Kernel.Gamma, a.TestAccuracy, a.Solves)
		}
	}
	// One search per partition, read by the other method.
	if shared[0] != 1 || shared[1] != 1 {
		t.Errorf("jobs that read a shared grid, by partition: %v; want one in each", shared)
	}
}

// A multi-class job costs the sum of its subproblems: one-vs-one's pairs on
// their two classes' rows, one-vs-rest's k classes on all n rows.
func TestShapeCostScheme(t *testing.T) {
	sh := shape{n: 300, d: 4, classes: []int{100, 100, 100}}
	if got, want := shapeCost("rcsc", sh), 3*JobCost("rcsc", 200, 4); math.Abs(got-want) > 1e-9*want {
		t.Errorf("one-vs-one: %v, want %v", got, want)
	}
	sh.scheme = dataio.OneVsRest
	if got, want := shapeCost("rcsc", sh), 3*JobCost("rcsc", 300, 4); math.Abs(got-want) > 1e-9*want {
		t.Errorf("one-vs-rest: %v, want %v", got, want)
	}
}
