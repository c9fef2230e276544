package methods_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// ExampleTune runs a method on multi-class data through the one entry: on
// iris (three classes) Tune runs spd once per one-vs-one pair, as LIBSVM
// trains its pairs, and returns the pairs' results with a summary.
func ExampleTune() {
	iris, err := dataio.Load("../../testdata/multiclass/iris.scale", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	nz, err := dataio.FitNormalizer(dataio.ZScore, iris.X)
	if err != nil {
		panic(err)
	}
	s := methods.SPDSettings{Common: methods.Common{Seed: 1}, Param: "diag"}
	res, err := methods.Tune(context.Background(), s, nz.ApplyDataset(iris))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s on %d rows of %d classes: %d pairs, %s\n", res.Method, iris.Len(), iris.NumClasses(), len(res.Pairs), res.Status)
	for _, p := range res.Pairs {
		fmt.Printf("  %s vs %s on %d rows: C = %g, diag(Q) of %d features\n", p.Positive, p.Negative, p.Rows, p.Result.C, len(p.Result.Kernel.Diag))
	}
	// Output:
	// spd on 150 rows of 3 classes: 3 pairs, converged
	//   1 vs 2 on 100 rows: C = 1, diag(Q) of 4 features
	//   1 vs 3 on 100 rows: C = 1, diag(Q) of 4 features
	//   2 vs 3 on 100 rows: C = 1, diag(Q) of 4 features
}

// ExampleTune_kernelRows shows Tune on more rows than the method learns its
// kernel on (Common.KernelRows, the command line's --kernel-rows; 5,000 by
// default, 400 here to keep the example quick): rcsc learns its width on a
// stratified subset of 400 of the 1,000 rows, and the caller fits the final
// SVM on every row (pkg/model, or experiment.Tune, which does both).
func ExampleTune_kernelRows() {
	board, _ := dataio.Chessboard(1000, 2, 1, rand.New(rand.NewPCG(1, 2)))
	nz, err := dataio.FitNormalizer(dataio.ZScore, board.X)
	if err != nil {
		panic(err)
	}
	s := methods.RCSCSettings{Common: methods.Common{Seed: 1, KernelRows: 400}}
	res, err := methods.Tune(context.Background(), s, nz.ApplyDataset(board))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: learned on %d of %d rows, gamma = %.4g, C = %g, %s\n", res.Method, res.LearnedOn, board.Len(), res.Kernel.Gamma, res.C, res.Status)
	// Output:
	// rcsc: learned on 400 of 1000 rows, gamma = 76.48, C = 2, converged
}
