package solver

import (
	"context"
	"math"
	"testing"
)

// TestQAlpha0 checks that a warm start given with its product
// diag(y)Q diag(y)α0 (Problem.QAlpha0) solves to the same α as one whose
// initial gradient Solve computes from Q's columns, with labels and with
// variables at their upper bound (whose columns Ḡ still needs), and that the
// product is what Solve starts from (a wrong one gives a wrong answer).
func TestQAlpha0(t *testing.T) {
	ctx := context.Background()
	x, y := mixture(120, 3, 1, 7)
	q := gram(x, rbf(0.5))
	s := Settings{Eps: 1e-8}
	// A feasible warm start with bounded variables: a rougher solve.
	rough, err := TrainSVC(ctx, q, y, SVCParams{C: 0.5}, Settings{Eps: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a0 := rough.Alpha
	upper := 0
	for _, a := range a0 {
		if a >= 0.5 {
			upper++
		}
	}
	if upper == 0 {
		t.Fatal("the warm start has no variable at C: the test needs some")
	}
	n := len(y)
	qa := make([]float64, n)
	for i := range n {
		for j := range n {
			qa[i] += y[i] * y[j] * q.at(i, j) * a0[j]
		}
	}
	pr := Problem{Q: q, Y: y, Cp: 0.5, Cn: 0.5, Alpha0: a0}
	plain, err := Solve(ctx, pr, s)
	if err != nil {
		t.Fatal(err)
	}
	pr.QAlpha0 = qa
	given, err := Solve(ctx, pr, s)
	if err != nil {
		t.Fatal(err)
	}
	kkt(t, q, pr, given, 1e-8)
	var d float64
	for i := range n {
		d = math.Max(d, math.Abs(plain.Alpha[i]-given.Alpha[i]))
	}
	if d > 1e-9 || relDiff(plain.Obj, given.Obj) > 1e-12 {
		t.Errorf("with QAlpha0: max |Δα| = %.3g, obj %.15g vs %.15g", d, given.Obj, plain.Obj)
	}
	// A wrong product is used as given: the answer moves.
	wrong := append([]float64(nil), qa...)
	for i := range wrong {
		wrong[i] += 0.3
	}
	pr.QAlpha0 = wrong
	bad, err := Solve(ctx, pr, s)
	if err == nil && relDiff(bad.Obj, plain.Obj) < 1e-6 {
		t.Errorf("a wrong QAlpha0 gave obj %.15g, the right one %.15g: is it read?", bad.Obj, plain.Obj)
	}

	// Radius: RadiusFrom with K·β0 equals Radius.
	rough2, err := Radius(ctx, q, 0.25, Settings{Eps: 0.3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kb := make([]float64, n)
	for i := range n {
		for j := range n {
			kb[i] += q.at(i, j) * rough2.Beta[j]
		}
	}
	r1, err := Radius(ctx, q, 0.25, s, rough2.Beta)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := RadiusFrom(ctx, q, 0.25, s, rough2.Beta, kb)
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(r1.R2, r2.R2) > 1e-12 || r1.Iter != r2.Iter {
		t.Errorf("RadiusFrom: R² %.15g in %d iterations, Radius %.15g in %d", r2.R2, r2.Iter, r1.R2, r1.Iter)
	}
	if _, err := RadiusFrom(ctx, q, 0.25, s, nil, kb); err == nil {
		t.Error("RadiusFrom with K·β0 and no β0: no error")
	}
}
