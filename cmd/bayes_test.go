package cmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/report"
)

// bayesReference is testdata/crossdata/bayes_reference.json, what
// make_bayes_reference.py computes from run.jsonl with Python's standard
// library alone: the Student t CDF by numerical integration of the density,
// the Dirichlet draws with random.gammavariate (200000 of them).
type bayesReference struct {
	Datasets []string `json:"datasets"`
	Methods  []string `json:"methods"`
	Ropes    map[string]struct {
		CorrelatedT map[string]map[string]json.RawMessage `json:"correlated_t"`
		SignedRank  map[string][3]float64                 `json:"signed_rank"`
	} `json:"ropes"`
}

// signedRankTol is the Monte Carlo tolerance of the signed-rank test's
// probabilities: kerneltune's 50000 draws and the reference's 200000 have
// standard errors of at most 0.0022 and 0.0011 (p = ½), their difference
// at most 0.0025; 0.01 is four of those.
const signedRankTol = 0.01

// TestReportBayesianComparisonsMatchIndependentReference runs `kerneltune
// report testdata/crossdata/run.jsonl --rope R --format json` for R = 1 and
// 2 points and checks every P(worse), P(equivalent), P(better) of the
// correlated t-test per dataset to 1e-6 and of the signed-rank test across
// the five datasets to the Monte Carlo tolerance, against the reference.
func TestReportBayesianComparisonsMatchIndependentReference(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(cmdTestdata + "/crossdata/bayes_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref bayesReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Ropes) != 2 {
		t.Fatalf("reference has %d ROPEs, want 2", len(ref.Ropes))
	}
	for rope, want := range ref.Ropes {
		t.Run("rope="+rope, func(t *testing.T) {
			got, _ := runJSON[report.SummaryJSON](t, "report", crossRun, "--rope", rope)
			if r, _ := strconv.ParseFloat(rope, 64); got.Rope != r || got.Cross == nil || got.Cross.Rope != r {
				t.Fatalf("rope_points %v (across %v), want %s", got.Rope, got.Cross, rope)
			}
			checked := 0
			for _, tb := range got.Tables {
				wantDS := want.CorrelatedT[tb.Dataset]
				if wantDS == nil {
					t.Fatalf("no reference for dataset %s", tb.Dataset)
				}
				var rho float64
				if err := json.Unmarshal(wantDS["rho"], &rho); err != nil || math.Abs(float64(tb.Rho)-rho) > 1e-12 {
					t.Errorf("%s: ρ = %v, want %v", tb.Dataset, tb.Rho, rho)
				}
				for _, r := range tb.Rows {
					if r.Entry == "svm" {
						if r.Bayes.Valid() {
							t.Errorf("%s: the baseline has Bayesian probabilities %+v", tb.Dataset, r.Bayes)
						}
						continue
					}
					var p [3]float64
					if err := json.Unmarshal(wantDS[r.Entry], &p); err != nil {
						t.Fatalf("%s %s: %v", tb.Dataset, r.Entry, err)
					}
					g := [3]float64{float64(r.Bayes.Worse), float64(r.Bayes.Equivalent), float64(r.Bayes.Better)}
					for k := range g {
						if math.Abs(g[k]-p[k]) > 1e-6 {
							t.Errorf("%s %s (rope %s): correlated t-test P = %v, reference %v", tb.Dataset, r.Entry, rope, g, p)
							break
						}
					}
					checked++
				}
			}
			if checked != 15 {
				t.Errorf("checked %d (dataset, method) pairs, want 5 × 3", checked)
			}
			for j, m := range got.Cross.Methods {
				b := got.Cross.BayesSignedRank[j]
				if m == "svm" {
					if b != nil {
						t.Errorf("the baseline has a signed-rank test: %+v", b)
					}
					continue
				}
				p, ok := want.SignedRank[m]
				if !ok || b == nil {
					t.Fatalf("%s: signed-rank %v, reference %v", m, b, p)
				}
				g := [3]float64{float64(b.Worse), float64(b.Equivalent), float64(b.Better)}
				for k := range g {
					if math.Abs(g[k]-p[k]) > signedRankTol {
						t.Errorf("%s (rope %s): signed-rank P = %v, reference %v", m, rope, g, p)
						break
					}
				}
				if s := g[0] + g[1] + g[2]; math.Abs(s-1) > 1e-9 {
					t.Errorf("%s: signed-rank probabilities sum to %v", m, s)
				}
			}
		})
	}
}

// TestReportPrintsBayesianBesideFrequentist checks the text form: the
// per-dataset column beside the Wilcoxon p, its note with ρ, and the
// signed-rank table after Holm's.
func TestReportPrintsBayesianBesideFrequentist(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "report", crossRun)
	for _, want := range []string{
		"│ p vs svm │ P(worse/equiv/better) │",
		"│   0.0781 │        0.24/0.13/0.62 │", // a1a, lccp: reference 0.244/0.132/0.624; p exact over 8 tied pairs (issue 42)
		"more than 1 point of test accuracy below svm's",
		"ρ = n_test/(n_test+n_train) = 0.625 (Nadeau–Bengio)",
		"Bayesian signed-rank test against svm over the 5 datasets (ROPE ±1 point of test accuracy; Benavoli et al. 2017)",
		"│ rcsc     │    0.997 │         0.003 │     0.000 │", // reference 0.99696/0.00304/0
		"50000 Monte Carlo draws (seed 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report output lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "Holm's step-down"), strings.Index(out, "Bayesian signed-rank"); i < 0 || j < i {
		t.Errorf("the signed-rank table does not follow Holm's test")
	}
	// A ROPE of 0: the t posterior is continuous, P(equivalent) is 0.
	got, _ := runJSON[report.SummaryJSON](t, "report", crossRun, "--rope", "0")
	for _, r := range got.Tables[0].Rows[1:] {
		if r.Bayes.Equivalent != 0 || math.Abs(float64(r.Bayes.Worse+r.Bayes.Better)-1) > 1e-12 {
			t.Errorf("--rope 0: %s %+v", r.Entry, r.Bayes)
		}
	}
	for _, bad := range []string{"-1", "100", "NaN"} {
		_, errOut, code := runCLI(t, "report", crossRun, "--rope", bad)
		if code != 2 || !strings.Contains(errOut, "--rope") {
			t.Errorf("--rope %s: exit %d, want 2 with a message naming --rope:\n%s", bad, code, errOut)
		}
	}
}

// TestReportCSVHasBayesianColumns checks the csv columns of the per-dataset
// test.
func TestReportCSVHasBayesianColumns(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "report", crossRun, "--format", "csv")
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], ",complete,rope_points,p_worse,p_equivalent,p_better") {
		t.Fatalf("csv header: %s", lines[0])
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "a1a,lccp,") && !strings.Contains(l, ",1,0.2440384950") {
			t.Errorf("a1a lccp row lacks P(worse) 0.2440384950…: %s", l)
		}
	}
}

// TestReportHTMLDrawsBayesianComparisons: the page's "Across datasets"
// section holds the Bayesian figure: a bar per (method, dataset) with the
// correlated t-test's probabilities written in it, and a framed bar per
// method across the five datasets with the signed-rank test's.
func TestReportHTMLDrawsBayesianComparisons(t *testing.T) {
	t.Parallel()
	page := filepath.Join(t.TempDir(), "report.html")
	mustRun(t, "report", crossRun, "-q", "--html", page)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	i := strings.Index(html, `<h2 id="s-across-datasets">`)
	if i < 0 {
		t.Fatal("no Across datasets section")
	}
	across := html[i:]
	j := strings.Index(across, "Bayesian comparisons against the baseline (Benavoli et al. 2017), with a region of practical equivalence of ±1 point of test accuracy")
	if j < 0 {
		t.Fatalf("no Bayesian figure caption in the Across datasets section")
	}
	fig := across[strings.LastIndex(across[:j], "<figure>"):j]
	for _, want := range []string{
		">lccp against svm<", ">rcsc against svm<", ">twolevel against svm<",
		">a1a<", ">all 5 datasets<",
		">0.24<", ">0.62<", // a1a lccp: 0.244/0.132/0.624 (the segment of 0.13 is too narrow for text)
		">1.00<", // rcsc across datasets: P(worse) 0.997
	} {
		if !strings.Contains(fig, want) {
			t.Errorf("the Bayesian figure lacks %q", want)
		}
	}
	// 3 methods × (5 datasets + 1 across) bars, each of up to 3 segments;
	// the 3 frames of the bars across datasets.
	if n := strings.Count(fig, `stroke="#000000"`); n != 3 {
		t.Errorf("%d framed bars, want 3 (one across datasets per method)", n)
	}
	if n := strings.Count(fig, `text-anchor="end"`); n != 18 {
		t.Errorf("%d bar labels, want 18 (3 methods × 6)", n)
	}
}
