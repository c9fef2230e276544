package experiment

// The one pipeline from a method's settings and a training part to a tuned,
// fitted and checked model: `kerneltune tune` (Tune) and every job of a
// comparison (runJob) call it, so that both normalise, tune, fit the final
// SVM and check it for a degenerate kernel the same way.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// PipelineInput is one method's settings and the data it runs on.
type PipelineInput struct {
	// Spec is the method with its settings; its Base holds the seed, the
	// final SVM's solver tolerance and cache, and the workers.
	Spec methods.Spec
	// Train and Test are the training and test part (Test nil or empty:
	// none). With Norm nil they are raw: the pipeline fits the normaliser
	// Normalize ("" = zscore) on Train and applies it to both. With Norm
	// set, both are already normalised by it.
	Train, Test *dataio.Dataset
	Norm        *dataio.Normalizer
	Normalize   string
	// MemBytes bounds the method's estimated peak memory
	// (methods.CheckMemory); 0 means no bound.
	MemBytes int64
	// Fixed, when set, is the tuning result used instead of running the
	// method (the svm baseline fixed by Laanaya's selection).
	Fixed *methods.Result
	// Probability fits the final model's probability estimates
	// (model.FitSettings.Probability) from the method's seed.
	Probability bool
}

// Tuned is what the pipeline produced: the normalised parts, the method's
// result, the final SVM on the whole training part and its degenerate-kernel
// check.
//
// On multi-class data the method ran per binary subproblem, a pair of
// classes one-vs-one or a class against the rest one-vs-rest
// (methods.Tune dispatches multi-class data; the svm baseline once for all), Fit holds the
// multi-class model with the test part's true and predicted classes
// (FitResult.TestTrue, TestPred, Classes), PairDegeneracy the check of
// every binary SVM on its training rows, and Degeneracy the first
// degenerate one's (zero when none is).
type Tuned struct {
	Train, Test    *dataio.Dataset
	Norm           *dataio.Normalizer
	Result         *methods.Result
	Fit            *model.FitResult
	Degeneracy     methods.Degeneracy
	PairDegeneracy []methods.Degeneracy
}

// StageError is a failure of one stage of the pipeline: "normalise",
// "tune" or "final model". A comparison records it in the failed job's
// record ("tune: …").
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return e.Stage + ": " + e.Err.Error() }
func (e *StageError) Unwrap() error { return e.Err }

// Pipeline normalises the parts (unless in.Norm is given), runs the method
// (refusing it first when its estimated memory exceeds in.MemBytes), fits
// the final SVM with the learned kernel, margin and C on the whole training
// part, scores it on both parts and checks it for a degenerate kernel
// (methods.ClassifyDegenerate). An iteration limit is a status, not an
// error; a method that fails, or ends with a status that makes its result
// unusable, is a *StageError. A panic inside the method is turned into an
// error, so that one broken partition never takes a long run down.
func Pipeline(ctx context.Context, in PipelineInput) (*Tuned, error) {
	t := &Tuned{Train: in.Train, Test: in.Test, Norm: in.Norm}
	if t.Norm == nil {
		var err error
		if t.Train, t.Test, t.Norm, err = dataio.NormalizeWithin(normalizeKind(in.Normalize), in.Train, in.Test, false, dataio.DenseBound{MemBytes: in.MemBytes}); err != nil {
			return nil, &StageError{"normalise", err}
		}
	}
	// Multi-class: the classes in the order the training part shows them,
	// as LIBSVM would see it (the whole file's order may differ).
	t.Train, t.Test = dataio.InLIBSVMOrder(t.Train, t.Test)
	spec := in.Spec
	base := spec.Base()
	// The final fit is the run's last stage: announced first, so that the
	// method's stages go before it and the plan covers the whole run.
	base.Progress.Announce(methods.FinalFitStage(t.Train.Len(), fitSquares(t.Train), in.Probability))
	if in.Fixed != nil {
		t.Result = in.Fixed
	} else {
		multi := t.Train.MultiClass()
		// On sparse data the estimates read the rows' width in non-zeros
		// (methods.MemWidth); the refusal names the features.
		w := methods.MemWidth(t.Train)
		if err := methods.CheckMemory(spec, t.Train.Len(), w, in.MemBytes); !multi && err != nil {
			return nil, withFeatures(err, t.Train.Dim())
		}
		if err := methods.CheckMemoryMultiClass(spec, t.Train.ClassSizes(), w, t.Train.Multiclass, in.MemBytes); multi && err != nil {
			return nil, withFeatures(err, t.Train.Dim())
		}
		res, err := tuneSafely(ctx, spec, t.Train)
		if err != nil {
			return nil, &StageError{"tune", err}
		}
		if err := res.Status.Err(); err != nil {
			return nil, &StageError{"tune", fmt.Errorf("%s: %w", spec.Name(), err)}
		}
		t.Result = res
		if t.Train.Len() > collectAbove {
			// The method's matrices are garbage now; collect them before
			// the final fit allocates its cache in one piece, so that the
			// two do not stack up above the memory estimate (gi on 2,500
			// of 5,000 rows peaked at 465 MB against 396 without this).
			runtime.GC()
		}
	}
	res := t.Result
	fs := model.FitSettings{
		Train: t.Train, Test: t.Test, Norm: t.Norm, Kernel: res.Kernel, Margin: res.Margin, C: res.C,
		Eps: base.Eps, CacheMB: base.CacheMB, Workers: min(base.Workers, 2), // 1 when jobs run in parallel
		Probability: in.Probability, Seed: base.Seed,
	}
	for _, p := range res.Pairs {
		fs.Pairs = append(fs.Pairs, model.PairSVM{Kernel: p.Result.Kernel, Margin: p.Result.Margin, C: p.Result.C})
	}
	// Class weights (svm, halving, random, bo): the final SVM's C per
	// class, from the whole training part's counts when balanced.
	w, err := methods.SubproblemWeights(base, t.Train)
	switch {
	case err != nil:
		return nil, &StageError{"final model", err}
	case w != nil && !t.Train.MultiClass():
		fs.WeightPos, fs.WeightNeg = w[0][0], w[0][1]
	case w != nil:
		if fs.Pairs == nil {
			fs.Pairs = make([]model.PairSVM, len(w))
			for p := range fs.Pairs {
				fs.Pairs[p] = model.PairSVM{Kernel: res.Kernel, Margin: res.Margin, C: res.C}
			}
		}
		for p := range fs.Pairs {
			fs.Pairs[p].WeightPos, fs.Pairs[p].WeightNeg = w[p][0], w[p][1]
		}
	}
	base.Progress.Begin("final fit", 1, "", 0)
	fit, err := model.Fit(ctx, fs)
	if err != nil {
		return nil, &StageError{"final model", err}
	}
	base.Progress.Step(1, "")
	t.Fit = fit
	m := fit.Model
	if !m.IsMultiClass() {
		t.Degeneracy = methods.ClassifyDegenerate(m.KernelFunc(), t.Train.Features(), m.C, m.DecisionNormalized(t.Train.Features()))
		return t, nil
	}
	ovr := m.Multiclass == dataio.OneVsRest
	for p, sp := range m.Subproblems() {
		pm, sub := m.Pairs[p], t.Train.Sub(sp)
		dg := methods.ClassifyDegenerate(pm.KernelFunc(), sub.Features(), pm.C, pm.DecisionNormalized(sub.Features()))
		if ovr && dg.Kind == methods.DegenerateOneClass {
			// A class's SVM that puts every row on the rest's side is
			// no failure one-vs-rest (small C on a minority class does
			// it): the largest decision value uses its values, not its
			// sign. The one-class test applies to the whole model below.
			dg.Kind, dg.Reason = "", ""
		}
		t.PairDegeneracy = append(t.PairDegeneracy, dg)
		if dg.Kind != "" && t.Degeneracy.Kind == "" {
			t.Degeneracy = dg
			t.Degeneracy.Reason = fmt.Sprintf("%s: %s", dataio.SubName(m.Classes, sp), dg.Reason)
		}
	}
	if ovr && t.Degeneracy.Kind == "" {
		pred := m.PredictClassesNormalized(t.Train.Features())
		if len(pred) > 0 && !slices.ContainsFunc(pred, func(c int) bool { return c != pred[0] }) {
			t.Degeneracy = methods.Degeneracy{Kind: methods.DegenerateOneClass,
				Reason: fmt.Sprintf("the one-vs-rest model predicts class %q for all %d training points", m.Classes[pred[0]], len(pred))}
		}
	}
	return t, nil
}

// collectAbove is the training rows above which Pipeline collects the
// method's garbage before the final fit (a collection costs little: the
// large matrices hold no pointers).
const collectAbove = 2_000

// normalizeKind is the normaliser's kind: auto (dataio.Auto: zscore, or
// maxabs on sparse data) by default.
func normalizeKind(kind string) string {
	if kind == "" {
		return dataio.Auto
	}
	return kind
}

// tuneSafely runs a method through its one entry (methods.Tune: panic
// recovery, multi-class dispatch, the large-data subset).
func tuneSafely(ctx context.Context, s methods.Spec, train *dataio.Dataset) (*methods.Result, error) {
	return methods.Tune(ctx, s, train)
}

// fitSquares is the final fit's estimated cost in squared rows (see
// methods.Progress): n² for a binary SVM, the sum of the subproblems'
// squared rows for a multi-class model.
func fitSquares(train *dataio.Dataset) float64 {
	sq := func(n int) float64 { return float64(n) * float64(n) }
	subs := train.Subproblems()
	if len(subs) == 0 {
		return sq(train.Len())
	}
	sizes := train.ClassSizes()
	var w float64
	for _, p := range subs {
		if p.Neg == dataio.Rest {
			w += sq(train.Len())
		} else {
			w += sq(sizes[p.Pos] + sizes[p.Neg])
		}
	}
	return w
}

// withFeatures returns err with a *methods.MemoryError's D set to the
// data's d features (the estimate read the width of sparse rows).
func withFeatures(err error, d int) error {
	var me *methods.MemoryError
	if errors.As(err, &me) {
		me.D = d
	}
	return err
}
