package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// paperPanel is the most entries a panel of the paper's table holds: three
// bold "83.47 ± 2.66" cells with a dataset's name fit an article's text
// width (345 pt) at 10 pt.
const paperPanel = 3

// writeLaTeXPaperTable writes the layout of a paper's results table (e.g.
// Laanaya et al. 2011, Table 2) for two or more datasets: booktabs
// tabulars with the datasets as rows and the method entries as columns,
// paperPanel entries each, one under the other, each
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
	fmt.Fprintf(&b, "\n\\begin{table}[htbp]\n\\centering\n\\caption{Test %s \\%% (mean $\\pm$ std over the partitions); best of each dataset in bold; $^{+}$/$^{-}$: significantly higher/lower than %s (two-sided paired Wilcoxon $p < %g$); %s}\n\\label{tab:kerneltune-summary}\n",
		latexEscaper.Replace(sum.Metric.Title()), latexEscaper.Replace(base), WinTieLossAlpha, latexEscaper.Replace(sizesNote(sum.Tables)))
	// The entries in panels of paperPanel columns, one tabular under the
	// other: six entries in one row of tabular are wider than an article.
	for start := 0; start < len(entries); start += paperPanel {
		part := entries[start:min(start+paperPanel, len(entries))]
		if start > 0 {
			b.WriteString("\\par\\medskip\n")
		}
		header := []string{"dataset"}
		for _, e := range part {
			header = append(header, latexEscaper.Replace(e))
		}
		var rows [][]string
		for _, t := range sum.Tables {
			baseMean := math.NaN()
			for _, r := range t.Rows {
				if r.Entry == t.Baseline && r.Runs > 0 {
					baseMean = float64(r.MeanAcc)
				}
			}
			row := []string{latexEscaper.Replace(t.Dataset)}
			for _, e := range part {
				row = append(row, paperCell(t, e, baseMean))
			}
			rows = append(rows, row)
		}
		writeLaTeXTabular(&b, "l"+strings.Repeat("c", len(part)), header, rows)
	}
	b.WriteString("\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// paperCell is entry e's cell of dataset table t: mean ± std in percent,
// bold when best, with the significance mark against the baseline's mean.
func paperCell(t DatasetTable, e string, baseMean float64) string {
	return tableCell(t, e, baseMean, cellStyle{none: "---", pm: " $\\pm$ ", noStd: " $\\pm$ ---",
		best: func(c string) string { return "\\textbf{" + c + "}" }, higher: "$^{+}$", lower: "$^{-}$"})
}

// cellStyle is how a results cell is written (LaTeX or text).
type cellStyle struct {
	none, pm, noStd string              // no finished run; "±" between mean and std; a std of one run
	best            func(string) string // marks the best of a dataset
	higher, lower   string              // the significance marks against the baseline
}

// tableCell is entry e's cell of dataset table t in style st: the mean ±
// std test score in percent, marked when best, with the significance mark
// against the baseline's mean (the tables' paired Wilcoxon p <
// WinTieLossAlpha).
func tableCell(t DatasetTable, e string, baseMean float64, st cellStyle) string {
	for _, r := range t.Rows {
		if r.Entry != e {
			continue
		}
		if r.Runs == 0 {
			return st.none
		}
		cell := Fixed(100*float64(r.MeanAcc), 2)
		if math.IsNaN(float64(r.StdAcc)) {
			cell += st.noStd
		} else {
			cell += st.pm + Fixed(100*float64(r.StdAcc), 2)
		}
		if r.Best {
			cell = st.best(cell)
		}
		if p := float64(r.P); p < WinTieLossAlpha && !math.IsNaN(baseMean) {
			switch m := float64(r.MeanAcc); {
			case m > baseMean:
				cell += st.higher
			case m < baseMean:
				cell += st.lower
			}
		}
		return cell
	}
	return st.none
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
	t.Notes = []string{fmt.Sprintf("* the best of a dataset (ties all marked); +/− significantly higher/lower than %s (two-sided paired Wilcoxon p < %g); — no finished run", base, WinTieLossAlpha),
		sizesNote(sum.Tables)}
	return t
}

// matrixCell is paperCell in text: "*" after the best, " +"/" −" for the
// significance marks.
func matrixCell(t DatasetTable, e string, baseMean float64) string {
	return tableCell(t, e, baseMean, cellStyle{none: "—", pm: " ± ", noStd: "",
		best: func(c string) string { return c + " *" }, higher: " +", lower: " −"})
}
