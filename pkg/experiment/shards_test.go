package experiment

import (
	"bufio"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// AssignShards is longest first onto the least loaded shard: 5 to shard 0,
// 4 to 1, the first 3 to 1 (4 < 5), the next to 0 (5 < 7), the last to 1
// (7 < 8).
func TestAssignShardsLongestFirst(t *testing.T) {
	got := AssignShards([]float64{3, 5, 3, 4, 3}, 2)
	if want := []int{1, 0, 0, 1, 1}; !slices.Equal(got, want) {
		t.Fatalf("AssignShards = %v, want %v", got, want)
	}
	if loads := ShardCosts([]float64{3, 5, 3, 4, 3}, got, 2); !slices.Equal(loads, []float64{8, 10}) {
		t.Errorf("loads %v, want [8 10]", loads)
	}
}

// Every job is in exactly one shard, and the assignment depends on the
// costs only: the same on a second call, with costs that differ only below
// the summing grid (a last bit a fused multiply-add changes), and for any
// shard count, zero, negative and infinite costs included.
func TestAssignShardsDeterministicAndComplete(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 3))
	for _, n := range []int{1, 2, 3, 4, 7, 16, 100} {
		costs := make([]float64, 250)
		for i := range costs {
			costs[i] = []float64{0.06, 0.08, 0.013, 0.045}[rng.IntN(4)] * float64(1+rng.IntN(3))
		}
		costs[3], costs[5], costs[7] = 0, -1, 1e300
		a := AssignShards(costs, n)
		nudged := slices.Clone(costs)
		for i := range nudged {
			nudged[i] *= 1 + 1e-15
		}
		if b := AssignShards(nudged, n); !slices.Equal(a, b) {
			t.Fatalf("n=%d: the assignment changed with the costs' last bits", n)
		}
		if b := AssignShards(costs, n); !slices.Equal(a, b) {
			t.Fatalf("n=%d: two calls gave different shards", n)
		}
		count := make([]int, n)
		for i, s := range a {
			if s < 0 || s >= n {
				t.Fatalf("n=%d: job %d in shard %d", n, i, s)
			}
			count[s]++
		}
		if n <= len(costs) && slices.Contains(count, 0) {
			t.Errorf("n=%d: an empty shard: %v", n, count)
		}
	}
	if got := AssignShards([]float64{1, 2}, 0); !slices.Equal(got, []int{0, 0}) {
		t.Errorf("0 shards: %v, want one shard", got)
	}
}

// The shards of Plan are the run's jobs, each in exactly one shard, and
// balanced by cost: with svm and rcsc (an rcsc job costs about a fifth of
// an svm one) on four partitions, shard i mod 2 gave shard 1 every svm job
// and shard 2 every rcsc one; now each shard gets two of each.
func TestPlanShardsByCost(t *testing.T) {
	src := []Source{heartSource(t, 4, 1)}
	entries := mustEntries(t, "svm,rcsc")
	all := (&Config{}).Plan(src, entries)
	seen := map[Key]int{}
	for i := 1; i <= 2; i++ {
		c := Config{Shard: i, Shards: 2}
		methods := map[string]int{}
		for _, j := range c.Plan(src, entries) {
			seen[c.key(j)]++
			methods[j.Entry.Method]++
		}
		if methods["svm"] != 2 || methods["rcsc"] != 2 {
			t.Errorf("shard %d/2 holds %v, want 2 svm and 2 rcsc jobs", i, methods)
		}
	}
	if len(seen) != len(all) {
		t.Fatalf("the shards hold %d jobs, the run %d", len(seen), len(all))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%v is in %d shards", k, n)
		}
	}
}

// The makespan of N shards, the longest shard's sum of job times, over the
// ideal total/N, measured on the seconds of a default compare's records
// (testdata/shards: 540 jobs of six methods whose jobs differ in cost by
// 10×; one worker, two cores shared with other work). Assigned by count
// (i mod N, as --shard did), six shards held one method each and took
// 1.76× the ideal; by expected cost every N up to 8 is within 1.15×.
func TestShardMakespanOnRecordedSeconds(t *testing.T) {
	times, costs := readJobSeconds(t, "../../testdata/shards/default-compare-seconds.tsv")
	total := 0.0
	for _, s := range times {
		total += s
	}
	for _, tc := range []struct {
		n               int
		maxCost, minCnt float64
	}{
		{2, 1.10, 1.10}, {3, 1.05, 1.30}, {4, 1.15, 1.10}, {6, 1.15, 1.70}, {8, 1.15, 1.20},
	} {
		ideal := total / float64(tc.n)
		byCost := slices.Max(ShardCosts(times, AssignShards(costs, tc.n), tc.n)) / ideal
		byCount := slices.Max(ShardCosts(times, ShardsByCount(len(times), tc.n), tc.n)) / ideal
		t.Logf("%2d shards: by count %.3f× the ideal, by cost %.3f×", tc.n, byCount, byCost)
		if byCost > tc.maxCost {
			t.Errorf("%d shards by cost: makespan %.3f× the ideal, want ≤ %.2f×", tc.n, byCost, tc.maxCost)
		}
		if byCount < tc.minCnt {
			t.Errorf("%d shards by count: makespan %.3f× the ideal, the data measured at least %.2f×", tc.n, byCount, tc.minCnt)
		}
	}
}

// readJobSeconds reads bench/makespan's -tsv file: each job's seconds and
// its expected cost (JobCost of its method, training rows and features),
// in plan order.
func readJobSeconds(t *testing.T, path string) (times, costs []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			continue // the header
		}
		col := strings.Split(sc.Text(), "\t")
		if len(col) != 7 {
			t.Fatalf("%s:%d: %d columns, want 7", path, line+1, len(col))
		}
		n, err1 := strconv.Atoi(col[4])
		d, err2 := strconv.Atoi(col[5])
		s, err3 := strconv.ParseFloat(col[6], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s:%d: %q", path, line+1, sc.Text())
		}
		times, costs = append(times, s), append(costs, JobCost(col[2], n, d))
	}
	if len(times) == 0 {
		t.Fatalf("%s: no jobs", path)
	}
	return times, costs
}
