package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// HalvingSettings configure successive halving over LIBSVM grid.py's grid
// (Jamieson & Talwalkar 2016), as scikit-learn's HalvingGridSearchCV runs
// it with its defaults: training rows are the resource, factor 3,
// min_resources "exhaust", no aggressive elimination. Round i scores the
// surviving (C, γ) points by the svm baseline's k-fold CV (the same folds
// from the same seed, the same solver settings) with each fold's training
// and test rows subsampled to r_i = 3^i r_0 of the n rows
// (_SubsampleMetaSplitter: a plain random draw, from Seed); the best third
// (rounded up) goes on. r_0 is the largest that lets the rounds needed to
// bring 110 points to one end on n rows, but at least 2·k·2 (two rows per
// fold and class); there are as many rounds as both allow, so on few rows
// the last round keeps several points and scores them on fewer than n
// rows. The answer is the last round's best, ties as the grid breaks them.
// The isotropic Gaussian and the L1 soft margin, as svm; C > 0 fixes C
// and halves over the 10 γ. Space, the user's grid (grid.py's -log2c and
// -log2g), replaces grid.py's 110 points; r_0 and the rounds follow from
// the number of its points.
type HalvingSettings struct {
	Common
	Space
}

const (
	halvingFactor = 3
	// halvingStream is the PCG stream of the rounds' subsamples ("halv").
	halvingStream = 0x68616c76
)

// Name returns "halving".
func (HalvingSettings) Name() string { return "halving" }

// Check refuses shared settings out of range.
func (s HalvingSettings) Check() error {
	if err := s.Common.check("halving"); err != nil {
		return err
	}
	return s.Space.check("halving", s.C)
}

// WithBase returns s with the shared settings c.
func (s HalvingSettings) WithBase(c Common) Spec { s.Common = c; return s }

// halvingInfo is halving's entry in the registry (All).
var halvingInfo = Info{
	Name: "halving", Summary: hint.T("successive halving over grid.py's grid (scikit-learn's HalvingGridSearchCV: training rows as the resource, factor 3)"),
	Params: []string{"iso"}, Margins: []string{"l1"}, marginWhy: "a baseline of the L1 soft margin, as svm",
	OptIn: true,
	build: func(string, string) Spec { return HalvingSettings{} },
}

// PeakBytes: the squared distances of all n rows and one fold job per
// worker on them (the last round may use all rows), or the final fit's
// cache; above denseCVRows, the bounded-memory route's jobs and the squared
// distances of the subset that gives γ_h.
func (s HalvingSettings) PeakBytes(n, d int) int64 {
	m := newMemModel(s.Common)
	if n <= denseCVRows {
		return peak(n, d, max(m.denseGrid(n), m.cacheOf(n)))
	}
	sub := min(n, max(defaultGridRows, s.gridRows()))
	return peak(n, d, max(sq(sub)+m.rowsJobs(n, d, len(s.log2Gammas())), m.finalFit(n, d)))
}

// halvingGrid words the candidates' grid for the Init.
func (s HalvingSettings) halvingGrid() string {
	if !s.Log2C.IsSet() && !s.Log2Gamma.IsSet() {
		return "grid.py's grid"
	}
	return s.describe()
}

// halvingSchedule returns scikit-learn's schedule for nCand candidates on
// n rows with k folds: the rows of the first round and the number of
// rounds (HalvingGridSearchCV, min_resources="exhaust", factor 3).
func halvingSchedule(nCand, n, k int) (r0, rounds int) {
	floorLog := func(x int) int { // the largest p with 3^p ≤ x
		p := 0
		for v := halvingFactor; v <= x; v *= halvingFactor {
			p++
		}
		return p
	}
	required := 1 + floorLog(nCand)
	r0 = 2 * k * 2 // "smallest": n_splits·2, times the classes
	pow := 1
	for range required - 1 {
		pow *= halvingFactor
	}
	r0 = max(r0, n/pow) // "exhaust"
	if r0 > n {
		return n, 1
	}
	return r0, min(1+floorLog(n/r0), required)
}

// Tune runs successive halving on the (already normalised) training part:
// round i is iteration i (the first the start), its objective the round's
// best CV accuracy.
func (s HalvingSettings) tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	return tuneSearch(ctx, s, train, s.search)
}

// search returns successive halving on train: one round per batch
// (halving).
func (s HalvingSettings) search(train *dataio.Dataset) (*searchCV, error) {
	plan, err := newCVPlanOf(train, s.Common)
	cm := s.Common
	cm.cvWorkers = new(cvPool) // one set of buffers for every round
	cm.cvKey = dataKey(train, cm)
	if err != nil {
		return nil, fmt.Errorf("halving: %w", err)
	}
	// Up to denseCVRows rows, the n×n squared distances once; on more, the
	// bounded-memory route (cvGroup with X) and γ_h, the tie rule's
	// moderate kernel, from a stratified subset of GridRows rows.
	ev := &isoEval{cs: cvSetOf(train), plan: plan, cm: cm}
	if n := train.Len(); n <= denseCVRows {
		ev.setDistances(train.Features())
	} else {
		ev.X = train.Features()
		sub := train.Subset(stratifiedSubsetOf(train, min(n, max(defaultGridRows, s.gridRows())), s.Seed))
		ev.log2GammaH = math.Log2(gammaOfMedian(kernel.SquaredDistancesPacked(sub.Features()).MedianOffDiag()))
	}
	lCs := slices.Clone(s.log2Cs())
	slices.Sort(lCs) // each γ's Cs ascend (warm starts)
	if s.C > 0 {
		lCs = []float64{math.Log2(s.C)}
	}
	h := &halving{ev: ev, n: train.Len(), rng: rand.New(rand.NewPCG(s.Seed, halvingStream))}
	for _, lg := range s.log2Gammas() {
		for _, lc := range lCs {
			h.cands = append(h.cands, newPoint(lc, []float64{lg}))
		}
	}
	var rounds int
	h.r0, rounds = halvingSchedule(len(h.cands), h.n, plan.k())
	sc := &searchCV{method: "halving", ev: ev, iters: rounds, rec: s.Recorder, prop: h, plan: h.stages(rounds, plan.k())}
	sc.init = func() string {
		return fmt.Sprintf("successive halving over %s, factor 3: %d rounds from %d of the %d rows (folds' rows subsampled, seed %d), the last on %d rows; the best by %d-fold CV on them",
			s.halvingGrid(), rounds, h.r0, h.n, s.Seed, sc.rounds[len(sc.rounds)-1].rows, plan.k()) + weightsNote(s.Common)
	}
	return sc, nil
}

// halving proposes successive halving's rounds: round i scores the
// surviving candidates on r_0·3^i of the n rows (each fold's training and
// test rows subsampled from rng), and the best third of a round (rounded
// up) goes on, in the grid's order (γ descending, C ascending), so that
// each γ's Cs still ascend.
type halving struct {
	ev    *isoEval // all rows and their folds
	cands []cvPoint
	r0, n int
	rng   *rand.Rand
}

func (h *halving) propose(i int, seen []cvPoint, _ cvPoint) (batch, error) {
	if i > 0 {
		last := seen[len(seen)-len(h.cands):]
		keep := rankCV(last, h.ev.log2GammaH)[:(len(last)+halvingFactor-1)/halvingFactor]
		h.cands = slices.DeleteFunc(slices.Clone(last), func(c cvPoint) bool {
			return !slices.ContainsFunc(keep, func(k cvPoint) bool { return k.Log2C == c.Log2C && k.Log2Gamma[0] == c.Log2Gamma[0] })
		})
	}
	rows := min(h.r0*int(math.Pow(halvingFactor, float64(i))), h.n)
	ev := *h.ev
	ev.plan = subsamplePlan(h.ev.plan, float64(rows)/float64(h.n), h.rng)
	return batch{points: h.cands, round: &cvRound{ev: &ev, rows: rows, what: fmt.Sprintf("round %d on %d rows: ", i+1, rows), stage: h.stage(i, len(h.cands), rows, h.ev.plan.k())}}, nil
}

// stages is the plan of the rounds: round i scores a third (rounded up)
// of round i-1's candidates on r_0·3^i rows.
func (h *halving) stages(rounds, k int) []Stage {
	out := make([]Stage, rounds)
	c := len(h.cands)
	for i := range out {
		out[i] = h.stage(i, c, min(h.r0*int(math.Pow(halvingFactor, float64(i))), h.n), k)
		c = (c + halvingFactor - 1) / halvingFactor
	}
	return out
}

// stage is round i's stage: c candidates, k-fold CV on rows rows.
func (h *halving) stage(i, c, rows, k int) Stage {
	return Stage{Key: fmt.Sprintf("round %d", i+1), Name: fmt.Sprintf("halving round %d: %d candidates, %d-fold CV on %d rows", i+1, c, k, rows), Weight: cvWeight(c, k, rows)}
}
