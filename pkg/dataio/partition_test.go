package dataio

import (
	"math"
	"slices"
	"sync"
	"testing"
)

func labels(pos, neg int) []float64 {
	// Interleave the classes (not sorted by class) deterministically.
	y := make([]float64, 0, pos+neg)
	p, q := 0, 0
	for p < pos || q < neg {
		if p < pos && (q >= neg || p*neg <= q*pos) {
			y = append(y, 1)
			p++
		} else {
			y = append(y, -1)
			q++
		}
	}
	return y
}

func TestPartitionsSizesAndDisjoint(t *testing.T) {
	y := labels(120, 150) // heart's classes
	cases := []struct {
		o        PartitionOptions
		ntr, nte int
	}{
		{PartitionOptions{K: 30, TrainSize: 100, TestSize: 100}, 100, 100},
		{PartitionOptions{K: 5, TrainSize: 200}, 200, 70},
		{PartitionOptions{K: 5, TrainFraction: 2.0 / 3}, 180, 90},
		{PartitionOptions{K: 5, TrainFraction: 0.5, TestFraction: 0.25}, 135, 68},
		{PartitionOptions{K: 30, TrainSize: 100, TestSize: 100, Stratified: true}, 100, 100},
		{PartitionOptions{TrainFraction: 0.7, Stratified: true}, 189, 81},
	}
	for _, c := range cases {
		sp, err := Partitions(y, c.o, 7)
		if err != nil {
			t.Fatalf("%+v: %v", c.o, err)
		}
		if want := max(c.o.K, 1); len(sp) != want {
			t.Fatalf("%+v: %d splits, want %d", c.o, len(sp), want)
		}
		for k, s := range sp {
			if len(s.Train) != c.ntr || len(s.Test) != c.nte {
				t.Errorf("%+v split %d: %d/%d, want %d/%d", c.o, k, len(s.Train), len(s.Test), c.ntr, c.nte)
			}
			seen := map[int]bool{}
			for _, i := range append(append([]int(nil), s.Train...), s.Test...) {
				if i < 0 || i >= len(y) || seen[i] {
					t.Fatalf("%+v split %d: row %d out of range or twice", c.o, k, i)
				}
				seen[i] = true
			}
			if !slices.IsSorted(s.Train) || !slices.IsSorted(s.Test) {
				t.Errorf("split %d not sorted", k)
			}
		}
		if len(sp) > 1 && slices.Equal(sp[0].Train, sp[1].Train) {
			t.Errorf("%+v: splits 0 and 1 are equal", c.o)
		}
	}
}

func TestPartitionsDeterministic(t *testing.T) {
	y := labels(40, 60)
	o := PartitionOptions{K: 10, TrainSize: 50, TestSize: 30}
	a, _ := Partitions(y, o, 1)
	b, _ := Partitions(y, o, 1)
	c, _ := Partitions(y, o, 2)
	// The same split k whatever K is: split 3 of 10 equals split 3 of 4.
	o4 := o
	o4.K = 4
	d, _ := Partitions(y, o4, 1)
	for k := range a {
		if !slices.Equal(a[k].Train, b[k].Train) || !slices.Equal(a[k].Test, b[k].Test) {
			t.Fatalf("split %d differs between two runs with one seed", k)
		}
	}
	if slices.Equal(a[0].Train, c[0].Train) {
		t.Error("seeds 1 and 2 give the same split")
	}
	for k := range d {
		if !slices.Equal(a[k].Train, d[k].Train) || !slices.Equal(a[k].Test, d[k].Test) {
			t.Fatalf("split %d changes with the number of splits drawn", k)
		}
	}
	// Concurrent consumers see the same splits.
	var wg sync.WaitGroup
	res := make([][]Split, 4)
	for w := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[w], _ = Partitions(y, o, 1)
		}()
	}
	wg.Wait()
	for w := range res {
		for k := range a {
			if !slices.Equal(res[w][k].Test, a[k].Test) {
				t.Fatalf("worker %d split %d differs", w, k)
			}
		}
	}
}

func TestPartitionsStratified(t *testing.T) {
	y := labels(81, 196) // IDA breast-cancer's classes
	sp, err := Partitions(y, PartitionOptions{K: 20, TrainSize: 200, TestSize: 77, Stratified: true}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// 200·81/277 = 58.48 → 58 positives in train, 23 in test, every split.
	for k, s := range sp {
		ptr, pte := countPos(y, s.Train), countPos(y, s.Test)
		if ptr != 58 || pte != 23 {
			t.Errorf("split %d: %d/%d positives, want 58/23", k, ptr, pte)
		}
	}
	// Unstratified: the positive count in train varies between splits.
	sp, _ = Partitions(y, PartitionOptions{K: 20, TrainSize: 100, TestSize: 100}, 3)
	counts := map[int]bool{}
	for _, s := range sp {
		counts[countPos(y, s.Train)] = true
	}
	if len(counts) < 3 {
		t.Errorf("unstratified splits have only %d distinct class counts", len(counts))
	}
}

func countPos(y []float64, idx []int) int {
	c := 0
	for _, i := range idx {
		if y[i] > 0 {
			c++
		}
	}
	return c
}

func TestPartitionsErrors(t *testing.T) {
	y := labels(10, 10)
	for _, o := range []PartitionOptions{
		{TrainSize: 15, TestSize: 6},
		{TrainSize: 20},
		{TrainSize: 21},
		{TestSize: 5},
		{},
		{TrainFraction: 1.2},
		{TrainFraction: 0.7, TestFraction: 0.5},
		{TrainSize: 10, TrainFraction: 0.5},
		{TrainSize: -1},
		{K: -2, TrainSize: 5},
	} {
		if _, err := Partitions(y, o, 1); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestKFold(t *testing.T) {
	for _, c := range []struct{ n, k, want int }{{10, 3, 3}, {270, 5, 5}, {4, 10, 4}} {
		folds := KFold(c.n, c.k, 1, FoldStream)
		if len(folds) != c.want {
			t.Fatalf("n=%d k=%d: %d folds", c.n, c.k, len(folds))
		}
		seen := make([]int, c.n)
		for _, f := range folds {
			if d := len(f.Test) - c.n/c.want; d < 0 || d > 1 {
				t.Errorf("n=%d k=%d: fold of %d", c.n, c.k, len(f.Test))
			}
			if len(f.Train)+len(f.Test) != c.n {
				t.Errorf("train+test = %d", len(f.Train)+len(f.Test))
			}
			for _, i := range f.Test {
				seen[i]++
			}
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("row %d in %d folds", i, s)
			}
		}
	}
	a, b := KFold(50, 5, 9, FoldStream), KFold(50, 5, 9, FoldStream)
	c := KFold(50, 5, 9, FoldStream+1)
	if !slices.Equal(a[2].Test, b[2].Test) || slices.Equal(a[2].Test, c[2].Test) {
		t.Error("KFold not deterministic per (seed, stream)")
	}
}

func TestStratifiedKFold(t *testing.T) {
	y := labels(120, 150)
	folds := StratifiedKFold(y, 7, 1, FoldStream)
	for _, f := range folds {
		p := countPos(y, f.Test)
		if math.Abs(float64(p)-120.0/7) >= 1 {
			t.Errorf("fold with %d positives, want 120/7 ± 1", p)
		}
		if d := len(f.Test) - 270/7; d < 0 || d > 1 {
			t.Errorf("fold of %d rows", len(f.Test))
		}
	}
}
