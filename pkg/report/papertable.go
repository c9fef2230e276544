package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// writeLaTeXPaperTable writes the layout of a paper's results table (e.g.
// Laanaya et al. 2011, Table 2) for two or more datasets: a booktabs
// tabular with the datasets as rows and the method entries as columns, each
// cell the mean ± std test accuracy (%) over the partitions, the best of a
// dataset in bold (every entry of a tie), and a mark where an entry differs
// significantly from the baseline (the tables' paired Wilcoxon p <
// WinTieLossAlpha): ^{+} higher, ^{-} lower. An entry with no finished run
// is "---". Nothing is written for fewer than two datasets, where the
// per-dataset table says it all.
func writeLaTeXPaperTable(w io.Writer, sum Summary) error {
	if len(sum.Tables) < 2 {
		return nil
	}
	var entries []string
	for _, t := range sum.Tables {
		for _, r := range t.Rows {
			entries = appendMissing(entries, []string{r.Entry})
		}
	}
	var b strings.Builder
	base := sum.Tables[0].Baseline
	fmt.Fprintf(&b, "\n\\begin{table}[htbp]\n\\centering\n\\caption{Test %s \\%% (mean $\\pm$ std over the partitions); best of each dataset in bold; $^{+}$/$^{-}$: significantly higher/lower than %s (two-sided paired Wilcoxon $p < %g$)}\n\\label{tab:kerneltune-summary}\n",
		latexEscaper.Replace(sum.Metric.Title()), latexEscaper.Replace(base), WinTieLossAlpha)
	fmt.Fprintf(&b, "\\begin{tabular}{l%s}\n\\toprule\n", strings.Repeat("c", len(entries)))
	b.WriteString("dataset")
	for _, e := range entries {
		b.WriteString(" & " + latexEscaper.Replace(e))
	}
	b.WriteString(" \\\\\n\\midrule\n")
	for _, t := range sum.Tables {
		b.WriteString(latexEscaper.Replace(t.Dataset))
		baseMean := math.NaN()
		for _, r := range t.Rows {
			if r.Entry == t.Baseline && r.Runs > 0 {
				baseMean = float64(r.MeanAcc)
			}
		}
		for _, e := range entries {
			b.WriteString(" & " + paperCell(t, e, baseMean))
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// paperCell is entry e's cell of dataset table t: mean ± std in percent,
// bold when best, with the significance mark against the baseline's mean.
func paperCell(t DatasetTable, e string, baseMean float64) string {
	for _, r := range t.Rows {
		if r.Entry != e {
			continue
		}
		if r.Runs == 0 {
			return "---"
		}
		std := "---"
		if !math.IsNaN(float64(r.StdAcc)) {
			std = Fixed(100*float64(r.StdAcc), 2)
		}
		cell := Fixed(100*float64(r.MeanAcc), 2) + " $\\pm$ " + std
		if r.Best {
			cell = "\\textbf{" + cell + "}"
		}
		if p := float64(r.P); p < WinTieLossAlpha && !math.IsNaN(baseMean) {
			switch m := float64(r.MeanAcc); {
			case m > baseMean:
				cell += "$^{+}$"
			case m < baseMean:
				cell += "$^{-}$"
			}
		}
		return cell
	}
	return "---"
}

// summaryMatrix is the paper's table as text (writeLaTeXPaperTable's
// layout, for the HTML report's lead): datasets as rows, method entries as
// columns, each cell the mean ± std test score (%), "*" on the best of a
// dataset (every entry of a tie) and "+"/"−" where an entry differs
// significantly from the baseline. nil for fewer than two datasets.
func summaryMatrix(sum Summary) *Table {
	if len(sum.Tables) < 2 {
		return nil
	}
	var entries []string
	for _, t := range sum.Tables {
		for _, r := range t.Rows {
			entries = appendMissing(entries, []string{r.Entry})
		}
	}
	base := sum.Tables[0].Baseline
	t := &Table{Title: fmt.Sprintf("Test %s %% (mean ± std over the partitions) on %d datasets", sum.Metric.Title(), len(sum.Tables)),
		Header: append([]string{"dataset"}, entries...)}
	for _, dt := range sum.Tables {
		baseMean := math.NaN()
		for _, r := range dt.Rows {
			if r.Entry == dt.Baseline && r.Runs > 0 {
				baseMean = float64(r.MeanAcc)
			}
		}
		row := []string{dt.Dataset}
		for _, e := range entries {
			row = append(row, matrixCell(dt, e, baseMean))
		}
		t.Add(row...)
	}
	t.Notes = []string{fmt.Sprintf("* the best of a dataset (ties all marked); +/− significantly higher/lower than %s (two-sided paired Wilcoxon p < %g); — no finished run", base, WinTieLossAlpha)}
	return t
}

// matrixCell is paperCell in text.
func matrixCell(t DatasetTable, e string, baseMean float64) string {
	for _, r := range t.Rows {
		if r.Entry != e {
			continue
		}
		if r.Runs == 0 {
			return "—"
		}
		cell := Fixed(100*float64(r.MeanAcc), 2)
		if !math.IsNaN(float64(r.StdAcc)) {
			cell += " ± " + Fixed(100*float64(r.StdAcc), 2)
		}
		if p := float64(r.P); p < WinTieLossAlpha && !math.IsNaN(baseMean) {
			switch m := float64(r.MeanAcc); {
			case m > baseMean:
				cell += " +"
			case m < baseMean:
				cell += " −"
			}
		}
		if r.Best {
			cell += " *"
		}
		return cell
	}
	return "—"
}
