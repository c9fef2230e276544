package methods

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// TestMultiClassDistancesPacked: a one-vs-one multi-class search holds its
// squared distances packed, half of the n×n matrix it held (on dna's 2,000
// rows 16 MB, not 32 MB; at 7,000 rows 196 MB, not 392 MB), and its CV
// counts and solves are those of the same distances held in full, the
// fold's Gram route (foldKernels), at every (C, γ). Not parallel: it
// counts the bytes the process allocates.
func TestMultiClassDistancesPacked(t *testing.T) {
	d, err := dataio.Load(filepath.Join("..", "..", "testdata", "multiclass", "dna.scale"), dataio.ReadOptions{Storage: dataio.StorageDense})
	if err != nil {
		t.Fatal(err)
	}
	n := d.Len()
	cm := Common{Seed: 3}
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	_, err = newIsoEval(d, cm)
	runtime.ReadMemStats(&b)
	if err != nil {
		t.Fatal(err)
	}
	full := 8 * uint64(n) * uint64(n)
	if got := b.TotalAlloc - a.TotalAlloc; got > full*3/4 {
		t.Errorf("the evaluator of %d rows of %d classes allocated %.1f MB, the n×n distances alone are %.1f MB", n, d.NumClasses(), float64(got)/1e6, float64(full)/1e6)
	}
	for _, name := range []string{"wine.scale", "iris.scale"} {
		d := mcData(t, name)
		plan, err := newCVPlanOf(d, cm)
		if err != nil {
			t.Fatal(err)
		}
		cs := cvSetOf(d)
		P := kernel.SquaredDistancesPacked(d.X)
		D := kernel.SquaredDistances(d.X)
		gammas, Cs := []float64{0.25, 0.0078125}, []float64{0.5, 8}
		for _, gamma := range gammas {
			packed, ps, err := cvCounts(context.Background(), []cvGroup{{P: P, Gamma: gamma, Cs: Cs}}, []int{0}, cs, plan, cm, func(int) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			fold, fs, err := cvCounts(context.Background(), []cvGroup{{D: D, Gamma: gamma, Cs: Cs}}, []int{0}, cs, plan, cm, func(int) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(packed[0], fold[0]) || ps != fs {
				t.Errorf("%s γ = %g: packed distances %v correct in %d solves, the fold's Gram %v in %d", name, gamma, packed[0], ps, fold[0], fs)
			}
		}
	}
}
