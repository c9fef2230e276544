package experiment

import (
	"math/rand/v2"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// TestEstimateMemorySparse: on data held in compressed rows the memory
// estimates read each row as the dense width of its bytes
// (methods.SparseWidth), not its features: svm on 400 training rows of
// 20,000 features at about 30 non-zeros a row is estimated at that width
// (a few MB), where the dense width was estimated before; an entry refused on sparse data (spd)
// counts as holding nothing; tune's estimate (TunePeakBytes) is the same
// width's. Measured: 4.1 MB besides the runtime's 32, where the dense
// width gave 294 MB.
func TestEstimateMemorySparse(t *testing.T) {
	d := dataio.TextLike(500, 20_000, 30, rand.New(rand.NewPCG(46, 5)))
	if !d.IsSparse() {
		t.Fatal("dense rows")
	}
	var train []int
	for i := range 400 {
		train = append(train, i)
	}
	src := &dataio.Partitioned{Data: d, Splits: []dataio.Split{{Train: train, Test: []int{400, 401}}}}
	opts := methods.Common{Folds: 5, CacheMB: 200, Eps: 1e-3}
	est, err := EstimateMemory(Config{Workers: 1, Base: opts}, []Source{src}, mustEntries(t, "svm,spd"), 1)
	if err != nil || len(est) != 2 {
		t.Fatal(est, err)
	}
	w := methods.SparseWidth(500, int64(d.Sparse.NNZ()))
	if w < 30 || w > 60 {
		t.Fatalf("width %d for %d non-zeros in 500 rows", w, d.Sparse.NNZ())
	}
	spec := est[0].Spec
	if e := est[0]; e.N != 400 || e.D != 20_000 || e.W != w || e.Job != methods.PeakBytes(spec, 400, w) || e.Job-methods.RuntimeBytes >= (methods.PeakBytes(spec, 400, 20_000)-methods.RuntimeBytes)/20 {
		t.Errorf("svm: %+v; want 400 × 20000 read at width %d: %d bytes (dense width: %d)", e, w, methods.PeakBytes(spec, 400, w), methods.PeakBytes(spec, 400, 20_000))
	}
	if e := est[1]; e.Job != methods.RuntimeBytes {
		t.Errorf("spd refused on sparse data: job %d bytes, want the runtime's %d", e.Job, methods.RuntimeBytes)
	}
	sub := d.Subset(train)
	if got, want := TunePeakBytes(spec, sub), methods.PeakBytes(spec, 400, methods.SparseWidth(400, int64(sub.Sparse.NNZ()))); got != want {
		t.Errorf("TunePeakBytes = %d, want %d", got, want)
	}
}
