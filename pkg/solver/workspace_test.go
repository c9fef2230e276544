package solver

import (
	"context"
	"slices"
	"testing"
)

// TestWorkspaceSameResults: a sweep of warm-started solves over increasing C
// (the grid search's use) gives bit-identical results with and without a
// shared Workspace, also with a cache too small for the matrix (evictions,
// shrinking swaps on reused buffers), and the workspace really serves the
// column buffers: a repeated solve allocates a few slices, not one per
// column.
func TestWorkspaceSameResults(t *testing.T) {
	x, y := mixture(300, 5, 1, 3)
	q := gram(x, rbf(0.2))
	Cs := []float64{0.25, 1, 4, 16, 64}
	for _, cacheBytes := range []int{0, 40 * 300 * 8} {
		var plain, shared []SVCResult
		ws := new(Workspace)
		for _, w := range []*Workspace{nil, ws} {
			var alpha []float64
			for _, C := range Cs {
				s := Settings{CacheBytes: cacheBytes, Workspace: w}
				r, err := TrainSVC(context.Background(), q, y, SVCParams{C: C}, s, alpha)
				if err != nil {
					t.Fatal(err)
				}
				alpha = r.Alpha
				if w == nil {
					plain = append(plain, r)
				} else {
					shared = append(shared, r)
				}
			}
		}
		for k := range Cs {
			a, b := plain[k], shared[k]
			if !slices.Equal(a.Alpha, b.Alpha) || a.Rho != b.Rho || a.Iter != b.Iter || a.Obj != b.Obj {
				t.Errorf("cache %d B, C = %g: with a workspace α/ρ/iter/obj differ (iter %d vs %d, ρ %v vs %v)",
					cacheBytes, Cs[k], a.Iter, b.Iter, a.Rho, b.Rho)
			}
		}
		if len(ws.free) == 0 {
			t.Errorf("cache %d B: the workspace holds no buffers after the sweep", cacheBytes)
		}
	}
	// 300 columns are needed from a cold start; with the workspace warm
	// they come from it.
	solve := func(w *Workspace) {
		if _, err := TrainSVC(context.Background(), q, y, SVCParams{C: 4}, Settings{Workspace: w}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ws := new(Workspace)
	solve(ws)
	withWS := testing.AllocsPerRun(3, func() { solve(ws) })
	without := testing.AllocsPerRun(3, func() { solve(nil) })
	t.Logf("allocations per solve: %v with a warm workspace, %v without", withWS, without)
	if withWS > without-100 {
		t.Errorf("%v allocations per solve with a warm workspace, %v without: the buffers were not reused", withWS, without)
	}
}

// TestArenaSameResults: when the cache holds the whole matrix its columns
// come from one arena at full capacity; the results are those of a cache
// that allocates column by column (and of one too small for the matrix),
// bit for bit, also for a warm-started sweep sharing a Workspace, where the
// arena's buffers serve the next solve.
func TestArenaSameResults(t *testing.T) {
	old := arenaMinBytes
	t.Cleanup(func() { arenaMinBytes = old })
	x, y := mixture(300, 5, 1, 3)
	q := gram(x, rbf(0.2))
	sweep := func(cacheBytes int, ws *Workspace) []SVCResult {
		var out []SVCResult
		var alpha []float64
		for _, C := range []float64{0.25, 4, 64} {
			r, err := TrainSVC(context.Background(), q, y, SVCParams{C: C}, Settings{CacheBytes: cacheBytes, Workspace: ws}, alpha)
			if err != nil {
				t.Fatal(err)
			}
			alpha = r.Alpha
			out = append(out, r)
		}
		return out
	}
	arenaMinBytes = 1 << 62 // no arena
	plain := sweep(0, nil)
	small := sweep(40*300*8, nil)
	arenaMinBytes = 0
	c := newCache(q, make([]int, 300), y, defaultCacheBytes, nil)
	if !c.whole || !c.arenaOK {
		t.Fatal("a 200 MB cache of a 300×300 matrix does not take the arena")
	}
	ws := &Workspace{free: [][]float64{make([]float64, 0, 300)}}
	if c := newCache(q, make([]int, 300), y, defaultCacheBytes, ws); !c.whole || c.arenaOK {
		t.Fatal("a cache whose workspace holds buffers allocates an arena")
	}
	for name, got := range map[string][]SVCResult{
		"small cache":      small,
		"arena":            sweep(0, nil),
		"arena, workspace": sweep(0, new(Workspace)),
	} {
		for k := range got {
			a, b := plain[k], got[k]
			if !slices.Equal(a.Alpha, b.Alpha) || a.Rho != b.Rho || a.Iter != b.Iter || a.Obj != b.Obj {
				t.Errorf("%s, solve %d: α/ρ/iter/obj differ from the column-by-column cache (iter %d vs %d)", name, k, b.Iter, a.Iter)
			}
		}
	}
}
