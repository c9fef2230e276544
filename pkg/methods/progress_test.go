package methods

import (
	"slices"
	"testing"
)

// The plan's arithmetic: the caller's final fit announced first stays
// last; a stage that ends early keeps the work it did; a stage passed over
// weighs nothing; a run's own count never raises an announced weight;
// Fraction is the weight done over the plan's.
func TestProgressPlan(t *testing.T) {
	var evs []Event
	p := NewProgress(func(e Event) { evs = append(evs, e) })
	p.Announce(Stage{Key: "final fit", Weight: 100})
	p.Announce(Stage{Key: "choose C", Weight: 50}, Stage{Key: "iterations", Weight: 200}, Stage{Key: "extra", Weight: 30})
	p.Begin("choose C", 5, "choosing C", 80) // 80 > 50: kept at 50
	p.Step(5, "")
	if got := evs[len(evs)-1].Fraction(); got != 50.0/380 {
		t.Errorf("C chosen: %v done, want 50/380", got)
	}
	p.Begin("iterations", 100, "", 0)
	p.Step(25, "objective 1")
	if got := evs[len(evs)-1].Fraction(); got != 100.0/380 {
		t.Errorf("25 of 100 iterations: %v done, want 100/380", got)
	}
	// Converged at 25 of 100: the iterations weigh 50, "extra" never ran.
	p.Begin("final fit", 1, "final SVM", 0)
	e := evs[len(evs)-1]
	var ws []float64
	for _, s := range e.Plan {
		ws = append(ws, s.Weight)
	}
	if !slices.Equal(ws, []float64{50, 50, 0, 100}) || e.Name() != "final SVM" || e.Fraction() != 0.5 {
		t.Errorf("at the final fit: weights %v, stage %q, %v done; want [50 50 0 100], final SVM, 0.5", ws, e.Name(), e.Fraction())
	}
	p.Step(1, "")
	if got := evs[len(evs)-1].Fraction(); got != 1 {
		t.Errorf("the end: %v done", got)
	}
	var off *Progress
	off.Announce(Stage{Key: "x"})
	off.Begin("x", 1, "", 0)
	off.Step(1, "")
}

// An iteration stage planned at its expected iterations grows, twice as
// long at a time and at most to its limit, when the method goes on.
func TestProgressIterationsGrow(t *testing.T) {
	var last Event
	p := NewProgress(func(e Event) { last = e })
	p.Announce(Stage{Key: "iterations", Weight: 20}, Stage{Key: "final fit", Weight: 20})
	Common{Progress: p}.beginIterations(50, 20)
	p.Step(10, "")
	if last.Total != 20 || last.Fraction() != 0.25 {
		t.Fatalf("10 of 20 expected: total %d, %v done", last.Total, last.Fraction())
	}
	p.Step(20, "")
	if last.Total != 40 || last.Plan[0].Weight != 40 || last.Fraction() != 20.0/60 {
		t.Fatalf("past the expected 20: total %d, weight %v, %v done; want 40, 40, 1/3", last.Total, last.Plan[0].Weight, last.Fraction())
	}
	p.Step(40, "")
	if last.Total != 50 || last.Plan[0].Weight != 50 {
		t.Fatalf("past 40: total %d, weight %v; want the limit 50", last.Total, last.Plan[0].Weight)
	}
}
