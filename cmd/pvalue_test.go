package cmd

import (
	"fmt"
	"strings"
	"testing"
)

// pairedRun writes a results file of five partitions of svm and lccp with
// the given test accuracies (percent).
func pairedRun(t *testing.T, svm, lccp []int) string {
	t.Helper()
	var b strings.Builder
	for k := range svm {
		for _, e := range []struct {
			m   string
			acc int
		}{{"svm", svm[k]}, {"lccp", lccp[k]}} {
			fmt.Fprintf(&b, `{"schema_version":1,"dataset":"toy","entry":"%s","method":"%s","partition":%d,"run":"r1","seed":1,"status":"converged","test_accuracy":%g,"nsv":10,"train_size":100,"test_size":100,"kernel":{"kind":"gaussian","gamma":0.5},"iterations":1,"svm_solves":1,"seconds":0.1,"grid":{"datasets":[{"name":"toy","partitions":%d}],"entries":["svm","lccp"]}}`+"\n",
				e.m, e.m, k, float64(e.acc)/100, len(svm))
		}
	}
	return writeFile(t, t.TempDir(), "run.jsonl", b.String())
}

// TestReportExactWilcoxonForFewPartitions: with five partitions where lccp
// beats svm on every one, by different margins, the two-sided p is the exact
// 2/2⁵ = 0.0625 (it was the normal approximation's 0.0591), and the footnote
// says so; with a tied difference it is exact too, over the signs of the
// mid-ranks (issue 42: the approximation's 0.0579 was below what five pairs
// can give), and the footnote says that.
func TestReportExactWilcoxonForFewPartitions(t *testing.T) {
	t.Parallel()
	svm := []int{80, 80, 80, 80, 80}
	out := mustRun(t, "report", pairedRun(t, svm, []int{81, 82, 83, 84, 85}))
	if !strings.Contains(out, " 0.0625 │") {
		t.Errorf("want p = 0.0625:\n%s", out)
	}
	if !strings.Contains(out, "over the partitions both finished (exact distribution)") {
		t.Errorf("the footnote does not say the p is exact:\n%s", out)
	}
	out = mustRun(t, "report", pairedRun(t, svm, []int{81, 81, 83, 84, 85}))
	// Ranks 1.5, 1.5, 3, 4, 5, all positive: W+ = 0 only when every sign
	// is positive, p = 2/32 (the approximation said 0.0579).
	if !strings.Contains(out, " 0.0625 │") {
		t.Errorf("want the exact p = 0.0625 over the signs of the mid-ranks:\n%s", out)
	}
	if !strings.Contains(out, "over the partitions both finished (exact distribution)") {
		t.Errorf("the footnote does not say the p is exact:\n%s", out)
	}
	// Thirty partitions with ties: the corrected approximation, said so.
	svm30, lccp30 := make([]int, 30), make([]int, 30)
	for k := range svm30 {
		svm30[k], lccp30[k] = 80, 80+k%4
	}
	if out := mustRun(t, "report", pairedRun(t, svm30, lccp30)); !strings.Contains(out, "(normal approximation with tie and continuity corrections, as over 13 pairs have tied or zero differences, or over 50 pairs in all)") {
		t.Errorf("the footnote does not say the p is approximate:\n%s", out)
	}
	js := mustRun(t, "report", pairedRun(t, svm, []int{81, 82, 83, 84, 85}), "--format", "json")
	if !strings.Contains(js, `"p_exact": true`) {
		t.Errorf("JSON does not mark the exact p:\n%s", js)
	}
}

// TestReportLaTeXPaperTable: with two or more datasets, --format latex ends
// with a paper's results table: datasets as rows, methods as columns,
// mean ± std, the best of each dataset in bold, and ^{+}/^{-} where a method
// is significantly higher/lower than the baseline. Six partitions all won
// give the exact p = 2/2⁶ = 0.03125 < 0.05; all lost likewise.
func TestReportLaTeXPaperTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	svm := []int{80, 80, 80, 80, 80, 80}
	for _, ds := range []string{"heart", "sonar"} {
		for k := range svm {
			for _, e := range []struct {
				m   string
				acc int
			}{{"svm", svm[k]}, {"lccp", svm[k] + k + 1}, {"rcsc", svm[k] - k - 1}} {
				if ds == "sonar" && e.m == "lccp" {
					e.acc = svm[k] + []int{1, -1, 2, -2, 3, 0}[k] // no significant difference
				}
				fmt.Fprintf(&b, `{"schema_version":1,"dataset":"%s","entry":"%s","method":"%s","partition":%d,"run":"r1","seed":1,"status":"converged","test_accuracy":%g,"nsv":10,"train_size":100,"test_size":100,"kernel":{"kind":"gaussian","gamma":0.5},"iterations":1,"svm_solves":1,"seconds":0.1,"grid":{"datasets":[{"name":"heart","partitions":6},{"name":"sonar","partitions":6}],"entries":["svm","lccp","rcsc"]}}`+"\n",
					ds, e.m, e.m, k, float64(e.acc)/100)
			}
		}
	}
	run := writeFile(t, t.TempDir(), "run.jsonl", b.String())
	out := mustRun(t, "report", run, "--format", "latex")
	i := strings.Index(out, "\\begin{table}[htbp]\n\\centering\n\\caption{Test accuracy \\% (mean")
	if i < 0 {
		t.Fatalf("no paper table:\n%s", out)
	}
	want := `\begin{table}[htbp]
\centering
\caption{Test accuracy \% (mean $\pm$ std over the partitions); best of each dataset in bold; $^{+}$/$^{-}$: significantly higher/lower than svm (two-sided paired Wilcoxon $p < 0.05$); partitions: heart 100 train / 100 test, rows of the data not recorded; sonar 100 train / 100 test, rows of the data not recorded}
\label{tab:kerneltune-summary}
\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%
\begin{tabular}{lccc}
\toprule
dataset & svm & lccp & rcsc \\
\midrule
heart & 80.00 $\pm$ 0.00 & \textbf{83.50 $\pm$ 1.87}$^{+}$ & 76.50 $\pm$ 1.87$^{-}$ \\
sonar & 80.00 $\pm$ 0.00 & \textbf{80.50 $\pm$ 1.87} & 76.50 $\pm$ 1.87$^{-}$ \\
\bottomrule
\end{tabular}%
}
\end{table}
`
	if got := out[i:]; got != want {
		t.Errorf("paper table:\n%s\nwant:\n%s", got, want)
	}
	// One dataset: the per-dataset table says it all.
	if out := mustRun(t, "report", pairedRun(t, svm[:5], []int{81, 82, 83, 84, 85}), "--format", "latex"); strings.Contains(out, "tab:kerneltune-summary") {
		t.Errorf("a paper table for one dataset:\n%s", out)
	}
}
