package experiment

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Float is a float64 that encodes NaN and ±Inf as JSON null (encoding/json
// refuses them), e.g. the p-value of the baseline against itself.
type Float float64

// MarshalJSON writes the number, or null when it is not finite.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number or null (NaN).
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Row is one method entry's line in a dataset's table. Degenerate counts the
// finished runs with a degenerate kernel or final SVM (Record.Degenerate);
// they are kept in the mean.
type Row struct {
	Entry      string  `json:"entry"`
	Runs       int     `json:"runs"`     // partitions that finished
	Failures   int     `json:"failures"` // partitions whose method failed
	Degenerate int     `json:"degenerate"`
	MeanAcc    Float   `json:"mean_test_accuracy"`
	StdAcc     Float   `json:"std_test_accuracy"`
	MeanSV     float64 `json:"mean_nsv"`
	MeanSecs   float64 `json:"mean_seconds"`
	MeanSolves float64 `json:"mean_svm_solves"`
	// P is the two-sided paired Wilcoxon signed-rank p-value of the test
	// accuracies against the baseline over the partitions where both
	// succeeded; NaN for the baseline itself or when no pair differs.
	P     Float `json:"p_value"`
	Pairs int   `json:"pairs"` // partitions paired with the baseline
	Best  bool  `json:"best"`  // highest mean test accuracy of the table
}

// Table is the summary of one dataset.
type Table struct {
	Dataset  string `json:"dataset"`
	Baseline string `json:"baseline"`
	Rows     []Row  `json:"rows"`
}

// EntryOrder lists the distinct entries of records ("method[:param][@mode]")
// for Summarize's order when the entries were not given,
// as in a results file: by their method's place in methodNames (the
// registry order, methods.Names(), which puts the baseline first; methods
// not listed come last), then by entry name.
func EntryOrder(records []Record, methodNames []string) []string {
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

// Summarize averages the records per dataset and entry. Entries are listed
// in the given order (entries not listed follow in name order); baseline is
// the entry the Wilcoxon test compares against ("" = the first entry).
func Summarize(records []Record, order []string, baseline string) []Table {
	byData := map[string]map[string][]Record{}
	var datasets []string
	for _, r := range records {
		if byData[r.Dataset] == nil {
			byData[r.Dataset] = map[string][]Record{}
			datasets = append(datasets, r.Dataset)
		}
		byData[r.Dataset][r.Entry] = append(byData[r.Dataset][r.Entry], r)
	}
	slices.Sort(datasets)
	var out []Table
	for _, ds := range datasets {
		groups := byData[ds]
		entries := orderEntries(groups, order)
		base := baseline
		if base == "" && len(entries) > 0 {
			base = entries[0]
		}
		t := Table{Dataset: ds, Baseline: base}
		baseAcc := successes(groups[base])
		bestIdx, bestAcc := -1, math.Inf(-1)
		for _, e := range entries {
			row := summarizeEntry(e, groups[e])
			row.P = Float(math.NaN())
			if e != base {
				mine := successes(groups[e])
				var x, y []float64
				for k, a := range mine {
					if b, ok := baseAcc[k]; ok {
						x, y = append(x, a), append(y, b)
					}
				}
				row.Pairs = len(x)
				if len(x) > 0 {
					row.P = Float(WilcoxonSignedRank(x, y).P)
				}
			}
			if row.Runs > 0 && float64(row.MeanAcc) > bestAcc {
				bestIdx, bestAcc = len(t.Rows), float64(row.MeanAcc)
			}
			t.Rows = append(t.Rows, row)
		}
		if bestIdx >= 0 {
			t.Rows[bestIdx].Best = true
		}
		out = append(out, t)
	}
	return out
}

func orderEntries(groups map[string][]Record, order []string) []string {
	var out []string
	for _, e := range order {
		if _, ok := groups[e]; ok {
			out = append(out, e)
		}
	}
	var rest []string
	for e := range groups {
		if !slices.Contains(out, e) {
			rest = append(rest, e)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// successes maps partition → test accuracy of the non-failed records.
func successes(rs []Record) map[int]float64 {
	m := map[int]float64{}
	for _, r := range rs {
		if !r.Failed() {
			m[r.Partition] = r.TestAccuracy
		}
	}
	return m
}

func summarizeEntry(e string, rs []Record) Row {
	row := Row{Entry: e}
	var acc []float64
	for _, r := range rs {
		if r.Failed() {
			row.Failures++
			continue
		}
		acc = append(acc, r.TestAccuracy)
		if r.Degenerate != "" {
			row.Degenerate++
		}
		row.MeanSV += float64(r.NSV)
		row.MeanSecs += r.Seconds
		row.MeanSolves += float64(r.Solves)
	}
	row.Runs = len(acc)
	if row.Runs == 0 {
		row.MeanAcc, row.StdAcc = Float(math.NaN()), Float(math.NaN())
		return row
	}
	n := float64(row.Runs)
	row.MeanSV /= n
	row.MeanSecs /= n
	row.MeanSolves /= n
	mean, std := meanStd(acc)
	row.MeanAcc, row.StdAcc = Float(mean), Float(std)
	return row
}

// meanStd returns the mean and the sample standard deviation (n−1).
func meanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}
