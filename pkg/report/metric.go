package report

// The metric the summaries, statistics and figures of a run are computed
// for (--metric): accuracy, recorded by every kerneltune, or a metric
// recomputed from a record's test confusion matrix, or its test AUC.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// recordScore is a finished record's test score by the metric m, NaN
// when the record lacks what m needs (CheckMetric says why).
func recordScore(r *experiment.Record, m metrics.Metric) float64 {
	switch {
	case m == metrics.Accuracy:
		return r.TestAccuracy // every record has it, old ones too
	case m == metrics.AUC:
		if r.TestAUC == nil {
			return math.NaN()
		}
		return *r.TestAUC
	case r.TestConfusion == nil:
		return math.NaN()
	}
	v, err := r.TestConfusion.Score(m)
	if err != nil {
		return math.NaN()
	}
	return v
}

// MetricError says that records of a run lack what a metric needs, so that
// no table of it can be made from them.
type MetricError struct {
	Metric metrics.Metric
	// Lacking of Finished records (the finished jobs) lack it; Runs are
	// their runs' fingerprints.
	Lacking, Finished int
	Runs              []string
	// Why says what they lack and what to do.
	Why hint.Text
}

func (e *MetricError) Error() string { return e.Words().String() }

// Words is the message of e.
func (e *MetricError) Words() hint.Text {
	return append(hint.T(hint.S("metric", e.Metric.String()), fmt.Sprintf(": %d of the %d finished records (run %s) ", e.Lacking, e.Finished, strings.Join(e.Runs, ", "))), e.Why...)
}

// CheckMetric reports whether every finished record holds what the metric
// m needs: accuracy always; the other metrics a test confusion matrix,
// which records written before kerneltune kept it lack; AUC also a binary
// problem and a test part with both classes. The error is a *MetricError
// naming how many records lack it, their run, and what to do.
func CheckMetric(recs []experiment.Record, m metrics.Metric) error {
	if m == metrics.Accuracy {
		return nil
	}
	type lack struct {
		n    int
		runs []string
	}
	var old, multi, oneClass lack
	finished := 0
	add := func(l *lack, run string) {
		l.n++
		if !slices.Contains(l.runs, run) {
			l.runs = append(l.runs, run)
		}
	}
	var multiData string
	for i := range recs {
		r := &recs[i]
		if r.Failed() {
			continue
		}
		finished++
		switch {
		case r.TestConfusion == nil:
			add(&old, r.Run)
		case m == metrics.AUC && len(r.TestConfusion.Labels) > 2:
			add(&multi, r.Run)
			multiData = fmt.Sprintf("%s has %d classes", r.Dataset, len(r.TestConfusion.Labels))
		case m == metrics.AUC && r.TestAUC == nil:
			add(&oneClass, r.Run)
		}
	}
	switch {
	case old.n > 0:
		return &MetricError{Metric: m, Lacking: old.n, Finished: finished, Runs: old.runs,
			Why: hint.T("were written by a kerneltune that kept no test confusion matrix, so they hold the test accuracy only: rerun the run (compare with the same settings and a new ",
				hint.S("out", ""), ") to report "+m.String()+", or report ", hint.S("metric", "accuracy"))}
	case multi.n > 0:
		return &MetricError{Metric: m, Lacking: multi.n, Finished: finished, Runs: multi.runs,
			Why: hint.T("are of a problem with more than two classes (" + multiData + "): AUC is defined for two; use balanced_accuracy or macro_f1")}
	case oneClass.n > 0:
		return &MetricError{Metric: m, Lacking: oneClass.n, Finished: finished, Runs: oneClass.runs,
			Why: hint.T("have no test AUC: their test part holds one class (too few test rows per partition for this data; use balanced_accuracy or macro_f1)")}
	}
	return nil
}
