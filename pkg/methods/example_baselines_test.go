package methods_test

import (
	"context"
	"fmt"
	"math"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// ExampleTune_bo runs Bayesian optimisation of the svm baseline's
// 5-fold CV accuracy on heart with a budget of 20 CV evaluations, and
// random search with the same budget, and prints what each chose and what
// it cost.
func ExampleTune_bo() {
	heart, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	nz, err := dataio.FitNormalizer(dataio.ZScore, heart.X)
	if err != nil {
		panic(err)
	}
	train := nz.ApplyDataset(heart)
	for _, s := range []methods.Spec{
		methods.BOSettings{Common: methods.Common{Seed: 1}, Budget: 20},
		methods.RandomSettings{Common: methods.Common{Seed: 1}, Budget: 20},
	} {
		res, err := methods.Tune(context.Background(), s, train)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-6s log2 C = %5.2f, log2 gamma = %6.2f: CV accuracy %.4f after %d evaluations, %d SVM solves\n",
			res.Method, math.Log2(res.C), math.Log2(res.Kernel.Gamma), res.CriterionEnd, res.Iter, res.Solves)
	}
	// Output:
	// bo     log2 C = 11.19, log2 gamma = -15.00: CV accuracy 0.8481 after 20 evaluations, 100 SVM solves
	// random log2 C = -0.07, log2 gamma =  -6.34: CV accuracy 0.8481 after 20 evaluations, 100 SVM solves
}
