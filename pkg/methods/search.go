package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// searchCV is the one cross-validated search, in the shape of
// scikit-learn's BaseSearchCV: a method (svm's grid, random, halving, bo)
// is a proposer that says which candidates to score next (and, for a
// round, on which rows and folds); searchCV scores them through cvCounts,
// keeps the best by the one tie rule (cvPoint.better), runs the driver
// (one iteration per batch, the first batch the start), records the
// trace, counts the solves and the evaluations, and builds the Result
// (svm's is built from its gridResult, which GridMemo shares with gi).
type searchCV struct {
	method string
	// ev is the rows, folds and γ_h a point is scored on, one by one.
	ev   *isoEval
	prop proposer
	// iters is the number of batches: the start and iters-1 iterations.
	// The budget is the search's stopping rule: the run ends Converged
	// when it is spent.
	iters int
	rec   func(Step)
	// init words the Result's Init once the search has run.
	init func() string
	// bare: the errors are returned as they are, for the caller to name
	// (svm's grid: svm, gi and spd call it), not as the driver's.
	bare bool

	// plan is the search's stages, announced when it runs (Progress);
	// points, if its Key is set, is the stage of a point search, its
	// parts the points scored.
	plan   []Stage
	points Stage
	budget int // the points of a point search

	best, first cvPoint
	started     bool
	seen        []cvPoint
	solves      int
	evals       int
	rounds      []roundOutcome // the rounds scored (none for a point search)
}

// roundOutcome is what a round gave: its best, its rows and its solves.
type roundOutcome struct {
	best         cvPoint
	rows, solves int
}

// A proposer is a search method's choice of candidates.
type proposer interface {
	// propose returns the batch of iteration it (0: the start), having
	// seen every point evaluated so far, in the order evaluated, each
	// with its CV count, and the best so far (of the last round, for
	// rounds). An empty batch ends the search.
	propose(it int, seen []cvPoint, best cvPoint) (batch, error)
}

// proposerFunc is a proposer that needs no state of its own.
type proposerFunc func(it int, seen []cvPoint, best cvPoint) (batch, error)

func (f proposerFunc) propose(it int, seen []cvPoint, best cvPoint) (batch, error) {
	return f(it, seen, best)
}

// A batch is a proposer's candidates (newPoint), not yet scored.
//   - Without a round, each point is scored on its own (one cvCounts
//     call) on the search's rows and folds, and compared with the best so
//     far.
//   - With a round, the points are scored together on the round's rows
//     and folds (one cvCounts call, a group per run of equal γ, its Cs
//     warm-started in the order given), and the best is the round's: the
//     points of earlier rounds were scored on other rows.
type batch struct {
	points []cvPoint
	round  *cvRound
}

// cvRound is where a round's points are scored: ev's rows, folds and γ_h
// (halving's: the search's, each fold subsampled to rows of them; svm's
// grid: a subset of the rows, then all of them); what prefixes the
// round's errors.
type cvRound struct {
	ev   *isoEval
	rows int
	what string
	// stage is the round's stage of the run's progress (its (γ, fold)
	// jobs its parts); a zero Key reports nothing.
	stage Stage
}

// tuneSearch is the Tune of a cross-validated search s: its checks, then
// the search build returns for train, run on the driver.
func tuneSearch(ctx context.Context, s Spec, train *dataio.Dataset, build func(*dataio.Dataset) (*searchCV, error)) (*Result, error) {
	start := time.Now()
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := checkTrain(s.Name(), train); err != nil {
		return nil, err
	}
	sc, err := build(train)
	if err != nil {
		return nil, err
	}
	return sc.run(ctx, start)
}

// run runs the search on the driver and returns its Result; start is when
// the method's Tune began.
func (s *searchCV) run(ctx context.Context, start time.Time) (*Result, error) {
	var trace []Step
	if p := s.ev.cm.Progress; p != nil {
		p.Announce(s.plan...)
		if s.points.Key != "" {
			p.Begin(s.points.Key, s.budget, s.points.Name, s.points.Weight)
		}
	}
	out, err := s.loop(ctx, tracer(start, &trace, s.rec))
	if err != nil {
		return nil, err
	}
	return s.result(out, trace, start), nil
}

// loop runs the batches on the driver, each step passed to record.
func (s *searchCV) loop(ctx context.Context, record func(Step)) (outcome, error) {
	d := driver{
		method: s.method, stop: stopRule{MaxIter: s.iters - 1}, bare: s.bare,
		record: record,
		init: func(ctx context.Context) (Step, error) {
			st, done, err := s.step(ctx, 0)
			if err == nil && done {
				err = errors.New("no candidate to evaluate")
			}
			return st, err
		},
		iterate: func(ctx context.Context, it int) (move, error) {
			st, done, err := s.step(ctx, it)
			return move{Step: st, Done: done}, err
		},
	}
	out, err := d.run(ctx)
	if err == nil && out.Status == status.IterationLimit {
		out.Status = status.Converged // the budget is the stopping rule
	}
	return out, err
}

// step proposes iteration it's batch and scores it; done when the
// proposer has no more candidates. The step's objective is the best CV
// accuracy so far (of the round, for rounds).
func (s *searchCV) step(ctx context.Context, it int) (Step, bool, error) {
	b, err := s.prop.propose(it, s.seen, s.best)
	if err != nil {
		return Step{}, false, err
	}
	if len(b.points) == 0 {
		return Step{}, true, nil
	}
	if r := b.round; r != nil {
		if r.stage.Key != "" && r.ev.cm.Progress != nil {
			r.ev.cm.jobs = true
			r.ev.cm.Progress.Begin(r.stage.Key, gammaRuns(b.points)*r.ev.plan.k(), r.stage.Name, r.stage.Weight)
		}
		pts, ns, err := r.ev.together(ctx, b.points)
		s.solves += ns
		if err != nil {
			return Step{}, false, fmt.Errorf("%s%w", r.what, err)
		}
		s.evals += len(pts)
		s.best = rankCV(pts, r.ev.log2GammaH)[0]
		s.rounds = append(s.rounds, roundOutcome{best: s.best, rows: r.rows, solves: ns})
		s.seen = append(s.seen, pts...)
		s.noteFirst()
	} else {
		for _, c := range b.points {
			p, ns, err := s.ev.point(ctx, c)
			s.solves += ns
			s.evals++
			if err != nil {
				return Step{}, false, err
			}
			if !s.started || p.better(s.best, s.ev.log2GammaH) {
				s.best = p
			}
			s.seen = append(s.seen, p)
			s.noteFirst()
			s.ev.cm.Progress.Step(s.evals, fmt.Sprintf("best CV accuracy %.4g", s.best.Accuracy()))
		}
	}
	return Step{Objective: s.best.Accuracy()}, false, nil
}

// noteFirst keeps the best after the first scoring (a point, or a round's
// points) as the start of the Result's criterion.
func (s *searchCV) noteFirst() {
	if !s.started {
		s.first, s.started = s.best, true
	}
}

// rankCV returns pts best first by the tie rule, equals in their order.
func rankCV(pts []cvPoint, log2GammaH float64) []cvPoint {
	ranked := slices.Clone(pts)
	slices.SortStableFunc(ranked, func(p, q cvPoint) int {
		switch {
		case p.better(q, log2GammaH):
			return -1
		case q.better(p, log2GammaH):
			return 1
		}
		return 0
	})
	return ranked
}

// result is the search's Result: the best point's (C, γ) (one γ per
// feature for bo:ard), Iter the points evaluated (the rounds, for a search
// in rounds), the criterion from the first scoring's best to the best.
func (s *searchCV) result(out outcome, trace []Step, start time.Time) *Result {
	best, ev := s.best, s.ev
	iter := s.evals
	if len(s.rounds) > 0 {
		iter = len(s.rounds)
	}
	res := &Result{
		Method: s.method, Param: "iso",
		Kernel:         kernel.Spec{Kind: kernel.KindGaussian, Gamma: best.Gamma},
		Margin:         solver.L1,
		C:              best.C,
		Status:         out.Status,
		Iter:           iter,
		Solves:         s.solves,
		Criterion:      fmt.Sprintf("%d-fold CV accuracy", ev.plan.k()),
		CriterionStart: s.first.Accuracy(),
		CriterionEnd:   best.Accuracy(),
		Init:           s.init(),
		Figures: []Figure{
			{Name: "cv accuracy", Value: best.Accuracy()},
			{Name: "log2 C", Value: best.Log2C},
			{Name: "log2 gamma", Value: best.Log2Gamma[0]},
			{Name: "cv evaluations", Value: float64(s.evals)},
		},
		Trace: trace,
	}
	if k := len(s.rounds); k > 0 {
		res.Figures = append(res.Figures, Figure{Name: "rows in the last round", Value: float64(s.rounds[k-1].rows)})
	}
	if ev.ard {
		res.Param = "ard"
		q := make([]float64, len(best.Log2Gamma))
		for j, l := range best.Log2Gamma {
			q[j] = 2 * math.Exp2(l) // exp(-½ Σ q_j Δ²) = exp(-Σ γ_j Δ²)
		}
		res.Kernel = kernel.Spec{Kind: kernel.KindGaussian, Diag: q}
		res.Figures[2] = Figure{Name: "mean log2 gamma", Value: meanOf(best.Log2Gamma)}
	}
	noteShared(res, ev.cs)
	res.Elapsed = time.Since(start)
	return res
}

// gammaRuns is the number of runs of equal γ in pts: the groups of one
// cvCounts call (isoEval.together).
func gammaRuns(pts []cvPoint) int {
	n := 0
	for i, p := range pts {
		if i == 0 || pts[i-1].Gamma != p.Gamma {
			n++
		}
	}
	return n
}

// pointStage is the stage of a point search of budget points, each a
// k-fold CV on rows rows.
func pointStage(method string, budget, k, rows int) Stage {
	return Stage{Key: "search", Name: fmt.Sprintf("%s: %d points, %d-fold CV on %d rows", method, budget, k, rows), Weight: cvWeight(budget, k, rows)}
}
