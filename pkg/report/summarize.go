package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/stats"
)

// EntryRow is one method entry's line in a dataset's table. Runs + Failures +
// Missing = Partitions. Degenerate counts the finished runs with a
// degenerate kernel or final SVM (experiment.Record.Degenerate); they are
// kept in the mean.
type EntryRow struct {
	Entry      string `json:"entry"`
	Partitions int    `json:"partitions"` // planned partitions of the dataset
	Runs       int    `json:"runs"`       // partitions that finished
	Failures   int    `json:"failures"`   // partitions whose method failed
	// Missing counts the planned partitions with no record at all (a shard
	// left out, a run stopped early).
	Missing    int `json:"missing"`
	Degenerate int `json:"degenerate"`
	// Memorising counts the finished runs whose final model memorises its
	// training part (experiment.RecordMemorisation); kept in the mean.
	Memorising int `json:"memorising"`
	// SVMs and DegenerateSVMs count, over the runs of multi-class records
	// that keep their binary SVMs (experiment.Record.Pairs), the SVMs and
	// the degenerate ones: a run with one degenerate pair of 15 is 1 of
	// 15, not a degenerate run. 0 for binary data and older records.
	SVMs           int `json:"svms,omitempty"`
	DegenerateSVMs int `json:"degenerate_svms,omitempty"`
	// rest: the SVMs are classes against the rest (one-vs-rest);
	// unpaired: some multi-class runs keep no pairs (older records), so
	// the table counts runs.
	rest, unpaired bool
	// wholeOnly counts the degenerate multi-class runs none of whose SVMs
	// is: the model as a whole predicts one class (one-vs-rest can, when
	// every class's SVM leans to "rest" on the same rows).
	wholeOnly int
	// MeanAcc and StdAcc are the mean and the sample std (n−1; NaN, JSON
	// null, below 2 runs) of the summary's metric on the test parts:
	// accuracy unless SummaryOptions.Metric says otherwise, when their
	// JSON keys name it (mean_test_balanced_accuracy, …).
	MeanAcc    stats.Float `json:"mean_test_accuracy"`
	StdAcc     stats.Float `json:"std_test_accuracy"`
	MeanSV     stats.Float `json:"mean_nsv"`
	MeanSecs   stats.Float `json:"mean_seconds"`
	MeanSolves stats.Float `json:"mean_svm_solves"`
	// P is the two-sided paired Wilcoxon signed-rank p-value of the test
	// scores (the summary's metric) against the baseline over the partitions where both
	// finished (Pairs of them); NaN for the baseline itself or when no pair
	// differs.
	P stats.Float `json:"p_value"`
	// PExact is true when P is from the exact null distribution (at most
	// stats.ExactMaxN pairs, no ties, no zero difference, as scipy's
	// default), false for the normal approximation.
	PExact bool `json:"p_exact,omitempty"`
	Pairs  int  `json:"pairs"` // partitions paired with the baseline
	// Bayes is the Bayesian correlated t-test (stats.CorrelatedTTest) of
	// the same pairs' differences (this entry − the baseline) with the
	// table's Rho and the summary's ROPE: the posterior probabilities that
	// the entry is worse than, practically equivalent to or better than
	// the baseline; NaN (JSON null) for the baseline and below two pairs.
	Bayes stats.BayesProbs `json:"bayes_correlated_t"`
	Best  bool             `json:"best"` // highest mean test score of the table (all of a tie)

	metric metrics.Metric // the metric of MeanAcc, StdAcc and P: their JSON keys
}

// MarshalJSON names the metric in the keys of the mean and the std
// (mean_test_accuracy, mean_test_auc, …).
func (r EntryRow) MarshalJSON() ([]byte, error) {
	type row EntryRow
	b, err := json.Marshal(row(r))
	if err != nil || r.metric == metrics.Accuracy {
		return b, err
	}
	for _, k := range []string{"mean", "std"} {
		b = bytes.Replace(b, []byte(`"`+k+`_test_accuracy":`), []byte(`"`+k+`_test_`+r.metric.String()+`":`), 1)
	}
	return b, nil
}

// DatasetTable is the summary of one dataset.
type DatasetTable struct {
	Dataset    string `json:"dataset"`
	Partitions int    `json:"partitions"` // planned partitions
	// JobsPlanned is Partitions × the number of entries; JobsPresent the
	// jobs with a record (finished or failed).
	JobsPlanned int        `json:"jobs_planned"`
	JobsPresent int        `json:"jobs_present"`
	Complete    bool       `json:"complete"` // every planned job has a record
	Baseline    string     `json:"baseline"`
	Rows        []EntryRow `json:"rows"`
	// Provenance says where the dataset came from and what made its
	// records (the first record's; nil for records older than it).
	Provenance *experiment.Provenance `json:"provenance,omitempty"`
	// Rho is the correlation between the partitions' differences that the
	// Bayesian correlated t-test assumes: Nadeau & Bengio's
	// n_test/(n_test+n_train), from the baseline's first record.
	Rho stats.Float `json:"nadeau_bengio_rho"`
	// Sizes are the rows of a partition's training and test parts and of
	// the data they were drawn from, from the records alone (nil when no
	// record says: every record failed before its partition was drawn).
	Sizes *PartitionSizes `json:"sizes,omitempty"`
	// Metric is the metric of the rows' scores (Summary.Metric).
	Metric metrics.Metric `json:"-"`
	// Rope is the summary's ROPE (Summary.Rope), for CrossDataset.
	Rope float64 `json:"-"`
}

// Summary is the averaged result of a run, or of the records of a run at
// hand (merged shards, a run stopped early): the per-dataset tables and
// whether they hold every job the run planned.
type Summary struct {
	Run string `json:"run"`
	// GridKnown is false for records written before the planned grid was
	// recorded: partitions and entries are then inferred from the records,
	// and a dataset without any record cannot be seen.
	GridKnown   bool `json:"grid_known"`
	JobsPlanned int  `json:"jobs_planned"`
	JobsPresent int  `json:"jobs_present"`
	Complete    bool `json:"complete"`
	// Warning says what is missing (or that the grid is unknown); "" when
	// the summary is complete and the grid known.
	Warning string `json:"warning,omitempty"`
	// BaselineOnTest: the svm baseline was chosen by test accuracy
	// (--select laanaya).
	BaselineOnTest bool `json:"baseline_selected_on_test_data"`
	// Metric is the metric the tables, p-values and best marks are of
	// (SummaryOptions.Metric); left out of the JSON for accuracy.
	Metric metrics.Metric `json:"metric,omitzero"`
	// Rope is the half-width of the region of practical equivalence of
	// the Bayesian tests, in points of the metric (percentage points of
	// accuracy): SummaryOptions.Rope.
	Rope   float64        `json:"rope_points"`
	Tables []DatasetTable `json:"tables"`
	// Runs are the runs of the records when more than one was merged
	// (experiment.MergeFiles); Run is then the first.
	Runs []string `json:"runs,omitempty"`
	// Renamed says, a line each, which records of other data (or other
	// reading, partitions, seed or normalisation) than the first of their
	// dataset's name the tables show as NAME#2, NAME#3, ...
	// (experiment.SplitByIdentity).
	Renamed []string `json:"renamed,omitempty"`
}

// Incomplete returns the tables with missing jobs.
func (s *Summary) Incomplete() []DatasetTable {
	var out []DatasetTable
	for _, t := range s.Tables {
		if !t.Complete {
			out = append(out, t)
		}
	}
	return out
}

// SummaryOptions say how to order and compare the rows of a summary.
type SummaryOptions struct {
	// Entries is the order of the rows; nil means the run's grid order
	// (--methods order) or, for records without a grid, EntryOrder by
	// MethodNames. Entries not listed follow in name order.
	Entries     []string
	MethodNames []string
	// Datasets is the order of the tables when the records carry no grid
	// (report: first appearance in the files); nil means first appearance
	// in records. With a grid, the grid's order (the command line's).
	Datasets []string
	// Baseline is the entry the Wilcoxon test compares against; "" means
	// the first entry.
	Baseline string
	// Metric is the test score the tables average, compare and rank by
	// (the zero value: accuracy). Records that lack what it needs give NaN
	// scores: check them first with CheckMetric.
	Metric metrics.Metric
	// Rope is the half-width of the region of practical equivalence of the
	// Bayesian tests, in points of the metric (1 = one percentage point of
	// accuracy); 0 is no region. The command line's default is DefaultRope.
	Rope float64
}

// CheckRope refuses a --rope that is not a number of points in [0, 100).
func CheckRope(rope float64) error {
	if !(rope >= 0 && rope < 100) {
		return fmt.Errorf("--rope: %g points: want a number of points from 0 to below 100", rope)
	}
	return nil
}

// DefaultRope is the ROPE of report's and compare's Bayesian tests unless
// --rope says otherwise: one point of accuracy (Benavoli et al. 2017 use
// 1 % throughout).
const DefaultRope = 1.0

// EntryOrder lists the distinct entries of records ("method[:param][@mode]")
// for Summarize's order when the entries were not given,
// as in a results file: by their method's place in methodNames (the
// registry order, methods.Names(), which puts the baseline first; methods
// not listed come last), then by entry name.
func EntryOrder(records []experiment.Record, methodNames []string) []string {
	rank := func(m string) int {
		if i := slices.Index(methodNames, m); i >= 0 {
			return i
		}
		return len(methodNames)
	}
	type ent struct {
		method, entry string
	}
	seen := map[string]bool{}
	var es []ent
	for _, r := range records {
		if !seen[r.Entry] {
			seen[r.Entry] = true
			es = append(es, ent{r.Method, r.Entry})
		}
	}
	slices.SortFunc(es, func(a, b ent) int {
		if d := rank(a.method) - rank(b.method); d != 0 {
			return d
		}
		return strings.Compare(a.entry, b.entry)
	})
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.entry
	}
	return out
}

// drawnTables averages the records per dataset and entry by the test
// metric m, as the figures draw them: Summarize's tables without the
// datasets and rows that have no record (the tables of Summarize show what
// is missing), in the grid's dataset order, or by name for records without
// a grid. Entries are listed in the given order (entries not listed follow
// in name order); baseline is the entry the Wilcoxon test compares against
// ("" = the first entry).
func drawnTables(records []experiment.Record, order []string, baseline string, m metrics.Metric) []DatasetTable {
	// Without a grid, datasets in name order, as before the grid.
	var names []string
	for _, r := range records {
		if !slices.Contains(names, r.Dataset) {
			names = append(names, r.Dataset)
		}
	}
	slices.Sort(names)
	var out []DatasetTable
	for _, t := range Summarize(records, SummaryOptions{Entries: order, Baseline: baseline, Datasets: names, Metric: m}).Tables {
		if t.JobsPresent == 0 {
			continue
		}
		t.Rows = slices.DeleteFunc(t.Rows, func(r EntryRow) bool { return r.Runs+r.Failures == 0 })
		out = append(out, t)
	}
	return out
}

// byIdentity returns records with each dataset's identity under a name of
// its own (experiment.SplitByIdentity): the first identity met of a name
// keeps it, another is NAME#2. Every function here that groups records by
// dataset (the tables and their paired tests, the per-job table, the
// figures, the HTML page) groups what it returns, so that one name never
// averages, nor pairs, the partitions of two datasets, and all of them name
// the datasets alike.
//
// Why apart and not refused, as experiment.MergeFiles refuses them unless
// asked to split: report's functions are handed records (Summarize has
// no error to return), and the records MergeFiles gives have one identity
// per name already — it refused, or split them as report --split-identities
// asks. Records that reach report with two identities under one name were
// gathered in Go, where showing the two datasets, each named and the
// summary's warning saying which is which, is what was asked for; merging
// them silently was the bug, and refusing would leave no table at all.
func byIdentity(records []experiment.Record) []experiment.Record {
	out, _ := experiment.SplitByIdentity(records)
	return out
}

// bestTol is the relative tolerance under which two mean accuracies are a
// tie for the best: the same accuracies summed in another order may differ
// in the last bits.
const bestTol = 1e-12

// Summarize averages the records of a run per dataset and entry, and
// counts them against the run's planned grid (experiment.Record.Grid):
// every planned dataset has a table and every planned entry a row, with or
// without records. A dataset is its identity, not its name: records that
// give one name to different data are two tables (byIdentity,
// Summary.Renamed). It is the one summary of records: the tables compare
// prints (a CompareResult's records, Entries its grid's,
// res.Grid.Entries) and those report prints (a MergeResult's records,
// MethodNames methods.Names() and Datasets res.Datasets: methods in the
// registry's order unless the records carry the run's grid, datasets in
// order of first appearance in the files). An incomplete run is not an
// error: see Summary.Complete and Summary.Warning.
func Summarize(records []experiment.Record, o SummaryOptions) Summary {
	records, renamed := experiment.SplitByIdentity(records)
	var grid *experiment.Grid
	for i := range records {
		if records[i].Grid != nil {
			grid = records[i].Grid
			break
		}
	}
	sum := Summary{GridKnown: grid != nil, Metric: o.Metric, Rope: o.Rope, Renamed: renamed}
	if len(records) > 0 {
		sum.Run = records[0].Run
	}
	for _, r := range records {
		if !slices.Contains(sum.Runs, r.Run) {
			sum.Runs = append(sum.Runs, r.Run)
		}
	}
	if len(sum.Runs) < 2 {
		sum.Runs = nil
	}
	byData := map[string]map[string][]experiment.Record{}
	var seenData []string
	maxPart := map[string]int{}
	for _, r := range records {
		if byData[r.Dataset] == nil {
			byData[r.Dataset] = map[string][]experiment.Record{}
			seenData = append(seenData, r.Dataset)
		}
		byData[r.Dataset][r.Entry] = append(byData[r.Dataset][r.Entry], r)
		maxPart[r.Dataset] = max(maxPart[r.Dataset], r.Partition+1)
		sum.BaselineOnTest = sum.BaselineOnTest || strings.Contains(r.Extra["select"], "laanaya")
	}

	// The datasets, their partitions and the entries: the grid's, then
	// whatever the records hold beyond it.
	partitions := map[string]int{}
	var datasets, entries []string
	if grid != nil {
		for _, d := range grid.Datasets {
			datasets = append(datasets, d.Name)
			partitions[d.Name] = d.Partitions
		}
		entries = slices.Clone(grid.Entries)
	} else {
		entries = EntryOrder(records, o.MethodNames)
	}
	if o.Entries != nil {
		entries = appendMissing(slices.Clone(o.Entries), entries)
	}
	datasets = appendMissing(appendMissing(datasets, o.Datasets), seenData)
	var extra []string
	for _, r := range records {
		if !slices.Contains(entries, r.Entry) && !slices.Contains(extra, r.Entry) {
			extra = append(extra, r.Entry)
		}
	}
	slices.Sort(extra)
	entries = append(entries, extra...)

	for _, ds := range datasets {
		groups := byData[ds]
		parts := max(partitions[ds], maxPart[ds])
		base := o.Baseline
		if base == "" && len(entries) > 0 {
			base = entries[0]
		}
		t := DatasetTable{Dataset: ds, Partitions: parts, Baseline: base, JobsPlanned: parts * len(entries), Provenance: firstProvenance(groups), Metric: o.Metric, Rope: o.Rope}
		t.Sizes = partitionSizes(groups, t.Provenance)
		baseAcc := successes(groups[base], o.Metric)
		t.Rho = stats.Float(math.NaN())
		for _, r := range groups[base] {
			if !r.Failed() {
				t.Rho = stats.Float(stats.NadeauBengioRho(r.TrainSize, r.TestSize))
				break
			}
		}
		bestAcc := math.Inf(-1)
		for _, e := range entries {
			row := summarizeEntry(e, groups[e], o.Metric)
			row.Partitions = parts
			row.Missing = max(0, parts-row.Runs-row.Failures)
			t.JobsPresent += row.Runs + row.Failures
			row.P = stats.Float(math.NaN())
			row.Bayes = stats.NaNProbs()
			if e != base {
				mine := successes(groups[e], o.Metric)
				var x, y []float64
				for k := 0; k < parts; k++ {
					a, ok1 := mine[k]
					b, ok2 := baseAcc[k]
					if ok1 && ok2 {
						x, y = append(x, a), append(y, b)
					}
				}
				row.Pairs = len(x)
				if len(x) > 0 {
					w := stats.WilcoxonSignedRank(x, y)
					row.P, row.PExact = stats.Float(w.P), w.Exact
					diff := make([]float64, len(x))
					for k := range x {
						diff[k] = x[k] - y[k]
					}
					row.Bayes = stats.CorrelatedTTest(diff, float64(t.Rho), o.Rope/100)
				}
			}
			if row.Runs > 0 {
				bestAcc = max(bestAcc, float64(row.MeanAcc))
			}
			t.Rows = append(t.Rows, row)
		}
		for i := range t.Rows {
			r := &t.Rows[i]
			r.Best = r.Runs > 0 && float64(r.MeanAcc) >= bestAcc-bestTol*math.Abs(bestAcc)
		}
		t.Complete = t.JobsPresent >= t.JobsPlanned
		sum.JobsPlanned += t.JobsPlanned
		sum.JobsPresent += t.JobsPresent
		sum.Tables = append(sum.Tables, t)
	}
	sum.Complete = sum.JobsPresent >= sum.JobsPlanned
	sum.Warning = sum.warning()
	return sum
}

// warning says what is missing, dataset by dataset.
func (s *Summary) warning() string {
	var parts []string
	if !s.Complete {
		var ds []string
		for _, t := range s.Incomplete() {
			if t.JobsPresent == 0 {
				ds = append(ds, t.Dataset+": no records")
			} else {
				ds = append(ds, fmt.Sprintf("%s: %d of %d", t.Dataset, t.JobsPresent, t.JobsPlanned))
			}
		}
		parts = append(parts, fmt.Sprintf("INCOMPLETE: %d of %d jobs present (%s); means are over the partitions present", s.JobsPresent, s.JobsPlanned, strings.Join(ds, ", ")))
	}
	if len(s.Renamed) > 0 {
		parts = append(parts, "records give one dataset name to different datasets, shown apart: "+strings.Join(s.Renamed, "; "))
	}
	if !s.GridKnown {
		parts = append(parts, "the records do not say which jobs the run planned (written by an older kerneltune): partitions and methods are inferred from the records, and a dataset without any record cannot be seen")
	}
	return strings.Join(parts, "; ")
}

// appendMissing appends the elements of add that dst lacks, in order.
func appendMissing(dst, add []string) []string {
	for _, a := range add {
		if !slices.Contains(dst, a) {
			dst = append(dst, a)
		}
	}
	return dst
}

// successes maps partition → test score by metric of the non-failed
// records.
func successes(rs []experiment.Record, metric metrics.Metric) map[int]float64 {
	m := map[int]float64{}
	for i := range rs {
		if !rs[i].Failed() {
			m[rs[i].Partition] = recordScore(&rs[i], metric)
		}
	}
	return m
}

func summarizeEntry(e string, rs []experiment.Record, metric metrics.Metric) EntryRow {
	row := EntryRow{Entry: e, metric: metric}
	var acc []float64
	var sv, secs, solves float64
	for _, r := range rs {
		if r.Failed() {
			row.Failures++
			continue
		}
		acc = append(acc, recordScore(&r, metric))
		if r.Degenerate != "" {
			row.Degenerate++
		}
		if experiment.RecordMemorisation(r).Memorising {
			row.Memorising++
		}
		switch {
		case len(r.Pairs) > 0:
			row.SVMs += len(r.Pairs)
			row.DegenerateSVMs += r.DegeneratePairs
			row.rest = r.Pairs[0].Rest
			if r.Degenerate != "" && r.DegeneratePairs == 0 {
				row.wholeOnly++
			}
		case r.TestConfusion != nil && len(r.TestConfusion.Labels) > 2:
			row.unpaired = true
		}
		sv += float64(r.NSV)
		secs += r.Seconds
		solves += float64(r.Solves)
	}
	row.Runs = len(acc)
	if row.unpaired {
		row.SVMs, row.DegenerateSVMs = 0, 0
	}
	if row.Runs == 0 {
		nan := stats.Float(math.NaN())
		row.MeanAcc, row.StdAcc, row.MeanSV, row.MeanSecs, row.MeanSolves = nan, nan, nan, nan, nan
		return row
	}
	n := float64(row.Runs)
	row.MeanSV, row.MeanSecs, row.MeanSolves = stats.Float(sv/n), stats.Float(secs/n), stats.Float(solves/n)
	mean, std := meanStd(acc)
	row.MeanAcc, row.StdAcc = stats.Float(mean), stats.Float(std)
	return row
}

// meanStd returns the mean and the sample standard deviation (n−1), NaN
// for a single value: one partition says nothing about the spread, and
// "± 0.00" would say it does.
func meanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, math.NaN()
	}
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}

// firstProvenance is the provenance of a dataset's records: the first
// that has one, in entry and partition order.
func firstProvenance(groups map[string][]experiment.Record) *experiment.Provenance {
	var first *experiment.Record
	for _, rs := range groups {
		for i := range rs {
			r := &rs[i]
			if r.Provenance != nil && (first == nil || r.Entry < first.Entry || r.Entry == first.Entry && r.Partition < first.Partition) {
				first = r
			}
		}
	}
	if first == nil {
		return nil
	}
	return first.Provenance
}

// degenerateCell is the table's degenerate cell: degenerate runs of runs
// ("2/30"), or on multi-class data the degenerate binary SVMs of all runs
// ("3 of 15 pairs", "1 of 3 classes" one-vs-rest), and the runs whose model
// as a whole is degenerate with no degenerate SVM ("0 of 6 classes; 1/2
// runs one-class").
func (r *EntryRow) degenerateCell() string {
	var cell string
	switch {
	case r.SVMs == 0:
		return fmt.Sprintf("%d/%d", r.Degenerate, r.Runs)
	case r.rest:
		cell = fmt.Sprintf("%d of %d classes", r.DegenerateSVMs, r.SVMs)
	default:
		cell = fmt.Sprintf("%d of %d pairs", r.DegenerateSVMs, r.SVMs)
	}
	if r.wholeOnly > 0 {
		cell += fmt.Sprintf("; %d/%d runs one-class", r.wholeOnly, r.Runs)
	}
	return cell
}
