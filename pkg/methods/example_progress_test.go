package methods_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// ExampleNewProgress follows a tune of svm on 300 rows with its grid on a
// subset of 100: the first event already plans the whole run (the grid,
// the refinement on all rows, the final fit, with their estimated costs),
// and the share done grows to 1.
func ExampleNewProgress() {
	train := dataio.Weston(300, 8, rand.New(rand.NewPCG(3, 4)))
	var first, last methods.Event
	n := 0
	prog := methods.NewProgress(func(e methods.Event) { // one event at a time, in order
		if n == 0 {
			first = e
		}
		last, n = e, n+1
	})
	spec := methods.SVMSettings{Common: methods.Common{Seed: 1, GridRows: 100, Workers: 1, Progress: prog}}
	if _, err := experiment.Tune(context.Background(), experiment.TuneSettings{Train: train, Data: "weston", Spec: spec}); err != nil {
		panic(err)
	}
	for _, s := range first.Plan {
		fmt.Printf("%-9s weight %8.0f  %s\n", s.Key, s.Weight, s.Name)
	}
	fmt.Printf("%d events, the last %s %d/%d: %.0f%% done\n", n, last.Plan[last.Stage].Key, last.Done, last.Total, 100*last.Fraction())
	// Output:
	// grid      weight  1408000  grid search: 10×11 points, 5-fold CV on 100 rows
	// refine    weight  1036800  refinement: 3×3 points around the subset's choice, 5-fold CV on all 300 rows
	// final fit weight    90000  final SVM on all 300 rows
	// 69 events, the last final fit 1/1: 100% done
}
