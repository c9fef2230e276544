package experiment

// The order in which Run starts the jobs of a comparison (issue 26). The
// jobs are uneven: one lccp partition costs up to 20 times an svm one, and
// a rcsc one a tenth of it. Started in the plan's order (dataset,
// partition, entry), a long job that comes last keeps the other cores idle
// while it runs; started longest first (LPT, Graham 1969), the run ends
// with the short ones, which fill the cores evenly. The order changes no
// number: each job's partition, seed and settings are its own (JobSeed),
// its record is keyed by (dataset, entry, partition) and the records are
// sorted before anything reads them.

import (
	"cmp"
	"container/heap"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// methodCost is the expected seconds of one job of a method on 100
// training rows of about 10 features, from the default compare's records
// (heart, breast-wisconsin, diabetes, 30 partitions of 100 rows, 2 cores;
// after the AVX2 loops of issue 26, 2026-11-27): svm 0.03-0.10 s, gi
// 0.04-0.12 (both charged the one grid search they share), lccp
// 0.055-0.064, twolevel 0.034-0.051, spd 0.018-0.047, rcsc 0.013. random and
// bo (60 and 30 CV evaluations of 5 folds) and halving are put at the
// grid's order. Only the order of the numbers matters; an unknown method
// gets svm's.
var methodCost = map[string]float64{
	"svm": 0.06, "gi": 0.08, "lccp": 0.06, "twolevel": 0.045, "spd": 0.03, "rcsc": 0.013,
	"random": 0.05, "bo": 0.05, "halving": 0.025,
}

// JobCost is the expected cost of a job of method on a training part of n
// rows and d features, in methodCost's seconds: Run starts the jobs of a
// comparison in decreasing order of it. Every method's solves work
// on the n×n kernel matrix, so the cost grows like n² (more SMO iterations
// on more rows make it steeper; n² is enough to order the datasets of a
// study). lccp learns one kernel parameter per feature, and its iterations
// and solves grow with them: 0.2 s per partition at d = 8..13, 3.4 s at
// ionosphere's d = 34 (measured for issue 26 before its speed-ups), about
// d²; its cost is scaled by (d/10)².
func JobCost(method string, n, d int) float64 {
	c, ok := methodCost[method]
	if !ok {
		c = methodCost["svm"]
	}
	r := float64(n) / 100
	c *= r * r
	if method == "lccp" {
		q := float64(max(d, 1)) / 10
		c *= q * q
	}
	return c
}

// longestFirst returns the jobs ordered by JobCost (jobCosts), the most
// expensive first; jobs of equal cost keep their order (the plan's).
func longestFirst(jobs []Job) []Job {
	cost := jobCosts(jobs)
	idx := make([]int, len(jobs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(cost[b], cost[a]) })
	out := make([]Job, len(jobs))
	for k, i := range idx {
		out[k] = jobs[i]
	}
	return out
}

// Makespan returns the time at which workers cores finish jobs of the given
// durations started in the given order, each on the first core that is
// free (Run's pool): the wall time of a run whose jobs take these times,
// without the time to start and to write the tables.
func Makespan(durations []float64, workers int) float64 {
	if workers < 1 {
		workers = 1
	}
	free := make(minHeap, min(workers, max(len(durations), 1)))
	end := 0.0
	for _, d := range durations {
		t := free[0] + d
		free[0] = t
		heap.Fix(&free, 0)
		end = max(end, t)
	}
	return end
}

// LongestFirst returns durations sorted longest first: the order Run gives
// jobs of these expected times (with Makespan, the run's wall time if the
// expectation were exact).
func LongestFirst(durations []float64) []float64 {
	out := slices.Clone(durations)
	slices.SortStableFunc(out, func(a, b float64) int { return cmp.Compare(b, a) })
	return out
}

// minHeap is a min-heap of the cores' free times.
type minHeap []float64

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// shapeCost is JobCost of a job on data of shape sh: for multi-class data
// the sum over its binary subproblems, a one-vs-one pair on its two
// classes' rows, or one-vs-rest a class against the rest on all n.
func shapeCost(method string, sh shape) float64 {
	if len(sh.classes) < 3 {
		return JobCost(method, sh.n, sh.d)
	}
	var c float64
	for _, sp := range dataio.Subproblems(len(sh.classes), sh.scheme) {
		rows := sh.n
		if sp.Neg != dataio.Rest {
			rows = sh.classes[sp.Pos] + sh.classes[sp.Neg]
		}
		c += JobCost(method, rows, sh.d)
	}
	return c
}
