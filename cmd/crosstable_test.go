package cmd

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/report"
)

// testdata/crossdata/run.jsonl: compare of svm, lccp, rcsc and twolevel on
// five datasets, 8 partitions each (the command is in make_reference.py
// there). reference.json holds what scipy computes from the same file.
const crossRun = cmdTestdata + "/crossdata/run.jsonl"

type crossReference struct {
	Methods      []string  `json:"methods"`
	Datasets     []string  `json:"datasets"`
	AverageRanks []float64 `json:"average_ranks"`
	ChiSq        float64   `json:"chi2_f"`
	ChiSqP       float64   `json:"chi2_p"`
	ChiSqTies    float64   `json:"chi2_f_tie_corrected"`
	FF           float64   `json:"f_f"`
	DF1          int       `json:"df1"`
	DF2          int       `json:"df2"`
	FP           float64   `json:"f_p"`
	Nemenyi      map[string]struct {
		Q  float64 `json:"q"`
		CD float64 `json:"cd"`
	} `json:"nemenyi"`
	Holm []struct {
		Method string  `json:"method"`
		Z      float64 `json:"z"`
		P      float64 `json:"p"`
		Alpha  float64 `json:"alpha"`
		Reject bool    `json:"reject"`
	} `json:"holm"`
	WinTieLoss map[string][3]int `json:"win_tie_loss"`
}

func readCrossReference(t *testing.T) crossReference {
	t.Helper()
	b, err := os.ReadFile(cmdTestdata + "/crossdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r crossReference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// independentCross recomputes, from the raw records of a results file and
// with nothing of kerneltune's, the mean accuracy of each (dataset, method)
// over its successful partitions, the ranks (1 + the number of methods with
// a higher mean + half the number with an equal one), Demšar's χ²_F and F_F,
// and Holm's z. Datasets where a method has no successful run are skipped.
func independentCross(t *testing.T, file string, methods []string) (datasets []string, avg []float64, chi, ff float64, z map[string]float64) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum := map[string]map[string][]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Dataset, Entry, Status string
			TestAccuracy           float64 `json:"test_accuracy"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if sum[r.Dataset] == nil {
			sum[r.Dataset] = map[string][]float64{}
		}
		if r.Status != "failure" {
			sum[r.Dataset][r.Entry] = append(sum[r.Dataset][r.Entry], r.TestAccuracy)
		} else if _, ok := sum[r.Dataset][r.Entry]; !ok {
			sum[r.Dataset][r.Entry] = nil
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for d := range sum {
		datasets = append(datasets, d)
	}
	slices.Sort(datasets)
	k := float64(len(methods))
	avg = make([]float64, len(methods))
	var kept []string
	for _, d := range datasets {
		mean := make([]float64, len(methods))
		complete := true
		for j, m := range methods {
			as := sum[d][m]
			if len(as) == 0 {
				complete = false
				break
			}
			s := 0.0
			for _, a := range as {
				s += a
			}
			mean[j] = math.Round(s/float64(len(as))*1e9) / 1e9
		}
		if !complete {
			continue
		}
		kept = append(kept, d)
		for j := range methods {
			r := 1.0
			for i := range methods {
				if i != j && mean[i] > mean[j] {
					r++
				} else if i != j && mean[i] == mean[j] {
					r += 0.5
				}
			}
			avg[j] += r
		}
	}
	n := float64(len(kept))
	var sq float64
	for j := range avg {
		avg[j] /= n
		sq += avg[j] * avg[j]
	}
	chi = 12 * n / (k * (k + 1)) * (sq - k*(k+1)*(k+1)/4)
	ff = (n - 1) * chi / (n*(k-1) - chi)
	z = map[string]float64{}
	for j, m := range methods[1:] {
		z[m] = (avg[j+1] - avg[0]) / math.Sqrt(k*(k+1)/(6*n))
	}
	return kept, avg, chi, ff, z
}

// boxTable returns the cells of the box-drawn table printed under title,
// the header first.
func boxTable(t *testing.T, out, title string) [][]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	i := slices.Index(lines, title)
	if i < 0 {
		t.Fatalf("no table %q in\n%s", title, out)
	}
	var rows [][]string
	for _, l := range lines[i+1:] {
		if strings.HasPrefix(l, "└") {
			break
		}
		if !strings.HasPrefix(l, "│") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(l, "│"), "│") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// report over a run of 4 methods on 5 datasets prints the ranks, the
// Friedman and Iman–Davenport tests, the Nemenyi CDs and Holm's test; every
// number is checked against scipy (reference.json) and against a
// recomputation from the raw records here.
func TestReportPrintsStatisticsAcrossDatasets(t *testing.T) {
	t.Parallel()
	ref := readCrossReference(t)
	datasets, avg, chi, ff, z := independentCross(t, crossRun, ref.Methods)
	if !slices.Equal(datasets, ref.Datasets) {
		t.Fatalf("datasets %v, reference %v", datasets, ref.Datasets)
	}
	for j := range avg {
		if math.Abs(avg[j]-ref.AverageRanks[j]) > 1e-12 {
			t.Fatalf("independent average rank of %s %g, scipy %g", ref.Methods[j], avg[j], ref.AverageRanks[j])
		}
	}
	if math.Abs(chi-ref.ChiSq) > 1e-12 || math.Abs(ff-ref.FF) > 1e-12 {
		t.Fatalf("independent χ²_F %g F_F %g, scipy %g %g", chi, ff, ref.ChiSq, ref.FF)
	}

	out := mustRun(t, "report", crossRun)

	ranks := boxTable(t, out, "across 5 datasets: average rank of the mean test accuracy (1 = best; Demšar 2006)")
	if want := []string{"method", "average rank", "wins vs svm", "ties", "losses"}; !slices.Equal(ranks[0], want) {
		t.Errorf("rank table header %q, want %q", ranks[0], want)
	}
	// Rows by average rank, best first; svm 1.9, twolevel 2.2, lccp 2.3, rcsc 3.6.
	if got := []string{ranks[1][0], ranks[2][0], ranks[3][0], ranks[4][0]}; !slices.Equal(got, []string{"svm", "twolevel", "lccp", "rcsc"}) {
		t.Errorf("rank order %v", got)
	}
	for _, row := range ranks[1:] {
		j := slices.Index(ref.Methods, row[0])
		want := []string{row[0], report.Fixed(ref.AverageRanks[j], 3), "—", "—", "—"}
		if w, ok := ref.WinTieLoss[row[0]]; ok {
			want = []string{row[0], report.Fixed(ref.AverageRanks[j], 3), strconv.Itoa(w[0]), strconv.Itoa(w[1]), strconv.Itoa(w[2])}
		}
		if !slices.Equal(row, want) {
			t.Errorf("rank row %q, want %q", row, want)
		}
	}
	// The values themselves, so that a wrong reference cannot pass: rcsc
	// loses to svm on 3 datasets (Wilcoxon p < 0.05: bupa, breast-wisconsin,
	// heart), lccp on 1 (bupa).
	if !slices.Equal(ranks[4], []string{"rcsc", "3.600", "0", "2", "3"}) || !slices.Equal(ranks[3], []string{"lccp", "2.300", "0", "4", "1"}) {
		t.Errorf("rows %q %q", ranks[3], ranks[4])
	}

	fr := boxTable(t, out, "Friedman test: are the 4 methods equivalent over the 5 datasets?")
	wantF := [][]string{
		{"statistic", "value", "df", "p"},
		{"Friedman χ²_F", report.Fixed(ref.ChiSq, 3), "3", report.Sig(ref.ChiSqP, 3)},
		{"Iman–Davenport F_F", report.Fixed(ref.FF, 3), "3, 12", report.Sig(ref.FP, 3)},
	}
	if !slices.EqualFunc(fr, wantF, slices.Equal[[]string]) {
		t.Errorf("Friedman table %q, want %q", fr, wantF)
	}
	if !slices.Equal(fr[2], []string{"Iman–Davenport F_F", "2.061", "3, 12", "0.159"}) {
		t.Errorf("F_F row %q", fr[2])
	}
	if want := "tied ranks: χ²_F corrected for ties (as scipy.stats.friedmanchisquare) = " + report.Fixed(ref.ChiSqTies, 3); !strings.Contains(out, want) {
		t.Errorf("no %q (heart has svm and lccp tied at 83.00%%)", want)
	}

	nem := boxTable(t, out, "Nemenyi test: critical difference of average ranks (all pairs)")
	for i, a := range []string{"0.05", "0.1"} {
		c := ref.Nemenyi[a]
		row := nem[i+1]
		if row[1] != report.Fixed(c.Q, 3) || row[2] != report.Fixed(c.CD, 3) || row[3] != "{svm, twolevel, lccp, rcsc}" {
			t.Errorf("Nemenyi α=%s row %q, want q %s CD %s and one group of all four (3.6 − 1.9 = 1.7 < CD)", a, row, report.Fixed(c.Q, 3), report.Fixed(c.CD, 3))
		}
	}
	if nem[1][2] != "2.098" || nem[2][2] != "1.871" {
		t.Errorf("CD %s, %s; want 2.098 and 1.871 (2.569 and 2.291 × sqrt(20/30))", nem[1][2], nem[2][2])
	}

	holm := boxTable(t, out, "Holm's step-down test against svm (α = 0.05)")
	if len(holm) != 4 {
		t.Fatalf("Holm table has %d rows", len(holm))
	}
	for i, h := range ref.Holm {
		row := holm[i+1]
		j := slices.Index(ref.Methods, h.Method)
		want := []string{strconv.Itoa(i + 1), h.Method, report.Fixed(ref.AverageRanks[j], 3), report.Fixed(h.Z, 3),
			report.Sig(h.P, 3), report.Sig(h.Alpha, 3), row[6], "retain"}
		if !slices.Equal(row, want) {
			t.Errorf("Holm row %q, want %q", row, want)
		}
		if math.Abs(z[h.Method]-h.Z) > 1e-12 {
			t.Errorf("independent z of %s %g, scipy %g", h.Method, z[h.Method], h.Z)
		}
	}
	// rcsc: p = 0.0373 > 0.05/3, so Holm retains it (and, stepping down,
	// everything after it), while an unadjusted test would reject.
	if !slices.Equal(holm[1][:5], []string{"1", "rcsc", "3.600", "2.082", "0.0373"}) || holm[1][6] != "0.112" {
		t.Errorf("Holm step 1 %q", holm[1])
	}

	// JSON: the same numbers to full precision.
	js, _ := runJSON[crossJSON](t, "report", crossRun)
	c := js.Cross
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	// The datasets in order of first appearance in the file (report's
	// order for records without a grid); the reference lists them by name.
	if !slices.Equal(c.Methods, ref.Methods) || !slices.Equal(slices.Sorted(slices.Values(c.Names)), ref.Datasets) || c.Friedman.DF2 != 12 ||
		!close(c.Friedman.ChiSq, ref.ChiSq) || !close(c.Friedman.FF, ref.FF) || !close(c.Friedman.P, ref.FP) {
		t.Errorf("JSON %+v", c)
	}
	for j := range c.AvgRanks {
		if !close(c.AvgRanks[j], avg[j]) {
			t.Errorf("JSON average rank of %s %g, want %g", c.Methods[j], c.AvgRanks[j], avg[j])
		}
	}
	for i, h := range c.Holm {
		if h.Method != ref.Holm[i].Method || !close(h.Z, ref.Holm[i].Z) || !close(h.P, ref.Holm[i].P) {
			t.Errorf("JSON Holm %d: %+v, want %+v", i, h, ref.Holm[i])
		}
	}
	if len(c.Nemenyi) != 2 || !close(c.Nemenyi[0].CD, ref.Nemenyi["0.05"].CD) || len(c.Nemenyi[0].Groups) != 1 {
		t.Errorf("JSON Nemenyi %+v", c.Nemenyi)
	}
	if c.WinTieLoss[0] != nil || *c.WinTieLoss[2] != (struct{ Wins, Ties, Losses int }{0, 2, 3}) {
		t.Errorf("JSON win/tie/loss %v", c.WinTieLoss)
	}
}

// crossJSON is the part of report's JSON the tests read.
type crossJSON struct {
	Cross struct {
		Methods  []string  `json:"methods"`
		AvgRanks []float64 `json:"average_ranks"`
		Friedman struct {
			ChiSq float64 `json:"chi2_f"`
			FF    float64 `json:"f_f"`
			P     float64 `json:"p_value"`
			DF2   int     `json:"df2"`
		} `json:"friedman"`
		Nemenyi []struct {
			Alpha  float64    `json:"alpha"`
			CD     float64    `json:"cd"`
			Groups [][]string `json:"groups"`
		} `json:"nemenyi"`
		Holm []struct {
			Method string  `json:"method"`
			Z      float64 `json:"z"`
			P      float64 `json:"p_value"`
		} `json:"holm"`
		WinTieLoss []*struct{ Wins, Ties, Losses int } `json:"win_tie_loss"`
		Names      []string                            `json:"dataset_names"`
	} `json:"across_datasets"`
}

// A dataset where a method has no successful run is left out of the
// ranking, and the report says which and why; with fewer than two complete
// datasets there are no statistics, and a note says why.
func TestReportLeavesOutIncompleteDatasets(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(crossRun)
	if err != nil {
		t.Fatal(err)
	}
	// fail marks every record of entry on the datasets as failed.
	fail := func(entry string, datasets ...string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(string(src), "\n") {
			for _, d := range datasets {
				if strings.HasPrefix(l, `{"schema_version":1,"dataset":"`+d+`","entry":"`+entry+`"`) {
					l = strings.Replace(l, `"status":"`, `"status":"failure","was":"`, 1)
				}
			}
			b.WriteString(l)
		}
		p := filepath.Join(t.TempDir(), "run.jsonl")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := fail("lccp", "heart")
	ref := readCrossReference(t)
	datasets, avg, chi, ff, _ := independentCross(t, file, ref.Methods)
	if len(datasets) != 4 || slices.Contains(datasets, "heart") {
		t.Fatalf("independent datasets %v", datasets)
	}
	out := mustRun(t, "report", file)
	if !strings.Contains(out, "left out: heart (no successful run of lccp; the Friedman test needs every method on every dataset)") {
		t.Errorf("no left-out note in\n%s", out)
	}
	ranks := boxTable(t, out, "across 4 datasets: average rank of the mean test accuracy (1 = best; Demšar 2006)")
	for _, row := range ranks[1:] {
		j := slices.Index(ref.Methods, row[0])
		if row[1] != report.Fixed(avg[j], 3) {
			t.Errorf("%s: average rank %s, independent %s", row[0], row[1], report.Fixed(avg[j], 3))
		}
	}
	fr := boxTable(t, out, "Friedman test: are the 4 methods equivalent over the 4 datasets?")
	if fr[1][1] != report.Fixed(chi, 3) || fr[2][1] != report.Fixed(ff, 3) || fr[2][2] != "3, 9" {
		t.Errorf("Friedman rows %q, want χ²_F %s, F_F %s with (3, 9) df", fr[1:], report.Fixed(chi, 3), report.Fixed(ff, 3))
	}

	file = fail("rcsc", "a1a", "breast-wisconsin", "bupa_header_crlf", "diabetes")
	out, errOut, code := runCLI(t, "report", file)
	if code != 0 || strings.Contains(out, "Friedman") || !strings.Contains(errOut,
		"note: no statistics across datasets: fewer than 2 datasets have results for every method; excluded: breast-wisconsin (no results for rcsc); diabetes (no results for rcsc); bupa_header_crlf (no results for rcsc); a1a (no results for rcsc)") {
		t.Errorf("exit %d, stderr %q, Friedman in stdout: %v", code, errOut, strings.Contains(out, "Friedman"))
	}
}

// The other formats carry the same tables; csv stays one loadable table of
// the per-dataset rows, without the statistics across datasets.
func TestCrossTablesInEveryFormat(t *testing.T) {
	t.Parallel()
	md := mustRun(t, "report", crossRun, "--format", "markdown")
	if !strings.Contains(md, "**Friedman test: are the 4 methods equivalent over the 5 datasets?**") ||
		!strings.Contains(md, "| Iman–Davenport F_F | 2.061 | 3, 12 | 0.159 |") {
		t.Errorf("markdown lacks the Friedman table:\n%s", md)
	}
	tex := mustRun(t, "report", crossRun, "--format", "latex")
	for _, want := range []string{
		`Iman--Davenport $F_F$ & 2.061 & 3, 12 & 0.159 \\`,
		`step & method & \begin{tabular}[b]{@{}r@{}}average\\rank\end{tabular} & z & p & $\alpha/(k-i)$ & \begin{tabular}[b]{@{}r@{}}adjusted\\p\end{tabular} & decision \\`,
		`0.05 & 2.569 & 2.098 & \{svm, twolevel, lccp, rcsc\} \\`,
	} {
		if !strings.Contains(tex, want) {
			t.Errorf("latex lacks %q:\n%s", want, tex)
		}
	}
	out := mustRun(t, "report", crossRun, "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("csv does not load as one table: %v\n%s", err, out)
	}
	if len(recs) != 1+5*4 || recs[0][0] != "dataset" {
		t.Errorf("csv has %d rows (want a header and 20), header %q", len(recs), recs[0])
	}
}

// compare prints the same statistics after its per-dataset tables, from the
// records it has just written.
func TestComparePrintsStatisticsAcrossDatasets(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "run.jsonl")
	methods := []string{"svm", "rcsc", "twolevel"}
	out := mustRun(t, "compare", "builtin:heart", "builtin:breast-wisconsin", "--methods", strings.Join(methods, ","),
		"--partitions", "3", "--train-size", "40", "--test-size", "60", "--out", file)
	datasets, avg, chi, _, _ := independentCross(t, file, methods)
	if len(datasets) != 2 {
		t.Fatalf("datasets %v", datasets)
	}
	ranks := boxTable(t, out, "across 2 datasets: average rank of the mean test accuracy (1 = best; Demšar 2006)")
	if len(ranks) != 4 {
		t.Fatalf("rank table %q", ranks)
	}
	for _, row := range ranks[1:] {
		j := slices.Index(methods, row[0])
		if j < 0 || row[1] != report.Fixed(avg[j], 3) {
			t.Errorf("row %q, independent average rank %s", row, report.Fixed(avg[j], 3))
		}
	}
	fr := boxTable(t, out, "Friedman test: are the 3 methods equivalent over the 2 datasets?")
	if fr[1][1] != report.Fixed(chi, 3) || fr[2][2] != "2, 2" {
		t.Errorf("Friedman rows %q, want χ²_F %s and (2, 2) df", fr[1:], report.Fixed(chi, 3))
	}
	// The cross tables come after every per-dataset table.
	if i, j := strings.Index(out, "heart (3 partitions: 40 train / 60 test of 270 rows)\n"), strings.Index(out, "across 2 datasets"); i < 0 || j < i {
		t.Errorf("per-dataset table at %d, statistics across datasets at %d", i, j)
	}
}

// When every dataset ranks the methods alike, χ²_F reaches N(k−1) and the
// Iman–Davenport F_F is infinite; the table says so rather than print a
// bare p = 0.
func TestReportPerfectAgreement(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, d := range []string{"d1", "d2", "d3"} {
		for p := range 4 {
			for e, acc := range map[string]float64{"svm": 0.9, "rcsc": 0.8} {
				b.WriteString(`{"schema_version":1,"dataset":"` + d + `","entry":"` + e + `","method":"` + e + `","partition":` + strconv.Itoa(p) +
					`,"run":"aaaaaaaaaaaa","status":"converged","test_accuracy":` + strconv.FormatFloat(acc-0.01*float64(p), 'g', -1, 64) +
					`,"nsv":10,"train_size":40,"test_size":40,"iterations":1,"svm_solves":1,"seconds":0.1}` + "\n")
			}
		}
	}
	file := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "report", file)
	fr := boxTable(t, out, "Friedman test: are the 2 methods equivalent over the 3 datasets?")
	// χ²_F = 12·3/(2·3) [1² + 2² − 2·9/4] = 6 [5 − 4.5] = 3 = N(k−1).
	if !slices.Equal(fr[1], []string{"Friedman χ²_F", "3.000", "1", "0.0833"}) || !slices.Equal(fr[2], []string{"Iman–Davenport F_F", "inf", "1, 2", "0"}) {
		t.Errorf("Friedman rows %q", fr[1:])
	}
	if !strings.Contains(out, "every dataset ranks the methods alike: F_F is infinite and its p is 0") {
		t.Errorf("no note on the infinite F_F:\n%s", out)
	}
	var js struct {
		Cross struct {
			Friedman map[string]any `json:"friedman"`
		} `json:"across_datasets"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "report", file, "--format", "json")), &js); err != nil {
		t.Fatal(err)
	}
	if f := js.Cross.Friedman; f["f_f"] != nil || f["p_value"] != 0.0 || f["chi2_f"] != 3.0 {
		t.Errorf("JSON friedman %v, want f_f null and p_value 0", f)
	}
}
