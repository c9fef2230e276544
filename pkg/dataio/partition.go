package dataio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Stream constants of the PCG generators of this package: a split k is drawn
// from rand.NewPCG(seed, PartitionStream+k), fold assignments from
// rand.NewPCG(seed, FoldStream). Other consumers of the same seed use other
// streams, so adding a random choice elsewhere never changes the partitions.
const (
	PartitionStream uint64 = 0x7061727469740000 // "partit"
	FoldStream      uint64 = 0x666f6c6473000000 // "folds"
)

// PartitionOptions say how to draw train/test splits. Give either sizes or
// fractions: TrainSize with TestSize (0: all remaining rows), or
// TrainFraction with TestFraction (0: all remaining rows). Fractions are
// rounded to the nearest row count.
type PartitionOptions struct {
	K             int // number of splits; 0 means 1
	TrainSize     int
	TestSize      int
	TrainFraction float64
	TestFraction  float64
	// Stratified keeps each class's share in train and test as in y (largest
	// remainders decide the rounding); off by default, as in Laanaya §3.
	Stratified bool
}

// sizes returns the training and test sizes for n rows.
func (o PartitionOptions) sizes(n int) (ntr, nte int, err error) {
	bySize := o.TrainSize != 0 || o.TestSize != 0
	byFrac := o.TrainFraction != 0 || o.TestFraction != 0
	switch {
	case bySize && byFrac:
		return 0, 0, fmt.Errorf("draw partitions: give sizes or fractions, not both")
	case o.TrainSize < 0 || o.TestSize < 0:
		return 0, 0, fmt.Errorf("draw partitions: negative size %d/%d", o.TrainSize, o.TestSize)
	case bySize:
		if o.TrainSize == 0 {
			return 0, 0, fmt.Errorf("draw partitions: a test size needs a training size")
		}
		ntr, nte = o.TrainSize, o.TestSize
		if nte == 0 {
			nte = n - ntr
		}
	case byFrac:
		for _, f := range []float64{o.TrainFraction, o.TestFraction} {
			if !(f >= 0 && f < 1) {
				return 0, 0, fmt.Errorf("draw partitions: fraction %v is not in (0, 1)", f)
			}
		}
		if o.TrainFraction == 0 {
			return 0, 0, fmt.Errorf("draw partitions: a test fraction needs a training fraction")
		}
		if o.TrainFraction+o.TestFraction > 1+1e-12 {
			return 0, 0, fmt.Errorf("draw partitions: fractions %v + %v exceed 1", o.TrainFraction, o.TestFraction)
		}
		ntr = int(math.Round(o.TrainFraction * float64(n)))
		if o.TestFraction > 0 {
			nte = int(math.Round(o.TestFraction * float64(n)))
			nte = min(nte, n-ntr)
		} else {
			nte = n - ntr
		}
	default:
		return 0, 0, fmt.Errorf("draw partitions: no training size or fraction given")
	}
	// ntr > n-nte, not ntr+nte > n: sizes near MaxInt overflowed the sum
	// (--train-size 9223372036854775807 panicked).
	if ntr < 1 || nte < 1 || ntr > n || nte > n-ntr {
		return 0, 0, fmt.Errorf("draw partitions: %d training + %d test rows do not fit in %d rows (each part needs at least one row)", ntr, nte, n)
	}
	return ntr, nte, nil
}

// Partitions draws o.K train/test splits of the rows of y. Train and test are
// disjoint within a split; different splits may overlap. Split k is drawn
// from its own stream rand.NewPCG(seed, PartitionStream+k), so it is the same
// however many splits are drawn and whichever worker uses it. Indices are
// sorted ascending within each part.
func Partitions(y []float64, o PartitionOptions, seed uint64) ([]Split, error) {
	n := len(y)
	ntr, nte, err := o.sizes(n)
	if err != nil {
		return nil, err
	}
	k := o.K
	if k == 0 {
		k = 1
	}
	if k < 0 {
		return nil, fmt.Errorf("draw partitions: negative number of splits %d", k)
	}
	var classes [][]int
	var trc, tec []int
	if o.Stratified {
		classes = classRows(y)
		if len(classes) > 1 {
			trc, tec, err = stratifiedCounts(classes, ntr, nte)
			if err != nil {
				return nil, err
			}
		} else {
			classes = nil
		}
	}
	out := make([]Split, k)
	for s := range out {
		rng := rand.New(rand.NewPCG(seed, PartitionStream+uint64(s)))
		var train, test []int
		if classes != nil {
			for c, rows := range classes {
				p := rng.Perm(len(rows))
				for _, i := range p[:trc[c]] {
					train = append(train, rows[i])
				}
				for _, i := range p[trc[c] : trc[c]+tec[c]] {
					test = append(test, rows[i])
				}
			}
		} else {
			p := rng.Perm(n)
			train = append(train, p[:ntr]...)
			test = append(test, p[ntr:ntr+nte]...)
		}
		slices.Sort(train)
		slices.Sort(test)
		out[s] = Split{Train: train, Test: test}
	}
	return out, nil
}

// classRows groups row indices by label value (classes in order of value).
func classRows(y []float64) [][]int {
	byVal := map[float64][]int{}
	for i, v := range y {
		byVal[v] = append(byVal[v], i)
	}
	vals := make([]float64, 0, len(byVal))
	for v := range byVal {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	out := make([][]int, len(vals))
	for c, v := range vals {
		out[c] = byVal[v]
	}
	return out
}

// stratifiedCounts splits ntr and nte over the classes in proportion to
// their sizes, by largest remainders, keeping trc[c]+tec[c] ≤ |class c|.
func stratifiedCounts(classes [][]int, ntr, nte int) (trc, tec []int, err error) {
	n := 0
	sizes := make([]int, len(classes))
	for c, r := range classes {
		sizes[c] = len(r)
		n += len(r)
	}
	trc = apportion(sizes, n, ntr, nil)
	rest := make([]int, len(sizes))
	for c := range sizes {
		rest[c] = sizes[c] - trc[c]
	}
	tec = apportion(sizes, n, nte, rest)
	sum := 0
	for _, v := range tec {
		sum += v
	}
	if sum != nte {
		return nil, nil, fmt.Errorf("draw partitions: cannot stratify %d training + %d test rows over classes of sizes %v", ntr, nte, sizes)
	}
	return trc, tec, nil
}

// apportion distributes total over classes in proportion to sizes (largest
// remainder method), never giving class c more than capacity[c] (sizes when
// capacity is nil).
func apportion(sizes []int, n, total int, capacity []int) []int {
	if capacity == nil {
		capacity = sizes
	}
	out := make([]int, len(sizes))
	rem := make([]float64, len(sizes))
	given := 0
	for c, s := range sizes {
		q := float64(total) * float64(s) / float64(n)
		out[c] = min(int(math.Floor(q)), capacity[c])
		rem[c] = q - math.Floor(q)
		given += out[c]
	}
	for given < total {
		best := -1
		for c := range sizes {
			if out[c] < capacity[c] && (best < 0 || rem[c] > rem[best]) {
				best = c
			}
		}
		if best < 0 {
			break
		}
		out[best]++
		rem[best] = -1 // each class gets at most one extra row per pass
		given++
		if allTaken(rem) {
			for c := range rem {
				rem[c] = 0
			}
		}
	}
	return out
}

func allTaken(rem []float64) bool {
	for _, r := range rem {
		if r >= 0 {
			return false
		}
	}
	return true
}

// KFold assigns the rows 0..n-1 to k folds at random and returns one Split
// per fold: Test is the fold, Train the other rows. Fold sizes differ by at
// most one; indices are sorted. k > n is reduced to n, as LIBSVM's
// svm_cross_validation does; k < 2 panics (a caller's bug: validate flags).
// The assignment comes from rand.NewPCG(seed, stream): each consumer passes
// its own stream constant (FoldStream when it has none), and draws the folds
// once and shares them, so every grid point or method sees the same folds.
func KFold(n, k int, seed, stream uint64) []Split {
	if k < 2 {
		panic(fmt.Sprintf("dataio: KFold needs k ≥ 2, got %d", k))
	}
	k = max(min(k, n), 1)
	rng := rand.New(rand.NewPCG(seed, stream))
	return deal(n, rng.Perm(n), k)
}

// StratifiedKFold is KFold keeping each class's share in every fold (the
// folds LIBSVM's cross-validation uses for classification): each class is
// shuffled and dealt round-robin, so a fold's count of a class differs from
// the class's average by less than one.
func StratifiedKFold(y []float64, k int, seed, stream uint64) []Split {
	if k < 2 {
		panic(fmt.Sprintf("dataio: StratifiedKFold needs k ≥ 2, got %d", k))
	}
	n := len(y)
	k = max(min(k, n), 1)
	rng := rand.New(rand.NewPCG(seed, stream))
	order := make([]int, 0, n)
	for _, rows := range classRows(y) {
		for _, i := range rng.Perm(len(rows)) {
			order = append(order, rows[i])
		}
	}
	return deal(n, order, k)
}

// deal gives order[i] to fold i mod k and returns the folds as splits.
func deal(n int, order []int, k int) []Split {
	folds := make([][]int, k)
	for i, r := range order {
		folds[i%k] = append(folds[i%k], r)
	}
	out := make([]Split, k)
	for f, rows := range folds {
		slices.Sort(rows)
		out[f] = Split{Train: Complement(n, rows), Test: rows}
	}
	return out
}

// Complement returns the rows of 0..n-1 not in idx, ascending.
func Complement(n int, idx []int) []int {
	in := make([]bool, n)
	for _, i := range idx {
		in[i] = true
	}
	out := make([]int, 0, n-len(idx))
	for i, b := range in {
		if !b {
			out = append(out, i)
		}
	}
	return out
}
