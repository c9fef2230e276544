package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	fig "github.com/kerneltune/kerneltune/pkg/figure"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// PlotOptions are the settings of Figures and WritePlots.
type PlotOptions struct {
	// Format is "svg" (the default when empty), "png" or "pdf".
	Format string
	// SortWeights lists the features of per-feature weight charts by mean
	// weight, largest first, instead of in their order in the data.
	SortWeights bool
	// DPI is the resolution of PNG files in dots per inch; 0 means
	// figure.DefaultDPI (300, for print).
	DPI int
	// Metric is the test score the box plots, the critical-difference
	// diagram and the cost figures show (the zero value: accuracy).
	Metric metrics.Metric
}

// ScoreFigureName is the base name of the box plots of the test score m
// ("accuracy", "balanced_accuracy", …); its cost figure adds "-cost".
func ScoreFigureName(m metrics.Metric) string { return m.String() }

// DefaultDPI is the resolution of PNG figures when PlotOptions.DPI is 0.
const DefaultDPI = fig.DefaultDPI

// CheckPlotOptions says what is wrong with the command line's figure
// options, in its words: a format other than svg, png or pdf, a resolution
// out of 10–2400 dpi.
func CheckPlotOptions(o PlotOptions) error {
	if o.Format != "svg" && o.Format != "png" && o.Format != "pdf" {
		return fmt.Errorf("--plot-format: want svg, png or pdf, got %q", o.Format)
	}
	if o.DPI < 10 || o.DPI > 2400 {
		return fmt.Errorf("--dpi: want 10 to 2400 dots per inch, got %d", o.DPI)
	}
	return nil
}

// NamedFigure is a figure and the base name of its file (no extension).
type NamedFigure struct {
	Name string // e.g. "accuracy", "heart-spd-trace"
	// Dataset and Entry say what the figure is of; both empty for a
	// figure over every dataset (accuracy).
	Dataset, Entry string
	Figure         *fig.Figure
}

// Figures draws the figures of records (failed jobs left out), in this
// order:
//
//	accuracy              box plots of test accuracy per entry, one panel per dataset,
//	                      the mean marked, the baseline's median as a reference line
//	critical-difference   Demšar's diagram of the statistics across datasets (CrossDataset):
//	                      average ranks, Nemenyi CD at α = 0.05 and its groups; only when
//	                      two or more datasets have results for every entry
//	accuracy-cost         mean test accuracy against mean SVM solves, one panel per dataset
//	rank-cost             average rank against cost across datasets, as critical-difference
//	DATASET-ENTRY-trace   the criterion per iteration: every partition, and their median
//	DATASET-ENTRY-weights per-feature weights (diagonal Q, or 1/θ of the L1 kernel) as bars
//	DATASET-ENTRY-Q       a full Q (mean over partitions): off-diagonal heat map, diagonal bars
//
// With opts.Metric other than accuracy, the box plots, the cost figures and
// the ranks are of that test score, and the first and third figures are
// named after it (ScoreFigureName: balanced_accuracy, balanced_accuracy-cost).
//
// order gives the entries' order, as in Summarize; the baseline is the
// first entry of each table.
func Figures(records []experiment.Record, order []string, opts PlotOptions) ([]NamedFigure, error) {
	records = byIdentity(records) // the tables' datasets (drawnTables)
	var out []NamedFigure
	var panels []fig.AccuracyPanel
	tables := drawnTables(records, order, "", opts.Metric)
	for _, t := range tables {
		byEntry := map[string][]experiment.Record{}
		for _, r := range records {
			if r.Dataset == t.Dataset && !r.Failed() {
				byEntry[r.Entry] = append(byEntry[r.Entry], r)
			}
		}
		panel := accuracyPanel(t, byEntry, opts.Metric)
		panels = append(panels, panel)
		for _, row := range t.Rows {
			rs := byEntry[row.Entry]
			if len(rs) == 0 {
				continue
			}
			named := func(kind string, f *fig.Figure) {
				out = append(out, NamedFigure{Name: t.Dataset + "-" + row.Entry + "-" + kind, Dataset: t.Dataset, Entry: row.Entry, Figure: f})
			}
			if ts := traceSet(t.Dataset, row.Entry, rs); ts != nil {
				f, err := fig.Traces(*ts)
				if err != nil {
					return nil, fmt.Errorf("draw figures: %w", err)
				}
				named("trace", f)
			}
			if w := weights(t.Dataset, row.Entry, rs, opts.SortWeights); w != nil {
				f, err := fig.FeatureWeights(*w)
				if err != nil {
					return nil, fmt.Errorf("draw figures: %w", err)
				}
				named("weights", f)
			}
			if m := meanQ(t.Dataset, row.Entry, rs); m != nil {
				f, err := fig.Metric(*m)
				if err != nil {
					return nil, fmt.Errorf("draw figures: %w", err)
				}
				named("Q", f)
			}
		}
	}
	var first []NamedFigure
	if len(panels) > 0 {
		f, err := fig.Accuracy("Test "+opts.Metric.Title()+" per partition", panels)
		if err != nil {
			return nil, fmt.Errorf("draw figures: %w", err)
		}
		first = append(first, NamedFigure{Name: ScoreFigureName(opts.Metric), Figure: f})
	}
	if d := cdDiagram(tables); d != nil {
		f, err := fig.CriticalDifference(*d)
		if err != nil {
			return nil, fmt.Errorf("draw figures: %w", err)
		}
		first = append(first, NamedFigure{Name: "critical-difference", Figure: f})
	}
	cost, err := costFigures(tables, records)
	if err != nil {
		return nil, err
	}
	first = append(first, cost...)
	return append(first, out...), nil
}

// WritePlots writes the Figures of records into dir, one file each
// (NAME.svg, .png or .pdf, names made file-safe), and returns the files
// written. format is "svg" (the default when empty), "png" or "pdf".
func WritePlots(dir, format string, records []experiment.Record, order []string) ([]string, error) {
	return WritePlotsWith(dir, records, order, PlotOptions{Format: format})
}

// WritePlotsWith is WritePlots with every option.
func WritePlotsWith(dir string, records []experiment.Record, order []string, opts PlotOptions) ([]string, error) {
	format := opts.Format
	switch format {
	case "":
		format = "svg"
	case "svg", "png", "pdf":
	default:
		return nil, fmt.Errorf("write plots: unknown format %q (want svg, png or pdf)", format)
	}
	figs, err := Figures(records, order, opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write plots: %w", err)
	}
	var files []string
	used := map[string]string{}
	for _, nf := range figs {
		path := filepath.Join(dir, figureFile(nf)+"."+format)
		if other, ok := used[path]; ok { // never, with safeName's hash
			return files, fmt.Errorf("write plots: figures %q and %q would both be %s", other, nf.Name, path)
		}
		used[path] = nf.Name
		if err := nf.Figure.SaveDPI(path, opts.DPI); err != nil {
			return files, fmt.Errorf("write plot %s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// figureFile is the file name of figure nf (without its extension): a
// dataset's figure is its dataset's safeName, then its entry and kind with
// ':' and '@' made '_' (an entry's name is the registry's, so that
// "spd:full" is "spd_full" as it always was).
func figureFile(nf NamedFigure) string {
	if nf.Dataset == "" {
		return safeName(nf.Name)
	}
	rest, ok := strings.CutPrefix(nf.Name, nf.Dataset+"-")
	if !ok {
		return safeName(nf.Name)
	}
	return safeName(nf.Dataset) + "-" + unsafeChars.ReplaceAllString(rest, "_")
}

// safeName is the file name of the figure or dataset s: s itself when it is made of
// letters, digits, '.', '_' and '-' only; otherwise s with each run of
// other characters replaced by "_" and a hash of s appended ("a b" is
// "a_b-c8687a", never "a_b", the name of dataset a_b), so that two names
// are two files, the same name always the same file (issue 42, item 18).
func safeName(s string) string {
	safe := unsafeChars.ReplaceAllString(s, "_")
	if safe == s && s != "" && s != "." && s != ".." {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return safe + "-" + hex.EncodeToString(h[:3])
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// cdAlpha is the level of the Nemenyi test the diagram draws.
const cdAlpha = 0.05

// cdDiagram is the input of Demšar's diagram from the statistics across
// datasets; nil when there are none (one dataset or entry, or fewer than two
// datasets with a result for every entry: the tables' notes say why).
func cdDiagram(tables []DatasetTable) *fig.CD {
	cross, err := CrossDataset(tables)
	if err != nil || cross == nil {
		return nil
	}
	nem, ok := cross.NemenyiAt(cdAlpha)
	if !ok {
		return nil
	}
	d := &fig.CD{
		Title: fmt.Sprintf("Critical difference diagram: ranks of mean test %s on %d datasets", cross.Metric.Title(), cross.Datasets),
		Names: cross.Methods, Ranks: cross.AvgRanks, CD: nem.CD,
		CDLabel: fmt.Sprintf("CD = %.3g (Nemenyi, α = %g)", nem.CD, cdAlpha),
		Cliques: [][]int{}, // the statistics' groups, even when there are none
	}
	for _, g := range nem.Groups {
		var idx []int
		for _, name := range g {
			idx = append(idx, slices.Index(cross.Methods, name))
		}
		d.Cliques = append(d.Cliques, idx)
	}
	return d
}

// accuracyPanel is a dataset's test scores by metric m (%) per entry, and
// the median of the baseline's as the reference line.
func accuracyPanel(t DatasetTable, byEntry map[string][]experiment.Record, m metrics.Metric) fig.AccuracyPanel {
	panel := fig.AccuracyPanel{Dataset: t.Dataset, Reference: math.NaN(), Metric: m.Title()}
	for _, row := range t.Rows {
		b := fig.Box{Name: row.Entry}
		for i := range byEntry[row.Entry] {
			b.Values = append(b.Values, 100*recordScore(&byEntry[row.Entry][i], m))
		}
		panel.Boxes = append(panel.Boxes, b)
		if row.Entry == t.Baseline && len(b.Values) > 0 {
			panel.Reference, panel.ReferenceName = median(b.Values), row.Entry
		}
	}
	return panel
}

// traceSet collects the criterion traces of an entry's records; nil when
// no record has two or more values (the svm baseline has one: its CV
// accuracy).
func traceSet(dataset, entry string, rs []experiment.Record) *fig.TraceSet {
	ts := fig.TraceSet{Title: fmt.Sprintf("%s, %s: criterion per iteration", dataset, entry)}
	for _, r := range rs {
		if len(r.Trace) < 2 {
			continue
		}
		if ts.Criterion == "" {
			ts.Criterion = r.Criterion
		}
		ts.Traces = append(ts.Traces, r.Trace)
	}
	if len(ts.Traces) == 0 {
		return nil
	}
	return &ts
}

// featureNames are the records' feature names (experiment.Record.Features, set when
// the data names its features), or "1".."d".
func featureNames(rs []experiment.Record, d int) []string {
	for _, r := range rs {
		if len(r.Features) == d {
			return r.Features
		}
	}
	ns := make([]string, d)
	for i := range ns {
		ns[i] = strconv.Itoa(i + 1)
	}
	return ns
}

// weights collects per-feature weights of an entry's records: a diagonal
// Q (q_k) or an L1 kernel's θ (as 1/θ_k, the weight of |x_k − z_k|); nil
// when the records have neither, or fewer than two features. Records whose
// width differs from the first's are left out.
func weights(dataset, entry string, rs []experiment.Record, sorted bool) *fig.Weights {
	var runs [][]float64
	quantity := ""
	// A multi-class record keeps one kernel, its first binary SVM's, and the
	// first pair follows each partition's label order: only the records of
	// the first record's pair are averaged.
	// Records that keep every pair (issue 35) give the first record's first
	// pair from every partition, found by its two classes.
	multi := len(rs) > 0 && rs[0].TestConfusion != nil && len(rs[0].TestConfusion.Labels) > 2
	first, pairs := "", len(rs) > 0 && len(rs[0].Pairs) > 0
	var shown experiment.RecordPair
	if pairs {
		shown = rs[0].Pairs[0]
		first = fmt.Sprintf("%q vs %q", shown.Positive, shown.Negative)
	} else if multi {
		first = firstSubproblem(rs[0].Notes)
	}
	for _, r := range rs {
		var w []float64
		var q string
		if pairs {
			i := slices.IndexFunc(r.Pairs, func(p experiment.RecordPair) bool {
				return p.Positive == shown.Positive && p.Negative == shown.Negative ||
					!shown.Rest && p.Positive == shown.Negative && p.Negative == shown.Positive
			})
			if i < 0 {
				continue
			}
			r.Kernel = r.Pairs[i].Kernel
		}
		switch {
		case multi && !pairs && firstSubproblem(r.Notes) != first:
			continue
		case len(r.Kernel.Diag) > 0:
			w = slices.Clone(r.Kernel.Diag)
			q = "q_k, the diagonal of Q in exp(-½ Σ q_k (x_k - z_k)²)"
		case len(r.Kernel.Theta) > 0:
			// The L1 kernel is -Σ_k |x_k - z_k| / θ_k: a feature's weight is 1/θ_k.
			for _, t := range r.Kernel.Theta {
				w = append(w, 1/t)
			}
			q = "1/θ_k, the weight of |x_k - z_k| in the L1 kernel"
		default:
			continue
		}
		if len(runs) > 0 && (len(w) != len(runs[0]) || q != quantity) {
			continue
		}
		// A feature constant on the partition's training part has no
		// effect on the kernel: its weight was not learned.
		for _, j := range r.Constant {
			if j >= 1 && j <= len(w) {
				w[j-1] = math.NaN()
			}
		}
		runs, quantity = append(runs, w), q
	}
	if len(runs) == 0 || len(runs[0]) < 2 {
		return nil
	}
	names := featureNames(rs, len(runs[0]))
	// Features without a learned weight in any run are left out and named.
	var keep []int
	var dropped []string
	for k, n := range names {
		learned := false
		for _, w := range runs {
			learned = learned || !math.IsNaN(w[k])
		}
		if learned {
			keep = append(keep, k)
		} else {
			dropped = append(dropped, n)
		}
	}
	if len(keep) < 2 {
		return nil
	}
	title := fmt.Sprintf("%s, %s: learned per-feature weights over %d partitions", dataset, entry, len(runs))
	switch {
	case pairs:
		what := "pair"
		if shown.Rest {
			what = "class against the rest"
		}
		title = fmt.Sprintf("%s, %s: learned weights of the %s SVM (the first %s of %d; every one's kernel is in the records' pairs) over %d partitions",
			dataset, entry, first, what, len(rs[0].Pairs), len(runs))
	case multi:
		title = fmt.Sprintf("%s, %s: learned weights of the %s SVM over the %d partitions where it comes first", dataset, entry, first, len(runs))
	}
	w := &fig.Weights{
		Title:    title,
		Quantity: quantity,
		Sorted:   sorted,
	}
	for _, k := range keep {
		w.Names = append(w.Names, names[k])
	}
	for _, r := range runs {
		row := make([]float64, len(keep))
		for i, k := range keep {
			row[i] = r[k]
		}
		w.Runs = append(w.Runs, row)
	}
	if len(dropped) > 0 {
		w.Title += fmt.Sprintf("; not shown, constant on every training part: feature %s", strings.Join(dropped, ", "))
	}
	return w
}

// meanQ is the mean of the full metrics Q of an entry's records; nil when
// none has a full Q (records whose Q has another size than the first's are
// left out). A feature constant on every training part (no effect on the
// kernel: its row and column of Q were not learned) is labelled
// "NAME (constant)".
func meanQ(dataset, entry string, rs []experiment.Record) *fig.Matrix {
	var sum [][]float64
	n := 0
	constant := map[int]int{} // feature (1-based) → records it is constant in
	for _, r := range rs {
		q := r.Kernel.Q
		if len(q) == 0 || (sum != nil && len(q) != len(sum)) {
			continue
		}
		d := len(q)
		square := true
		for _, row := range q {
			square = square && len(row) == d
		}
		if !square {
			continue
		}
		if sum == nil {
			sum = make([][]float64, d)
			for i := range sum {
				sum[i] = make([]float64, d)
			}
		}
		for i, row := range q {
			for j, v := range row {
				sum[i][j] += v
			}
		}
		for _, j := range slices.Compact(slices.Sorted(slices.Values(r.Constant))) {
			constant[j]++
		}
		n++
	}
	if n == 0 || len(sum) < 2 {
		return nil
	}
	for _, row := range sum {
		for j := range row {
			row[j] /= float64(n)
		}
	}
	names := slices.Clone(featureNames(rs, len(sum)))
	for j, c := range constant {
		if c == n && j >= 1 && j <= len(names) {
			names[j-1] += " (constant)"
		}
	}
	return &fig.Matrix{
		Title: fmt.Sprintf("%s, %s: mean learned Q over %d partitions", dataset, entry, n),
		Names: names,
		Q:     sum,
	}
}

// firstSubproblem names the binary SVM whose kernel a multi-class record
// keeps, from its note ("… the first pair's ("1" vs "2")"): `"1" vs "2"`,
// or "first pair" when the note is not there.
func firstSubproblem(notes []string) string {
	for _, n := range notes {
		if i := strings.Index(n, "are the first "); i >= 0 {
			if j := strings.Index(n[i:], "("); j >= 0 && strings.HasSuffix(n, ")") {
				return n[i+j+1 : len(n)-1]
			}
		}
	}
	return "first pair"
}
