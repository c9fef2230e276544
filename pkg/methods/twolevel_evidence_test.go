package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// tlTestError trains the final L2 SVM on train with spec and C and returns
// its test error (%) and number of support vectors.
func tlTestError(ctx context.Context, t *testing.T, spec kernel.Spec, C float64, train, test *dataio.Dataset) (float64, int) {
	t.Helper()
	correct, nsv := rlTestCorrect(ctx, t, &Result{Kernel: spec, Margin: solver.L2, C: C}, train, test)
	return 100 * float64(test.Len()-correct) / float64(test.Len()), nsv
}

// tlBaselineError runs the svm baseline on train and returns its test error (%).
func tlBaselineError(ctx context.Context, t *testing.T, train, test *dataio.Dataset) float64 {
	t.Helper()
	res, err := SVMSettings{Common: Common{Seed: 1}}.tune(ctx, train)
	if err != nil {
		t.Fatal(err)
	}
	correct, _ := rlTestCorrect(ctx, t, res, train, test)
	return 100 * float64(test.Len()-correct) / float64(test.Len())
}

// tlNormalise z-scores train and test with the training part's statistics,
// as the tool does by default.
func tlNormalise(t *testing.T, train, test *dataio.Dataset) (*dataio.Dataset, *dataio.Dataset) {
	t.Helper()
	nz, err := dataio.FitNormalizer(dataio.ZScore, train.X)
	if err != nil {
		t.Fatal(err)
	}
	return nz.ApplyDataset(train), nz.ApplyDataset(test)
}

func tlFigures(res *Result) string {
	var b strings.Builder
	for _, f := range res.Figures {
		fmt.Fprintf(&b, "%s=%.4g ", f.Name, f.Value)
	}
	return b.String()
}

// TestTwoLevelEvidence reproduces Schittkowski's protocol on a1a (his adu1new:
// 401 SVM / 802 validation / 402 test rows, Table 2: e* 17.91, e0 25.62 test
// error) and on the first IDA banana realisations (his banana split was
// 250/500/250 of a different draw; Table 2: e* 12.00, e0 12.80), iso and diag,
// beside the svm baseline. Set KERNELTUNE_EVIDENCE=1 (TL_BANANA=N for N
// banana realisations, default 2).
//
// Measured (seed 1, test error %, e* ← e0 of the same split, svm baseline;
// the default mode "select", with mode "paper" where it differs):
//
//	a1a iso   15.17 ← 17.66 (paper 17.91 ← 25.62), svm 16.42; ν* 5e-6, p* 3e-8, 25 it
//	a1a diag  18.16 ← 17.66 (paper 19.90 ← 25.62), svm 16.42; n_r 23 (paper 40), 200 it
//	banana #1–5 iso  13.18 12.41 11.04 11.45 10.22 (mean 11.66; paper 12.00), svm mean 11.46
//	banana #1–5 diag 12.82 12.02 11.04 11.84 10.22 (mean 11.59; paper 11.20);
//	                 mode "paper" 13.18 12.02 11.04 11.82 10.22 (mean 11.66)
//
// (select returned an earlier iterate only on banana #1 and #4 diag: 28 of 52
// and 56 of 59.)
//
// On a1a the iso run follows a valley p/ν ≈ 0.006 towards the linear-kernel
// limit (p, ν → 0); the paper's (p*, ν*) = (0.0019, 0.34) lies on the same
// ratio (0.0056). On banana ν* = 16–73 with all points support vectors, as
// the paper's ν* = 11, sv* = 94%; p hits its bound 100 on two realisations.
func TestTwoLevelEvidence(t *testing.T) {
	if os.Getenv("KERNELTUNE_EVIDENCE") == "" {
		t.Skip("evidence run: set KERNELTUNE_EVIDENCE=1")
	}
	ctx := context.Background()
	var table strings.Builder
	fmt.Fprintf(&table, "\n| data | param | e* test %% | e0 test %% | paper e*/e0 | svm baseline %% | sv* %% | sv0 %% | μ* | μ0 | ν* | p* / p̄* (n_r) | n_it | status | time |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	jobs := tlEvidenceJobs(t)
	for _, jb := range jobs {
		base := tlBaselineError(ctx, t, jb.train, jb.test)
		for _, param := range []string{"iso", "diag"} {
			start := time.Now()
			res, err := TwoLevelSettings{Common: Common{Seed: 1}, Param: param}.tune(ctx, jb.train)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(start)
			eStar, _ := tlTestError(ctx, t, res.Kernel, res.C, jb.train, jb.test)
			// The start point on the caller's scale.
			_, scale, _ := tlMinMax(jb.train.X)
			p0 := make([]float64, jb.train.Dim())
			for k := range p0 {
				p0[k] = 1 / float64(len(p0))
			}
			spec0, err := tlCallerKernel(p0, scale)
			if err != nil {
				t.Fatal(err)
			}
			e0, _ := tlTestError(ctx, t, spec0, 1/tlNu0, jb.train, jb.test)
			fig := map[string]float64{}
			for _, f := range res.Figures {
				fig[f.Name] = f.Value
			}
			pcol := fmt.Sprintf("%.3g", fig["p*"])
			if param == "diag" {
				pcol = fmt.Sprintf("%.3g (%g)", fig["p̄*"], fig["n_r"])
			}
			fmt.Fprintf(&table, "| %s | %s | %.2f | %.2f | %s | %.2f | %.0f | %.0f | %.4f | %.4f | %.3g | %s | %d | %v | %.1fs |\n",
				jb.name, param, eStar, e0, jb.paper[param], base, fig["sv* %"], fig["sv0 %"], fig["μ*"], fig["μ0"], fig["ν*"], pcol, res.Iter, res.Status, el.Seconds())
			t.Logf("%s %s: %s criterion %.4g → %.4g, solves %d, notes %v", jb.name, param, tlFigures(res), res.CriterionStart, res.CriterionEnd, res.Solves, res.Notes)
		}
	}
	t.Log(table.String())
}

// tlEvidenceJob is one data set of the paper-evidence run.
type tlEvidenceJob struct {
	name        string
	train, test *dataio.Dataset
	paper       map[string]string
}

// tlEvidenceJobs returns a1a split 1203/402 (seed 1) and the first TL_BANANA
// (default 2) IDA banana realisations, z-scored on their training parts.
func tlEvidenceJobs(t *testing.T) []tlEvidenceJob {
	t.Helper()
	var jobs []tlEvidenceJob
	// a1a: 1605 rows, split 1203 training (401 + 802 inside the method) / 402 test.
	a1a, err := dataio.Load("../../testdata/libsvm/a1a", dataio.ReadOptions{Features: 123})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 0x61316131))
	perm := rng.Perm(a1a.Len())
	tr, te := tlNormalise(t, a1a.Subset(slices.Sorted(slices.Values(perm[:1203]))), a1a.Subset(slices.Sorted(slices.Values(perm[1203:]))))
	jobs = append(jobs, tlEvidenceJob{"a1a (adu1new)", tr, te, map[string]string{"iso": "17.91 / 25.62", "diag": "19.90 / 25.62"}})
	reals := 2
	if s := os.Getenv("TL_BANANA"); s != "" {
		fmt.Sscan(s, &reals)
	}
	for r := 0; r < reals; r++ {
		d, err := dataio.Load("../../testdata/ida/banana", dataio.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sp := d.Splits[r]
		tr, te := tlNormalise(t, d.Subset(sp.Train), d.Subset(sp.Test))
		jobs = append(jobs, tlEvidenceJob{fmt.Sprintf("banana #%d", r+1), tr, te, map[string]string{"iso": "12.00 / 12.80", "diag": "11.20 / 12.80"}})
	}
	return jobs
}

// tlHeartPartition reproduces partition k of `kerneltune compare
// builtin:heart` with its defaults (seed 1, 30 partitions of 100/100, z-score
// fitted on the training part) and the method seed compare gives that job.
func tlHeartPartition(t testing.TB, k int) (train, test *dataio.Dataset, seed uint64) {
	return tlComparePartition(t, "builtin:heart", k)
}

// tlComparePartition is tlHeartPartition for any data set compare reads.
func tlComparePartition(t testing.TB, path string, k int) (train, test *dataio.Dataset, seed uint64) {
	t.Helper()
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	splits, err := dataio.Partitions(d.Y, dataio.PartitionOptions{K: 30, TrainSize: 100, TestSize: 100}, 1)
	if err != nil {
		t.Fatal(err)
	}
	nz, err := dataio.FitNormalizer(dataio.ZScore, d.Subset(splits[k].Train).X)
	if err != nil {
		t.Fatal(err)
	}
	// experiment.JobSeed (which methods may not import): rand.NewPCG(seed, "expmet" stream + k).
	seed = rand.New(rand.NewPCG(1, 0x6578_706d_6574_0000+uint64(k))).Uint64()
	return nz.ApplyDataset(d.Subset(splits[k].Train)), nz.ApplyDataset(d.Subset(splits[k].Test)), seed
}

// TestTwoLevelHeartIterates prints, for the heart partitions of `compare`
// listed in TL_HEART (default 20,21,26,5,18), every SQP iterate's p, ν,
// validation errors and Σ max(0, -f_i): the diagnosis of the degenerate
// valleys of eq. 12. Set KERNELTUNE_EVIDENCE=1.
func TestTwoLevelHeartIterates(t *testing.T) {
	if os.Getenv("KERNELTUNE_EVIDENCE") == "" {
		t.Skip("evidence run: set KERNELTUNE_EVIDENCE=1")
	}
	parts := []int{20, 21, 26, 5, 18}
	if s := os.Getenv("TL_HEART"); s != "" {
		parts = nil
		for _, f := range strings.Split(s, ",") {
			var k int
			fmt.Sscan(f, &k)
			parts = append(parts, k)
		}
	}
	ctx := context.Background()
	for _, k := range parts {
		for _, param := range []string{"iso", "diag"} {
			train, test, seed := tlHeartPartition(t, k)
			res, its, err := tlTune(ctx, train, TwoLevelSettings{Common: Common{Seed: seed}, Param: param, Mode: "paper"})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, it := range its {
				p0 := 1 / float64(train.Dim())
				pp := p0 * math.Exp(it.w[0])
				if param == "diag" {
					var s float64
					for _, v := range it.w[:len(it.w)-1] {
						s += p0 * v
					}
					pp = s / float64(len(it.w)-1)
				}
				spec, err := tlCallerKernel(slices.Repeat([]float64{pp}, train.Dim()), tlScale(train))
				if err != nil {
					t.Fatal(err)
				}
				te := -1.0
				if param == "iso" {
					te, _ = tlTestError(ctx, t, spec, 1/(tlNu0*math.Exp(it.w[len(it.w)-1])), train, test)
				}
				fmt.Fprintf(&b, "  it %3d  p %-10.4g ν %-10.4g errs %2d  Σmax(0,-f) %-9.4g test%% %.0f\n", it.iter, pp, tlNu0*math.Exp(it.w[len(it.w)-1]), it.errs, it.crit, te)
			}
			t.Logf("heart partition %d %s: %s\n%s", k, param, tlFigures(res), b.String())
		}
	}
}

func tlScale(d *dataio.Dataset) []float64 {
	_, s, _ := tlMinMax(d.X)
	return s
}

// TestTwoLevelIterateDump writes one CSV line per SQP iterate (paper mode) on
// the 30 compare partitions of TL_DUMP_DATA (default builtin:heart; "evidence"
// for the data sets of TestTwoLevelEvidence) into the
// file TL_DUMP: partition, param, iter, validation errors, Σ max(0,-f),
// Σ|f|, test error % of the final SVM at that iterate. For studying selection
// rules offline.
func TestTwoLevelIterateDump(t *testing.T) {
	out := os.Getenv("TL_DUMP")
	if out == "" {
		t.Skip("set TL_DUMP=file")
	}
	path := os.Getenv("TL_DUMP_DATA")
	if path == "" {
		path = "builtin:heart"
	}
	ctx := context.Background()
	var b strings.Builder
	type part struct {
		train, test *dataio.Dataset
		seed        uint64
	}
	var parts []part
	if path == "evidence" {
		for _, jb := range tlEvidenceJobs(t) {
			parts = append(parts, part{jb.train, jb.test, 1})
		}
	} else {
		for k := 0; k < 30; k++ {
			train, test, seed := tlComparePartition(t, path, k)
			parts = append(parts, part{train, test, seed})
		}
	}
	for k, pt := range parts {
		for _, param := range []string{"iso", "diag"} {
			train, test := pt.train, pt.test
			_, its, err := tlTune(ctx, train, TwoLevelSettings{Common: Common{Seed: pt.seed}, Param: param, Mode: "paper"})
			if err != nil {
				t.Fatal(err)
			}
			dim := train.Dim()
			p0 := 1 / float64(dim)
			for _, it := range its {
				p := make([]float64, dim)
				for j := range p {
					if param == "diag" {
						p[j] = p0 * it.w[j]
					} else {
						p[j] = p0 * math.Exp(it.w[0])
					}
				}
				spec, err := tlCallerKernel(p, tlScale(train))
				if err != nil {
					t.Fatal(err)
				}
				te, _ := tlTestError(ctx, t, spec, 1/(tlNu0*math.Exp(it.w[len(it.w)-1])), train, test)
				fmt.Fprintf(&b, "%d,%s,%d,%d,%g,%g,%g\n", k, param, it.iter, it.errs, it.crit, it.abs, te)
			}
		}
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
