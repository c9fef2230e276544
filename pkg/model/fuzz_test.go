package model

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// FuzzLoad: a model file, however damaged, loads or fails with an error that
// starts "read model: " (what was being done, not a package name); it never panics, and a model that loads predicts finite
// decision values on finite inputs.
func FuzzLoad(f *testing.F) {
	train := &dataio.Dataset{
		X:      mat.NewDense(4, 2, []float64{1, 0, 2, 1, -1, 0, -3, -1}),
		Y:      []float64{1, 1, -1, -1},
		Labels: dataio.LabelMap{Positive: "yes", Negative: "no"},
	}
	norm, err := dataio.FitNormalizer(dataio.ZScore, train.X)
	if err != nil {
		f.Fatal(err)
	}
	for _, spec := range []kernel.Spec{
		{Kind: kernel.KindGaussian, Gamma: 0.5},
		{Kind: kernel.KindGaussian, Diag: []float64{1, 2}},
		{Kind: kernel.KindGaussian, Q: [][]float64{{2, 1}, {1, 2}}},
		{Kind: kernel.KindL1, Theta: []float64{1, 2}},
		{Kind: kernel.KindLinear},
	} {
		m, _, err := fitSVM(context.Background(), norm.ApplyDataset(train), norm, spec, solver.SVCParams{C: 1}, solver.Settings{})
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.Save(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Load(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "read model: ") {
				t.Fatalf("error %q does not start with \"read model: \"", err)
			}
			return
		}
		if err := m.Verify(); err != nil && !errors.As(err, new(*ChecksumError)) {
			t.Fatalf("Verify: %v, want nil or a *ChecksumError", err)
		}
		if m.NumFeatures > 1<<10 {
			return // a valid file for very wide data: too big to predict on here
		}
		X := mat.NewDense(2, m.NumFeatures, nil)
		X.Set(1, 0, 1)
		for i, v := range m.Decision(X) {
			if math.IsNaN(v) {
				t.Fatalf("decision %d is NaN", i)
			}
		}
	})
}
