package solver

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestMappedArena: a workspace-less cache of the whole matrix takes its
// arena from mapped memory (never zeroed by the Go runtime, so it faults in
// huge pages) and unmaps it at release; with a workspace, whose buffers
// outlive the solve, or under a Go memory limit, which would not count
// mapped memory, the arena stays in the Go heap.
func TestMappedArena(t *testing.T) {
	old := arenaMinBytes
	t.Cleanup(func() { arenaMinBytes = old })
	arenaMinBytes = 0
	x, y := mixture(300, 5, 1, 3)
	q := gram(x, rbf(0.2))
	perm := make([]int, 300)
	for i := range perm {
		perm[i] = i
	}

	c := newCache(q, perm, y, defaultCacheBytes, nil)
	col := c.get(0, 300)
	if c.unmap == nil {
		t.Fatal("no mapped arena for a workspace-less whole-matrix cache")
	}
	if &col[0] != &c.arena[0] {
		t.Error("the first column is not the arena's first slot")
	}
	want := make([]float64, 300)
	q.Column(0, nil, want)
	for j, v := range col {
		if v != want[j]*y[0]*y[j] {
			t.Fatalf("column 0, entry %d = %g in the mapped arena, want %g", j, v, want[j]*y[0]*y[j])
		}
	}
	c.release()
	if c.unmap != nil || c.arena != nil || c.cols[0] != nil {
		t.Error("release kept the mapped arena")
	}

	ws := new(Workspace)
	c = newCache(q, perm, y, defaultCacheBytes, ws)
	c.get(0, 300)
	if c.unmap != nil || c.arena == nil {
		t.Errorf("with a workspace: mapped %v, arena %d floats; want a Go-heap arena", c.unmap != nil, len(c.arena))
	}
	c.release()
	if len(ws.free) != 1 {
		t.Errorf("with a workspace: %d buffers handed over at release, want 1", len(ws.free))
	}

	prev := debug.SetMemoryLimit(1 << 40)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	if prev != math.MaxInt64 {
		t.Skipf("the test process already has a memory limit (%d)", prev)
	}
	c = newCache(q, perm, y, defaultCacheBytes, nil)
	c.get(0, 300)
	if c.unmap != nil || c.arena == nil {
		t.Errorf("under a memory limit: mapped %v, arena %d floats; want a Go-heap arena", c.unmap != nil, len(c.arena))
	}
	c.release()
}

// In the Go heap, the arena comes in slabs: 20 columns of a 300-row cache
// with slabs of 7 columns take 3 slabs (21 columns), not the whole 300×300;
// every column is right and has a slot of its own.
func TestHeapArenaSlabs(t *testing.T) {
	oldMin, oldSlab := arenaMinBytes, arenaSlabBytes
	t.Cleanup(func() { arenaMinBytes, arenaSlabBytes = oldMin, oldSlab })
	arenaMinBytes, arenaSlabBytes = 0, 7*300*8
	x, y := mixture(300, 5, 1, 3)
	q := gram(x, rbf(0.2))
	perm := make([]int, 300)
	for i := range perm {
		perm[i] = i
	}
	c := newCache(q, perm, y, defaultCacheBytes, new(Workspace)) // a workspace: never mapped
	seen := map[*float64]bool{}
	want := make([]float64, 300)
	for i := 0; i < 20; i++ {
		col := c.get(i, 300)
		if cap(col) != 300 || seen[&col[0]] {
			t.Fatalf("column %d: capacity %d, slot taken before: %v", i, cap(col), seen[&col[0]])
		}
		seen[&col[0]] = true
		q.Column(i, nil, want)
		for j, v := range col {
			if v != want[j]*y[i]*y[j] {
				t.Fatalf("column %d, entry %d = %g, want %g", i, j, v, want[j]*y[i]*y[j])
			}
		}
	}
	if c.arenaCols != 21 || len(c.arena) != 7*300 {
		t.Errorf("20 columns took slabs of %d columns in all, the last of %d floats; want 21 and 2100", c.arenaCols, len(c.arena))
	}
	// Earlier columns are intact after later slabs were cut.
	q.Column(0, nil, want)
	if col := c.get(0, 300); col[5] != want[5]*y[0]*y[5] {
		t.Errorf("column 0 changed after later slabs")
	}
}
