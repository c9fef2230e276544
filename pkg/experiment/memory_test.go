package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// TestEstimateMemory: a job's estimate is its spec's PeakBytes on the largest
// training part with the options Run gives the job, and the run's is the
// runtime's share once plus the rest once per job at once. Real numbers:
// svm at n = 200, d = 13, 5 folds, one worker a job is 32 MiB + 843,200
// bytes (the grid's 200² distances, one fold job: a 160² Gram, its 40×160
// test block and a cache as large as the Gram; three copies of the data),
// two jobs at once 32 MiB + 2 × 843,200.
func TestEstimateMemory(t *testing.T) {
	d, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idx := func(lo, hi int) []int {
		var s []int
		for i := lo; i < hi; i++ {
			s = append(s, i)
		}
		return s
	}
	// The partitions' training parts differ in size: the largest counts.
	src := &dataio.Partitioned{Data: d, Splits: []dataio.Split{{Train: idx(0, 150), Test: idx(200, 270)}, {Train: idx(0, 200), Test: idx(200, 270)}}}
	opts := methods.Common{Folds: 5, CacheMB: 200, Eps: 1e-3}
	c := Config{Workers: 2, Base: opts}
	entries := withMargins(mustEntries(t, "svm,gi:D"), map[string]string{"gi": "hard"})
	est, err := EstimateMemory(c, []Source{src}, entries, 4)
	if err != nil || len(est) != 2 {
		t.Fatalf("EstimateMemory = %+v, %v", est, err)
	}
	job := opts
	job.Workers = 1
	svm := methods.SVMSettings{Common: job}.PeakBytes(200, 13)
	if svm != 32<<20+843_200 {
		t.Errorf("PeakBytes(svm, 200, 13) = %d, want 32 MiB + 843200", svm)
	}
	// The estimate of a job bounds its resident set: the live data and
	// 1/5 for the runtime beyond its soft limit (methods.PeakBytes).
	svm += (svm - 32<<20) / 5
	e := est[0]
	if e.Dataset != "heart" || e.Entry.String() != "svm" || e.N != 200 || e.D != 13 || e.Jobs != 2 || e.Spec.Base().Workers != 1 ||
		e.Job != svm || e.Bytes != 32<<20+2*(svm-32<<20) {
		t.Errorf("svm estimate %+v, want 2 jobs of %d bytes, %d in all", e, svm, 32<<20+2*(svm-32<<20))
	}
	// The entry's own options: gi with the preset-style hard margin and
	// its param, as runJob gives them.
	gi := methods.GISettings{Common: job, Param: "D", Margin: "hard"}
	if want := methods.PeakBytes(gi, 200, 13); est[1].Job != want || !reflect.DeepEqual(est[1].Spec, methods.Spec(gi)) {
		t.Errorf("gi estimate %+v, want Job %d", est[1], want)
	}

	// One job at a time keeps the cores Workers gives the run, as Run
	// does: Workers 1 is one goroutine inside the job, Workers 2 with one
	// job to do two (0, all cores, would keep the methods' own: GOMAXPROCS).
	for _, tc := range []struct{ workers, jobs int }{{1, 4}, {2, 1}} {
		c.Workers = tc.workers
		est, err := EstimateMemory(c, []Source{src}, entries[:1], tc.jobs)
		inner := opts
		inner.Workers = tc.workers
		whole := methods.PeakBytes(methods.SVMSettings{Common: inner}, 200, 13)
		if err != nil || est[0].Jobs != 1 || est[0].Spec.Base().Workers != tc.workers || est[0].Bytes != whole {
			t.Errorf("workers %d, %d jobs: %+v, %v; want one job of %d bytes", tc.workers, tc.jobs, est, err, whole)
		}
	}
}

// TestEstimateMemoryOneHot: a dataset with nominal features is estimated
// with its encoded features, as the methods see them.
func TestEstimateMemoryOneHot(t *testing.T) {
	d, err := dataio.LoadReader(strings.NewReader("c,x,y\nred,1,a\ngreen,2,b\nred,3,a\nblue,4,b\n"), "s.csv", dataio.ReadOptions{Categorical: "codes"})
	if err != nil {
		t.Fatal(err)
	}
	src := &dataio.Partitioned{Data: d, Splits: []dataio.Split{{Train: []int{0, 1, 2}, Test: []int{3}}}, OneHot: true}
	est, err := EstimateMemory(Config{Workers: 1}, []Source{src}, mustEntries(t, "rcsc"), 1)
	if err != nil || est[0].N != 3 || est[0].D != 4 {
		t.Errorf("%+v, %v; want 3 rows × 4 features (red, green, blue, x)", est, err)
	}
}

// TestCompareMemoryRefused: Compare refuses a run above MemBytes before any
// job runs and before Out is made, with the largest estimate and the most
// rows a job can have within the bound; that many rows pass, one more not.
func TestCompareMemoryRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.jsonl")
	s := CompareSettings{Entries: mustEntries(t, "svm,rcsc"), Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 200, TestSize: 70}),
		Workers: 2, Base: methods.Common{Folds: 5, CacheMB: 200, Eps: 1e-3}, Out: out, MemBytes: 34 << 20}
	_, err := Compare(context.Background(), s)
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want a *MemoryError", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run made its results file")
	}
	rcsc := methods.PeakBytes(methods.RCSCSettings{Common: methods.Common{Folds: 5, CacheMB: 200, Workers: 1}}, 200, 13)
	if me.Entry.String() != "rcsc" || me.Jobs != 2 || me.Bound != 34<<20 || me.Bytes != 2*rcsc-methods.RuntimeBytes {
		t.Errorf("%+v: want rcsc, 2 jobs of %d bytes", me, rcsc)
	}
	if me.MaxN < 50 || me.MaxN >= 200 {
		t.Fatalf("MaxN = %d", me.MaxN)
	}
	heart, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Workers: 2, Base: s.Base}
	for n, ok := range map[int]bool{me.MaxN: true, me.MaxN + 1: false} {
		src := &dataio.Partitioned{Data: heart, Splits: []dataio.Split{{Train: make([]int, n)}}}
		shapes, err := trainShapes([]Source{src})
		if err != nil {
			t.Fatal(err)
		}
		worst, err := worstEstimate(c, []Source{src}, shapes, s.Entries, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkMemory(worst, s.MemBytes); (err == nil) != ok {
			t.Errorf("%d rows: err = %v, want fits %v", n, err, ok)
		}
	}
}

// TestJobWorkersFollowGOMAXPROCS: "all cores" (Workers 0) is GOMAXPROCS,
// as the methods count it (it follows a container's CPU limit; NumCPU
// counts the host's cores), so the memory check counts the jobs Run runs.
func TestJobWorkersFollowGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c := &Config{}
	if w, inner := c.jobWorkers(10); w != 1 || inner.Workers != 0 {
		t.Errorf("GOMAXPROCS 1: %d jobs at once (inner workers %d), want 1 (0)", w, inner.Workers)
	}
	runtime.GOMAXPROCS(3)
	if w, inner := c.jobWorkers(10); w != 3 || inner.Workers != 1 {
		t.Errorf("GOMAXPROCS 3: %d jobs at once (inner workers %d), want 3 (1)", w, inner.Workers)
	}
	if w, _ := c.jobWorkers(2); w != 2 {
		t.Errorf("2 jobs: %d at once, want 2", w)
	}
	c.Workers = 5
	if w, _ := c.jobWorkers(10); w != 5 {
		t.Errorf("Workers 5: %d at once", w)
	}
	// A lone job keeps to the cores Workers gives the run: --workers 1 is
	// one core, not one job with a grid search on all of them.
	c.Workers = 1
	if w, inner := c.jobWorkers(10); w != 1 || inner.Workers != 1 {
		t.Errorf("Workers 1: %d at once (inner workers %d), want 1 (1)", w, inner.Workers)
	}
	c.Workers = 3
	if w, inner := c.jobWorkers(1); w != 1 || inner.Workers != 3 {
		t.Errorf("Workers 3, 1 job: %d at once (inner workers %d), want 1 (3)", w, inner.Workers)
	}
	// Fewer jobs than cores: each job gets its share of them.
	c.Workers = 8
	for _, tc := range []struct{ jobs, at, inner int }{{3, 3, 2}, {6, 6, 1}, {2, 2, 4}, {20, 8, 1}} {
		if w, inner := c.jobWorkers(tc.jobs); w != tc.at || inner.Workers != tc.inner {
			t.Errorf("Workers 8, %d jobs: %d at once (inner workers %d), want %d (%d)", tc.jobs, w, inner.Workers, tc.at, tc.inner)
		}
	}
}

// Prepare gives, as Live, the live data of its run's estimate (the jobs at
// once of its largest entry), which a command makes the collector's limit
// before the jobs run.
func TestCompareLimitMemory(t *testing.T) {
	t.Parallel()
	s := CompareSettings{Entries: mustEntries(t, "svm,rcsc"), Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 60, TestSize: 60}),
		Workers: 2, Base: methods.Common{Folds: 3}}
	p, err := Prepare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	live := p.Live
	// The same run under a bound of 1 MiB is refused with its largest
	// estimate: the data fit (reading counts in the bound too), the jobs
	// (the runtime's 32 MB alone) do not.
	s.MemBytes = 1 << 20
	_, err = Compare(context.Background(), s)
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("%v, want a *MemoryError", err)
	}
	need := me.Bytes
	if live != methods.GCLimit(need) || live <= methods.RuntimeBytes {
		t.Errorf("Live %d, want GCLimit(%d) = %d", live, need, methods.GCLimit(need))
	}
}
