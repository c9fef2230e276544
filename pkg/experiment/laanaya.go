package experiment

import (
	"context"
	"fmt"
	"math"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// FixedSVM is a baseline (C, γ) fixed for every partition of a dataset.
type FixedSVM struct {
	C, Gamma float64
	// Accuracy is the mean test accuracy on the partitions it was chosen on.
	Accuracy float64
}

// LaanayaPartitions is the number of leading partitions Laanaya et al.
// (2011, §3) chose the baseline's (C, σ) on.
const LaanayaPartitions = 5

// LaanayaSelect chooses the baseline's (C, γ) the way Laanaya et al. did: the
// point of svm's grid (sp: LIBSVM grid.py's grid, or the user's; c.Base.C
// alone when fixed) with the best TEST accuracy over the first five
// partitions, each point fitted on each partition's training part and
// scored on its test part (the rows predicted correctly over the five
// test parts: their mean accuracy, the parts being the same size). It
// looks at test data, so compare offers it only as a named option and its
// tables say so. It runs on the one search loop of svm's grid
// (methods.SearchGrid), so that ties go as there: to the γ nearest the
// moderate γ_h of the training parts, then to the smaller C.
func LaanayaSelect(ctx context.Context, c Config, src Source, sp methods.Space) (FixedSVM, error) {
	k := min(LaanayaPartitions, src.Len())
	type part struct{ train, test *dataio.Dataset }
	parts := make([]part, k)
	trains := make([]*dataio.Dataset, k)
	for i := range parts {
		tr, te, err := src.Partition(i)
		if err != nil {
			return FixedSVM{}, err
		}
		ntr, nte, _, err := dataio.Normalize(c.normalize(), tr, te, false)
		if err != nil {
			return FixedSVM{}, err
		}
		parts[i] = part{ntr, nte}
		trains[i] = parts[i].train
	}
	score := func(ctx context.Context, C, gamma float64) (correct, total int, err error) {
		spec := kernel.Spec{Kind: "gaussian", Gamma: gamma}
		for _, p := range parts {
			if err := ctx.Err(); err != nil {
				return 0, 0, err
			}
			fit, err := model.Fit(ctx, model.FitSettings{
				Train: p.train, Kernel: spec, Margin: model.L1, C: C,
				Eps: c.Base.Eps, CacheMB: c.Base.CacheMB,
				Workers: min(c.Workers, 2), // --workers 1: one core (0: the solver's default, 2)
			})
			if err != nil {
				return 0, 0, fmt.Errorf("laanaya selection on %s at C=2^%g, γ=2^%g: %w", src.Name(), math.Log2(C), math.Log2(gamma), err)
			}
			n := p.test.Len()
			correct += int(math.Round(fit.Model.Accuracy(p.test, true) * float64(n)))
			total += n
		}
		return correct, total, nil
	}
	g, err := methods.SearchGrid(ctx, methods.SVMSettings{Common: c.Base, Space: sp}, trains, score)
	if err != nil {
		return FixedSVM{}, err
	}
	return FixedSVM{C: g.C, Gamma: g.Gamma, Accuracy: g.Accuracy()}, nil
}

// fixedResult is the svm method's result when its (C, γ) are fixed.
func fixedResult(f FixedSVM) *methods.Result {
	return &methods.Result{
		Method: "svm", Kernel: kernel.Spec{Kind: "gaussian", Gamma: f.Gamma},
		Margin: solver.L1, C: f.C, Status: status.Converged,
		Init: fmt.Sprintf("(C, γ) = (%g, %g): best mean test accuracy %.4f on the first %d partitions (Laanaya's selection, looks at test data)",
			f.C, f.Gamma, f.Accuracy, LaanayaPartitions),
	}
}
