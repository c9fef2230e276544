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
