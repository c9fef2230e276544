package methods

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// mcData reads a multi-class set of testdata/multiclass, z-scored.
func mcData(t *testing.T, name string) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Load(filepath.Join("..", "..", "testdata", "multiclass", name), dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	norm, err := dataio.FitNormalizer(dataio.ZScore, d.X)
	if err != nil {
		t.Fatal(err)
	}
	return norm.ApplyDataset(d)
}

// The svm baseline's multi-class CV accuracy at a grid point is what a plain
// k-fold CV of the final model's kind gives on the same folds: each fold's
// training rows fitted by model.Fit (a binary SVM per pair, or per class
// against the rest, with the kernel package's Gram) and its test rows
// predicted by LIBSVM's vote, or by the largest decision value.
func TestMultiClassGridCountsAreVotedCV(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, scheme string }{{"iris.scale", ""}, {"wine.scale", ""}, {"iris.scale", dataio.OneVsRest}, {"wine.scale", dataio.OneVsRest}} {
		name := c.name + " " + c.scheme
		d := mcData(t, c.name)
		d.Multiclass = c.scheme
		cm := Common{Seed: 5}
		plan, err := newCVPlanOf(d, cm)
		if err != nil {
			t.Fatal(err)
		}
		gammas, Cs := []float64{0.5, 0.03125}, []float64{0.25, 4, 64}
		got, solves, err := gridCounts(context.Background(), kernel.SquaredDistances(d.X), d, plan, gammas, Cs, cm)
		if err != nil {
			t.Fatal(err)
		}
		if solves == 0 || solves > len(gammas)*len(Cs)*len(plan.test)*3 {
			t.Errorf("%s: %d solves", name, solves)
		}
		for g, gamma := range gammas {
			for c, C := range Cs {
				want := 0
				for f := range plan.test {
					tr, te := d.Subset(plan.train[f]), d.Subset(plan.test[f])
					fit, err := model.Fit(context.Background(), model.FitSettings{Train: tr, Test: te,
						Kernel: kernel.Spec{Kind: kernel.KindGaussian, Gamma: gamma}, Margin: model.L1, C: C})
					if err != nil {
						t.Fatal(err)
					}
					want += fit.TestCorrect
				}
				if d := got[g][c] - want; d < -1 || d > 1 {
					t.Errorf("%s γ = %g, C = %g: grid counts %d correct, plain voted CV %d", name, gamma, C, got[g][c], want)
				}
			}
		}
	}
}

// The svm baseline on wine: one (C, γ) for all pairs, its CV accuracy the
// grid's at that point over all rows, and the criterion says it is voted.
func TestSVMMultiClass(t *testing.T) {
	t.Parallel()
	d := mcData(t, "wine.scale")
	res, err := SVMSettings{Common: Common{Seed: 1}}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pairs != nil || res.Criterion != "5-fold CV accuracy (one-vs-one vote)" || res.CriterionEnd < 0.95 || res.CriterionEnd > 1 {
		t.Errorf("svm on wine: pairs %v, %q = %v", res.Pairs != nil, res.Criterion, res.CriterionEnd)
	}
	plan, _ := newCVPlanOf(d, Common{Seed: 1})
	got, _, err := gridCounts(context.Background(), kernel.SquaredDistances(d.X), d, plan, []float64{res.Kernel.Gamma}, []float64{res.C}, Common{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if float64(got[0][0])/178 != res.CriterionEnd {
		t.Errorf("accuracy %v, the grid's at (C, γ) = (%g, %g) %d/178", res.CriterionEnd, res.C, res.Kernel.Gamma, got[0][0])
	}
}

// tuneMultiClass runs the method once per subproblem on its rows (one-vs-
// one: a pair of classes, 100 rows of iris; one-vs-rest: a class against
// the rest, all 150): each result is the method's on dataio.Dataset.Sub,
// whatever the number of workers (subproblems run at once); the summary
// sums the work and averages the criterion.
func TestTuneMultiClass(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"", dataio.OneVsRest} {
		testTuneMultiClass(t, scheme)
	}
}

func testTuneMultiClass(t *testing.T, scheme string) {
	d := mcData(t, "iris.scale")
	d.Multiclass = scheme
	subs := []dataio.Subproblem{{Pos: 0, Neg: 1}, {Pos: 0, Neg: 2}, {Pos: 1, Neg: 2}}
	rows := 100
	if scheme == dataio.OneVsRest {
		subs, rows = []dataio.Subproblem{{Pos: 0, Neg: dataio.Rest}, {Pos: 1, Neg: dataio.Rest}, {Pos: 2, Neg: dataio.Rest}}, 150
	}
	for _, s := range []Spec{RCSCSettings{}, SPDSettings{}} {
		var first *Result
		for _, workers := range []int{1, 3} {
			spec := s.WithBase(Common{Seed: 2, Workers: workers})
			res, err := tuneMultiClass(context.Background(), spec, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Pairs) != 3 || res.Method != s.Name() {
				t.Fatalf("%s: %d pairs", s.Name(), len(res.Pairs))
			}
			iter, mean := 0, 0.0
			for p, sp := range subs {
				pr := res.Pairs[p]
				if want := dataio.SubLabels(d.ClassLabels, sp); pr.Positive != want.Positive || pr.Negative != want.Negative || pr.Rows != rows {
					t.Errorf("%s %s subproblem %d: %q vs %q, %d rows", s.Name(), scheme, p, pr.Positive, pr.Negative, pr.Rows)
				}
				iter += pr.Result.Iter
				mean += pr.Result.CriterionEnd / 3
			}
			if res.Iter != iter || res.CriterionEnd != mean || res.Kernel.Kind != res.Pairs[0].Result.Kernel.Kind {
				t.Errorf("%s: summary iter %d (pairs %d), criterion %v (mean %v)", s.Name(), res.Iter, iter, res.CriterionEnd, mean)
			}
			if first == nil {
				first = res
				// The third subproblem alone, with one worker.
				alone, err := s.WithBase(Common{Seed: 2, Workers: 1}).tune(context.Background(), d.Sub(subs[2]))
				if err != nil {
					t.Fatal(err)
				}
				if alone.CriterionEnd != res.Pairs[2].Result.CriterionEnd || !slices.Equal(alone.Kernel.Diag, res.Pairs[2].Result.Kernel.Diag) || alone.Kernel.Gamma != res.Pairs[2].Result.Kernel.Gamma {
					t.Errorf("%s: pair 3 criterion %v, the method on the pair's rows %v", s.Name(), res.Pairs[2].Result.CriterionEnd, alone.CriterionEnd)
				}
				continue
			}
			for p := range res.Pairs {
				if res.Pairs[p].Result.CriterionEnd != first.Pairs[p].Result.CriterionEnd {
					t.Errorf("%s pair %d: criterion %v with 3 workers, %v with 1", s.Name(), p, res.Pairs[p].Result.CriterionEnd, first.Pairs[p].Result.CriterionEnd)
				}
			}
		}
	}
	// The memory estimate counts the subproblems: rcsc's work on two at
	// once (100-row pairs, or 150-row classes against the rest).
	s := RCSCSettings{}.WithBase(Common{Workers: 2})
	one := s.PeakBytes(rows, 4) - RuntimeBytes
	// (and 1/5 over the live data for the runtime beyond its soft limit).
	if got, want := PeakBytesMultiClass(s, []int{50, 50, 50}, 4, scheme), withHeadroom(RuntimeBytes+2*one); got != want {
		t.Errorf("PeakBytesMultiClass %s = %d, want the runtime + 2 subproblems' work + 1/5 = %d", scheme, got, want)
	}
}

// blobs8 is 8 overlapping Gaussian classes of 100 rows in 6 dimensions.
func blobs8() *dataio.Dataset {
	rng := rand.New(rand.NewPCG(44, 8))
	const k, per, dim = 8, 100, 6
	X := mat.NewDense(k*per, dim, nil)
	class := make([]int, k*per)
	labels := make([]string, k)
	for c := range k {
		labels[c] = fmt.Sprint(c + 1)
		for r := range per {
			i := c*per + r
			class[i] = c
			for j := range dim {
				X.Set(i, j, rng.NormFloat64()+float64((c>>(j%3))&1)*1.5)
			}
		}
	}
	return &dataio.Dataset{X: X, Class: class, ClassLabels: labels}
}

// One-vs-one on the dense route, each pair's matrices come from the
// squared distances, held packed (foldSweepPairsD), not from the fold's Gram: the same
// counts, bit for bit the same entries, and the fold's 640×640 Gram is
// never made; before, each worker held it, its test-by-training matrix and
// a copy of each pair's block of both (issue 44).
func TestPairsDHoldNoFoldGram(t *testing.T) {
	d := blobs8()
	cm := Common{Seed: 3, Workers: 1}
	plan, err := newCVPlanOf(d, cm)
	if err != nil {
		t.Fatal(err)
	}
	D := kernel.SquaredDistances(d.X)
	P := kernel.SquaredDistancesPacked(d.X) // as isoEval holds them (setDistances)
	gammas, Cs := []float64{0.5, 0.0625}, []float64{0.5, 8}
	groups := []cvGroup{{P: P, Gamma: gammas[0], Cs: Cs}, {P: P, Gamma: gammas[1], Cs: Cs}}
	cm.cvWorkers = new(cvPool) // to look at the worker's buffers after
	got, _, err := cvCounts(context.Background(), groups, []int{0, 1}, cvSetOf(d), plan, cm, func(int) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	// The worker's buffers held a pair's matrices at most: two classes'
	// 80 training rows each of a fold, and its 160 test rows by them.
	wk := cm.cvWorkers.free[0]
	m, pair := len(plan.train[0]), 2*len(plan.train[0])/8
	if cap(wk.ktr) > pair*pair || cap(wk.kte) > len(plan.test[0])*pair {
		t.Errorf("the worker held %d and %d entries; a pair's matrices are %d and %d, the fold's Gram %d", cap(wk.ktr), cap(wk.kte), pair*pair, len(plan.test[0])*pair, m*m)
	}
	s := cm.settings()
	s.Workers = 1
	for g, gamma := range gammas {
		want := make([]int, len(Cs))
		for f := range plan.test {
			tr, te := plan.train[f], plan.test[f]
			Ktr, Kte, _, _ := foldKernels(D, tr, te, gamma, nil, nil)
			cnt, _, err := foldSweepMulti(context.Background(), Ktr, Kte, pickInt(d.Class, tr), pickInt(d.Class, te), 8, "", nil, Cs, s)
			if err != nil {
				t.Fatal(err)
			}
			for c, v := range cnt {
				want[c] += v
			}
		}
		if !slices.Equal(got[g], want) {
			t.Errorf("γ = %g: counts %v, from the fold's Gram %v", gamma, got[g], want)
		}
	}
}

// TestCombinePairsGroupsNotes: a note that every pair gives alike is said
// once for all of them ("all 3 pairs: "), one that several give once with
// their number and the first pair, one that a single pair gives with that
// pair, in the order first seen (gi's parameterisation note was printed 45
// times on 10 classes).
func TestCombinePairsGroupsNotes(t *testing.T) {
	res := func(notes ...string) *Result {
		r := &Result{Method: "gi", Status: status.Converged}
		for _, n := range notes {
			r.Notes = append(r.Notes, hint.T(n))
		}
		return r
	}
	pairs := []PairResult{
		{Positive: "a", Negative: "b", Result: res("same for all", "two of three")},
		{Positive: "a", Negative: "c", Result: res("same for all", "only here")},
		{Positive: "b", Negative: "c", Result: res("two of three", "same for all")},
	}
	r := combinePairs("gi", 3, dataio.OneVsOne, pairs, 0)
	got := hint.Strings(r.Notes)
	want := []string{
		"all 3 pairs: same for all",
		`2 of the 3 pairs (the first "a" vs "b"): two of three`,
		`"a" vs "c": only here`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("notes\n%q\nwant\n%q", got, want)
	}
	r = combinePairs("gi", 3, dataio.OneVsRest, pairs[:1], 0)
	if got := hint.Strings(r.Notes); !slices.Equal(got, []string{`"a" vs "b": same for all`, `"a" vs "b": two of three`}) {
		t.Fatalf("one subproblem: %q", got)
	}
}
