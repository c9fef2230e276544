package experiment

// The memory bound of a comparison (compare --mem-mb, issue 11): refuse,
// before any job runs, a run whose jobs at once would need more than the
// bound, instead of dying of an out-of-memory kill half-way through it.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// MemoryEstimate is the estimated peak memory of the jobs of one entry on
// one dataset of a comparison.
type MemoryEstimate struct {
	Dataset string
	Entry   Entry
	// N is the rows of the dataset's largest training part and D its
	// features after one-hot encoding; W is the d the estimate read: D,
	// or for sparse data the width of its rows in non-zeros
	// (methods.SparseWidth).
	N, D, W int
	// Spec is one job's settings as Run gives them (Workers 1 when jobs
	// run in parallel), and Job the peak of one job in bytes (its
	// PeakBytes on N × D, the runtime's share included).
	Spec methods.Spec
	Job  int64
	// Jobs is the number of jobs Run runs at once, and Bytes their peak:
	// the runtime's share (methods.RuntimeBytes) once and the rest of Job
	// Jobs times.
	Jobs  int
	Bytes int64
}

// EstimateMemory estimates the peak memory of a run of jobs jobs (Plan's,
// the shard's) of entries on sources, an estimate per dataset and entry in
// that order. Concurrency is counted the simple, safe way: Run's jobs at
// once (Config.Workers, at most jobs) each as large as this one, so the
// run's need is that of its largest estimate (a job holds its own data and
// matrices; the process's runtime share is counted once, not a job, or two
// jobs of heart would need 64 MB before any data). A resumed run is
// estimated as a whole: its jobs left are not known before the results
// file is read.
func EstimateMemory(c Config, sources []Source, entries []Entry, jobs int) ([]MemoryEstimate, error) {
	shapes, err := trainShapes(sources)
	if err != nil {
		return nil, err
	}
	return estimateMemory(c, sources, shapes, entries, jobs)
}

// estimateMemory is EstimateMemory with the sources' shapes (trainShapes).
func estimateMemory(c Config, sources []Source, shapes []shape, entries []Entry, jobs int) ([]MemoryEstimate, error) {
	workers, inner := c.jobWorkers(jobs)
	var est []MemoryEstimate
	for k, src := range sources {
		n, d, w := shapes[k].n, shapes[k].d, shapes[k].width()
		for _, e := range entries {
			spec := e.Spec.WithBase(inner)
			job := methods.PeakBytes(spec, n, w)
			if sz := shapes[k].classes; sz != nil { // multi-class: the subproblems
				job = methods.PeakBytesMultiClass(spec, sz, w, shapes[k].scheme)
			}
			if f, ok := fixedOf(src); ok && methods.CheckSparse(spec, f.data) != nil {
				job = methods.RuntimeBytes // refused before any work on sparse data
			}
			est = append(est, MemoryEstimate{Dataset: src.Name(), Entry: e, N: n, D: d, W: w,
				Spec: spec, Job: job, Jobs: workers, Bytes: methods.RuntimeBytes + int64(workers)*(job-methods.RuntimeBytes)})
		}
	}
	return est, nil
}

// shape is a source's largest training part as the methods see it: n rows
// of d features (trainShape); for multi-class data, classes are its class
// sizes (the whole data's, scaled to n rows, rounded up) and scheme its
// Multiclass; for sparse data, w is the width of its rows in non-zeros
// (methods.SparseWidth of the whole data's, which the training parts
// share on average), 0 for dense data.
type shape struct {
	n, d, w int
	classes []int
	scheme  string
}

// width is the d the memory estimates read: the rows' width in non-zeros
// for sparse data, else the features.
func (s shape) width() int {
	if s.w > 0 {
		return s.w
	}
	return s.d
}

// trainShapes returns trainShape of every source, in order: Compare's size
// and memory checks share them (a preset's shape draws its partition 0).
func trainShapes(sources []Source) ([]shape, error) {
	shapes := make([]shape, len(sources))
	for k, src := range sources {
		n, d, err := trainShape(src)
		if err != nil {
			return nil, err
		}
		shapes[k] = shape{n: n, d: d}
		if f, ok := fixedOf(src); ok && f.data.IsSparse() {
			shapes[k].w = methods.MemWidth(f.data)
		}
		if f, ok := fixedOf(src); ok && f.data.MultiClass() {
			shapes[k].scheme = f.data.Multiclass
			all := f.data.Len()
			for _, c := range f.data.ClassSizes() {
				shapes[k].classes = append(shapes[k].classes, (c*n+all-1)/all)
			}
		}
	}
	return shapes, nil
}

// trainShape returns the rows of src's largest training part and its
// features as the methods see them: for a dataset split by indices, the
// largest split and the features after one-hot encoding (fitted on the
// whole dataset, at least as many as any training part has); for another
// source (a preset's generated samples, all of one size), partition 0's.
func trainShape(src Source) (n, d int, err error) {
	if f, ok := fixedOf(src); ok {
		for _, sp := range f.splits {
			n = max(n, len(sp.Train))
		}
		d = f.data.Dim()
		if f.onehot {
			oh, err := dataio.FitOneHot(f.data)
			if err != nil {
				return 0, 0, err
			}
			if oh != nil {
				d = oh.Dim()
			}
		}
		return n, d, nil
	}
	if src.Len() == 0 {
		return 0, 0, nil
	}
	train, _, err := src.Partition(0)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", src.Name(), err)
	}
	return train.Len(), train.Dim(), nil
}

// MemoryError is a comparison refused before any job runs: the jobs of an
// entry on a dataset that run at once would need more than the bound.
type MemoryError struct {
	// MemoryEstimate is the largest of the run's estimates.
	MemoryEstimate
	// Bound is the bound in bytes, and MaxN the most training rows of D
	// features with which Jobs jobs of the entry stay within it
	// (methods.MaxRows within the runtime's share and a Jobs-th of the
	// rest), 0 when not even one does.
	Bound int64
	MaxN  int
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%d jobs of %s on %s at once need about %d MB (%d MB each for %d training rows × %d features, besides the runtime's %d MB), more than the bound of %d MB; within it each job can have at most %d training rows",
		e.Jobs, e.Entry, e.Dataset, ceilMB(e.Bytes), ceilMB(e.Job-methods.RuntimeBytes), e.N, e.D, ceilMB(methods.RuntimeBytes), ceilMB(e.Bound), e.MaxN)
}

// ceilMB returns bytes in MB (2²⁰ bytes), rounded up.
func ceilMB(b int64) int64 { return (b + 1<<20 - 1) >> 20 }

// worstEstimate returns the largest of a run of jobs jobs' memory
// estimates (EstimateMemory, on the sources' shapes: every job that runs
// at once counted), nil for none.
func worstEstimate(c Config, sources []Source, shapes []shape, entries []Entry, jobs int) (*MemoryEstimate, error) {
	est, err := estimateMemory(c, sources, shapes, entries, jobs)
	if err != nil {
		return nil, err
	}
	var worst *MemoryEstimate
	for i := range est {
		if worst == nil || est[i].Bytes > worst.Bytes {
			worst = &est[i]
		}
	}
	return worst, nil
}

// checkMemory refuses with a *MemoryError a run whose largest estimate,
// worst (worstEstimate), exceeds bound bytes; bound ≤ 0 is no bound.
func checkMemory(worst *MemoryEstimate, bound int64) error {
	if bound <= 0 || worst == nil || worst.Bytes <= bound {
		return nil
	}
	perJob := methods.RuntimeBytes + (bound-methods.RuntimeBytes)/int64(worst.Jobs)
	return &MemoryError{MemoryEstimate: *worst, Bound: bound, MaxN: methods.MaxRows(worst.Spec, worst.W, perJob)}
}

// SizeError is a comparison refused before any job runs because an entry
// refuses a dataset's training parts (methods.CheckSize): every one of its
// jobs there would fail.
type SizeError struct {
	Dataset string
	Entry   Entry
	Err     *methods.SizeError
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s on %s: %v", e.Entry, e.Dataset, e.Err)
}

func (e *SizeError) Unwrap() error { return e.Err }

// checkSize refuses with a *SizeError a run in which an entry refuses a
// dataset's largest training part.
func checkSize(c Config, sources []Source, shapes []shape, entries []Entry) error {
	for k, src := range sources {
		for _, e := range entries {
			var se *methods.SizeError
			if err := methods.CheckSize(e.Spec, shapes[k].n); errors.As(err, &se) {
				return &SizeError{Dataset: src.Name(), Entry: e, Err: se}
			}
		}
	}
	return nil
}

// checkFeatures refuses, before any job runs, an entry that refuses a
// dataset's number of features (methods.CheckFeatures: bo:ard on more than
// 19), naming every such pair at once; otherwise every one of its jobs
// would be recorded as failed.
func checkFeatures(sources []Source, shapes []shape, entries []Entry) error {
	var bad []string
	for k, src := range sources {
		for _, e := range entries {
			if err := methods.CheckFeatures(e.Spec, shapes[k].d); err != nil {
				bad = append(bad, fmt.Sprintf("%s on %s (%d features): %v", e, src.Name(), shapes[k].d, err))
			}
		}
	}
	if len(bad) > 0 {
		return hint.Errorf(nil, strings.Join(bad, "; ")+"; leave it out of ", hint.S("methods", ""), " for those datasets")
	}
	return nil
}

// classNotes are a dry run's warnings about partitions whose training part
// lacks a class, for every dataset at once: such a job fails (a binary
// method needs both classes; one-vs-one a pair without rows). Stratified
// partitions (--stratified) keep each class's share in every partition.
func classNotes(sources []Source) []hint.Text {
	var notes []hint.Text
	for _, src := range sources {
		f, ok := fixedOf(src)
		if !ok || len(f.splits) == 0 {
			continue
		}
		strata := f.data.Strata()
		all := map[float64]bool{}
		for _, v := range strata {
			all[v] = true
		}
		short := 0
		for _, sp := range f.splits {
			seen := map[float64]bool{}
			for _, i := range sp.Train {
				seen[strata[i]] = true
			}
			if len(seen) < len(all) {
				short++
			}
		}
		if short > 0 {
			notes = append(notes, hint.T(fmt.Sprintf("%s: in %d of %d partitions a class has no training rows, and those jobs will fail: give ", src.Name(), short, len(f.splits)),
				hint.S("stratified", ""), " (each class's share in every partition) or a larger ", hint.S("train-size", "")))
		}
	}
	return notes
}
