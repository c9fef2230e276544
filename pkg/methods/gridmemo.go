package methods

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"sync"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// GridMemo shares the baseline's cross-validated grid search between the
// jobs of one run. In a comparison the svm baseline and gi's default choice
// of C run the same search (grid.py's grid, the same folds from the same
// partition seed) on the same normalised training part; with a memo the
// second job reads the first one's outcome instead of solving the grid
// again, which is about a quarter of the default `compare`'s CPU time.
//
// The key is the search's whole input: the training rows and labels (a
// SHA-256 of their bits; for multi-class data the classes and the scheme,
// Dataset.Multiclass) and the settings the outcome depends on (Seed,
// Folds, C, Eps, GridRows, the user's grid and class weights), so two searches share an outcome only when
// they would compute the same one. The outcome is deterministic whatever
// the number of goroutines (TestCoresPerJobChangeNoNumber), so which job
// computes it changes no number.
//
// A job that reads a shared outcome is credited with the search's own
// time (gridResult.credit), less any time it waited for the other job to
// finish it, so the time a comparison reports for each method does not
// depend on which job of a partition happened to run first.
//
// The zero value is not usable; NewGridMemo makes one. It is safe for
// concurrent use; a search asked for while another job computes it waits
// for that job (one computation per key).
type GridMemo struct {
	mu sync.Mutex
	m  map[[32]byte]*gridEntry
}

type gridEntry struct {
	done chan struct{}
	res  gridResult
	err  error
	took time.Duration
}

// NewGridMemo returns an empty memo.
func NewGridMemo() *GridMemo { return &GridMemo{m: map[[32]byte]*gridEntry{}} }

// gridKey hashes what gridSearchCV's outcome depends on.
func gridKey(train *dataio.Dataset, cm Common, sp Space) [32]byte {
	h := sha256.New()
	r, c := train.Dims()
	putInts(h, r, c, len(train.Y), len(train.Class), cm.Folds, cm.GridRows)
	if sp := sparseRows(train); sp != nil {
		// Compressed rows: their non-zeros, after a tag (dense keys unchanged).
		h.Write([]byte("csr\x00"))
		for i := 0; i < r; i++ {
			ind, val := sp.Row(i)
			putInts(h, len(ind))
			for p, k := range ind {
				putInts(h, int(k))
				putFloat(h, val[p])
			}
		}
	} else {
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				putFloat(h, train.X.At(i, j))
			}
		}
	}
	for _, y := range train.Y {
		putFloat(h, y)
	}
	for _, k := range train.Class {
		putInts(h, k)
	}
	// A multi-class search's folds predict by the data's scheme: one-vs-one
	// and one-vs-rest on the same rows are two searches.
	h.Write([]byte(train.Multiclass))
	putFloat(h, cm.C)
	putFloat(h, cm.Eps)
	// The user's grid and class weights (svm's, not gi's C: two searches).
	for _, g := range []Log2Grid{sp.Log2C, sp.Log2Gamma} {
		putFloat(h, g.Begin)
		putFloat(h, g.End)
		putFloat(h, g.Step)
	}
	putFloat(h, cm.WeightPos)
	putFloat(h, cm.WeightNeg)
	h.Write([]byte(cm.ClassWeight + "\x00"))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], cm.Seed)
	h.Write(b[:])
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

func putInts(h hash.Hash, v ...int) {
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		h.Write(b[:])
	}
}

func putFloat(h hash.Hash, v float64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
	h.Write(b[:])
}

// search returns the grid search of train under cm, computing it with
// compute unless another job has (or is): then the outcome is that job's,
// with credit set to the search's time less this job's wait for it.
func (g *GridMemo) search(train *dataio.Dataset, cm Common, sp Space, compute func() (gridResult, error)) (gridResult, error) {
	key := gridKey(train, cm, sp)
	g.mu.Lock()
	e, ok := g.m[key]
	if !ok {
		e = &gridEntry{done: make(chan struct{})}
		g.m[key] = e
	}
	g.mu.Unlock()
	if !ok {
		start := time.Now()
		e.res, e.err = compute()
		e.took = time.Since(start)
		close(e.done)
		if e.err != nil { // let a later job try again (e.g. after a cancel)
			g.mu.Lock()
			delete(g.m, key)
			g.mu.Unlock()
		}
		return e.res, e.err
	}
	start := time.Now()
	<-e.done
	if e.err != nil {
		return gridResult{}, e.err
	}
	r := e.res
	r.credit = max(e.took-time.Since(start), 0)
	return r, nil
}
