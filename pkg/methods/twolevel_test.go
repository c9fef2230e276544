package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// tlToy returns a noisy two-class problem in [0,1]^d whose first two features
// carry the class (an XOR-like pattern) and the rest are noise.
func tlToy(n, d int, seed uint64) *dataio.Dataset {
	rng := rand.New(rand.NewPCG(seed, 99))
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		for k := range row {
			row[k] = rng.Float64()
		}
		v := (row[0] - 0.5) * (row[1] - 0.5)
		if v+0.05*rng.NormFloat64() > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return &dataio.Dataset{Name: "toy", X: X, Y: y}
}

func tlToyProblem(t *testing.T, n, nt, d int) *tlProblem {
	t.Helper()
	ds := tlToy(n+nt, d, 5)
	_, _, Xs := tlMinMax(ds.X)
	idx := make([]int, n+nt)
	for i := range idx {
		idx[i] = i
	}
	return &tlProblem{
		X: kernel.SelectRows(Xs, idx[:n]), Xv: kernel.SelectRows(Xs, idx[n:]),
		y: ds.Y[:n], yv: ds.Y[n:], n: n, nt: nt, m: d,
		set: solver.Settings{Eps: 1e-5},
	}
}

// TestTwoLevelDerivatives checks Theorem 2.1 (∂α, ∂γ) and eq. 24 (∂f, with the
// corrected parenthesis in ∂f/∂ν) against central differences of the polished
// SVM solution, for every p_k and for ν.
func TestTwoLevelDerivatives(t *testing.T) {
	ctx := context.Background()
	for _, nu := range []float64{0.05, 1} {
		tp := tlToyProblem(t, 60, 80, 4)
		p := []float64{3, 2, 0.5, 1}
		if err := tp.eval(ctx, p, nu); err != nil {
			t.Fatal(err)
		}
		dp := mat.NewDense(tp.nt, tp.m, nil)
		dnu := make([]float64, tp.nt)
		if err := tp.grad(dp, dnu); err != nil {
			t.Fatal(err)
		}
		free := slices.Clone(tp.free)
		dGamma := slices.Clone(tp.dGamma)
		dAlpha := mat.DenseCopyOf(tp.dAlpha)
		if len(free) == tp.n || len(free) < 5 {
			t.Fatalf("ν = %g: %d of %d free: the test needs both free and bound α", nu, len(free), tp.n)
		}
		// y = (γ, α_i for i free, f_1 … f_nt) as a function of
		// x = (p_1 … p_m, ν), each step 1e-6 relative to its coordinate.
		m, nf := tp.m, len(free)
		at := func(y, x []float64) {
			if err := tp.eval(ctx, slices.Clone(x[:m]), x[m]); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tp.free, free) {
				t.Fatalf("ν = %g: the free set changed under a 1e-6 perturbation, at %v", nu, x)
			}
			y[0] = tp.gamma
			for c, i := range free {
				y[1+c] = tp.alpha[i]
			}
			copy(y[1+nf:], tp.f)
		}
		x := append(slices.Clone(p), nu)
		steps := make([]float64, len(x))
		for k, v := range x {
			steps[k] = 1e-6 * v
		}
		jac := mat.NewDense(1+nf+tp.nt, m+1, nil)
		for k := 0; k <= m; k++ {
			jac.Set(0, k, dGamma[k])
			for c := range free {
				jac.Set(1+c, k, dAlpha.At(c, k))
			}
			for l := 0; l < tp.nt; l++ {
				if k < m {
					jac.Set(1+nf+l, k, dp.At(l, k))
				} else {
					jac.Set(1+nf+l, k, dnu[l])
				}
			}
		}
		label := func(i, k int) string {
			name := "ν"
			if k < m {
				name = "p_" + itoaTL(k+1)
			}
			switch {
			case i == 0:
				return " ∂γ/∂" + name
			case i <= nf:
				return fmt.Sprintf(" ∂α_%d/∂%s", free[i-1], name)
			default:
				return fmt.Sprintf(" ∂f_%d/∂%s", i-1-nf, name)
			}
		}
		// Each entry within 1e-5·max(1, |fd|), a little tighter than the
		// 1e-5·(1 + |fd|) this test first had.
		fdcheck.Jacobian(t, fmt.Sprintf("ν=%g", nu), at, x, jac,
			fdcheck.Settings{Steps: steps, Scale: fdcheck.ScaleEntryOrOne, Label: label})
	}
}

func itoaTL(v int) string { return string(rune('0' + v)) }

// TestTwoLevelPolish checks that the polished inner solution satisfies the KKT
// conditions (14) far more tightly than SMO's tolerance: Aα - e - γy = u with
// u_I = 0, u_J ≥ 0, yᵀα = 0, α ≥ 0.
func TestTwoLevelPolish(t *testing.T) {
	tp := tlToyProblem(t, 80, 10, 3)
	if err := tp.eval(context.Background(), []float64{2, 2, 2}, 0.01); err != nil {
		t.Fatal(err)
	}
	n := tp.n
	inI := make([]bool, n)
	for _, i := range tp.free {
		inI[i] = true
	}
	var ya float64
	for j := 0; j < n; j++ {
		ya += tp.y[j] * tp.alpha[j]
		var s float64
		for i := 0; i < n; i++ {
			s += tp.K.At(j, i) * tp.y[i] * tp.alpha[i]
		}
		u := tp.y[j]*s + 0.01*tp.alpha[j] - 1 - tp.gamma*tp.y[j]
		switch {
		case inI[j] && (math.Abs(u) > 1e-10 || tp.alpha[j] <= 0):
			t.Errorf("free α_%d = %g with u = %g", j, tp.alpha[j], u)
		case !inI[j] && (u < -1e-9 || tp.alpha[j] != 0):
			t.Errorf("bound α_%d = %g with u = %g", j, tp.alpha[j], u)
		}
	}
	if math.Abs(ya) > 1e-12 {
		t.Errorf("yᵀα = %g", ya)
	}
}

func TestTwoLevelSplit(t *testing.T) {
	ds := tlToy(301, 2, 1)
	a, b, err := tlSplit(ds.Y, 7)
	if err != nil {
		t.Fatal(err)
	}
	a2, b2, _ := tlSplit(ds.Y, 7)
	if !slices.Equal(a, a2) || !slices.Equal(b, b2) {
		t.Error("the split is not deterministic for a fixed seed")
	}
	a3, _, _ := tlSplit(ds.Y, 8)
	if slices.Equal(a, a3) {
		t.Error("seeds 7 and 8 gave the same split")
	}
	seen := make([]int, len(ds.Y))
	for _, i := range a {
		seen[i]++
	}
	for _, i := range b {
		seen[i]++
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("row %d appears %d times in the two parts", i, c)
		}
	}
	count := func(idx []int, label float64) int {
		c := 0
		for _, i := range idx {
			if ds.Y[i] == label {
				c++
			}
		}
		return c
	}
	for _, lab := range []float64{-1, 1} {
		na, nb := count(a, lab), count(b, lab)
		if want := int(math.Round(float64(na+nb) / 3)); na != want {
			t.Errorf("class %g: %d of %d rows in the SVM part, want %d (1:2)", lab, na, na+nb, want)
		}
	}
	if _, _, err := tlSplit([]float64{1, 1, 1, -1}, 1); err == nil {
		t.Error("a class with one row: want an error")
	}
}

// TestTwoLevelCallerKernel: the kernel returned on the caller's scale equals
// the paper's exp(-Σ p_k Δ_k²) on the [0,1]-scaled rows.
func TestTwoLevelCallerKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	X := mat.NewDense(20, 3, nil)
	for i := 0; i < 20; i++ {
		X.Set(i, 0, 10*rng.NormFloat64())
		X.Set(i, 1, 0.1*rng.NormFloat64())
		X.Set(i, 2, 5) // constant feature
	}
	_, scale, Xs := tlMinMax(X)
	for i := 0; i < 20; i++ {
		for k := 0; k < 2; k++ {
			if v := Xs.At(i, k); v < 0 || v > 1 {
				t.Fatalf("scaled value %g outside [0,1]", v)
			}
		}
	}
	for _, p := range [][]float64{{0.7, 0.7, 0.7}, {2, 0, 0.3}} {
		spec, err := tlCallerKernel(p, scale)
		if err != nil {
			t.Fatal(err)
		}
		k, err := kernel.FromSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			for j := 0; j < 20; j++ {
				var s float64
				for c := 0; c < 3; c++ {
					d := Xs.At(i, c) - Xs.At(j, c)
					s += p[c] * d * d
				}
				if got, want := k.Eval(X.RawRowView(i), X.RawRowView(j)), math.Exp(-s); math.Abs(got-want) > 1e-12 {
					t.Fatalf("p %v: k(x_%d, x_%d) = %g on the caller's scale, %g on the [0,1] scale", p, i, j, got, want)
				}
			}
		}
	}
}

// tlBananaNoise returns the first IDA banana training realisation with two
// standard-normal noise features appended.
func tlBananaNoise(t *testing.T) *dataio.Dataset {
	tr, _ := tlLoadBanana(t, 0)
	n := tr.Len()
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(n, 4, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, tr.X.At(i, 0))
		X.Set(i, 1, tr.X.At(i, 1))
		X.Set(i, 2, rng.NormFloat64())
		X.Set(i, 3, rng.NormFloat64())
	}
	tr.X = X
	return tr
}

// TestTwoLevelTune runs the method on the first IDA banana realisation (iso)
// and on banana with two noise features (diag): it must lower the validation
// criterion and the validation error, report the paper's figures, be
// deterministic, and (diag) switch the noise features (nearly) off.
func TestTwoLevelTune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	banana, _ := tlLoadBanana(t, 0)
	for _, tc := range []struct {
		param   string
		ds      *dataio.Dataset
		maxIter int
	}{{"iso", banana, 100}, {"diag", tlBananaNoise(t), 100}} {
		t.Run(tc.param, func(t *testing.T) {
			var steps []Step
			rec := func(s Step) { steps = append(steps, s) }
			res, err := TwoLevelSettings{Common: Common{Seed: 1, Recorder: rec}, Param: tc.param, MaxIter: tc.maxIter}.tune(ctx, tc.ds)
			if err != nil {
				t.Fatal(err)
			}
			if res.Method != "twolevel" || res.Margin != solver.L2 || !(res.C > 0) || res.Kernel.Kind != kernel.KindGaussian {
				t.Fatalf("result %+v", res)
			}
			if !(res.CriterionEnd < 0.5*res.CriterionStart) {
				t.Errorf("criterion %g → %g: want at least halved", res.CriterionStart, res.CriterionEnd)
			}
			if len(steps) != res.Iter+1 || len(res.Trace) != len(steps) {
				t.Errorf("%d recorder calls, %d trace steps, %d iterations", len(steps), len(res.Trace), res.Iter)
			}
			fig := map[string]float64{}
			for _, f := range res.Figures {
				fig[f.Name] = f.Value
			}
			for _, name := range []string{"e* (validation %)", "e0 (validation %)", "sv* %", "sv0 %", "μ*", "μ0", "ν*", "n_it"} {
				if _, ok := fig[name]; !ok {
					t.Errorf("figure %q missing", name)
				}
			}
			if !(fig["e* (validation %)"] < fig["e0 (validation %)"]) {
				t.Errorf("validation error %g%% → %g%%: want a clear decrease", fig["e0 (validation %)"], fig["e* (validation %)"])
			}
			if math.Abs(fig["ν*"]-1/res.C) > 1e-12*fig["ν*"] {
				t.Errorf("ν* = %g but C = %g", fig["ν*"], res.C)
			}
			t.Logf("%s: %s status %v, criterion %.4g → %.4g, kernel %+v", tc.param, tlFigures(res), res.Status, res.CriterionStart, res.CriterionEnd, res.Kernel)
			if !tlRace {
				again, err := TwoLevelSettings{Common: Common{Seed: 1}, Param: tc.param, MaxIter: tc.maxIter}.tune(ctx, tc.ds)
				if err != nil {
					t.Fatal(err)
				}
				if again.C != res.C || !slices.Equal(again.Kernel.Diag, res.Kernel.Diag) || again.Kernel.Gamma != res.Kernel.Gamma {
					t.Error("two runs with the same seed differ")
				}
			}
			if tc.param == "diag" {
				q := res.Kernel.Diag
				if 20*max(q[2], q[3]) > min(q[0], q[1]) {
					t.Errorf("q = %v: the noise features 3–4 should weigh less than a twentieth of the banana features 1–2", q)
				}
			}
		})
	}
}

func TestTwoLevelOptionErrors(t *testing.T) {
	ctx := context.Background()
	ds := tlToy(60, 2, 1)
	// twolevel has only the L2 margin (no Margin field): the old
	// {Margin: "l1"} row is the command line's check now.
	for _, s := range []TwoLevelSettings{{Param: "full"}, {Common: Common{C: 1}}, {Mode: "robust"}} {
		if _, err := s.tune(ctx, ds); err == nil {
			t.Errorf("settings %+v: want an error", s)
		}
	}
	one := &dataio.Dataset{X: mat.NewDense(3, 1, []float64{1, 2, 3}), Y: []float64{1, 1, 1}}
	if _, err := (TwoLevelSettings{}).tune(ctx, one); err == nil {
		t.Error("one class: want an error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (TwoLevelSettings{}).tune(cctx, ds); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// tlLoadBanana returns the IDA banana realisation r (training, test).
func tlLoadBanana(t testing.TB, r int) (train, test *dataio.Dataset) {
	t.Helper()
	d, err := dataio.Load("../../testdata/ida/banana", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sp := d.Splits[r]
	return d.Subset(sp.Train), d.Subset(sp.Test)
}

// BenchmarkTwoLevelEvalGrad measures one function and derivative evaluation
// of the outer problem (inner SVM solve, polish, Theorem 2.1, eq. 24) on the
// first banana realisation (133 SVM / 267 validation rows).
func BenchmarkTwoLevelEvalGrad(b *testing.B) {
	tr, _ := tlLoadBanana(b, 0)
	sIdx, vIdx, err := tlSplit(tr.Y, 1)
	if err != nil {
		b.Fatal(err)
	}
	_, _, Xs := tlMinMax(tr.X)
	tp := &tlProblem{
		X: kernel.SelectRows(Xs, sIdx), Xv: kernel.SelectRows(Xs, vIdx),
		y: pick(tr.Y, sIdx), yv: pick(tr.Y, vIdx),
		n: len(sIdx), nt: len(vIdx), m: tr.Dim(), set: solver.Settings{Eps: tlEps},
	}
	dp := mat.NewDense(tp.nt, tp.m, nil)
	dnu := make([]float64, tp.nt)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := tp.eval(ctx, []float64{5, 5}, 0.1); err != nil {
			b.Fatal(err)
		}
		if err := tp.grad(dp, dnu); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTwoLevelChoose: the latest iterate within one standard error of the
// fewest validation errors, never above the start's count.
func TestTwoLevelChoose(t *testing.T) {
	mk := func(errs ...int) []tlIterate {
		its := make([]tlIterate, len(errs))
		for i, e := range errs {
			its[i] = tlIterate{iter: i, errs: e}
		}
		return its
	}
	for _, tc := range []struct {
		errs  []int
		want  int
		limit float64
	}{
		// m = 20, se = √(20·46/66) = 3.733: 23 qualifies, 24 does not.
		{[]int{30, 20, 23, 24, 27}, 2, 20 + math.Sqrt(20.0*46/66)},
		// The end point within one se of the fewest: the paper's answer.
		{[]int{30, 20, 22, 21}, 3, 20 + math.Sqrt(20.0*46/66)},
		// The start is the best: the limit is the start's count, 22 (not
		// 25.8); ties go to the later iterate.
		{[]int{22, 22, 25, 22, 26, 31}, 3, 22},
		{[]int{5}, 0, 5},
		// m = 0: se = 0, only error-free iterates qualify.
		{[]int{3, 0, 1, 0, 1}, 3, 0},
	} {
		got, limit := tlChoose(mk(tc.errs...), 66)
		if got.iter != tc.want || math.Abs(limit-tc.limit) > 1e-12 {
			t.Errorf("errors %v: chose iterate %d (limit %g), want %d (limit %g)", tc.errs, got.iter, limit, tc.want, tc.limit)
		}
	}
}

// TestTwoLevelHeartPartition21 reproduces the defect on partition 21 of
// `kerneltune compare builtin:heart` (iso): the SQP solves eq. 12 along a
// valley where p and ν grow together to their bounds and every validation
// output shrinks towards 0, so Σ max(0, -f_i) falls from 26.1 to 7e-6 while
// the validation errors rise from 18 to 32 of 66, and the end point's test
// error is 62%. Mode "paper" must still return that end point; the default
// mode returns iterate 2 (18 errors, the fewest; test error 30%), never more
// validation errors than the start.
func TestTwoLevelHeartPartition21(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	train, _, seed := tlHeartPartition(t, 21)
	fig := func(res *Result) map[string]float64 {
		m := map[string]float64{}
		for _, f := range res.Figures {
			m[f.Name] = f.Value
		}
		return m
	}
	paper, its, err := tlTune(ctx, train, TwoLevelSettings{Common: Common{Seed: seed}, Mode: "paper"})
	if err != nil {
		t.Fatal(err)
	}
	fp := fig(paper)
	nt := 66
	if got := fp["e0 (validation %)"]; math.Abs(got-100*18.0/66) > 1e-9 {
		t.Fatalf("e0 = %g%%, want 18/66 (is this still compare's partition 21?)", got)
	}
	if fp["e* (validation %)"] <= fp["e0 (validation %)"] || fp["it*"] != fp["n_it"] || fp["e_end (validation %)"] != fp["e* (validation %)"] {
		t.Errorf("paper mode: e* %g%%, e0 %g%%, it* %g of %g: want the SQP's end point, worse than the start", fp["e* (validation %)"], fp["e0 (validation %)"], fp["it*"], fp["n_it"])
	}
	if !(paper.CriterionEnd < 1e-3*paper.CriterionStart) {
		t.Errorf("paper mode: Σ max(0, -f) %g → %g: want the degenerate valley", paper.CriterionStart, paper.CriterionEnd)
	}
	for _, note := range paper.Notes {
		if strings.Contains(note.String(), "returned SQP iterate") {
			t.Errorf("paper mode notes an iterate choice: %q", note)
		}
	}

	res, its2, err := tlTune(ctx, train, TwoLevelSettings{Common: Common{Seed: seed}})
	if err != nil {
		t.Fatal(err)
	}
	if len(its2) != len(its) {
		t.Fatalf("default mode ran %d iterates, paper mode %d: the SQP must be the same", len(its2), len(its))
	}
	f := fig(res)
	minErr := its[0].errs
	for _, it := range its {
		minErr = min(minErr, it.errs)
	}
	if got, want := f["e* (validation %)"], 100*float64(minErr)/float64(nt); math.Abs(got-want) > 1e-9 || got > f["e0 (validation %)"] {
		t.Errorf("default mode: e* = %g%%, want the fewest errors over the iterates %g%% (e0 %g%%)", got, want, f["e0 (validation %)"])
	}
	if f["it*"] != 2 || math.Abs(f["e* (validation %)"]-100*18.0/66) > 1e-9 || f["e_end (validation %)"] != fp["e* (validation %)"] {
		t.Errorf("default mode: it* %g, e* %g%%, e_end %g%%", f["it*"], f["e* (validation %)"], f["e_end (validation %)"])
	}
	// ν* and p* are iterate 2's (w = (log p/p0, log ν/ν0), p0 = 1/13), not
	// numbers pinned from an earlier run.
	if w, p0 := its2[2].w, 1.0/13; its2[2].iter != 2 ||
		relErr(f["ν*"], tlNu0*math.Exp(w[1])) > 1e-12 || relErr(f["p*"], p0*math.Exp(w[0])) > 1e-12 {
		t.Errorf("ν* = %.10g, p* = %.10g: want iterate %d's ν = %.10g, p = %.10g", f["ν*"], f["p*"], its2[2].iter, tlNu0*math.Exp(w[1]), p0*math.Exp(w[0]))
	}
	if math.Abs(res.C*f["ν*"]-1) > 1e-12 {
		t.Errorf("C = %g is not 1/ν* (ν* = %g)", res.C, f["ν*"])
	}
	noted := false
	for _, note := range res.Notes {
		noted = noted || strings.Contains(note.String(), "returned SQP iterate")
	}
	if !noted {
		t.Errorf("no note says which iterate was returned: %q", res.Notes)
	}
	// Test errors (%) of the final SVMs on the partition's 100 test rows.
	_, test, _ := tlHeartPartition(t, 21)
	ePaper, _ := tlTestError(ctx, t, paper.Kernel, paper.C, train, test)
	eDefault, _ := tlTestError(ctx, t, res.Kernel, res.C, train, test)
	if ePaper != 62 || eDefault != 30 {
		t.Errorf("test error %g%% (paper mode), %g%% (default): want 62%% and 30%%", ePaper, eDefault)
	}
	t.Logf("paper: %s\ndefault: %s", tlFigures(paper), tlFigures(res))
}
