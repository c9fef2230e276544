package report

// The averaged tables compare and report print, in every output format,
// from one Summary.

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/stats"
)

// SummaryJSON is compare's and report's JSON: the summary, and the
// statistics across datasets when there are any.
type SummaryJSON struct {
	Summary
	Cross *CrossData `json:"across_datasets,omitempty"`
}

// WriteSummary writes the averaged tables of sum, a summary of the records
// recs, in format. csv is one table with a row per (dataset, method) and one
// number per column, without cross; json is SummaryJSON; the other formats
// are SummaryTables, and latex ends with the datasets × methods table of a
// paper (best in bold, significance against the baseline marked).
func WriteSummary(w io.Writer, format string, sum Summary, recs []experiment.Record, cross *CrossData) error {
	switch format {
	case FormatCSV:
		return writeSummaryCSV(w, sum)
	case FormatJSON:
		return RenderJSON(w, SummaryJSON{sum, cross})
	}
	if err := Render(w, format, SummaryTables(sum, recs, cross)...); err != nil {
		return err
	}
	if format == FormatLaTeX {
		// Beside the per-dataset tables, a paper's datasets × methods table.
		return writeLaTeXPaperTable(w, sum)
	}
	return nil
}

// SummaryTables are the human form of sum (text, markdown, latex): a table
// per dataset, the first prefaced by the summary's warning, then the
// statistics across datasets of cross (CrossTables), if any. A table has a
// "missing" column only when jobs are missing, and a "pairs" column only
// when some p-value rests on fewer pairs than there are partitions.
func SummaryTables(sum Summary, recs []experiment.Record, cross *CrossData) []*Table {
	recs = byIdentity(recs) // sum's datasets (Summarize)
	var ts []*Table
	for i := range sum.Tables {
		ts = append(ts, summaryTable(&sum.Tables[i], recs, sum.BaselineOnTest))
	}
	if sum.Warning != "" && len(ts) > 0 {
		// Above everything, where nobody pastes a table without seeing it.
		prefix := "WARNING: "
		if sum.Complete {
			prefix = "note: " // only the grid is unknown
		}
		ts[0].Preface = append(ts[0].Preface, prefix+sum.Warning)
	}
	return append(ts, CrossTables(cross)...)
}

// summaryColumn is one column of the CSV form: its name (the JSON key of
// the same number) and its cell, a plain number, true/false or "".
type summaryColumn struct {
	name string
	cell func(t *DatasetTable, r *EntryRow) string
}

// summaryColumns are compare's and report's CSV columns, one number each. A
// new number in EntryRow is one more line here.
var summaryColumns = []summaryColumn{
	{"dataset", func(t *DatasetTable, r *EntryRow) string { return t.Dataset }},
	{"method", func(t *DatasetTable, r *EntryRow) string { return r.Entry }},
	{"partitions", func(t *DatasetTable, r *EntryRow) string { return strconv.Itoa(r.Partitions) }},
	{"runs", func(t *DatasetTable, r *EntryRow) string { return strconv.Itoa(r.Runs) }},
	{"failures", func(t *DatasetTable, r *EntryRow) string { return strconv.Itoa(r.Failures) }},
	{"missing", func(t *DatasetTable, r *EntryRow) string { return strconv.Itoa(r.Missing) }},
	{"degenerate", func(t *DatasetTable, r *EntryRow) string { return strconv.Itoa(r.Degenerate) }},
	{"memorising", func(t *DatasetTable, r *EntryRow) string { return strconv.Itoa(r.Memorising) }},
	{"mean_test_accuracy", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.MeanAcc) }},
	{"std_test_accuracy", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.StdAcc) }},
	{"mean_nsv", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.MeanSV) }},
	{"mean_seconds", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.MeanSecs) }},
	{"mean_svm_solves", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.MeanSolves) }},
	{"baseline", func(t *DatasetTable, r *EntryRow) string { return t.Baseline }},
	{"p_value", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.P) }},
	{"pairs", func(t *DatasetTable, r *EntryRow) string { return strconv.Itoa(r.Pairs) }},
	{"best", func(t *DatasetTable, r *EntryRow) string { return strconv.FormatBool(r.Best) }},
	{"complete", func(t *DatasetTable, r *EntryRow) string { return strconv.FormatBool(t.Complete) }},
	// The Bayesian correlated t-test, after the columns of older versions.
	{"rope_points", func(t *DatasetTable, r *EntryRow) string { return strconv.FormatFloat(t.Rope, 'g', -1, 64) }},
	{"p_worse", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.Bayes.Worse) }},
	{"p_equivalent", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.Bayes.Equivalent) }},
	{"p_better", func(t *DatasetTable, r *EntryRow) string { return csvNumber(r.Bayes.Better) }},
	// The partition sizes (DatasetTable.Sizes; empty when the records do
	// not say), after the columns of older versions.
	{"train_size", func(t *DatasetTable, r *EntryRow) string { return sizeCell(t.Sizes.orZero().Train) }},
	{"test_size", func(t *DatasetTable, r *EntryRow) string { return sizeCell(t.Sizes.orZero().Test) }},
	{"rows", func(t *DatasetTable, r *EntryRow) string { return sizeCell(t.Sizes.orZero().Rows) }},
}

// sizeCell is a size as a CSV cell, "" when it is not recorded (0).
func sizeCell(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// csvNumber writes v in full precision, or "" when it is not a number.
func csvNumber(v stats.Float) string {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// writeSummaryCSV writes one CSV table, a row per (dataset, method), that
// pandas and R load without string parsing. CSV has no place for a warning:
// an incomplete run shows in the complete and missing columns.
func writeSummaryCSV(w io.Writer, sum Summary) error {
	cw := csv.NewWriter(w)
	header := make([]string, len(summaryColumns))
	for j, c := range summaryColumns {
		header[j] = c.name
		if sum.Metric != metrics.Accuracy {
			header[j] = strings.Replace(c.name, "_test_accuracy", "_test_"+sum.Metric.String(), 1)
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range sum.Tables {
		t := &sum.Tables[i]
		for k := range t.Rows {
			cells := make([]string, len(summaryColumns))
			for j, c := range summaryColumns {
				cells[j] = c.cell(t, &t.Rows[k])
			}
			if err := cw.Write(cells); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// summaryTable is the human form of one dataset's table s (text, markdown,
// latex); lookedAtTest adds the warning that the baseline was chosen on
// test data.
func summaryTable(s *DatasetTable, recs []experiment.Record, lookedAtTest bool) *Table {
	// The LaTeX label stays that of the title without the sizes.
	label := fmt.Sprintf("%s (%d partition%s)", s.Dataset, s.Partitions, plural(s.Partitions))
	title := fmt.Sprintf("%s (%d partition%s: %s)", s.Dataset, s.Partitions, plural(s.Partitions), s.Sizes.SizesText())
	if !s.Complete {
		if s.JobsPresent == 0 {
			title += fmt.Sprintf(" — INCOMPLETE: no records (0 of %d jobs present)", s.JobsPlanned)
		} else {
			title += fmt.Sprintf(" — INCOMPLETE: %d of %d jobs present", s.JobsPresent, s.JobsPlanned)
		}
	}
	showPairs := false
	for _, r := range s.Rows {
		showPairs = showPairs || (r.Entry != s.Baseline && r.Pairs < s.Partitions)
	}
	t := &Table{
		Title:  title,
		Label:  label,
		Header: []string{"method", "test " + s.Metric.Short() + " % (mean ± std)", "#SV", "time s", "SVM solves", "runs", "failures", "degenerate", "memorising"},
	}
	if !s.Complete {
		t.Header = append(t.Header, "missing")
	}
	// The Bayesian test beside the Wilcoxon p, when there is a method to
	// compare with the baseline.
	bayes := len(s.Rows) > 1
	t.Header = append(t.Header, "p vs "+s.Baseline)
	if bayes {
		t.Header = append(t.Header, "P(worse/equiv/better)")
	}
	if showPairs {
		t.Header = append(t.Header, "pairs")
	}
	for _, r := range s.Rows {
		name := r.Entry
		if r.Best {
			name += " *"
		}
		acc := "—"
		if r.Runs > 0 {
			acc = fmt.Sprintf("%.2f ± %s", 100*float64(r.MeanAcc), dash(Fixed(100*float64(r.StdAcc), 2)))
		}
		p := "—"
		if !math.IsNaN(float64(r.P)) {
			p = Sig(float64(r.P), 3)
		}
		cells := []string{name, acc, dash(Fixed(float64(r.MeanSV), 1)), dash(Fixed(float64(r.MeanSecs), 2)),
			dash(Fixed(float64(r.MeanSolves), 0)), strconv.Itoa(r.Runs), strconv.Itoa(r.Failures), r.degenerateCell(), fmt.Sprintf("%d/%d", r.Memorising, r.Runs)}
		if !s.Complete {
			cells = append(cells, strconv.Itoa(r.Missing))
		}
		cells = append(cells, p)
		if bayes {
			cells = append(cells, bayesCell(r.Bayes))
		}
		if showPairs {
			pairs := "—"
			if r.Entry != s.Baseline {
				pairs = strconv.Itoa(r.Pairs)
			}
			cells = append(cells, pairs)
		}
		t.Add(cells...)
	}
	t.LaTeXPanels = resultCostPanels(t.Header)
	t.Notes = append(t.Notes, "* best mean test "+s.Metric.Title()+" (ties all marked); runs: partitions finished; p: two-sided paired Wilcoxon signed-rank test against "+s.Baseline+" over the partitions both finished ("+pMethodNote(s.Rows)+")")
	if bayes {
		t.Notes = append(t.Notes, bayesNote(s))
	}
	if n := degenerateNote(*s, recs); n != "" {
		t.Notes = append(t.Notes, n)
	}
	if n := memorisingNote(*s); n != "" {
		t.Notes = append(t.Notes, n)
	}
	if showPairs {
		t.Notes = append(t.Notes, fmt.Sprintf("pairs: partitions both the method and %s finished, of %d: p rests on these only", s.Baseline, s.Partitions))
	}
	if !s.Complete {
		t.Notes = append(t.Notes, "missing: planned partitions with no record (a shard left out, a run stopped early); means are over the runs present")
	}
	if lookedAtTest {
		t.Notes = append(t.Notes, "WARNING: the baseline's (C, γ) was chosen by the best test rate on the first five partitions (--select laanaya): it looked at test data")
	}
	return t
}

// resultCostPanels splits a per-dataset table's columns, in latex, into
// two panels that each fit an article's text width: the results (the mean
// and the tests against the baseline) above, the costs and counts below,
// each with the method column.
func resultCostPanels(header []string) [][]int {
	results, costs := []int{0}, []int{0}
	for j, h := range header[1:] {
		switch {
		case strings.HasPrefix(h, "test "), strings.HasPrefix(h, "p vs "), strings.HasPrefix(h, "P("), h == "pairs":
			results = append(results, j+1)
		default:
			costs = append(costs, j+1)
		}
	}
	return [][]int{results, costs}
}

// pMethodNote says how the table's p-values were computed: exact (the
// null distribution of the statistic, for at most stats.ExactMaxN pairs
// without ties or zero differences and stats.ExactTiesMaxN with them, as
// scipy's default) or the normal
// approximation with tie and continuity corrections; naming the entries of
// each kind when the table has both.
func pMethodNote(rows []EntryRow) string {
	const exact = "exact distribution"
	approx := fmt.Sprintf("normal approximation with tie and continuity corrections, as over %d pairs have tied or zero differences, or over %d pairs in all", stats.ExactTiesMaxN, stats.ExactMaxN)
	var ex, ap []string
	for _, r := range rows {
		switch {
		case math.IsNaN(float64(r.P)):
		case r.PExact:
			ex = append(ex, r.Entry)
		default:
			ap = append(ap, r.Entry)
		}
	}
	switch {
	case len(ap) == 0 && len(ex) == 0:
		return fmt.Sprintf("exact for at most %d pairs without ties or zero differences and %d with them, else the normal approximation", stats.ExactMaxN, stats.ExactTiesMaxN)
	case len(ap) == 0:
		return exact
	case len(ex) == 0:
		return approx
	}
	return exact + " for " + strings.Join(ex, ", ") + "; " + approx + " for " + strings.Join(ap, ", ")
}

// bayesCell is "0.02/0.95/0.03": P(worse), P(equivalent), P(better) to
// two decimals, or "—" when there are none.
func bayesCell(b stats.BayesProbs) string {
	if !b.Valid() {
		return "—"
	}
	return Fixed(float64(b.Worse), 2) + "/" + Fixed(float64(b.Equivalent), 2) + "/" + Fixed(float64(b.Better), 2)
}

// ropeText is "1 point of test accuracy", the ROPE's half-width for the
// notes.
func ropeText(rope float64, m metrics.Metric) string {
	unit := "points"
	if rope == 1 {
		unit = "point"
	}
	return fmt.Sprintf("%s %s of test %s", strconv.FormatFloat(rope, 'g', -1, 64), unit, m.Title())
}

// bayesNote says what the P(worse/equiv/better) column of table s holds.
func bayesNote(s *DatasetTable) string {
	rho := "unknown"
	if !math.IsNaN(float64(s.Rho)) {
		rho = Sig(float64(s.Rho), 3)
	}
	return fmt.Sprintf("P(worse/equiv/better): Bayesian correlated t-test against %s over the same pairs (Benavoli et al. 2017): posterior probabilities that the method's mean is more than %s below %s's, within ± that (the ROPE, --rope), or more than that above; partitions correlated by ρ = n_test/(n_test+n_train) = %s (Nadeau–Bengio)",
		s.Baseline, ropeText(s.Rope, s.Metric), s.Baseline, rho)
}

// dash is "—" for Fixed's "-" (no number), as the accuracy column.
func dash(s string) string {
	if s == "-" {
		return "—"
	}
	return s
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// SummaryWarning is the stderr form of an incomplete summary's warning.
func SummaryWarning(sum Summary) string {
	return "kerneltune: warning: " + strings.TrimSpace(sum.Warning)
}
