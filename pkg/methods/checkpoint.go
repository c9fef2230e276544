package methods

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// Checkpoint keeps the outcomes of a run's steps, so that a run cut short
// (a signal, kill -9, a crash) resumes where it was: a method asks "have I
// got step key's outcome?" before a step and records the outcome after it.
// The steps are
//   - each (γ, fold) job of a cross-validated search (svm's grid and
//     refinement, random, halving, bo; gi's C and spd's cv start, which run
//     svm's grid): the fold's correct predictions for each C and the solves;
//   - each iteration of a kernel-learning method's outer loop (spd, gi,
//     lccp, rcsc; twolevel's outer SQP is not resumable): the whole state
//     after it (the parameters, the warm starts, the line search's memory,
//     the counts), from which the next iterations are what they would have
//     been;
//   - lccp's and rcsc's choice of C by cross-validation.
//
// A step's key names the step and the data it ran on (a hash of the rows,
// labels and folds), never the order steps ran in, so that a key is the
// same in the resumed run and cannot name another step's outcome. The run's
// settings and data must be the same: a Checkpoint is one run's (see
// pkg/experiment's FileCheckpoint, which refuses another run's file). An
// outcome is opaque bytes (encoding/gob of the step's state, exact for
// every float, NaN and ±Inf included).
//
// A nil Checkpoint (the default) keeps nothing: every step runs.
type Checkpoint interface {
	// Outcome returns the outcome recorded for key, if any.
	Outcome(key string) ([]byte, bool)
	// Record records key's outcome; when it returns without an error the
	// outcome survives the process (a file checkpoint has written it, and
	// syncs it to disk within a second). It may be called from several
	// goroutines at once.
	Record(key string, outcome []byte) error
}

// MemoryCheckpoint is a Checkpoint in memory: a run given the one a run
// before it filled skips the steps that run finished (tests; a program
// that retries a run in one process).
type MemoryCheckpoint struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Outcome returns key's outcome.
func (c *MemoryCheckpoint) Outcome(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[key]
	return b, ok
}

// Record keeps a copy of outcome under key.
func (c *MemoryCheckpoint) Record(key string, outcome []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string][]byte)
	}
	c.m[key] = bytes.Clone(outcome)
	return nil
}

// Len is the number of outcomes kept.
func (c *MemoryCheckpoint) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// CheckpointError is a checkpoint that could not be written: the run stops,
// since its steps would not survive it as the caller asked.
type CheckpointError struct {
	Key string
	Err error
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("keeping step %s in the checkpoint: %v", e.Key, e.Err)
}

func (e *CheckpointError) Unwrap() error { return e.Err }

// recall decodes step key's outcome into v and reports whether there was
// one (an outcome that does not decode is no outcome: the step runs).
func (c Common) recall(key string, v any) bool {
	if c.Checkpoint == nil {
		return false
	}
	b, ok := c.Checkpoint.Outcome(c.scope + key)
	if !ok {
		return false
	}
	return gob.NewDecoder(bytes.NewReader(b)).Decode(v) == nil
}

// keep records v as step key's outcome.
func (c Common) keep(key string, v any) error {
	if c.Checkpoint == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return &CheckpointError{Key: c.scope + key, Err: err}
	}
	if err := c.Checkpoint.Record(c.scope+key, buf.Bytes()); err != nil {
		return &CheckpointError{Key: c.scope + key, Err: err}
	}
	return nil
}

// within returns c with its checkpoint's keys under scope (a subproblem of
// multi-class data: each runs on its own rows, at the same time as others).
func (c Common) within(scope string) Common {
	c.scope += scope + "/"
	return c
}

// hasher is a SHA-256 of numbers, for the keys of steps.
type hasher struct {
	b [8]byte
	h hash.Hash
}

func newHasher() *hasher { return &hasher{h: sha256.New()} }

func (h *hasher) u(v uint64) *hasher {
	binary.LittleEndian.PutUint64(h.b[:], v)
	h.h.Write(h.b[:])
	return h
}

func (h *hasher) f(v ...float64) *hasher {
	h.u(uint64(len(v)))
	for _, x := range v {
		h.u(math.Float64bits(x))
	}
	return h
}

func (h *hasher) ints(v []int) *hasher {
	h.u(uint64(len(v)))
	for _, x := range v {
		h.u(uint64(x))
	}
	return h
}

func (h *hasher) sum() string { return hex.EncodeToString(h.h.Sum(nil)[:12]) }

// dataKey names the rows and labels of train (their values), for the keys
// of the cross-validation steps run on them; "" without a checkpoint.
func dataKey(train *dataio.Dataset, cm Common) string {
	if cm.Checkpoint == nil {
		return ""
	}
	return featuresKey(train).f(train.Y...).ints(train.Class).sum()
}

// matKey starts a hash of the values of X.
func matKey(X *mat.Dense) *hasher {
	h := newHasher()
	n, d := X.Dims()
	h.u(uint64(n)).u(uint64(d))
	for i := range n {
		h.f(X.RawRowView(i)...)
	}
	return h
}

// cvJob is a (γ, fold) job's outcome: the fold's correct predictions for
// each of the group's Cs, and its solves.
type cvJob struct {
	Correct []int
	Solves  int
}

// cvJobKeys returns the keys of cvCounts' jobs, key[g][f] (nil without a
// checkpoint or a data key): the data, the group's kernel (route, γ) and
// Cs, the fold's rows.
func cvJobKeys(groups []cvGroup, plan cvPlan, cm Common) [][]string {
	if cm.Checkpoint == nil || cm.cvKey == "" {
		return nil
	}
	for _, gr := range groups {
		if gr.K != nil {
			return nil // a fixed matrix (a choice of C): its caller keeps the whole choice (selectCKept)
		}
	}
	folds := make([]string, len(plan.test))
	for f := range folds {
		folds[f] = newHasher().ints(plan.train[f]).ints(plan.test[f]).sum()
	}
	keys := make([][]string, len(groups))
	for g, gr := range groups {
		route := uint64(0)
		if gr.D == nil && gr.P == nil {
			route = 1
		}
		gk := newHasher().u(route).f(gr.Gamma).f(gr.Cs...).sum()
		keys[g] = make([]string, len(folds))
		for f, fk := range folds {
			keys[g][f] = "cv/" + cm.cvKey + "/" + gk + "/" + fk
		}
	}
	return keys
}

// selectCKept is selectC with its outcome kept under key (a step of the
// method, named by the caller: the kernel it chose C for is the run's
// state at that point), so that a resumed run does not search C again.
func selectCKept(ctx context.Context, key string, K mat.Symmetric, y []float64, Cs []float64, margin solver.Margin, cm Common) (C, acc float64, solves int, err error) {
	var out struct {
		C, Acc float64
		Solves int
	}
	if cm.recall(key, &out) {
		return out.C, out.Acc, out.Solves, nil
	}
	C, acc, solves, err = selectC(ctx, K, y, Cs, margin, cm)
	if err != nil {
		return C, acc, solves, err
	}
	out.C, out.Acc, out.Solves = C, acc, solves
	return C, acc, solves, cm.keep(key, out)
}

// loopState is what a method's outer loop gives the driver to keep after
// each iteration and to resume from: key names the loop within the run
// (the method and its schedule), save returns the state after an
// iteration (every value the next iterations and the Result read: the
// parameters, the warm starts, the step length, the counts), load sets it
// from one kept.
type loopState struct {
	cm   Common
	key  string
	save func() any
	load func(decode func(any) error) error
}

// loopStep is one kept iteration: the step recorded (replayed into the
// trace on resume), the driver's count of calm steps and whether the
// stopping rule ended the run there, and the method's state.
type loopStep struct {
	Step      Step
	Calm      int
	Converged bool
	State     []byte
}

func (l *loopState) stepKey(it int) string { return fmt.Sprintf("loop/%s/%d", l.key, it) }

// record keeps iteration it's step and state.
func (l *loopState) record(it int, st Step, calm int, converged bool) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(l.save()); err != nil {
		return &CheckpointError{Key: l.stepKey(it), Err: err}
	}
	return l.cm.keep(l.stepKey(it), loopStep{Step: st, Calm: calm, Converged: converged, State: buf.Bytes()})
}

// resume returns the steps kept, iteration 0 first, with the method's state
// set to the last one's; none when nothing was kept (or it would not load:
// the run starts afresh).
func (l *loopState) resume() []loopStep {
	var kept []loopStep
	for it := 0; ; it++ {
		var ls loopStep
		if !l.cm.recall(l.stepKey(it), &ls) {
			break
		}
		kept = append(kept, ls)
	}
	if len(kept) == 0 {
		return nil
	}
	last := kept[len(kept)-1]
	if err := l.load(func(v any) error { return gob.NewDecoder(bytes.NewReader(last.State)).Decode(v) }); err != nil {
		return nil
	}
	return kept
}
