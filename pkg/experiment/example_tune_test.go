package experiment_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// Tune spd's diagonal metric on Weston's problem (2 informative features of
// 52), fit the final SVM and test it on a fresh sample, as `kerneltune tune
// --method spd --param diag` does.
func ExampleTune() {
	rng := rand.New(rand.NewPCG(1, 2))
	train, test := dataio.Weston(100, 20, rng), dataio.Weston(200, 20, rng)
	// Raw parts: the pipeline fits the z-score normaliser on train.
	r, err := experiment.Tune(context.Background(), experiment.TuneSettings{
		Train: train, Test: test, Data: "weston",
		Spec: methods.SPDSettings{Common: methods.Common{Seed: 1}, Param: "diag"},
	})
	if err != nil {
		panic(err)
	}
	top := r.Relevance[0]
	for _, fw := range r.Relevance {
		if fw.Q > top.Q {
			top = fw
		}
	}
	fmt.Printf("%s %s: status %s, most relevant feature %s\n", r.Method, r.Param, r.Status, top.Feature)
	fmt.Printf("test accuracy %.3f, degenerate: %v\n", *r.TestAccuracy, r.Degenerate != nil)
	// Output:
	// spd diag: status converged, most relevant feature x1
	// test accuracy 0.940, degenerate: false
}
