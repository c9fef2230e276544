package model_test

import (
	"context"
	"fmt"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// Train a C-SVC with LIBSVM's default Gaussian kernel (γ = 1/d) on the
// z-scored heart data, scored on its own training rows.
func ExampleTrain() {
	d, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	norm, err := dataio.FitNormalizer("zscore", d.X)
	if err != nil {
		panic(err)
	}
	r, err := model.Train(context.Background(), model.TrainSettings{
		Train: norm.ApplyDataset(d), Norm: norm, Data: "builtin:heart",
		Kernel: model.KernelSettings{Kind: model.KernelGaussian},
		Margin: model.L1, C: 1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, C = %g: #SV %d, train accuracy %.4f\n", model.DescribeKernel(r.Kernel), r.C, r.NSV, r.TrainAccuracy)
	// Output:
	// gaussian exp(-γ‖x-z‖²), γ = 0.0769231 (σ = 2.54951), C = 1: #SV 150, train accuracy 0.9296
}
