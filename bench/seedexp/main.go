// Command seedexp measures alpha seeding across cross-validation folds
// (DeCoste & Wagstaff 2000), which issue 44.1 named as a way to cut the SMO
// iterations of svm's refinement at large C: fold 0's training rows (a
// random 5-fold split, seed (1, 2)) are solved from α = 0, then folds 1..F-1
// both from α = 0 and from fold 0's α on the rows they share (0 on the
// others), the larger class's side scaled down so that Σ y_i α_i = 0. It
// prints each solve's iterations, objective, support vectors, time and
// kernel work (BENCHMARKS.md, "svm's grid on distinct Adult-like rows").
//
//	go run ./bench/seedexp -data adult32k -c 2048 -g 0.00390625 -folds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

func main() {
	path := flag.String("data", "", "")
	C := flag.Float64("c", 2048, "")
	g := flag.Float64("g", 1.0/256, "")
	nf := flag.Int("folds", 3, "")
	flag.Parse()
	ds, err := dataio.Load(*path, dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	X := ds.Features()
	n := ds.Len()
	perm := rand.New(rand.NewPCG(1, 2)).Perm(n)
	fold := make([]int, n)
	for r, i := range perm {
		fold[i] = r % 5
	}
	train := func(f int) []int {
		var out []int
		for i := range n {
			if fold[i] != f {
				out = append(out, i)
			}
		}
		return out
	}
	k, _ := kernel.NewGaussianIso(*g)
	ctx := context.Background()
	solve := func(rows []int, a0 []float64) solver.SVCResult {
		y := make([]float64, len(rows))
		for r, i := range rows {
			y[r] = ds.Y[i]
		}
		km := kernel.RowsAtIn(k, X, rows, nil)
		t := time.Now()
		res, err := solver.TrainSVC(ctx, km, y, solver.SVCParams{Margin: solver.L1, C: *C}, solver.Settings{}, a0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("  %d rows: %d iterations, obj %.6f, nsv %d, %.2f s, %d columns, %d entries\n", len(rows), res.Iter, res.Obj, res.NSV, time.Since(t).Seconds(), res.Columns, res.Entries)
		return res
	}
	t1 := train(0)
	fmt.Println("fold 0 cold:")
	r1 := solve(t1, nil)
	at := map[int]float64{}
	for r, i := range t1 {
		at[i] = r1.Alpha[r]
	}
	for f := 1; f < *nf; f++ {
		t2 := train(f)
		fmt.Printf("fold %d cold:\n", f)
		solve(t2, nil)
		a0 := make([]float64, len(t2))
		var sp, sn float64
		for r, i := range t2 {
			a0[r] = at[i]
			if ds.Y[i] > 0 {
				sp += a0[r]
			} else {
				sn += a0[r]
			}
		}
		// Σyα = sp - sn: scale the larger side down to the smaller.
		if sp > sn {
			s := sn / sp
			for r, i := range t2 {
				if ds.Y[i] > 0 {
					a0[r] *= s
				}
			}
		} else if sn > sp {
			s := sp / sn
			for r, i := range t2 {
				if ds.Y[i] < 0 {
					a0[r] *= s
				}
			}
		}
		var d float64
		for r, i := range t2 {
			d += ds.Y[i] * a0[r]
		}
		fmt.Printf("fold %d seeded from fold 0 (sp %.1f sn %.1f, residual %.3g):\n", f, sp, sn, d)
		solve(t2, a0)
	}
}
