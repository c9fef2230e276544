package model_test

import (
	"context"
	"fmt"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
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

// Fit an SVM on 200 rows of heart and predict the other 70: their decision
// values, predicted labels and accuracy.
func ExamplePredict() {
	d, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	train, test := d.Subset(seq(0, 200)), d.Subset(seq(200, 270))
	norm, err := dataio.FitNormalizer("zscore", train.X)
	if err != nil {
		panic(err)
	}
	fit, err := model.Fit(context.Background(), model.FitSettings{
		Train: norm.ApplyDataset(train), Norm: norm,
		Kernel: kernel.Spec{Kind: model.KernelGaussian, Gamma: 0.05}, Margin: model.L1, C: 1,
	})
	if err != nil {
		panic(err)
	}
	// Predict takes raw rows: the model applies its own normaliser.
	p, err := model.Predict(context.Background(), fit.Model, test, model.PredictSettings{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("row 1: f = %.4f, predicted %s, label %s\n", p.Predictions[0].Decision, p.Predictions[0].Predicted, p.Predictions[0].Label)
	fmt.Printf("accuracy %.4f (%d/%d)\n", p.Accuracy, p.Correct, p.N)
	// Output:
	// row 1: f = 0.1084, predicted 1, label -1
	// accuracy 0.8286 (58/70)
}

// Fit the final SVM with a kernel already chosen, as tune and compare do
// after tuning: trained on 200 normalised rows of heart, scored on them and
// on the other 70.
func ExampleFit() {
	d, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	train, test := d.Subset(seq(0, 200)), d.Subset(seq(200, 270))
	norm, err := dataio.FitNormalizer("zscore", train.X)
	if err != nil {
		panic(err)
	}
	f, err := model.Fit(context.Background(), model.FitSettings{
		Train: norm.ApplyDataset(train), Test: norm.ApplyDataset(test), Norm: norm,
		Kernel: kernel.Spec{Kind: model.KernelGaussian, Gamma: 0.05}, Margin: model.L1, C: 1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("#SV %d, converged %v\n", f.SVC.NSV, f.Converged())
	fmt.Printf("train %d/200, test %d/70 correct\n", f.TrainCorrect, f.TestCorrect)
	// Output:
	// #SV 106, converged true
	// train 181/200, test 58/70 correct
}

func seq(from, to int) []int {
	idx := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		idx = append(idx, i)
	}
	return idx
}
