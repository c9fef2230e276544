package solver

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// sameResult fails unless a and b are identical to the last bit: α, the
// gradient, ρ, the objective, the gap, the iteration count and the status.
func sameResult(t *testing.T, name string, a, b Result) {
	t.Helper()
	if a.Iter != b.Iter || a.Status != b.Status || a.Obj != b.Obj || a.Rho != b.Rho || a.Gap != b.Gap ||
		!slices.Equal(a.Alpha, b.Alpha) || !slices.Equal(a.G, b.G) {
		t.Errorf("%s: serial and parallel solves differ: iter %d / %d, obj %.17g / %.17g, ρ %.17g / %.17g, status %v / %v",
			name, a.Iter, b.Iter, a.Obj, b.Obj, a.Rho, b.Rho, a.Status, b.Status)
	}
}

// atLeastTwoProcs makes sure a solve can have a helper goroutine.
func atLeastTwoProcs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		old := runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	}
}

// TestParallelColumnsSamePath: a solve with two workers, on a problem large
// enough that the default thresholds split its kernel columns (the bench's
// mixture at n = 3,000, C = 1 and 16, the second with a cache too small for
// the matrix so columns are evicted, recomputed and extended after
// shrinking), takes exactly the serial path: the same iterations, α,
// gradient, ρ and objective to the last bit.
func TestParallelColumnsSamePath(t *testing.T) {
	atLeastTwoProcs(t)
	if testing.Short() {
		t.Skip("n = 3,000 solves")
	}
	x, y := mixture(3000, 20, 2, 1)
	g, err := kernel.NewGaussianIso(1.0 / 16)
	if err != nil {
		t.Fatal(err)
	}
	q := g.Rows(toDense(x))
	for _, c := range []struct {
		C     float64
		cache int
	}{{1, 0}, {16, 300 * 3000 * 8}} {
		pr := Problem{Q: q, Y: y, Cp: c.C, Cn: c.C}
		serial, err := Solve(context.Background(), pr, Settings{Workers: 1, CacheBytes: c.cache})
		if err != nil {
			t.Fatal(err)
		}
		before := columnsSplit.Load()
		par, err := Solve(context.Background(), pr, Settings{Workers: 2, CacheBytes: c.cache})
		if err != nil {
			t.Fatal(err)
		}
		split := columnsSplit.Load() - before
		if split == 0 {
			t.Fatalf("C = %g: no column was split: the parallel branch did not run", c.C)
		}
		t.Logf("C = %g: %d iterations, %d columns split", c.C, par.Iter, split)
		sameResult(t, "mixture 3000x20", serial, par)
	}
}

// TestParallelColumnsSmallChunks lowers the split thresholds so that every
// column of small problems is computed in many parts, through every
// formulation and kernel matrix the solver serves: the results are those of
// the serial solve, bit for bit.
func TestParallelColumnsSmallChunks(t *testing.T) {
	atLeastTwoProcs(t)
	oldMin, oldChunks, oldSpin := splitMinWork, chunksPerWorker, spinYields
	splitMinWork, chunksPerWorker = 64, 8
	t.Cleanup(func() { splitMinWork, chunksPerWorker, spinYields = oldMin, oldChunks, oldSpin })
	for _, spin := range []int{oldSpin, 0} { // 0: wait for a helper by sleeping at once
		spinYields = spin
		smallChunks(t)
	}
}

func smallChunks(t *testing.T) {

	x, y := mixture(400, 5, 1, 7)
	X := toDense(x)
	gauss, _ := kernel.NewGaussianIso(0.3)
	l1, err := kernel.NewL1([]float64{1, 2, 0.5, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	rows := gauss.Rows(X)
	var warm []float64
	for name, pr := range map[string]Problem{
		"gaussian C-SVC":  {Q: rows, Y: y, Cp: 2, Cn: 2},
		"gaussian L2":     {Q: kernel.Shifted(rows, 0.5), Y: y, Cp: math.Inf(1), Cn: math.Inf(1)},
		"L1 centred hard": {Q: kernel.Centred(l1.Rows(X), 0), Y: y, Cp: 1, Cn: 1},
		"linear":          {Q: kernel.Linear{}.Rows(X), Y: y, Cp: 0.5, Cn: 0.5},
		"radius":          {Q: rows, P: negHalfDiag(rows), Delta: 1, Cp: math.Inf(1)},
	} {
		for _, s := range []Settings{{}, {CacheBytes: 30 * 400 * 8}, {NoShrinking: true}} {
			s.Eps = 1e-6
			s.Workers = 1
			serial, err := Solve(context.Background(), pr, s)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s.Workers = 2
			before := columnsSplit.Load()
			par, err := Solve(context.Background(), pr, s)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if columnsSplit.Load() == before {
				t.Fatalf("%s: no column was split", name)
			}
			sameResult(t, name, serial, par)
			if name == "gaussian C-SVC" && warm == nil {
				warm = serial.Alpha
			}
		}
	}
	// A warm start computes the initial gradient from many columns.
	pr := Problem{Q: rows, Y: y, Cp: 4, Cn: 4, Alpha0: ClipWarmStart(nil, warm, y, 4, 4)}
	serial, err := Solve(context.Background(), pr, Settings{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	par, err := Solve(context.Background(), pr, Settings{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "warm start", serial, par)

	// A NaN in the data, met by whichever goroutine computes its entries.
	X.Set(17, 2, math.NaN())
	if _, err := Solve(context.Background(), Problem{Q: gauss.Rows(X), Y: y, Cp: 1, Cn: 1}, Settings{Workers: 2}); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN in the data: err = %v, want ErrNaN", err)
	}
}

func negHalfDiag(q kernel.Matrix) []float64 {
	p := make([]float64, q.Len())
	for i := range p {
		p[i] = -q.Diag(i) / 2
	}
	return p
}

// TestWorkersDefault: Workers 0 uses the helpers only while fewer solves
// than cores run; a negative count is refused.
func TestWorkersDefault(t *testing.T) {
	if n, explicit := workers(0); explicit || n != min(2, runtime.GOMAXPROCS(0)) {
		t.Errorf("workers(0) = %d, %v", n, explicit)
	}
	if n, explicit := workers(1); !explicit || n != 1 {
		t.Errorf("workers(1) = %d, %v", n, explicit)
	}
	q := gram([][]float64{{0}, {1}}, linear)
	if _, err := Solve(context.Background(), Problem{Q: q, Y: []float64{1, -1}, Cp: 1, Cn: 1}, Settings{Workers: -1}); err == nil {
		t.Error("Workers = -1 accepted")
	}
	p := &colPool{minLen: 10, procs: 2}
	solvesRunning.Add(1)
	if !p.use(10) || p.use(9) {
		t.Error("one solve running: a column of 10 should be split, one of 9 not")
	}
	solvesRunning.Add(1)
	if p.use(10) {
		t.Error("two solves on two cores: the default should not split")
	}
	p.explicit = true
	if !p.use(10) {
		t.Error("explicit Workers: should split whatever runs")
	}
	solvesRunning.Add(-2)
}
