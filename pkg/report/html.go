package report

// compare --html and report --html: the run as one self-contained HTML page
// (pkg/htmlreport), holding the same tables the text output prints, the
// statistics across datasets, every figure --plot draws, and the failures
// with their errors.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/htmlreport"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// PageSettings are what HTMLPage shows besides the records.
type PageSettings struct {
	Command string      // the command line, under the title
	Version string      // kerneltune's version, in the "written by" line
	Plot    PlotOptions // how the figures are drawn (Format is ignored: the page holds SVG)
}

// HTMLPage assembles the page of sum, a summary of the records recs, with
// the statistics across datasets cross (nil for none): warnings first (an
// incomplete run, a baseline chosen on test data, failures), the settings,
// one section per dataset (its table, then its traces and learned metrics),
// the accuracy figure, the statistics across datasets with the
// critical-difference diagram, and the failed jobs. htmlreport.Write writes
// it.
func HTMLPage(sum Summary, recs []experiment.Record, cross *CrossData, s PageSettings) (*htmlreport.Page, error) {
	recs = byIdentity(recs) // sum's datasets (Summarize)
	var names []string
	for _, t := range sum.Tables {
		names = append(names, t.Dataset)
	}
	p := &htmlreport.Page{
		Title:     "kerneltune comparison: " + strings.Join(names, ", "),
		Subtitle:  s.Command,
		Generated: "written by kerneltune " + s.Version,
	}
	if sum.Warning != "" {
		if sum.Complete {
			p.Warnings = append(p.Warnings, "Note: "+sum.Warning)
		} else {
			p.Warnings = append(p.Warnings, "INCOMPLETE: "+sum.Warning)
		}
	}
	if sum.BaselineOnTest {
		p.Warnings = append(p.Warnings, "The baseline's (C, γ) was chosen by the best test rate on the first five partitions (--select laanaya): it looked at test data.")
	}
	var failed []experiment.Record
	for _, r := range recs {
		if r.Failed() {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d job(s) failed: see Failures at the end; the means are over the runs that finished.", len(failed)))
	}
	p.Settings = runSettings(sum, recs)
	p.SettingsGroups = provenanceGroups(sum)

	order := []string{}
	if len(sum.Tables) > 0 {
		for _, r := range sum.Tables[0].Rows {
			order = append(order, r.Entry)
		}
	}
	m := sum.Metric
	plot := s.Plot
	plot.Metric = m
	figs, err := Figures(recs, order, plot)
	if err != nil {
		return nil, err
	}
	svgOf := func(nf NamedFigure) (htmlreport.Figure, error) {
		svg, err := nf.Figure.SVG()
		if err != nil {
			return htmlreport.Figure{}, fmt.Errorf("--html: figure %s: %w", nf.Name, err)
		}
		return htmlreport.Figure{Caption: figureCaption(nf, m), SVG: svg}, nil
	}

	// The score of every method on every dataset first: the overview.
	overview := htmlreport.Section{Heading: "Test " + m.Title() + " per partition"}
	var cdFigs []htmlreport.Figure
	for _, nf := range figs {
		if nf.Dataset != "" {
			continue
		}
		f, err := svgOf(nf)
		if err != nil {
			return nil, err
		}
		if nf.Name == "critical-difference" {
			cdFigs = append(cdFigs, f)
		} else {
			overview.Figures = append(overview.Figures, f)
		}
	}
	// With two or more datasets the page leads with the papers' table
	// (datasets as rows, methods as columns) and the critical-difference
	// diagram, then the overview and each dataset.
	if mt := summaryMatrix(sum); mt != nil {
		lead := htmlreport.Section{Heading: "Summary", Tables: []htmlreport.Table{htmlTable(mt)}, Figures: cdFigs}
		lead.Tables[0].Caption = mt.Title
		p.Sections = append(p.Sections, lead)
		cdFigs = nil
	}
	if len(overview.Figures) > 0 {
		p.Sections = append(p.Sections, overview)
	}
	for i := range sum.Tables {
		t := &sum.Tables[i]
		tt := summaryTable(t, recs, false) // the test-data warning is at the top
		ht := htmlTable(tt)
		sec := htmlreport.Section{Heading: tt.Title, Nav: t.Dataset, Tables: []htmlreport.Table{ht}}
		if t.Provenance != nil {
			sec.Provenance = "Dataset " + t.Dataset // provenanceGroups' title
		}
		for _, nf := range figs {
			if nf.Dataset == t.Dataset {
				f, err := svgOf(nf)
				if err != nil {
					return nil, err
				}
				sec.Figures = append(sec.Figures, f)
			}
		}
		p.Sections = append(p.Sections, sec)
	}
	bayesFig := bayesSVG(bayesGroups(sum, cross))
	if len(sum.Tables) >= 2 {
		overall := htmlreport.Section{Heading: "Across datasets", Figures: cdFigs}
		if bayesFig != nil {
			overall.Figures = append(overall.Figures, htmlreport.Figure{Caption: bayesCaption(sum, cross), SVG: bayesFig})
		}
		for _, ct := range CrossTables(cross) {
			ht := htmlTable(ct)
			ht.Caption = ct.Title
			overall.Tables = append(overall.Tables, ht)
		}
		if cross == nil {
			overall.Intro = append(overall.Intro, "No statistics across datasets: they need at least two datasets on which every method has results.")
		}
		p.Sections = append(p.Sections, overall)
	} else if bayesFig != nil {
		p.Sections = append(p.Sections, htmlreport.Section{Heading: "Bayesian comparisons", Figures: []htmlreport.Figure{{Caption: bayesCaption(sum, cross), SVG: bayesFig}}})
	}
	if len(failed) > 0 {
		ft := htmlreport.Table{Caption: fmt.Sprintf("%d failed job(s)", len(failed)), Header: []string{"dataset", "method", "partition", "error"}}
		for _, r := range failed {
			ft.Rows = append(ft.Rows, []string{r.Dataset, r.Entry, fmt.Sprint(r.Partition + 1), r.Error})
			ft.Warn = append(ft.Warn, true)
		}
		p.Sections = append(p.Sections, htmlreport.Section{Heading: "Failures", Tables: []htmlreport.Table{ft}})
	}
	return p, nil
}

// runSettings lists what identifies the run: its fingerprint, seed, grid
// and the settings its records carry.
func runSettings(sum Summary, recs []experiment.Record) []htmlreport.KV {
	kv := []htmlreport.KV{{Key: "run fingerprint", Value: sum.Run}}
	if len(sum.Runs) > 1 {
		kv[0] = htmlreport.KV{Key: "run fingerprints", Value: strings.Join(sum.Runs, ", ") + " (runs merged: no dataset and method was run with other settings)"}
	}
	if len(recs) > 0 {
		r := recs[0]
		kv = append(kv, htmlreport.KV{Key: "seed", Value: fmt.Sprint(r.Seed)})
		if r.Grid != nil {
			var ds []string
			for _, d := range r.Grid.Datasets {
				ds = append(ds, fmt.Sprintf("%s (%d partitions)", d.Name, d.Partitions))
			}
			kv = append(kv, htmlreport.KV{Key: "datasets", Value: strings.Join(ds, "; ")},
				htmlreport.KV{Key: "methods", Value: strings.Join(r.Grid.Entries, ", ")})
		}
		kv = append(kv, htmlreport.KV{Key: "training / test size", Value: trainTestSizes(recs)})
		keys := make([]string, 0, len(r.Extra))
		for k := range r.Extra {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			kv = append(kv, htmlreport.KV{Key: k, Value: r.Extra[k]})
		}
	}
	kv = append(kv, htmlreport.KV{Key: "jobs", Value: fmt.Sprintf("%d of %d present", sum.JobsPresent, sum.JobsPlanned)})
	if sum.Metric != metrics.Accuracy {
		kv = append(kv, htmlreport.KV{Key: "metric", Value: sum.Metric.Title() + " of the test parts (tables, p-values, ranks and figures)"})
	}
	return kv
}

// trainTestSizes says each dataset's training and test sizes (those of
// its first record: a dataset's partitions all have one size), once when
// every dataset has the same ones (a study's datasets often do not).
func trainTestSizes(recs []experiment.Record) string {
	var order []string
	size := map[string]string{}
	for _, r := range recs {
		if _, ok := size[r.Dataset]; !ok {
			order = append(order, r.Dataset)
			size[r.Dataset] = fmt.Sprintf("%d / %d", r.TrainSize, r.TestSize)
		}
	}
	if g := recs[0].Grid; g != nil { // the run's order, not the order jobs finished in
		var planned []string
		for _, d := range g.Datasets {
			if _, ok := size[d.Name]; ok {
				planned = append(planned, d.Name)
			}
		}
		if len(planned) == len(order) {
			order = planned
		}
	}
	same := true
	for _, d := range order {
		same = same && size[d] == size[order[0]]
	}
	if same {
		if len(order) == 1 {
			return size[order[0]]
		}
		return size[order[0]] + " (every dataset)"
	}
	parts := make([]string, len(order))
	for i, d := range order {
		parts[i] = d + " " + size[d]
	}
	return strings.Join(parts, "; ")
}

// htmlTable converts a text table; rows whose first cell ends in " *"
// (the best mean) are marked, and the star is kept, as in the text. A
// dataset's table has its title as the section's heading, not as a caption.
func htmlTable(t *Table) htmlreport.Table {
	h := htmlreport.Table{Header: t.Header, Rows: t.Rows, Notes: append(append([]string{}, t.Preface...), t.Notes...)}
	for _, r := range t.Rows {
		h.Mark = append(h.Mark, len(r) > 0 && strings.HasSuffix(r[0], " *"))
	}
	return h
}

// CheckHTMLPath refuses, before any work, an --html file whose directory
// does not exist or that names a directory ("" is no page: nil).
func CheckHTMLPath(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--html %s is a directory: give a file name, e.g. %s", path, filepath.Join(path, "report.html"))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--html %s: directory %s does not exist", path, dir)
	}
	return nil
}

// figureCaption says what a figure of Figures, drawn for the test metric
// m, shows.
func figureCaption(nf NamedFigure, m metrics.Metric) string {
	kind := nf.Name[strings.LastIndex(nf.Name, "-")+1:]
	score := m.Title()
	switch {
	case nf.Name == ScoreFigureName(m):
		return "Test " + score + " per partition: boxes (median, quartiles), the mean as a diamond, the baseline's median as a dashed line."
	case nf.Name == "critical-difference":
		return "Critical-difference diagram (Demšar 2006): average ranks, 1 = best; methods joined by a bar are not significantly different (Nemenyi, α = 0.05)."
	case nf.Name == ScoreFigureName(m)+"-time":
		return "Mean test " + score + " against time: each method's mean wall-clock seconds per partition, tuning and final fit (log scale), the bars its " + score + " ± 1 s.d. and its fastest to slowest partition; the baseline in orange. Time, not solves, is what a user waits for: a solve costs what its method and size make it."
	case nf.Name == ScoreFigureName(m)+"-cost":
		return "Mean test " + score + " against cost: each method's mean SVM solves (log scale), the bars its " + score + " ± 1 s.d. and its fewest to most solves; the baseline in orange. Solves do not weigh a method's other work (bo's Gaussian process, a criterion over all pairs): read it beside the time figure."
	case nf.Name == "rank-cost":
		return "Average rank of mean test " + score + " (1 = best) against the mean SVM solves over the datasets, with the Friedman test and the Nemenyi critical difference."
	case kind == "trace":
		return nf.Entry + " on " + nf.Dataset + ": the criterion per iteration, each partition thin, their median bold."
	case kind == "weights":
		return nf.Entry + " on " + nf.Dataset + ": the learned per-feature weights (mean over partitions, dots: each partition)."
	case kind == "Q":
		return nf.Entry + " on " + nf.Dataset + ": the learned full metric Q (mean over partitions): off-diagonal entries as a heat map centred at 0, the diagonal as bars."
	}
	return nf.Name
}

// provenanceGroups lists, per dataset, where its data came from and what
// made its records (DatasetTable.Provenance).
func provenanceGroups(sum Summary) []htmlreport.KVGroup {
	var gs []htmlreport.KVGroup
	for _, t := range sum.Tables {
		p := t.Provenance
		if p == nil {
			continue
		}
		g := htmlreport.KVGroup{Title: "Dataset " + t.Dataset}
		add := func(k, v string) {
			if v != "" {
				g.Items = append(g.Items, htmlreport.KV{Key: k, Value: v})
			}
		}
		if p.Data != nil {
			for _, kv := range p.Data.Description() {
				add(kv[0], kv[1])
			}
		}
		if p.Study != "" {
			add("study", fmt.Sprintf("%s (sha256 %s)", p.Study, p.StudySHA256))
		}
		add("command", p.Command)
		add("kerneltune", p.Version)
		gs = append(gs, g)
	}
	return gs
}
