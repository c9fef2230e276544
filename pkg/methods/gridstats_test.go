package methods

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// gridStat is the work of the solves of one grid point on one round's
// rows, summed over the folds (solveHook).
type gridStat struct {
	rows         int
	gamma, C     float64
	solves, iter int
	columns      int
	entries      int64
	nsv, nbsv    int
	notConverged int
	// solveS and decideS are the wall seconds of the solves and of the
	// decision values on the test rows after them, summed over the folds;
	// maxIter is the most SMO iterations of one fold's solve.
	solveS, decideS float64
	maxIter         int
}

// collectGridStats sets solveHook for the duration of the test and returns
// a function that gives the statistics gathered, one per (rows, γ, C).
func collectGridStats(t *testing.T) func() []gridStat {
	t.Helper()
	var mu sync.Mutex
	type key struct {
		rows     int
		gamma, C float64
	}
	stats := map[key]*gridStat{}
	prev := solveHook
	t.Cleanup(func() { solveHook = prev })
	solveHook = func(ctx context.Context, C float64, r *solver.SVCResult, solve, decide time.Duration) {
		tag, _ := ctx.Value(solveTagKey{}).(solveTag)
		mu.Lock()
		defer mu.Unlock()
		k := key{tag.Rows, tag.Gamma, C}
		s := stats[k]
		if s == nil {
			s = &gridStat{rows: tag.Rows, gamma: tag.Gamma, C: C}
			stats[k] = s
		}
		s.solves++
		s.iter += r.Iter
		s.columns += r.Columns
		s.entries += r.Entries
		s.nsv += r.NSV
		s.nbsv += r.NBSV
		s.solveS += solve.Seconds()
		s.decideS += decide.Seconds()
		s.maxIter = max(s.maxIter, r.Iter)
		if r.Status.String() != "converged" {
			s.notConverged++
		}
	}
	return func() []gridStat {
		mu.Lock()
		defer mu.Unlock()
		out := make([]gridStat, 0, len(stats))
		for _, s := range stats {
			out = append(out, *s)
		}
		slices.SortFunc(out, func(a, b gridStat) int {
			return cmp.Or(cmp.Compare(a.rows, b.rows), cmp.Compare(b.gamma, a.gamma), cmp.Compare(a.C, b.C))
		})
		return out
	}
}

// TestGridSolveCounts measures svm's grid search on a data file
// (KERNELTUNE_GRIDSTATS=FILE; LIBSVM, CSV or ARFF, normalised as tune
// does by default): per grid point and round, summed over the folds, the
// SMO iterations, the kernel columns computed (cache misses) and their
// entries, the support vectors; then the totals per round. Deterministic
// counts, for BENCHMARKS.md's "Where svm's grid spends its time". Skipped
// without the variable. KERNELTUNE_GRIDSTATS_ROWS sets GridRows,
// KERNELTUNE_GRIDSTATS_WORKERS the workers (default 2),
// KERNELTUNE_GRIDSTATS_CACHEMB the cache, KERNELTUNE_GRIDSTATS_ROUTE=rows
// the whole grid on all rows through the bounded-memory route, and
// KERNELTUNE_GRIDSTATS_REFINE=log2C,log2gamma the refinement on all rows
// alone around that point (log2 γ_h: the subset's, here 0).
func TestGridSolveCounts(t *testing.T) {
	path := os.Getenv("KERNELTUNE_GRIDSTATS")
	if path == "" {
		t.Skip("KERNELTUNE_GRIDSTATS=FILE runs this measurement")
	}
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nz, err := dataio.FitNormalizer(dataio.ResolveNormalizer("auto", d.X), d.X)
	if err != nil {
		t.Fatal(err)
	}
	d = nz.ApplyDataset(d)
	cm := Common{Seed: 1, Workers: 2}
	if v := os.Getenv("KERNELTUNE_GRIDSTATS_WORKERS"); v != "" {
		cm.Workers, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("KERNELTUNE_GRIDSTATS_ROWS"); v != "" {
		cm.GridRows, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("KERNELTUNE_GRIDSTATS_CACHEMB"); v != "" {
		cm.CacheMB, _ = strconv.Atoi(v)
	}
	stats := collectGridStats(t)
	start := time.Now()
	var g gridResult
	if v := os.Getenv("KERNELTUNE_GRIDSTATS_REFINE"); v != "" {
		// The refinement on all rows alone, around the subset's choice
		// "log2C,log2gamma".
		var lc, lg float64
		if _, err := fmt.Sscanf(v, "%g,%g", &lc, &lg); err != nil {
			t.Fatal(err)
		}
		gp := &gridProposer{train: d, cm: cm, ev: &isoEval{}}
		b, err := gp.refinement(newPoint(lc, []float64{lg}))
		if err != nil {
			t.Fatal(err)
		}
		pts, ns, err := b.round.ev.together(context.Background(), b.points)
		if err != nil {
			t.Fatal(err)
		}
		best := rankCV(pts, b.round.ev.log2GammaH)[0]
		g = gridResult{C: best.C, Gamma: best.Gamma, Accuracy: best.Accuracy(), Solves: ns}
	} else if os.Getenv("KERNELTUNE_GRIDSTATS_ROUTE") == "rows" {
		// The whole grid on all rows through the bounded-memory route.
		plan, err := newCVPlanOf(d, cm)
		if err != nil {
			t.Fatal(err)
		}
		ev := &isoEval{X: d.X, cs: cvSetOf(d), plan: plan, cm: cm}
		gp := &gridProposer{train: d, cm: cm, ev: ev}
		b, err := gp.propose(0, nil, cvPoint{})
		if err != nil {
			t.Fatal(err)
		}
		pts, ns, err := ev.together(context.Background(), b.points)
		if err != nil {
			t.Fatal(err)
		}
		best := rankCV(pts, 0)[0]
		g = gridResult{C: best.C, Gamma: best.Gamma, Accuracy: best.Accuracy(), Solves: ns}
	} else {
		g, err = gridSearch(context.Background(), d, cm, Space{})
		if err != nil {
			t.Fatal(err)
		}
	}
	wall := time.Since(start)
	fmt.Printf("%s: %d rows; chose C = 2^%g, gamma = 2^%g, CV accuracy %.6f, %d solves, %.1f s wall\n",
		path, d.Len(), math.Log2(g.C), math.Log2(g.Gamma), g.Accuracy, g.Solves, wall.Seconds())
	if g.Coarse != nil {
		fmt.Printf("subset of %d rows chose C = 2^%g, gamma = 2^%g (%.6f)\n", g.Subset, math.Log2(g.Coarse.C), math.Log2(g.Coarse.Gamma), g.Coarse.Accuracy)
	}
	fmt.Printf("%6s %6s %6s | %6s %11s %9s %9s %13s %7s %7s %8s %8s %s\n", "rows", "log2g", "log2C", "solves", "iter", "max-iter", "columns", "entries", "nsv", "nbsv", "solve-s", "decide-s", "not-conv")
	type tot struct {
		iter, columns   int
		entries         int64
		solveS, decideS float64
	}
	rounds := map[int]*tot{}
	for _, s := range stats() {
		fmt.Printf("%6d %6g %6g | %6d %11d %9d %9d %13d %7d %7d %8.2f %8.2f %d\n", s.rows, math.Log2(s.gamma), math.Log2(s.C), s.solves, s.iter, s.maxIter, s.columns, s.entries, s.nsv, s.nbsv, s.solveS, s.decideS, s.notConverged)
		r := rounds[s.rows]
		if r == nil {
			r = &tot{}
			rounds[s.rows] = r
		}
		r.iter += s.iter
		r.columns += s.columns
		r.entries += s.entries
		r.solveS += s.solveS
		r.decideS += s.decideS
	}
	for rows, r := range rounds {
		fmt.Printf("total on %d training rows per fold: %d iterations, %d columns, %d entries, %.1f s in solves, %.1f s in decision values (summed over the workers)\n", rows, r.iter, r.columns, r.entries, r.solveS, r.decideS)
	}
}

// adultRows is the real Adult rows of testdata (a1a and a3a, 4,790 rows,
// a1a's 1,605 among a3a's), normalised as tune does (x/max|x|: 0/1 here).
func adultRows(t testing.TB) *dataio.Dataset {
	t.Helper()
	var all []byte
	for _, f := range []string{"a1a", "a3a"} {
		b, err := os.ReadFile("../../testdata/libsvm/" + f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	d, err := dataio.LoadReader(bytes.NewReader(all), "a1a+a3a", dataio.ReadOptions{Features: 123})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// BenchmarkFoldSweepRows: one (γ, fold) job of svm's refinement on the
// bounded-memory route (kernel columns from the rows through the solver's
// cache), as at 32,561 rows, on the real Adult rows of testdata: a sweep
// of three Cs on a fold of 3,832 training rows, with a cache of 7 % of the
// fold's columns (200 MB holds 7 % of a 26,000-row fold's float32
// columns). fresh: each C a new solve warm-started from the last α (the
// dense route's way, and the rows route's before); path: the solver's
// state kept (solver.SVCPath). Reports the SMO iterations and the kernel
// columns computed per sweep.
func BenchmarkFoldSweepRows(b *testing.B) {
	d := adultRows(b)
	cm := Common{Seed: 1, CacheMB: 8}
	plan, err := newCVPlanOf(d, cm)
	if err != nil {
		b.Fatal(err)
	}
	tr, te := plan.train[0], plan.test[0]
	ytr, yte := pick(d.Y, tr), pick(d.Y, te)
	s := cm.settings()
	s.Workers = 1
	for _, c := range []struct {
		name   string
		gamma  float64
		log2Cs []float64
		keep   bool
	}{
		{"C=2^0..2^2/fresh", 0.25, []float64{0, 1, 2}, false},
		{"C=2^0..2^2/path", 0.25, []float64{0, 1, 2}, true},
		{"C=2^6..2^8/fresh", 1.0 / 128, []float64{6, 7, 8}, false},
		{"C=2^6..2^8/path", 1.0 / 128, []float64{6, 7, 8}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			Cs := make([]float64, len(c.log2Cs))
			for i, l := range c.log2Cs {
				Cs[i] = math.Exp2(l)
			}
			var iter, cols int
			var entries int64
			prev := solveHook
			defer func() { solveHook = prev }()
			solveHook = func(_ context.Context, _ float64, r *solver.SVCResult, _, _ time.Duration) {
				iter += r.Iter
				cols += r.Columns
				entries += r.Entries
			}
			for b.Loop() {
				iter, cols, entries = 0, 0, 0
				s := s
				s.Workspace = new(solver.Workspace)
				km, decide := rowsFold(d.X, c.gamma, tr, te)
				if _, _, err := foldSweep(context.Background(), km, decide, ytr, yte, Cs, solver.L1, [2]float64{}, s, c.keep); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(iter), "iter/op")
			b.ReportMetric(float64(cols), "columns/op")
			b.ReportMetric(float64(entries), "entries/op")
		})
	}
}

// TestFoldSweepRowsKeepsSolverState: on the bounded-memory route a fold's
// sweep up the Cs keeps the solver's state from one C to the next
// (solver.SVCPath): on real Adult rows (a1a, a fold of 1,284 rows, a cache
// of 40 columns) it computes fewer kernel entries than a new warm-started
// solve per C, and every count of correct test rows is that of cold solves
// (tolerance 1e-9).
func TestFoldSweepRowsKeepsSolverState(t *testing.T) {
	d, err := dataio.Load("../../testdata/libsvm/a1a", dataio.ReadOptions{Features: 123})
	if err != nil {
		t.Fatal(err)
	}
	cm := Common{Seed: 1, Eps: 1e-9}
	plan, err := newCVPlanOf(d, cm)
	if err != nil {
		t.Fatal(err)
	}
	tr, te := plan.train[0], plan.test[0]
	ytr, yte := pick(d.Y, tr), pick(d.Y, te)
	gamma, Cs := math.Exp2(-5), []float64{1, 4, 16}
	s := solver.Settings{Eps: 1e-9, Workers: 1, CacheBytes: 40 * len(tr) * 8}
	var entries int64
	prev := solveHook
	t.Cleanup(func() { solveHook = prev })
	solveHook = func(_ context.Context, _ float64, r *solver.SVCResult, _, _ time.Duration) { entries += r.Entries }
	sweep := func(keep bool) ([]int, int64) {
		entries = 0
		km, decide := rowsFold(d.X, gamma, tr, te)
		got, solves, err := foldSweep(context.Background(), km, decide, ytr, yte, Cs, solver.L1, [2]float64{}, s, keep)
		if err != nil || solves != len(Cs) {
			t.Fatalf("keep %v: %d solves, %v", keep, solves, err)
		}
		return got, entries
	}
	fresh, freshEntries := sweep(false)
	kept, keptEntries := sweep(true)
	km, decide := rowsFold(d.X, gamma, tr, te)
	for c, C := range Cs {
		cold, _, err := foldSweep(context.Background(), km, decide, ytr, yte, []float64{C}, solver.L1, [2]float64{}, s, false)
		if err != nil {
			t.Fatal(err)
		}
		if kept[c] != cold[0] || fresh[c] != cold[0] {
			t.Errorf("C = %g: %d correct with the state kept, %d with new solves, %d cold", C, kept[c], fresh[c], cold[0])
		}
	}
	if keptEntries >= freshEntries*9/10 {
		t.Errorf("the sweep computed %d kernel entries with the state kept, %d with a new solve per C: want at least 10%% fewer", keptEntries, freshEntries)
	}
	t.Logf("kernel entries: %d kept, %d new solves (%.2f×)", keptEntries, freshEntries, float64(keptEntries)/float64(freshEntries))
}
