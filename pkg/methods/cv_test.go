package methods

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// heartHead returns the first n rows of heart, z-scored.
func heartHead(t testing.TB, n int) *dataio.Dataset {
	t.Helper()
	d := spdLoadBuiltin(t, "heart")
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	tr, _, _ := normalizedSplit(t, d.Subset(idx), d.Subset(idx[:1]))
	return tr
}

// coldCV counts correct k-fold predictions for one (γ, C) the plain way:
// each fold's Gram matrices from the kernel package, cold-started solves; a
// fold whose training part has one class predicts that class (LIBSVM).
func coldCV(t *testing.T, d *dataio.Dataset, plan cvPlan, gamma, C float64, s solver.Settings) int {
	t.Helper()
	k, err := kernel.NewGaussianIso(gamma)
	if err != nil {
		t.Fatal(err)
	}
	correct := 0
	for f := range plan.test {
		tr, te := d.Subset(plan.train[f]), d.Subset(plan.test[f])
		if pos, neg := tr.ClassCounts(); pos == 0 || neg == 0 {
			for _, v := range te.Y {
				if (v > 0) == (pos > 0) {
					correct++
				}
			}
			continue
		}
		res, err := solver.TrainSVC(context.Background(), kernel.Precomputed(k.Gram(tr.X)), tr.Y, solver.SVCParams{Margin: solver.L1, C: C}, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		dec := solver.Decision(nil, k.Cross(te.X, tr.X), res.Coef, res.Bias)
		for i, v := range dec {
			if (v > 0) == (te.Y[i] > 0) {
				correct++
			}
		}
	}
	return correct
}

// TestGridCountsMatchColdSolves checks the fast grid (one distance matrix,
// exp passes, warm starts along C, parallel jobs) against independent cold
// solves on every grid point.
func TestGridCountsMatchColdSolves(t *testing.T) {
	d := heartHead(t, 60)
	opts := Common{Seed: 5, Eps: 1e-9, Workers: 2}
	plan, err := newCVPlan(d.Y, opts)
	if err != nil {
		t.Fatal(err)
	}
	gammas := []float64{math.Exp2(-1), math.Exp2(-5), math.Exp2(-9)}
	Cs := []float64{math.Exp2(-3), 1, math.Exp2(5)}
	got, solves, err := gridCounts(context.Background(), kernel.SquaredDistances(d.X), d, plan, gammas, Cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if solves != 3*3*5 {
		t.Errorf("%d solves, want 45", solves)
	}
	for g, gamma := range gammas {
		for c, C := range Cs {
			want := coldCV(t, d, plan, gamma, C, solver.Settings{Eps: 1e-9})
			if got[g][c] != want {
				t.Errorf("γ = %g, C = %g: %d correct, cold solves give %d", gamma, C, got[g][c], want)
			}
		}
	}
}

func TestPickGridTies(t *testing.T) {
	gammas := []float64{8, 2, 0.5, 0.125}
	Cs := []float64{0.5, 2, 8}
	for _, tc := range []struct {
		name    string
		correct [][]int
		gammaH  float64
		g, c    int
	}{
		{"unique best", [][]int{{1, 2, 3}, {4, 5, 6}, {7, 9, 8}, {1, 1, 1}}, 8, 2, 1},
		{"tie: gamma nearest the heuristic", [][]int{{9, 2, 3}, {4, 5, 6}, {7, 8, 9}, {9, 1, 1}}, 0.4, 2, 2},
		{"tie at the same gamma: smaller C", [][]int{{1, 2, 3}, {4, 9, 9}, {7, 8, 1}, {1, 1, 1}}, 2, 1, 1},
		{"flat surface: moderate gamma, smallest C", [][]int{{5, 5, 5}, {5, 5, 5}, {5, 5, 5}, {5, 5, 5}}, 0.6, 2, 0},
		{"equal distance: larger gamma", [][]int{{5, 5, 5}, {5, 5, 5}, {5, 5, 5}, {5, 5, 5}}, 1, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, c := pickGrid(tc.correct, gammas, Cs, tc.gammaH)
			if g != tc.g || c != tc.c {
				t.Errorf("picked (γ = %g, C = %g), want (γ = %g, C = %g)", gammas[g], Cs[c], gammas[tc.g], Cs[tc.c])
			}
			// The search loop's tie rule (cvPoint.better) on the same
			// points, in gridProposer's order, picks the same.
			pts := gridPoints(gammas, Cs)
			for i := range pts {
				pts[i].Correct, pts[i].Total = tc.correct[i/len(Cs)][i%len(Cs)], 10
			}
			if p := rankCV(pts, math.Log2(tc.gammaH))[0]; p.Gamma != gammas[tc.g] || p.C != Cs[tc.c] {
				t.Errorf("the loop picked (γ = %g, C = %g), want (γ = %g, C = %g)", p.Gamma, p.C, gammas[tc.g], Cs[tc.c])
			}
		})
	}
}

// TestGridSearchDeterministic: the same seed gives the same choice whatever
// the number of workers; the result is a grid point.
func TestGridSearchDeterministic(t *testing.T) {
	d := heartHead(t, 80)
	a, err := gridSearchCV(context.Background(), d, Common{Seed: 2, Workers: 1}, Space{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := gridSearchCV(context.Background(), d, Common{Seed: 2, Workers: 3}, Space{})
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("1 worker: %+v, 3 workers: %+v", a, b)
	}
	// At most 110 grid points × 5 folds; fewer where a solve leaves no α at
	// its bound and the larger C are skipped (TestGridSearchMatchesPlainGrid).
	if a.Solves > 110*5 || a.Solves < 10*5 {
		t.Errorf("solves = %d, want 50…550", a.Solves)
	}
	lc, lg := math.Log2(a.C), math.Log2(a.Gamma)
	if lc != math.Round(lc) || int(lc)%2 == 0 || lc < -5 || lc > 15 || lg != math.Round(lg) || int(lg)%2 == 0 || lg < -15 || lg > 3 {
		t.Errorf("(log2 C, log2 γ) = (%g, %g) is not on the grid", lc, lg)
	}
	if a.Accuracy < 0.7 || a.Accuracy > 1 {
		t.Errorf("CV accuracy %g on heart, want 0.7..1", a.Accuracy)
	}
}

// TestSelectC checks selectC against cold solves and its tie rule.
func TestSelectC(t *testing.T) {
	d := heartHead(t, 60)
	k, _ := kernel.NewGaussianIso(math.Exp2(-5))
	K := k.Gram(d.X)
	opts := Common{Seed: 9, Eps: 1e-9}
	Cs := []float64{8, 0.125, 1}
	C, acc, solves, err := selectC(context.Background(), K, d.Y, Cs, solver.L1, opts)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := newCVPlan(d.Y, opts)
	bestC, bestCnt := 0.0, -1
	for _, c := range []float64{0.125, 1, 8} {
		if cnt := coldCV(t, d, plan, math.Exp2(-5), c, solver.Settings{Eps: 1e-9}); cnt > bestCnt {
			bestC, bestCnt = c, cnt
		}
	}
	if C != bestC || acc != float64(bestCnt)/60 {
		t.Errorf("selectC = (%g, %g), cold solves give (%g, %g)", C, acc, bestC, float64(bestCnt)/60)
	}
	if solves != 15 {
		t.Errorf("solves = %d, want 15", solves)
	}
	if _, _, _, err := selectC(context.Background(), K, d.Y, nil, solver.L1, opts); err == nil {
		t.Error("no candidate C: want an error")
	}
	// A matrix that is not a kernel (squared distances: the dual is
	// unbounded) fails every fold; the error names one fold, once.
	_, _, _, err = selectC(context.Background(), kernel.SquaredDistances(d.X), d.Y, Cs, solver.L2, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "cross-validation, fold ") || strings.Count(err.Error(), solver.ErrUnbounded.Error()) != 1 {
		t.Errorf("not a kernel: error %q, want one fold's solver error", err)
	}
}

// alternating returns n labels -1, +1, -1, ….
func alternating(n int) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(2*(i%2) - 1)
	}
	return y
}

func TestCVPlanErrors(t *testing.T) {
	if _, err := newCVPlan(alternating(3), Common{Folds: 5}); err == nil {
		t.Error("3 rows, 5 folds: want an error")
	}
	if _, err := newCVPlan(alternating(30), Common{Folds: 1}); err == nil {
		t.Error("1 fold: want an error")
	}
	if _, err := newCVPlan(make([]float64, 30), Common{}); err == nil || !strings.Contains(err.Error(), "both classes") {
		t.Errorf("one class: got %v, want an error naming both classes", err)
	}
	p, err := newCVPlan(alternating(23), Common{Folds: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, 23)
	for f := range p.test {
		if len(p.test[f])+len(p.train[f]) != 23 {
			t.Errorf("fold %d: %d + %d rows", f, len(p.test[f]), len(p.train[f]))
		}
		for _, i := range p.test[f] {
			seen[i]++
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Errorf("row %d in %d test folds", i, c)
		}
	}
}

// TestCVOneClassFold: with a class of two rows, a fold's training part can
// lack it (the folds are not stratified). That fold predicts the one class
// it saw, as LIBSVM does, instead of failing the whole search; the counts
// and the number of solves match cold solves fold by fold.
func TestCVOneClassFold(t *testing.T) {
	d := heartHead(t, 40)
	opts := Common{Seed: 1, Eps: 1e-9}
	// One negative row: stratification cannot spread a class of one, so the
	// fold that tests it trains on positives only.
	for i := range d.Y {
		d.Y[i] = 1
	}
	d.Y[7] = -1
	plan, err := newCVPlan(d.Y, opts)
	if err != nil {
		t.Fatal(err)
	}
	oneClass := 0
	for _, tr := range plan.train {
		if !slices.Contains(tr, 7) {
			oneClass++
		}
	}
	if oneClass != 1 {
		t.Fatalf("%d one-class training folds, want 1", oneClass)
	}
	g, err := gridSearchCV(context.Background(), d, opts, Space{})
	if err != nil {
		t.Fatalf("a fold without the minority class failed the grid search: %v", err)
	}
	// 110 grid points × 4 two-class folds at most (the one-class fold
	// needs none; foldSweep skips the C after a solve without bounded α).
	if g.Solves > 110*4 || g.Solves < 10*4 {
		t.Errorf("%d solves, want 40…440 (the one-class fold needs none)", g.Solves)
	}
	want := coldCV(t, d, plan, g.Gamma, g.C, solver.Settings{Eps: 1e-9})
	if g.Accuracy != float64(want)/40 {
		t.Errorf("CV accuracy %g, cold solves give %g", g.Accuracy, float64(want)/40)
	}
	k, err := kernel.NewGaussianIso(g.Gamma)
	if err != nil {
		t.Fatal(err)
	}
	C, _, solves, err := selectC(context.Background(), k.Gram(d.X), d.Y, []float64{1, 4}, solver.L2, opts)
	if err != nil || solves != 2*4 {
		t.Errorf("selectC: C %g after %d solves, error %v; want 8 solves", C, solves, err)
	}
}

// BenchmarkGridSearchCV: the baseline's 550 solves on 100 heart rows.
func BenchmarkGridSearchCV(b *testing.B) {
	d := heartHead(b, 100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gridSearchCV(context.Background(), d, Common{Seed: 1}, Space{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCVPlanStratified: the CV folds keep the class shares, as LIBSVM's
// svm-train -v (grid.py) does, so every training part holds both classes.
func TestCVPlanStratified(t *testing.T) {
	d := heartHead(t, 100)
	plan, err := newCVPlan(d.Y, Common{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	pos := countPositive(d.Y)
	share := float64(pos) / float64(len(d.Y))
	seen := 0
	for f, te := range plan.test {
		p := countPositive(pick(d.Y, te))
		if want := share * float64(len(te)); math.Abs(float64(p)-want) >= 1 {
			t.Errorf("fold %d: %d positives of %d, want %.1f ± <1", f, p, len(te), want)
		}
		seen += len(te)
	}
	if seen != len(d.Y) || len(plan.test) != defaultFolds {
		t.Errorf("%d folds covering %d rows", len(plan.test), seen)
	}
}

// TestL2WarmStart: the L2 sweep starts from the scaled (C/C0)α when that
// lowers the dual objective (α grown with C, non-separable data) and from α
// itself when α has settled.
func TestL2WarmStart(t *testing.T) {
	alpha := []float64{1, 1} // Σα = ‖w‖² = 2, as at an L2 optimum
	// ν falls by 3/4: f(tα) = ¼t² - 2t is least at t = 4.
	if got := l2WarmStart(nil, alpha, 2, 1, 4); got[0] != 4 || got[1] != 4 {
		t.Errorf("C 1 → 4: start %v, want 4α", got)
	}
	// ν falls by 0.0075: the minimum at t ≈ 1.008, nearer 1 than 4.
	if got := l2WarmStart(nil, alpha, 2, 100, 400); got[0] != 1 || got[1] != 1 {
		t.Errorf("C 100 → 400: start %v, want α", got)
	}
}

// TestFoldSweepL2WarmStart: with its warm starts the L2 sweep predicts
// every test row of every fold as cold solves do, at every C of lccp's grid,
// on heart with the L1 kernel at θ = 1 (lccp's choice of C), both to a tight
// tolerance so that no decision value is within it of 0.
func TestFoldSweepL2WarmStart(t *testing.T) {
	t.Parallel()
	d := loadHeart(t)
	theta := make([]float64, d.Dim())
	for k := range theta {
		theta[k] = 1
	}
	k, err := kernel.NewL1(theta)
	if err != nil {
		t.Fatal(err)
	}
	K := k.Gram(d.X)
	plan, err := newCVPlan(d.Y, Common{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := solver.Settings{Eps: 1e-9}
	Cs := lccpCGrid()
	for f := range plan.test {
		tr, te := plan.train[f], plan.test[f]
		km, Kte := kernel.Precomputed(subSym(K, tr, nil)), subCross(K, te, tr, nil)
		ytr, yte := pick(d.Y, tr), pick(d.Y, te)
		got, solves, err := foldSweep(context.Background(), km, denseDecider(Kte), ytr, yte, Cs, solver.L2, [2]float64{}, s, false)
		if err != nil || solves != len(Cs) {
			t.Fatalf("fold %d: %d solves, %v", f, solves, err)
		}
		for c, C := range Cs {
			res, err := solver.TrainSVC(context.Background(), km, ytr, solver.SVCParams{Margin: solver.L2, C: C}, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for i, v := range solver.Decision(nil, Kte, res.Coef, res.Bias) {
				if (v > 0) == (yte[i] > 0) {
					want++
				}
			}
			if got[c] != want {
				t.Errorf("fold %d, C = %g: %d correct after the warm-started sweep, %d cold", f, C, got[c], want)
			}
		}
	}
}

// TestFoldSub: selectC's fold matrices in full storage hold exactly the
// entries subSym and subCross read, from the upper triangle only (the lower
// one of a SymDense's storage is not part of the matrix), for a SymDense and
// for another mat.Symmetric.
func TestFoldSub(t *testing.T) {
	d := heartHead(t, 40)
	k, _ := kernel.NewGaussianIso(0.1)
	K := k.Gram(d.X)
	raw := K.RawSymmetric()
	for i := 0; i < 40; i++ {
		for j := 0; j < i; j++ {
			raw.Data[i*raw.Stride+j] = math.NaN() // never read
		}
	}
	tr := []int{0, 2, 3, 7, 11, 12, 20, 31, 39}
	te := []int{38, 1, 25, 4}
	for _, A := range []mat.Symmetric{K, mat.Symmetric(symView{K})} {
		Ktr, Kte := foldSub(A, tr, te)
		want, wantTe := subSym(K, tr, nil), subCross(K, te, tr, nil)
		for a := range tr {
			for b := range tr {
				if got := Ktr.At(a, b); got != want.At(a, b) {
					t.Fatalf("%T: Ktr[%d,%d] = %v, want %v", A, a, b, got, want.At(a, b))
				}
			}
			for c := range te {
				if got := Kte.At(c, a); got != wantTe.At(c, a) {
					t.Fatalf("%T: Kte[%d,%d] = %v, want %v", A, c, a, got, wantTe.At(c, a))
				}
			}
		}
	}
}

// symView hides a SymDense behind the mat.Symmetric interface.
type symView struct{ *mat.SymDense }

// TestStratifiedSubset: m rows, ascending and distinct, each class's share
// kept to the nearest row, the same for the same seed and another for
// another seed; a class keeps a row however small its share.
func TestStratifiedSubset(t *testing.T) {
	y := make([]float64, 1000)
	for i := range y {
		y[i] = -1
		if i%4 == 0 {
			y[i] = 1 // 250 positives
		}
	}
	a := stratifiedSubset(y, 301, 7)
	if len(a) != 301 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 301 {
		t.Fatalf("subset %v: want 301 distinct ascending rows", a)
	}
	pos := 0
	for _, i := range a {
		if y[i] > 0 {
			pos++
		}
	}
	if pos != 75 { // 301 × 0.25 = 75.25
		t.Errorf("%d positives of 301, want 75", pos)
	}
	if b := stratifiedSubset(y, 301, 7); !slices.Equal(a, b) {
		t.Error("same seed, another subset")
	}
	if b := stratifiedSubset(y, 301, 8); slices.Equal(a, b) {
		t.Error("another seed, the same subset")
	}
	for i := range y {
		y[i] = -1
	}
	y[500] = 1 // one positive row: its share of 2 rows rounds to 0
	c := stratifiedSubset(y, 2, 1)
	if len(c) != 2 || (y[c[0]] > 0) == (y[c[1]] > 0) {
		t.Errorf("subset %v of one positive row: want it and one negative", c)
	}
}

// TestGridSearchLarge: above Common.GridRows the grid search is the full
// grid on the stratified subset, then cross-validation on all rows over
// the 3×3 region around the subset's choice (cold solves agree on every
// point of it); with GridRows -1 it is the full grid on all rows.
func TestGridSearchLarge(t *testing.T) {
	t.Parallel()
	d := heartHead(t, 200)
	cm := Common{Seed: 3, Workers: 2, Eps: 1e-9, GridRows: 120}
	got, err := gridSearchCV(context.Background(), d, cm, Space{})
	if err != nil {
		t.Fatal(err)
	}
	full := cm
	full.GridRows = -1
	coarse, err := gridSearchCV(context.Background(), d.Subset(stratifiedSubset(d.Y, 120, 3)), full, Space{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Subset != 120 || got.Coarse == nil || *got.Coarse != coarse {
		t.Fatalf("subset %d, coarse %+v; want 120 and the subset's full grid %+v", got.Subset, got.Coarse, coarse)
	}
	plan, _ := newCVPlan(d.Y, cm)
	best, bestC, bestG := -1, 0.0, 0.0
	gammaH := moderateGamma(kernel.SquaredDistances(d.X))
	bestDist := math.Inf(1)
	for _, lg := range []float64{1, 0, -1} {
		for _, lc := range []float64{-1, 0, 1} {
			gamma, C := coarse.Gamma*math.Exp2(lg), coarse.C*math.Exp2(lc)
			cnt := coldCV(t, d, plan, gamma, C, solver.Settings{Eps: 1e-9})
			dist := math.Abs(math.Log2(gamma / gammaH))
			if cnt > best || cnt == best && (dist < bestDist-1e-9 || math.Abs(dist-bestDist) <= 1e-9 && C < bestC) {
				best, bestC, bestG, bestDist = cnt, C, gamma, dist
			}
		}
	}
	if got.C != bestC || got.Gamma != bestG || got.Accuracy != float64(best)/200 {
		t.Errorf("large grid chose (C %g, γ %g, acc %g); cold solves over the region (%g, %g, %g)", got.C, got.Gamma, got.Accuracy, bestC, bestG, float64(best)/200)
	}
	if got.Solves <= coarse.Solves || got.Solves > coarse.Solves+45 {
		t.Errorf("solves %d, want the subset's %d plus at most 45", got.Solves, coarse.Solves)
	}
	all, err := gridSearchCV(context.Background(), d, full, Space{})
	if err != nil {
		t.Fatal(err)
	}
	if all.Coarse != nil || all.Subset != 0 {
		t.Errorf("GridRows -1: %+v, want the full grid on all rows", all)
	}
	t.Logf("subset grid (C 2^%g, γ 2^%g, %d solves) → all rows (C 2^%g, γ 2^%g, acc %.4f, %d solves); full grid on all rows (C 2^%g, γ 2^%g, acc %.4f, %d solves)",
		math.Log2(coarse.C), math.Log2(coarse.Gamma), coarse.Solves, math.Log2(got.C), math.Log2(got.Gamma), got.Accuracy, got.Solves,
		math.Log2(all.C), math.Log2(all.Gamma), all.Accuracy, all.Solves)
}

// TestSelectCSubset: above Common.GridRows, selectC is selectC on the
// stratified subset's own kernel matrix and labels: the same C, accuracy
// and solves, for both margins.
func TestSelectCSubset(t *testing.T) {
	d := heartHead(t, 200)
	k, _ := kernel.NewGaussianIso(math.Exp2(-5))
	K := k.Gram(d.X)
	rows := stratifiedSubset(d.Y, 120, 4)
	Ksub, ysub := subSym(K, rows, nil), pick(d.Y, rows)
	Cs := []float64{0.125, 1, 8, 64}
	if got := (Common{GridRows: 120}).subsetNote(200); got != " (on a stratified subset of 120 of the 200 rows)" {
		t.Errorf("subsetNote = %q", got)
	}
	if got := (Common{}).subsetNote(5000) + (Common{GridRows: -1}).subsetNote(50_000); got != "" {
		t.Errorf("all rows: subsetNote = %q", got)
	}
	for _, margin := range []solver.Margin{solver.L1, solver.L2} {
		C, acc, solves, err := selectC(context.Background(), K, d.Y, Cs, margin, Common{Seed: 4, Workers: 2, GridRows: 120})
		if err != nil {
			t.Fatal(err)
		}
		wC, wacc, wsolves, err := selectC(context.Background(), Ksub, ysub, Cs, margin, Common{Seed: 4, Workers: 2, GridRows: -1})
		if err != nil {
			t.Fatal(err)
		}
		if C != wC || acc != wacc || solves != wsolves {
			t.Errorf("margin %v: on 200 rows above GridRows (C %g, acc %g, %d solves); on the subset (%g, %g, %d)", margin, C, acc, solves, wC, wacc, wsolves)
		}
	}
}
