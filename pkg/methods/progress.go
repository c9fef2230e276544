package methods

import (
	"fmt"
	"slices"
	"sync"
)

// Progress is the run's progress as typed events: the plan of stages with
// their estimated costs, the stage in progress and its parts done. A run
// (a command's tune) makes one with NewProgress and sets it as
// Common.Progress; the method announces its stages when it starts
// (Announce), begins each (Begin) and reports its parts (Step), and the
// caller that fits the final SVM announces that stage first, so that
// the plan covers the whole tune. It prints nothing: the function given to
// NewProgress receives every Event and renders it. A nil *Progress is off.
//
// A stage's Weight is its estimated cost, in the unit of one SVM solve on
// one row squared (an SMO solve costs about n² kernel evaluations): a
// k-fold CV of p points on n rows weighs p·k·((k-1)n/k)², the final fit on
// n rows n², an iteration of a kernel-learning method on m rows its solves
// (and their equivalent in the method's own O(m²) work) times m². Only the
// ratios matter: the ETA is the elapsed time × the weight still to do /
// the weight done (Event.Fraction), so that the measured pace of the
// stages done prices the stages to come. A stage that ends before its
// parts are done (a method that converged before its iteration limit)
// keeps the weight it did.
type Progress struct {
	mu     sync.Mutex
	report func(Event)
	plan   []Stage
	cur    int // the stage in progress, -1 before the first
	done   int
	total  int
	limit  int // the most parts the stage may grow to (iterations beyond the expected)
}

// Stage is one stage of a run's plan.
type Stage struct {
	// Key names the stage for Begin ("grid", "refine", "iterations",
	// "choose C", "final fit").
	Key string
	// Name says what it does, with its sizes, for a progress line.
	Name string
	// Weight is its estimated cost (see Progress).
	Weight float64
}

// Event is one report of a run's progress.
type Event struct {
	// Plan is every stage of the run, the done ones included (a copy).
	Plan []Stage
	// Stage is the index in Plan of the stage in progress.
	Stage int
	// Done of Total parts of that stage are done (Total ≥ 1).
	Done, Total int
	// Detail is the last step's summary ("objective 0.81  #SV 320"), or "".
	Detail string
}

// Fraction is the share of the whole plan's weight done: the stages
// before the current one, and the current one's Done/Total of its weight.
// It is in [0, 1]; 0 for an empty plan.
func (e Event) Fraction() float64 {
	var done, all float64
	for i, s := range e.Plan {
		w := max(s.Weight, 0)
		all += w
		switch {
		case i < e.Stage:
			done += w
		case i == e.Stage && e.Total > 0:
			done += w * float64(min(max(e.Done, 0), e.Total)) / float64(e.Total)
		}
	}
	if all <= 0 {
		return 0
	}
	return min(done/all, 1)
}

// Name is the current stage's name, "" for none.
func (e Event) Name() string {
	if e.Stage < 0 || e.Stage >= len(e.Plan) {
		return ""
	}
	return e.Plan[e.Stage].Name
}

// NewProgress returns a Progress that passes every event to report, one at
// a time and in order (under its lock: report must not call the Progress).
func NewProgress(report func(Event)) *Progress {
	return &Progress{report: report, cur: -1}
}

// Announce inserts stages into the plan right after the stage in progress
// (before every stage not yet begun): a method announces its stages when
// it starts, before the final fit its caller announced.
func (p *Progress) Announce(stages ...Stage) {
	if p == nil || len(stages) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plan = slices.Insert(p.plan, p.cur+1, stages...)
}

// Begin moves to the first stage after the current one whose Key is key,
// of total parts, and reports it (0 done); name and w, when set, are the
// stage's name and weight as the run counts them now (a weight at most
// the announced one). The current stage keeps the weight of the parts it
// did; stages passed over weigh nothing (they did not run). A key not in
// the plan is a stage of its own, of weight w, inserted after the current
// one.
func (p *Progress) Begin(key string, total int, name string, w float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.finishStage()
	at := -1
	for i := p.cur + 1; i < len(p.plan); i++ {
		if p.plan[i].Key == key {
			at = i
			break
		}
	}
	found := at
	if at < 0 {
		at = p.cur + 1
		p.plan = slices.Insert(p.plan, at, Stage{Key: key, Name: name, Weight: w})
	}
	for i := p.cur + 1; i < at; i++ {
		p.plan[i].Weight = 0
	}
	if name != "" {
		p.plan[at].Name = name
	}
	if w > 0 && (found < 0 || w < p.plan[at].Weight) {
		// The run's own count (a refinement cut at the grid's bounds,
		// fewer folds on a small class) replaces the announced one; it
		// never raises it, so that the share done never goes back.
		p.plan[at].Weight = w
	}
	p.cur, p.done, p.total = at, 0, max(total, 1)
	p.limit = p.total
	p.report(p.event(""))
	p.mu.Unlock()
}

// finishStage cuts the current stage's weight to the parts it did.
func (p *Progress) finishStage() {
	if p.cur >= 0 && p.cur < len(p.plan) && p.done < p.total {
		p.plan[p.cur].Weight *= float64(p.done) / float64(p.total)
	}
}

// Step reports done parts of the current stage (at most its total), with
// the last step's summary.
func (p *Progress) Step(done int, detail string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.cur < 0 {
		p.mu.Unlock()
		return
	}
	if done >= p.total && p.total < p.limit {
		// More iterations than expected: the stage grows (twice as long,
		// at most to its limit), and its weight with it.
		grown := min(p.limit, max(2*p.total, done+1))
		p.plan[p.cur].Weight *= float64(grown) / float64(p.total)
		p.total = grown
	}
	p.done = min(max(done, p.done), p.total)
	p.report(p.event(detail))
	p.mu.Unlock()
}

// event is the current state as an Event (p.mu held).
func (p *Progress) event(detail string) Event {
	return Event{Plan: slices.Clone(p.plan), Stage: p.cur, Done: p.done, Total: p.total, Detail: detail}
}

// iterationStage is a method's outer loop: up to maxIter iterations on n
// rows, planned at expected of them (at most maxIter), each weighing
// perIter solves on them (a method's calibration: its iteration's time
// over an SVM solve's on the same rows, measured on a1a; see
// docs/long-runs.md). The method begins it with beginIterations.
func iterationStage(method string, maxIter, expected, n int, perIter float64) Stage {
	return Stage{Key: "iterations", Name: fmt.Sprintf("%s: up to %d iterations on %d rows", method, maxIter, n), Weight: float64(min(expected, maxIter)) * perIter * sq64(n)}
}

// cvWeight is the estimated cost of a k-fold CV of points points on n rows
// (each fold's solve on (k-1)n/k rows).
func cvWeight(points, k, n int) float64 {
	if k < 2 {
		k = 2
	}
	r := float64(n) * float64(k-1) / float64(k)
	return cvSolve * float64(points) * float64(k) * r * r
}

// FinalFitStage is the stage of the final SVM on n rows (svms SVMs of the
// one-vs-one or one-vs-rest pairs' rows, given as their squared sizes'
// sum sumSq; probability adds LIBSVM's 5-fold CV of the decision values).
func FinalFitStage(n int, sumSq float64, probability bool) Stage {
	w := sumSq
	if probability {
		w *= 1 + 5*0.64
	}
	return Stage{Key: "final fit", Name: fmt.Sprintf("final SVM on all %d rows", n), Weight: w}
}

func sq64(n int) float64 { return float64(n) * float64(n) }

// stepRecorder returns the function a method's trace passes each step to:
// the Recorder, and the progress of the iteration stage.
func (c Common) stepRecorder() func(Step) {
	if c.Progress == nil {
		return c.Recorder
	}
	return func(st Step) {
		if c.Recorder != nil {
			c.Recorder(st)
		}
		c.Progress.Step(st.Iter, st.Summary())
	}
}

// beginIterations begins the stage iterationStage announced: expected
// parts, growing up to maxIter if the method goes on.
func (c Common) beginIterations(maxIter, expected int) {
	p := c.Progress
	if p == nil {
		return
	}
	p.Begin("iterations", min(expected, maxIter), "", 0)
	p.mu.Lock()
	p.limit = max(maxIter, p.total)
	p.mu.Unlock()
}

// gridStages is the plan of svm's grid search on n rows (gridProposer):
// the grid, on a subset of GridRows rows when n is larger, and then the
// refinement's 3×3 points on all rows.
func gridStages(n int, cm Common, sp Space) []Stage {
	k := cmpOr(cm.Folds, defaultFolds)
	nc, ng := len(sp.log2Cs()), len(sp.log2Gammas())
	rc := 3
	if cm.C > 0 {
		nc, rc = 1, 1
	}
	rows := n
	if m := cm.gridRows(); m > 0 && n > m {
		rows = m
	}
	out := []Stage{{Key: "grid", Name: fmt.Sprintf("grid search: %d×%d points, %d-fold CV on %d rows", ng, nc, k, rows), Weight: cvWeight(ng*nc, k, rows)}}
	if rows < n {
		out = append(out, Stage{Key: "refine", Name: fmt.Sprintf("refinement: 3×%d points around the subset's choice, %d-fold CV on all %d rows", rc, k, n), Weight: cvWeight(3*rc, k, n)})
	}
	return out
}

// selectCStage is selectC's stage on n rows with nCs candidate Cs.
func selectCStage(n, nCs int, cm Common) Stage {
	k := cmpOr(cm.Folds, defaultFolds)
	if m := cm.gridRows(); m > 0 && n > m {
		n = m
	}
	return Stage{Key: "choose C", Name: fmt.Sprintf("choosing C: %d values, %d-fold CV on %d rows", nCs, k, n), Weight: cvWeight(nCs, k, n)}
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// The iteration costs of the kernel-learning methods, in SVM solves on
// their rows (iterationStage): an iteration's time over the final SVM's
// on the same rows, measured on a1a (1,605 rows, one worker; rounded, as
// they varied by a factor of 2 to 3 between runs on a loaded machine);
// twolevel's is a guess of the same order. They only share the ETA out
// between the stages: the pace is measured.
//
// A method that stops on a tolerance is planned at the iterations it
// usually takes (rcsc's robust schedule converged in 8 of its 200 on a1a
// and on 2,000 rows of sparse data, lccp in 19 of 100); past them its
// stage grows (Progress.Step). The others are planned at their limit.
const (
	rcscExpected = 20
	lccpExpected = 40
)

const (
	spdPerIter  = 10
	giPerIter   = 5
	lccpPerIter = 4
	rcscPerIter = 5
	tlPerIter   = 4
)

// cvSolve is the cost of one point of one fold of a CV, in solves on the
// fold's training rows: less than a cold solve, as each γ's Cs warm-start
// up the grid (svm's grid on a1a took 0.4 of the cold estimate).
const cvSolve = 0.4
