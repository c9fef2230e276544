package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// giChessboardTrial is one trial of Glasmachers & Igel's §3 experiment for
// one parameterisation: test error and SV fraction at the start and the end.
type giChessboardTrial struct {
	err0, err, sv0, sv, t0, t float64
	iter                      int
}

// giTestError returns the test error of the SVM in st (kernel of pr at st.B).
func giTestError(pr *giProblem, st *giState, test *dataio.Dataset) (float64, error) {
	kern, err := pr.kernelOf(st.B)
	if err != nil {
		return 0, err
	}
	var sv []int
	var coef []float64
	for i, c := range st.svm.Coef {
		if c != 0 {
			sv = append(sv, i)
			coef = append(coef, c)
		}
	}
	cross := kern.Cross(test.X, kernel.SelectRows(pr.X, sv))
	dec := solver.Decision(nil, cross, coef, st.svm.Bias)
	wrong := 0
	for i, v := range dec {
		if v*test.Y[i] <= 0 {
			wrong++
		}
	}
	return float64(wrong) / float64(len(dec)), nil
}

// TestGIChessboardEvidence reproduces Glasmachers & Igel 2005, §3 and
// Figure 1: chessboard d = 2, ℓ = 500, hard margin, 50 iRprop+ steps from the
// Jaakkola start, test error on 10,000 points, parameterisations A–E,
// averaged over trials. It is slow, so it runs only with
// KERNELTUNE_EVIDENCE=1 (KERNELTUNE_EVIDENCE_TRIALS sets the number of
// trials, default 20; KERNELTUNE_EVIDENCE_STEPS the steps, default 50, as
// the reference prototype). It asserts the paper's picture: D has a lower
// mean test error than A, B and C, and B and D keep far fewer support
// vectors than A, C and E; with 20 trials or more also the paper's §3 claim
// that D's final test error is significantly lower than every other's (here
// a paired sign test, p < 0.01; measured with the default 20 trials: D vs
// A, B, C, E wins 20/0, 18/2, 20/0, 17/3, mean error D 8.1 %, E 9.6 %).
func TestGIChessboardEvidence(t *testing.T) {
	if os.Getenv("KERNELTUNE_EVIDENCE") != "1" {
		t.Skip("set KERNELTUNE_EVIDENCE=1 to run the chessboard experiment")
	}
	trials := giEnvInt("KERNELTUNE_EVIDENCE_TRIALS", 20)
	// KERNELTUNE_EVIDENCE_MARGIN=l2 runs the tool's default margin instead
	// (L2, C from the baseline's grid search) for comparison.
	margin := os.Getenv("KERNELTUNE_EVIDENCE_MARGIN")
	if margin == "" {
		margin = "hard"
	}
	steps := giEnvInt("KERNELTUNE_EVIDENCE_STEPS", 50)
	const ntrain, ntest = 500, 10000
	params := giParamLetters()
	res := make([][]giChessboardTrial, len(params))
	for p := range res {
		res[p] = make([]giChessboardTrial, trials)
	}
	type job struct{ trial int }
	jobs := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobs {
				rng := rand.New(rand.NewPCG(uint64(jb.trial)+1, 0x6368)) // "ch"
				all, _ := dataio.Chessboard(ntrain+ntest, 2, 3, rng)
				idx := make([]int, ntrain+ntest)
				for i := range idx {
					idx[i] = i
				}
				train, test := all.Subset(idx[:ntrain]), all.Subset(idx[ntrain:])
				for p, name := range params {
					tr, err := giChessboardRun(train, test, name, margin, steps)
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = fmt.Errorf("trial %d, param %s: %w", jb.trial, name, err)
					}
					res[p][jb.trial] = tr
					mu.Unlock()
				}
			}
		}()
	}
	for k := 0; k < trials; k++ {
		jobs <- job{k}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "chessboard d=2, ℓ=%d, %s margin, %d steps, %d trials, test on %d points (mean ± std)\n", ntrain, margin, steps, trials, ntest)
	fmt.Fprintf(&b, "| param | test error start | test error end | SV fraction start | SV fraction end | T/(20ℓ) start | T/(20ℓ) end |\n|---|---|---|---|---|---|---|\n")
	meanErr := make([]float64, len(params))
	meanSV := make([]float64, len(params))
	for p, name := range params {
		col := func(f func(giChessboardTrial) float64) (float64, float64) {
			v := make([]float64, trials)
			for k, tr := range res[p] {
				v[k] = f(tr)
			}
			return sampleMeanStd(v)
		}
		e0, e0s := col(func(r giChessboardTrial) float64 { return r.err0 })
		e1, e1s := col(func(r giChessboardTrial) float64 { return r.err })
		s0, s0s := col(func(r giChessboardTrial) float64 { return r.sv0 })
		s1, s1s := col(func(r giChessboardTrial) float64 { return r.sv })
		t0, _ := col(func(r giChessboardTrial) float64 { return r.t0 / (20 * ntrain) })
		t1, _ := col(func(r giChessboardTrial) float64 { return r.t / (20 * ntrain) })
		meanErr[p], meanSV[p] = e1, s1
		fmt.Fprintf(&b, "| %s | %.3f ± %.3f | %.3f ± %.3f | %.2f ± %.2f | %.2f ± %.2f | %.3f | %.3f |\n", name, e0, e0s, e1, e1s, s0, s0s, s1, s1s, t0, t1)
	}
	// Paired comparison of D with each other parameterisation: trials where
	// D's test error is lower, and the exact two-sided sign test p-value.
	fmt.Fprintf(&b, "\nD vs X, paired over trials (ties dropped): wins of D / losses, sign-test p\n")
	signP := make([]float64, len(params))
	for p, name := range params {
		if p == 3 {
			continue
		}
		win, loss := 0, 0
		for k := range res[p] {
			switch dv, xv := res[3][k].err, res[p][k].err; {
			case dv < xv:
				win++
			case dv > xv:
				loss++
			}
		}
		signP[p] = giSignTest(win, loss)
		fmt.Fprintf(&b, "- D vs %s: %d / %d, p = %.2g\n", name, win, loss, signP[p])
		if win <= loss {
			signP[p] = 1 // no evidence for D
		}
	}
	t.Log("\n" + b.String())
	if path := os.Getenv("KERNELTUNE_EVIDENCE_OUT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if margin != "hard" {
		return // the paper's claims below are about the hard margin
	}
	// The paper's picture (A=0, B=1, C=2, D=3, E=4).
	for _, p := range []int{0, 1, 2} {
		if !(meanErr[3] < meanErr[p]) {
			t.Errorf("mean test error of D (%.3f) not below %s (%.3f)", meanErr[3], params[p], meanErr[p])
		}
	}
	for _, fixed := range []int{1, 3} {
		for _, free := range []int{0, 2, 4} {
			if !(meanSV[fixed] < meanSV[free]) {
				t.Errorf("SV fraction of %s (%.2f) not below %s (%.2f)", params[fixed], meanSV[fixed], params[free], meanSV[free])
			}
		}
	}
	if trials >= 20 {
		for p, name := range params {
			if p != 3 && !(signP[p] < 0.01) {
				t.Errorf("D's test error not significantly below %s's (sign test p = %.2g, paper: p < 0.01)", name, signP[p])
			}
		}
	}
}

// giChessboardRun tunes one parameterisation with the given margin and
// returns the start and end test errors and SV fractions.
func giChessboardRun(train, test *dataio.Dataset, param, margin string, steps int) (giChessboardTrial, error) {
	var out giChessboardTrial
	p, _, _ := parseGIParam(param)
	res, st, err := GISettings{Param: param, Margin: margin, Steps: steps, Tol: -1}.run(context.Background(), train)
	if err != nil {
		return out, err
	}
	// The start state (the same B = I/σ and C as Tune's).
	pr := &giProblem{X: train.X, y: train.Y, param: p, margin: solver.Hard}
	if margin == "l2" {
		pr.margin, pr.C = solver.L2, res.C
	}
	sigma, err := jaakkolaSigma(train.X, train.Y)
	if err != nil {
		return out, err
	}
	n := float64(train.Len())
	B0 := isoB(train.Dim(), sigma)
	st0, err := pr.eval(context.Background(), B0, nil)
	if err != nil {
		return out, err
	}
	if out.err0, err = giTestError(pr, st0, test); err != nil {
		return out, err
	}
	if out.err, err = giTestError(pr, st, test); err != nil {
		return out, err
	}
	out.sv0, out.sv = float64(st0.svm.NSV)/n, float64(st.svm.NSV)/n
	out.t0, out.t, out.iter = res.CriterionStart, res.CriterionEnd, res.Iter
	return out, nil
}

func giEnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// giSignTest returns the exact two-sided sign-test p-value of win successes
// against loss failures.
func giSignTest(win, loss int) float64 {
	n := win + loss
	if n == 0 {
		return 1
	}
	k := min(win, loss)
	// P(X ≤ k) for X ~ Bin(n, ½), doubled.
	p, c := 0.0, 1.0
	for i := 0; i <= k; i++ {
		if i > 0 {
			c = c * float64(n-i+1) / float64(i)
		}
		p += c
	}
	return math.Min(1, 2*p/math.Exp2(float64(n)))
}
