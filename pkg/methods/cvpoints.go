package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// The practitioners' baselines (random, halving, bo) evaluate (C, γ) points
// one by one or a few at a time, not a whole grid: this file is their CV
// machinery, built from the grid's (foldKernels, foldSweep, the folds of
// newCVPlan), so that an accuracy here is the grid's accuracy at the same
// point: the same folds from the same seed, the same solver settings, the
// same count of correct predictions.

// cvGroup is one kernel and the Cs evaluated with it: exp(-γ D), D a
// matrix of squared distances of the rows (for bo:ard, of the rows scaled
// per feature, with γ = 1). Cs ascend (foldSweep warm-starts up them).
type cvGroup struct {
	D     *mat.SymDense
	Gamma float64
	Cs    []float64
}

// groupCounts returns correct[g][c], the number of test rows predicted
// correctly over the folds of plan by group g's kernel and its c-th C, and
// the number of SVM solves. Jobs (one group, one fold) run on cm.Workers
// goroutines; the counts are sums of integers, so the result does not
// depend on the order they finish in.
func groupCounts(ctx context.Context, groups []cvGroup, y []float64, plan cvPlan, cm Common) (correct [][]int, solves int, err error) {
	nf := len(plan.test)
	correct = make([][]int, len(groups))
	for g := range groups {
		correct[g] = make([]int, len(groups[g].Cs))
	}
	type job struct{ g, f int }
	jobs := make(chan job)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := cm.settings()
	s.Workers = 1
	for w := 0; w < min(cm.workers(), len(groups)*nf); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := s
			s.Workspace = new(solver.Workspace)
			var ktr, kte []float64
			for jb := range jobs {
				gr := groups[jb.g]
				tr, te := plan.train[jb.f], plan.test[jb.f]
				var Ktr, Kte *mat.Dense
				Ktr, Kte, ktr, kte = foldKernels(gr.D, tr, te, gr.Gamma, ktr, kte)
				cnt, ns, err := foldSweep(ctx, kernel.PrecomputedSquare(Ktr), Kte,
					pick(y, tr), pick(y, te), gr.Cs, solver.L1, s)
				mu.Lock()
				solves += ns
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("fold %d: %w", jb.f+1, err)
						cancel()
					}
				} else {
					for c, v := range cnt {
						correct[jb.g][c] += v
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for g := range groups {
		for f := 0; f < nf; f++ {
			select {
			case jobs <- job{g, f}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, solves, firstErr
	}
	return correct, solves, nil
}

// cvPoint is one evaluated point of a search: log2 C, the log2 γ of each
// kernel parameter (one for the isotropic kernel, one per feature for
// bo:ard), and its CV count of correct predictions out of total.
type cvPoint struct {
	Log2C     float64
	Log2Gamma []float64
	Correct   int
	Total     int
}

// Accuracy returns the point's CV accuracy.
func (p cvPoint) Accuracy() float64 { return float64(p.Correct) / float64(p.Total) }

// better reports whether p beats q by the grid's rule (pickGrid): more
// correct predictions; on a tie the kernel nearer the moderate γ_h in log2
// (the mean log2 γ for bo:ard), then the smaller C. Points of equal
// accuracy, distance and C keep the earlier one (q).
func (p cvPoint) better(q cvPoint, log2GammaH float64) bool {
	if p.Correct*q.Total != q.Correct*p.Total {
		return p.Correct*q.Total > q.Correct*p.Total
	}
	dp, dq := math.Abs(meanOf(p.Log2Gamma)-log2GammaH), math.Abs(meanOf(q.Log2Gamma)-log2GammaH)
	if math.Abs(dp-dq) > 1e-9 {
		return dp < dq
	}
	return p.Log2C < q.Log2C
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// isoEval evaluates isotropic (log2 C, log2 γ) points on one training part
// by k-fold CV: the squared distances and the folds are computed once.
type isoEval struct {
	D          *mat.SymDense
	X          mat.Matrix // the rows, for bo:ard (nil otherwise)
	y          []float64
	plan       cvPlan
	log2GammaH float64
	cm         Common
	solves     int
	evals      int
}

func newIsoEval(train *dataio.Dataset, cm Common) (*isoEval, error) {
	plan, err := newCVPlan(train.Y, cm)
	if err != nil {
		return nil, err
	}
	D := kernel.SquaredDistances(train.X)
	return &isoEval{D: D, y: train.Y, plan: plan, log2GammaH: math.Log2(moderateGamma(D)), cm: cm}, nil
}

// eval returns the CV point at (log2 C, log2 γ).
func (e *isoEval) eval(ctx context.Context, log2C, log2Gamma float64) (cvPoint, error) {
	cnt, ns, err := groupCounts(ctx, []cvGroup{{D: e.D, Gamma: math.Exp2(log2Gamma), Cs: []float64{math.Exp2(log2C)}}}, e.y, e.plan, e.cm)
	e.solves += ns
	e.evals++
	if err != nil {
		return cvPoint{}, fmt.Errorf("cross-validation at C = 2^%.4g, gamma = 2^%.4g: %w", log2C, log2Gamma, err)
	}
	return cvPoint{Log2C: log2C, Log2Gamma: []float64{log2Gamma}, Correct: cnt[0][0], Total: len(e.y)}, nil
}

// subsamplePlan returns plan with each fold's training and test rows
// subsampled to the fraction frac (at least one row each), as
// scikit-learn's _SubsampleMetaSplitter does for successive halving: a
// plain random draw (not stratified) of ⌊frac·len⌋ rows from rng, kept
// ascending.
func subsamplePlan(plan cvPlan, frac float64, rng *rand.Rand) cvPlan {
	if frac >= 1 {
		return plan
	}
	draw := func(rows []int) []int {
		k := max(1, int(frac*float64(len(rows))))
		p := rng.Perm(len(rows))[:k]
		out := make([]int, k)
		for i, j := range p {
			out[i] = rows[j]
		}
		slices.Sort(out)
		return out
	}
	out := cvPlan{train: make([][]int, len(plan.train)), test: make([][]int, len(plan.test))}
	for f := range plan.train {
		out.train[f] = draw(plan.train[f])
		out.test[f] = draw(plan.test[f])
	}
	return out
}
