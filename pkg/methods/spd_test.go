package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// normalizedSplit z-scores train and test with a normaliser fitted on train.
func normalizedSplit(t testing.TB, train, test *dataio.Dataset) (*dataio.Dataset, *dataio.Dataset, *dataio.Normalizer) {
	t.Helper()
	nz, err := dataio.FitNormalizer(dataio.ZScore, train.X)
	if err != nil {
		t.Fatal(err)
	}
	return nz.ApplyDataset(train), nz.ApplyDataset(test), nz
}

// westonSplit draws a fresh Weston sample of ntr + nte points (stream s) and
// returns its z-scored training and test parts.
func westonSplit(t testing.TB, ntr, nte int, seed uint64) (*dataio.Dataset, *dataio.Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x77))
	all := dataio.Weston(ntr+nte, 20, rng)
	idx := make([]int, ntr+nte)
	for i := range idx {
		idx[i] = i
	}
	tr, te, _ := normalizedSplit(t, all.Subset(idx[:ntr]), all.Subset(idx[ntr:]))
	return tr, te
}

// testAccuracy fits the final SVM of res on train and returns its accuracy on
// test (both already normalised).
func testAccuracy(t testing.TB, res *Result, train, test *dataio.Dataset) (float64, int) {
	t.Helper()
	fit, err := model.Fit(context.Background(), model.FitSettings{Train: train, Kernel: res.Kernel, Margin: model.L1, C: res.C})
	if err != nil {
		t.Fatal(err)
	}
	return fit.Model.Accuracy(test, true), fit.SVC.NSV
}

func spdLoadBuiltin(t testing.TB, name string) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Load("builtin:"+name, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// smallProblem builds an spdProblem on the first n rows of heart (z-scored),
// with K′ from the isotropic start and α solved to 1e-10.
func smallProblem(t *testing.T, n int, diag bool, rho float64) (*spdProblem, *mat.SymDense) {
	t.Helper()
	tr := heartHead(t, n)
	in, err := chooseInit(context.Background(), tr, "", Common{C: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := &spdProblem{X: tr.X, y: tr.Y, n: tr.Len(), d: tr.Dim(), diag: diag, rho: rho, C: in.C,
		s: solver.Settings{Eps: 1e-10}}
	p.Kref, err = p.gram(in.Q0)
	if err != nil {
		t.Fatal(err)
	}
	// A start away from Q0 (so that the regulariser's gradient is not 0)
	// and, for full Q, with off-diagonal entries.
	rng := rand.New(rand.NewPCG(3, 4))
	Q := mat.NewSymDense(p.d, nil)
	for i := 0; i < p.d; i++ {
		Q.SetSym(i, i, in.Q0.At(i, i)*(0.5+rng.Float64()))
		if !diag {
			for j := i + 1; j < p.d; j++ {
				Q.SetSym(i, j, 0.1*in.Q0.At(i, i)*(rng.Float64()-0.5))
			}
		}
	}
	return p, Q
}

// fdCheck compares the analytic derivative along each parameter direction of
// Q (the upper triangle, or the diagonal) with a central difference of f,
// step 1e-6·max(Q_kk, 1e-3), error measured against max(1, |fd|).
func fdCheck(t *testing.T, name string, p *spdProblem, Q, G *mat.SymDense, f func(Q *mat.SymDense) float64, tol float64) {
	t.Helper()
	d := p.d
	var kl [][2]int
	var x, steps, an []float64
	for k := 0; k < d; k++ {
		for l := k; l < d; l++ {
			if p.diag && l != k {
				continue
			}
			kl = append(kl, [2]int{k, l})
			x = append(x, Q.At(k, l))
			steps = append(steps, 1e-6*math.Max(Q.At(k, k), 1e-3))
			g := G.At(k, l)
			if k != l {
				g *= 2 // Q_kl and Q_lk move together
			}
			an = append(an, g)
		}
	}
	fq := func(x []float64) float64 {
		Qx := mat.NewSymDense(d, nil)
		Qx.CopySym(Q)
		for c, e := range kl {
			Qx.SetSym(e[0], e[1], x[c])
		}
		return f(Qx)
	}
	worst := fdcheck.Grad(t, name+": dw/dQ", fq, x, an, fdcheck.Settings{
		Steps: steps, Tol: tol, Scale: fdcheck.ScaleEntryOrOne,
		Label: func(_, c int) string { return fmt.Sprintf("[%d,%d]", kl[c][0], kl[c][1]) },
	})
	t.Logf("%s: worst relative error %.2e", name, worst)
}

// TestSPDGradientFixedAlpha checks eq. 21 (through kernel.GaussianGradQ and
// GaussianGradDiag) against finite differences of w at fixed α.
func TestSPDGradientFixedAlpha(t *testing.T) {
	for _, diag := range []bool{true, false} {
		name := map[bool]string{true: "diag", false: "full"}[diag]
		t.Run(name, func(t *testing.T) {
			p, Q := smallProblem(t, 40, diag, 0.3)
			K, err := p.gram(Q)
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.solve(context.Background(), K, nil)
			if err != nil {
				t.Fatal(err)
			}
			G := &mat.SymDense{}
			p.grad(G, K, res.Alpha)
			if mat.Norm(G, 2) == 0 {
				t.Fatal("gradient is zero: the check would be vacuous")
			}
			fdCheck(t, name, p, Q, G, func(Q *mat.SymDense) float64 {
				K, err := p.gram(Q)
				if err != nil {
					t.Fatal(err)
				}
				return p.value(K, res.Alpha)
			}, 1e-6)
		})
	}
}

// TestSPDGradientWholeChain checks the envelope gradient of the true
// criterion w(Q) = max_α(...) + ρ‖K - K′‖², α re-solved to 1e-10 at every
// point, against finite differences.
func TestSPDGradientWholeChain(t *testing.T) {
	for _, diag := range []bool{true, false} {
		name := map[bool]string{true: "diag", false: "full"}[diag]
		t.Run(name, func(t *testing.T) {
			p, Q := smallProblem(t, 40, diag, 0.3)
			ctx := context.Background()
			K, err := p.gram(Q)
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.solve(ctx, K, nil)
			if err != nil {
				t.Fatal(err)
			}
			G := &mat.SymDense{}
			p.grad(G, K, res.Alpha)
			fdCheck(t, name, p, Q, G, func(Q *mat.SymDense) float64 {
				K, err := p.gram(Q)
				if err != nil {
					t.Fatal(err)
				}
				r, err := p.solve(ctx, K, res.Alpha)
				if err != nil {
					t.Fatal(err)
				}
				return p.value(K, r.Alpha)
			}, 1e-4)
		})
	}
}

// TestSPDStepsDecrease runs outer iterations and checks that every step
// decreases w along the curve at fixed α, by a real amount at first, and
// that the true criterion w(Q) ends below its start.
func TestSPDStepsDecrease(t *testing.T) {
	for _, tc := range []struct {
		diag bool
		mode string
	}{{true, spdModePaper}, {false, spdModePaper}, {true, spdModeRiemannian}, {false, spdModeRiemannian}, {true, spdModeBacktrack}} {
		name := fmt.Sprintf("%v/%s", map[bool]string{true: "diag", false: "full"}[tc.diag], tc.mode)
		t.Run(name, func(t *testing.T) {
			p, Q := smallProblem(t, 60, tc.diag, 0.01)
			p.s = solver.Settings{}
			s, err := newSPDState(context.Background(), p, Q, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			w0 := s.w
			for it := 1; it <= 8; it++ {
				st, err := s.step(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if st.Stationary {
					break
				}
				if !(st.After < st.Before) {
					t.Errorf("iteration %d: w at fixed α went from %g to %g", it, st.Before, st.After)
				}
				if it == 1 && !(st.After < st.Before-1e-3*math.Abs(st.Before)) {
					t.Errorf("first step decreased w only from %g to %g", st.Before, st.After)
				}
			}
			// The true criterion (α re-solved) need not fall at every
			// step, but over eight paper steps it must.
			if tc.mode == spdModePaper && !(s.w < w0) {
				t.Errorf("w(Q) went from %g to %g after 8 iterations", w0, s.w)
			}
			t.Logf("w: %g -> %g", w0, s.w)
		})
	}
}

// TestLineMinimize checks the line search on a known function: it finds
// the minimiser of a quartic far beyond the first trial step, and one much
// closer than it.
func TestLineMinimize(t *testing.T) {
	for _, tc := range []struct{ xmin, eta0 float64 }{{3.7, 0.01}, {0.002, 1}, {1, 1}} {
		best, bestF := 0.0, math.Inf(1)
		phi := func(x float64) float64 {
			f := math.Pow(x-tc.xmin, 2) + 0.1*math.Pow(x-tc.xmin, 4)
			if f < bestF {
				best, bestF = x, f
			}
			return f
		}
		lineMinimize(phi, phi(0), tc.eta0, 100)
		if math.Abs(best-tc.xmin) > 2e-3*tc.xmin {
			t.Errorf("minimum at %g: found %g (from η0 = %g)", tc.xmin, best, tc.eta0)
		}
	}
}

// TestSPDWestonRanksRelevantFeatures tunes spd diag on one Weston sample and
// checks that diag(Q) ranks features 1 and 2 first and the test accuracy is
// far above the baseline's chance level.
func TestSPDWestonRanksRelevantFeatures(t *testing.T) {
	t.Parallel()
	tr, te := westonSplit(t, 100, 500, 1)
	res, err := SPDSettings{Common: Common{Seed: 1}}.tune(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	q := res.Kernel.Diag
	if len(q) != 52 {
		t.Fatalf("kernel %+v: want 52 diagonal entries", res.Kernel)
	}
	order := rankDesc(q)
	if !(order[0] <= 1 && order[1] <= 1) {
		t.Errorf("diag(Q) ranks features %d and %d first (1-based), want 1 and 2; q = %.3g", order[0]+1, order[1]+1, q[:4])
	}
	acc, _ := testAccuracy(t, res, tr, te)
	if acc < 0.85 {
		t.Errorf("test accuracy %.3f, want ≥ 0.85 (paper: 93.4%%)", acc)
	}
	if res.Status != status.Converged && res.Status != status.IterationLimit {
		t.Errorf("status %v", res.Status)
	}
	if !(res.CriterionEnd < res.CriterionStart) {
		t.Errorf("criterion %g -> %g did not decrease", res.CriterionStart, res.CriterionEnd)
	}
	t.Logf("acc %.3f, iters %d, solves %d, q1 %.3g q2 %.3g max noise %.3g, status %v, %v",
		acc, res.Iter, res.Solves, q[0], q[1], slices.Max(q[2:]), res.Status, res.Elapsed)
}

func rankDesc(q []float64) []int {
	order := make([]int, len(q))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return q[order[a]] > q[order[b]] })
	return order
}

// TestSPDEvidence is the closing note's evidence (KERNELTUNE_EVIDENCE=1;
// KERNELTUNE_EVIDENCE_PARTS, _DATA and _VARIANTS="rho=0.1;mode=lbfgs,..."
// change the run): Weston, partitions of 100/100 with a fresh sample each,
// svm vs spd diag; heart and breast-wisconsin, partitions of 100/100, svm vs
// spd full. Measured with 30 partitions (mean ± std test accuracy):
//
//	weston  svm 51.0 ± 5.2   spd diag 92.9 ± 2.9 (features 1–2 first in 29/30)
//	                         spd diag lbfgs 93.7 ± 2.4 (30/30), spd full 55.3 ± 5.0
//	heart   svm 82.6 ± 3.0   spd full 81.1 ± 3.3   spd diag 82.0 ± 2.9
//	breast  svm 96.1 ± 1.7   spd full 96.0 ± 1.9   spd diag 96.3 ± 2.0
//
// (paper, 30 partitions: Weston 51.28 vs 93.36; heart 85.97 vs 92.93; breast
// 92.24 vs 94.75, with hyperparameters chosen on test partitions.)
//
// It asserts that picture for the default spd: on Weston at least 30 points
// above the baseline and ≥ 88 %, features 1–2 first in ≥ 80 % of the
// partitions; on heart and breast at most 3 points below the baseline.
func TestSPDEvidence(t *testing.T) {
	if os.Getenv("KERNELTUNE_EVIDENCE") == "" {
		t.Skip("set KERNELTUNE_EVIDENCE=1 to run the evidence experiments")
	}
	ctx := context.Background()
	parts := 10
	if v := os.Getenv("KERNELTUNE_EVIDENCE_PARTS"); v != "" {
		fmt.Sscan(v, &parts)
	}
	type variant struct {
		name string
		spec Spec
	}
	spdVariants := func(param string) []variant {
		vs := []variant{{"svm", SVMSettings{}}, {"spd " + param, SPDSettings{Param: param}}}
		if extra := os.Getenv("KERNELTUNE_EVIDENCE_VARIANTS"); extra != "" {
			for _, v := range strings.Split(extra, ";") {
				o := SPDSettings{Param: param}
				for _, kv := range strings.Split(v, ",") {
					k, val, _ := strings.Cut(kv, "=")
					switch k {
					case "rho":
						fmt.Sscan(val, &o.Rho)
					case "mode":
						o.Mode = val
					case "init":
						o.Init = val
					case "C":
						fmt.Sscan(val, &o.C)
					case "param":
						o.Param = val
					case "tol":
						fmt.Sscan(val, &o.Tol)
					case "iter":
						fmt.Sscan(val, &o.MaxIter)
					}
				}
				vs = append(vs, variant{"spd " + v, o})
			}
		}
		return vs
	}
	// run returns the mean test accuracy of each variant and the number of
	// partitions in which the second variant (the default spd) ranks
	// features 1 and 2 first.
	run := func(dataset string, vs []variant, split func(p int) (*dataio.Dataset, *dataio.Dataset)) (means []float64, top12 int) {
		accs := make([][]float64, len(vs))
		ranks := map[string]int{}
		for p := 0; p < parts; p++ {
			tr, te := split(p)
			for v, vr := range vs {
				c := vr.spec.Base()
				c.Seed = uint64(p + 1)
				res, err := vr.spec.WithBase(c).tune(ctx, tr)
				if err != nil {
					t.Fatalf("%s %s partition %d: %v", dataset, vr.name, p, err)
				}
				acc, nsv := testAccuracy(t, res, tr, te)
				accs[v] = append(accs[v], acc)
				extra := ""
				if q := res.Kernel.Diag; len(q) > 0 && dataset == "weston" {
					o := rankDesc(q)
					extra = fmt.Sprintf(" top features %d,%d", o[0]+1, o[1]+1)
					ranks[fmt.Sprintf("%s: %d,%d", vr.name, min(o[0], o[1])+1, max(o[0], o[1])+1)]++
					if v == 1 && max(o[0], o[1]) == 1 {
						top12++
					}
				}
				t.Logf("%s p%d %-28s acc %.2f nsv %3d iters %3d %v %s%s", dataset, p, vr.name, acc, nsv, res.Iter, res.Status, res.Elapsed.Round(1e6), extra)
			}
		}
		for v, vr := range vs {
			m, s := sampleMeanStd(accs[v])
			t.Logf("SUMMARY %s %-28s %.2f ± %.2f %%", dataset, vr.name, 100*m, 100*s)
			means = append(means, m)
		}
		for k, c := range ranks {
			t.Logf("RANK %s %s: %d/%d partitions", dataset, k, c, parts)
		}
		return means, top12
	}
	which := os.Getenv("KERNELTUNE_EVIDENCE_DATA")
	if which == "" || strings.Contains(which, "weston") {
		m, top12 := run("weston", spdVariants("diag"), func(p int) (*dataio.Dataset, *dataio.Dataset) {
			return westonSplit(t, 100, 100, uint64(100+p))
		})
		if !(m[1] >= 0.88 && m[1] >= m[0]+0.30) {
			t.Errorf("weston: spd diag %.3f against svm %.3f, want ≥ 0.88 and ≥ svm + 0.30", m[1], m[0])
		}
		if 5*top12 < 4*parts {
			t.Errorf("weston: features 1–2 ranked first in %d/%d partitions, want ≥ 80 %%", top12, parts)
		}
	}
	for _, name := range []string{"heart", "breast-wisconsin"} {
		if which != "" && !strings.Contains(which, name) {
			continue
		}
		d := spdLoadBuiltin(t, name)
		splits, err := dataio.Partitions(d.Y, dataio.PartitionOptions{K: parts, TrainSize: 100, TestSize: 100}, 7)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := run(name, spdVariants("full"), func(p int) (*dataio.Dataset, *dataio.Dataset) {
			tr, te, _ := normalizedSplit(t, d.Subset(splits[p].Train), d.Subset(splits[p].Test))
			return tr, te
		})
		if !(m[1] >= m[0]-0.03) {
			t.Errorf("%s: spd full %.3f against svm %.3f, want at most 3 points below", name, m[1], m[0])
		}
	}
}

// sampleMeanStd returns the mean and the sample standard deviation of v.
func sampleMeanStd(v []float64) (float64, float64) {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	if len(v) > 1 {
		s = math.Sqrt(s / float64(len(v)-1))
	}
	return m, s
}

// TestSPDChartGradient checks the lbfgs mode's chart (log-diagonal,
// log-Cholesky) and its pull-back of eq. 21 against finite differences of
// the true criterion in θ (α re-solved to 1e-10).
func TestSPDChartGradient(t *testing.T) {
	t.Parallel()
	for _, diag := range []bool{true, false} {
		name := map[bool]string{true: "diag", false: "full"}[diag]
		t.Run(name, func(t *testing.T) {
			p, Q := smallProblem(t, 40, diag, 0.3)
			ctx := context.Background()
			chart := spdChart{diag: diag, d: p.d}
			theta, err := chart.coords(Q)
			if err != nil {
				t.Fatal(err)
			}
			Qb, _ := chart.point(theta)
			if !mat.EqualApprox(Qb, Q, 1e-12) {
				t.Fatal("chart.point(chart.coords(Q)) != Q")
			}
			f := func(th []float64) (float64, []float64) {
				Q, L := chart.point(th)
				K, err := p.gram(Q)
				if err != nil {
					t.Fatal(err)
				}
				r, err := p.solve(ctx, K, nil)
				if err != nil {
					t.Fatal(err)
				}
				G := &mat.SymDense{}
				p.grad(G, K, r.Alpha)
				g := make([]float64, len(th))
				chart.pullBack(g, G, Q, L)
				return p.value(K, r.Alpha), g
			}
			_, g := f(theta)
			worst := fdcheck.Grad(t, "∂w/∂θ", func(th []float64) float64 { v, _ := f(th); return v }, theta, g,
				fdcheck.Settings{Tol: 1e-4, Scale: fdcheck.ScaleEntryOrOne})
			t.Logf("worst relative error %.2e over %d coordinates", worst, len(theta))
		})
	}
}

// TestSPDModesDecreaseCriterion: every mode ends with a lower w(Q) than it
// started with, reports a status, and lbfgs records a decreasing trace.
func TestSPDModesDecreaseCriterion(t *testing.T) {
	t.Parallel()
	tr := heartHead(t, 80)
	for _, param := range []string{"diag", "full"} {
		for _, mode := range spdModes {
			res, err := SPDSettings{Param: param, Mode: mode, MaxIter: 15}.tune(context.Background(), tr)
			if err != nil {
				t.Fatalf("%s/%s: %v", param, mode, err)
			}
			if !(res.CriterionEnd < res.CriterionStart) {
				t.Errorf("%s/%s: w %g -> %g", param, mode, res.CriterionStart, res.CriterionEnd)
			}
			if res.Status != status.Converged && res.Status != status.IterationLimit {
				t.Errorf("%s/%s: status %v", param, mode, res.Status)
			}
			if mode == spdModeLBFGS {
				for i := 1; i < len(res.Trace); i++ {
					if res.Trace[i].Objective > res.Trace[i-1].Objective {
						t.Errorf("lbfgs %s: w rose at iteration %d: %g -> %g", param, i, res.Trace[i-1].Objective, res.Trace[i].Objective)
					}
				}
			}
			if mode != spdModePaper && len(res.Notes) == 0 {
				t.Errorf("%s/%s: a non-paper mode must say so in the notes", param, mode)
			}
		}
	}
}

// TestSPDLBFGSRun checks the lbfgs mode's use of gonum: one SVM solve per
// point although gonum asks for w and ∂w/∂θ separately, MaxIter accepted
// steps then IterationLimit, a trace that matches the result, the end of
// the line search as Converged, and a cancellation that stops the run.
func TestSPDLBFGSRun(t *testing.T) {
	t.Parallel()
	tr := heartHead(t, 80)
	res, err := SPDSettings{Param: "full", Mode: spdModeLBFGS, MaxIter: 3, Tol: 1e-12}.tune(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.IterationLimit || res.Iter != 3 || len(res.Trace) != 4 {
		t.Errorf("MaxIter 3: status %v, %d iterations, %d trace steps; want iteration-limit, 3, 4", res.Status, res.Iter, len(res.Trace))
	}
	if res.Trace[0].Objective != res.CriterionStart || res.Trace[len(res.Trace)-1].Objective != res.CriterionEnd {
		t.Errorf("trace %v does not run from w = %g to %g", res.Trace, res.CriterionStart, res.CriterionEnd)
	}
	// Without the shared evaluation every accepted point costs two solves.
	if res.Solves >= 2*(res.Iter+1) {
		t.Errorf("%d solves for %d accepted points: w and its gradient are solved apart", res.Solves, res.Iter+1)
	}
	for i, st := range res.Trace[1:] {
		if !(st.StepSize > 0) {
			t.Errorf("step %d: step size %g", i+1, st.StepSize)
		}
	}

	// With Tol far below the SVM solver's accuracy the run ends when the
	// line search finds no decrease: converged, and the notes say why.
	res, err = SPDSettings{Mode: spdModeLBFGS, MaxIter: 1000, Tol: 1e-15}.tune(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.Converged || res.Iter >= 1000 || !strings.Contains(strings.Join(hint.Strings(res.Notes), "|"), "line search found no further decrease") {
		t.Errorf("Tol 1e-15: status %v after %d iterations, notes %q", res.Status, res.Iter, res.Notes)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var steps []Step
	rec := func(st Step) {
		if steps = append(steps, st); st.Iter == 2 {
			cancel()
		}
	}
	_, err = SPDSettings{Common: Common{Recorder: rec}, Param: "full", Mode: spdModeLBFGS, Tol: 1e-12}.tune(ctx, tr)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "spd: iteration 3") {
		t.Errorf("cancelled at iteration 2: got %v, want context.Canceled at iteration 3", err)
	}
	if len(steps) != 3 {
		t.Errorf("cancelled after iteration 2, the run recorded %d steps", len(steps))
	}
}

// TestSPDInits checks the three starts and the degenerate-start warning.
func TestSPDInits(t *testing.T) {
	t.Parallel()
	tr := heartHead(t, 60)
	ctx := context.Background()
	h, err := chooseInit(ctx, tr, "", Common{})
	if err != nil {
		t.Fatal(err)
	}
	if med := medianKernel(tr, h.gamma0); math.Abs(med-math.Exp(-2)) > 1e-6 || h.C != 1 || len(h.notes) != 0 {
		t.Errorf("heuristic: median K %g (want e^-2), C %g, notes %v", med, h.C, h.notes)
	}
	s, err := chooseInit(ctx, tr, "sigma=0.01", Common{C: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.gamma0 != 1/(2*0.01*0.01) || s.C != 3 || len(s.notes) != 1 || !strings.Contains(s.notes[0].String(), "degenerate") {
		t.Errorf("sigma=0.01: γ0 %g, C %g, notes %v (want a degenerate-kernel warning)", s.gamma0, s.C, s.notes)
	}
	c, err := chooseInit(ctx, tr, "cv", Common{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := gridSearchCV(ctx, tr, Common{Seed: 4}, Space{})
	if c.gamma0 != g.Gamma || c.C != g.C || c.solves != g.Solves || !strings.HasPrefix(c.desc, "cv") {
		t.Errorf("cv start (%g, %g, %d) != grid search %+v", c.gamma0, c.C, c.solves, g)
	}
	if c.Q0.At(0, 0) != 2*g.Gamma || c.Q0.At(0, 1) != 0 {
		t.Errorf("Q0 = 2γI expected, got Q0[0,0] = %g", c.Q0.At(0, 0))
	}
}

func TestSPDCanceledAndBreakdown(t *testing.T) {
	tr := heartHead(t, 40)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := SPDSettings{}.tune(ctx, tr)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	// A non-finite criterion (here forced through ρ = +Inf: w = +∞ away
	// from Q0) is a breakdown naming the method and the iteration, where it
	// first appears: at the start, since the w of a solve can go straight
	// into the Result (the last iteration's).
	p, Q := smallProblem(t, 30, true, math.Inf(1))
	_, err = spdAlgorithm1(context.Background(), p, Q, spdConfig{mode: spdModePaper, maxIter: 5, tol: 1e-3}, func(Step) {})
	var be *BreakdownError
	if !errors.As(err, &be) || be.Method != "spd" || be.Iter != 0 || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("ρ = +Inf: error %v, want a breakdown at iteration 0 saying w is not finite", err)
	}
	if err := spdBreakdown(context.Background(), 7, errors.New("x")); !errors.As(err, &be) || be.Iter != 7 || !strings.HasSuffix(err.Error(), "spd: iteration 7: x") {
		t.Errorf("breakdown error %v", err)
	}
}

// BenchmarkSPDTune: whole spd runs, diag on Weston (n = 100, d = 52) and full
// on heart (n = 100, d = 13), 20 outer iterations each.
func BenchmarkSPDTune(b *testing.B) {
	weston, _ := westonSplit(b, 100, 1, 1)
	heart := heartHead(b, 100)
	for _, bc := range []struct {
		name string
		d    *dataio.Dataset
		s    SPDSettings
	}{
		{"weston/diag", weston, SPDSettings{Param: "diag", MaxIter: 20, Tol: 1e-12}},
		{"heart/full", heart, SPDSettings{Param: "full", MaxIter: 20, Tol: 1e-12}},
		{"heart/full/lbfgs", heart, SPDSettings{Param: "full", Mode: "lbfgs", MaxIter: 20, Tol: 1e-12}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.s.tune(context.Background(), bc.d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A degenerate given start says so and advises the default start by name
// (issue 35: it advised --init heuristic to users already on it).
func TestSPDDegenerateStartNote(t *testing.T) {
	d := heartHead(t, 60)
	res, err := SPDSettings{Common: Common{Seed: 1, C: 1}, Init: "sigma=1000", MaxIter: 1}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range res.Notes {
		if strings.Contains(n.String(), "the start kernel is degenerate") {
			found = true
			if !strings.Contains(n.String(), "prefer init=heuristic (the default") {
				t.Errorf("note %q does not name the default start", n)
			}
		}
	}
	if !found {
		t.Errorf("no degenerate-start note for sigma = 1000: %q", res.Notes)
	}
}

// TestSPDGramRecycles: a Gram the line search hands back (recycle) is
// written over by the next gram where the kernel's route can (one-hot rows,
// diagonal metric), with the values of a new one; where it cannot (heart's
// rows, a full metric) spd stops keeping a spare, so that none outlives its
// use.
func TestSPDGramRecycles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, d := 120, 12
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		X.Set(i, rng.IntN(4), 1)
		X.Set(i, 4+rng.IntN(8), 1)
		y[i] = float64(2*(i%2) - 1)
	}
	p := &spdProblem{X: X, y: y, n: n, d: d, diag: true}
	diagQ := func(s float64) *mat.SymDense {
		Q := mat.NewSymDense(d, nil)
		for k := range d {
			Q.SetSym(k, k, s*float64(1+k%3))
		}
		return Q
	}
	K1, err := p.gram(diagQ(0.1))
	if err != nil {
		t.Fatal(err)
	}
	p.recycle(K1)
	K2, err := p.gram(diagQ(0.3))
	if err != nil {
		t.Fatal(err)
	}
	if K2 != K1 || p.spare != nil || p.noReuse {
		t.Fatalf("one-hot rows: the recycled Gram not reused (same matrix %v, spare %v, noReuse %v)", K2 == K1, p.spare != nil, p.noReuse)
	}
	q := make([]float64, d)
	for k := range q {
		q[k] = 0.3 * float64(1+k%3)
	}
	g, _ := kernel.NewGaussianDiag(q)
	if want := g.Gram(X); !mat.Equal(K2, want) {
		t.Fatal("one-hot rows: the reused Gram's values differ from a new one's")
	}

	hp, Q := smallProblem(t, 60, false, 0.1)
	Ka, err := hp.gram(Q)
	if err != nil {
		t.Fatal(err)
	}
	hp.recycle(Ka)
	Kb, err := hp.gram(Q)
	if err != nil {
		t.Fatal(err)
	}
	if Kb == Ka || !hp.noReuse || hp.spare != nil {
		t.Fatalf("full metric: new matrix %v, noReuse %v, spare held %v", Kb != Ka, hp.noReuse, hp.spare != nil)
	}
	if hp.recycle(Kb); hp.spare != nil {
		t.Error("full metric: recycle kept a spare after GramInto could not reuse one")
	}
}
