package experiment

// The shards of a comparison (compare --shard i/N, issue 45). A shard used
// to be every N-th job of the plan: even in count, uneven in time, since
// the jobs are (one twolevel job on 32,561 rows costs 3× an rcsc one; on
// the default compare an svm job costs 5× an rcsc one), and with N a
// divisor of the number of entries each shard held one method's jobs
// only. Now the jobs are assigned by their expected cost (JobCost, the
// cost model that orders a run's jobs, schedule.go), longest first, each
// to the shard with the least expected cost so far (LPT, Graham 1969), so
// that the N tasks of an array job end at about the same time.
//
// Every task of an array job computes the assignment on its own, so it must
// be the same on every machine: the costs are rounded to integer units
// before they are summed (a sum of floats could differ in its last bit
// where a compiler fuses a multiply and an add), and ties go to the first
// job in plan order and to the lowest shard.

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
)

// costUnits is the integer grid shard costs are summed on: a millionth of
// JobCost's second.
const costUnits = 1e6

// AssignShards returns the shard (0-based) of each of the jobs of the given
// expected costs among n shards: the jobs in decreasing cost (ties in their
// order), each to the shard whose expected cost is the least so far (ties
// to the lowest shard). Every job gets exactly one shard, and the same
// costs give the same shards everywhere. n < 1 counts as 1.
func AssignShards(costs []float64, n int) []int {
	n = max(n, 1)
	units := make([]int64, len(costs))
	for i, c := range costs {
		if c > 0 && !math.IsInf(c, 0) {
			units[i] = int64(math.Round(min(c*costUnits, 1e17)))
		}
	}
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(units[b], units[a]) })
	loads := make(shardHeap, n)
	for k := range loads {
		loads[k] = shardLoad{shard: k}
	}
	out := make([]int, len(costs))
	for _, i := range order {
		out[i] = loads[0].shard
		loads[0].units += units[i]
		heap.Fix(&loads, 0)
	}
	return out
}

// shardLoad is a shard's expected cost so far, in costUnits.
type shardLoad struct {
	units int64
	shard int
}

// shardHeap is a min-heap of shards by load, then by index.
type shardHeap []shardLoad

func (h shardHeap) Len() int { return len(h) }
func (h shardHeap) Less(i, j int) bool {
	return h[i].units < h[j].units || h[i].units == h[j].units && h[i].shard < h[j].shard
}
func (h shardHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *shardHeap) Push(x any)   { *h = append(*h, x.(shardLoad)) }
func (h *shardHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ShardsByCount returns the shard (0-based) of each of jobs jobs as
// --shard assigned them before the costs did: job i to shard i mod n. It
// is the baseline the cost-based shards are measured against.
func ShardsByCount(jobs, n int) []int {
	out := make([]int, jobs)
	for i := range out {
		out[i] = i % max(n, 1)
	}
	return out
}

// ShardCosts returns the sum of costs of each of n shards of the
// assignment shard (AssignShards, ShardsByCount): with one worker per
// shard, the time each task takes if the costs are the jobs' times. Its
// maximum is the makespan of the shards.
func ShardCosts(costs []float64, shard []int, n int) []float64 {
	out := make([]float64, max(n, 1))
	for i, c := range costs {
		out[shard[i]] += c
	}
	return out
}

// jobCosts returns the expected cost (JobCost, shapeCost) of each job: a
// source whose shape cannot be read (trainShape) counts as 100 rows of 10
// features (its jobs fail in runJob with the error, wherever they come).
func jobCosts(jobs []Job) []float64 {
	shapes := map[string]shape{}
	cost := make([]float64, len(jobs))
	for i, j := range jobs {
		name := j.Source.Name()
		sh, ok := shapes[name]
		if !ok {
			if ss, err := trainShapes([]Source{j.Source}); err == nil && ss[0].n > 0 {
				sh = ss[0]
			} else {
				sh = shape{n: 100, d: 10}
			}
			shapes[name] = sh
		}
		cost[i] = shapeCost(j.Entry.Method, sh)
	}
	return cost
}

// ShardLoad is what one shard of a run is expected to cost: its jobs and
// the sum of their JobCost, in JobCost's seconds (one worker).
type ShardLoad struct {
	Jobs int
	Cost float64
}

// ShardLoads returns the expected load of each of n shards of the prepared
// run's jobs (the whole run's: Prepare of settings without a shard), as
// Config.Plan assigns them.
func (p *Prepared) ShardLoads(n int) []ShardLoad {
	all := p.cfg
	all.Shard, all.Shards = 0, 0
	jobs := all.Plan(p.sources, p.entries)
	costs := jobCosts(jobs)
	out := make([]ShardLoad, max(n, 1))
	for i, s := range AssignShards(costs, n) {
		out[s].Jobs++
		out[s].Cost += costs[i]
	}
	return out
}

// ShardPlan is what the tasks of an array job that runs a prepared run's
// shards need to ask of a scheduler.
type ShardPlan struct {
	// Run is the run's fingerprint and Jobs its jobs.
	Run  string
	Jobs int
	// Shards are the shards' expected loads (ShardLoads).
	Shards []ShardLoad
	// Longest is the expected seconds of the longest shard on Workers
	// cores (its Cost over Workers), Workers each task's cores.
	Longest float64
	Workers int
	// PeakBytes is a task's estimated peak memory: Workers jobs at once
	// (at most its shard's jobs), each as large as the run's largest
	// (EstimateMemory); 0 when it cannot be told.
	PeakBytes int64
}

// ShardPlan returns the plan of n shards of the prepared run (the whole
// run's: Prepare of settings without a shard), each run by a task with
// workers cores.
func (p *Prepared) ShardPlan(n, workers int) *ShardPlan {
	workers = max(workers, 1)
	sp := &ShardPlan{Run: p.Plan.Run, Jobs: p.Plan.Jobs, Shards: p.ShardLoads(n), Workers: workers}
	most := 0
	for _, s := range sp.Shards {
		sp.Longest = max(sp.Longest, s.Cost/float64(workers))
		most = max(most, s.Jobs)
	}
	cfg := p.cfg
	cfg.Workers = workers
	if est, err := EstimateMemory(cfg, p.sources, p.entries, max(most, 1)); err == nil {
		for _, e := range est {
			sp.PeakBytes = max(sp.PeakBytes, e.Bytes)
		}
	}
	return sp
}
