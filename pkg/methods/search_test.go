package methods

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// wantBest is the tie rule as the grid states it (pickGrid), written apart
// from cvPoint.better: the most correct predictions, then the mean log2 γ
// nearest log2GammaH (within 1e-9), then the smaller C, then the earlier
// point. It returns the index of the best of pts and how many points
// share its accuracy.
func wantBest(pts []cvPoint, log2GammaH float64) (best, tied int) {
	dist := func(p cvPoint) float64 {
		s := 0.0
		for _, l := range p.Log2Gamma {
			s += l
		}
		return math.Abs(s/float64(len(p.Log2Gamma)) - log2GammaH)
	}
	for i, p := range pts {
		q := pts[best]
		switch a, b := p.Correct*q.Total, q.Correct*p.Total; {
		case a > b:
			best = i
		case a < b:
		case dist(p) < dist(q)-1e-9:
			best = i
		case dist(p) > dist(q)+1e-9:
		case p.Log2C < q.Log2C:
			best = i
		}
	}
	for _, p := range pts {
		if p.Correct*pts[best].Total == pts[best].Correct*p.Total {
			tied++
		}
	}
	return best, tied
}

// The one search loop chooses for every proposer the point the tie rule
// chooses: for a point search (random, bo, bo:ard) the best of every point
// so far after each batch (the trace's objective), for a search in rounds
// (halving, svm's grid and its large-data refinement) the best of each
// round's points; and the Result is that point's. On 40 rows many points
// share the best accuracy, so the tie rule, not the accuracy alone,
// decides: a loop that kept the later of equals, dropped γ_h or the
// smaller C, or compared a point with the last one instead of the best so
// far, fails here.
func TestSearchLoopBestByTheTieRule(t *testing.T) {
	small, d189 := heartHead(t, 40), heartHead(t, 189)
	cm := Common{Seed: 5}
	for _, tc := range []struct {
		name  string
		d     *dataio.Dataset
		build func(d *dataio.Dataset) (*searchCV, error)
	}{
		{"random", small, RandomSettings{Common: cm, Budget: 40}.search},
		{"bo", small, BOSettings{Common: cm, Budget: 12}.search},
		{"bo:ard", small, BOSettings{Common: cm, Param: "ard", Budget: 30}.search},
		{"halving", d189, HalvingSettings{Common: cm}.search}, // 3 rounds
		{"svm grid", small, func(d *dataio.Dataset) (*searchCV, error) { return newGridSearch(d, cm, Space{}) }},
		{"svm grid, large", small, func(d *dataio.Dataset) (*searchCV, error) {
			return newGridSearch(d, Common{Seed: 5, GridRows: 25}, Space{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			sc, err := tc.build(d)
			if err != nil {
				t.Fatal(err)
			}
			var trace []Step
			out, err := sc.loop(context.Background(), func(st Step) { trace = append(trace, st) })
			if err != nil {
				t.Fatal(err)
			}
			if len(trace) != sc.iters {
				t.Fatalf("%d steps, want %d", len(trace), sc.iters)
			}
			var want cvPoint
			mostTied := 0
			if len(sc.rounds) == 0 {
				// Each batch after the first is one point.
				for i, st := range trace {
					seen := sc.seen[:len(sc.seen)-(len(trace)-1-i)]
					b, tied := wantBest(seen, sc.ev.log2GammaH)
					want, mostTied = seen[b], max(mostTied, tied)
					if st.Objective != want.Accuracy() {
						t.Fatalf("step %d: best so far %g, the tie rule's %g", i, st.Objective, want.Accuracy())
					}
				}
				if sc.best.Log2C != want.Log2C || meanOf(sc.best.Log2Gamma) != meanOf(want.Log2Gamma) {
					t.Fatalf("chose (log2 C, log2 γ) = (%g, %v), the tie rule (%g, %v)", sc.best.Log2C, sc.best.Log2Gamma, want.Log2C, want.Log2Gamma)
				}
			} else {
				// A round's points are scored on its rows: they share a
				// Total, which differs from the other rounds'.
				var rounds [][]cvPoint
				for i, p := range sc.seen {
					if i == 0 || p.Total != sc.seen[i-1].Total {
						rounds = append(rounds, nil)
					}
					rounds[len(rounds)-1] = append(rounds[len(rounds)-1], p)
				}
				if len(rounds) != len(sc.rounds) || len(rounds) != sc.iters {
					t.Fatalf("%d rounds of points, %d recorded, %d batches", len(rounds), len(sc.rounds), sc.iters)
				}
				for r, pts := range rounds {
					// γ_h: from all rows (halving, whatever the round's
					// subsample; the grid's refinement), or from the
					// subset the grid ran on first.
					rows := d
					if pts[0].Total < d.Len() && sc.ev == nil {
						rows = d.Subset(stratifiedSubsetOf(d, pts[0].Total, 5))
					}
					lgH := math.Log2(moderateGamma(kernel.SquaredDistances(rows.X)))
					b, tied := wantBest(pts, lgH)
					want, mostTied = pts[b], max(mostTied, tied)
					if got := sc.rounds[r].best; got.C != want.C || got.Gamma != want.Gamma {
						t.Fatalf("round %d: chose (C, γ) = (%g, %g), the tie rule (%g, %g)", r, got.C, got.Gamma, want.C, want.Gamma)
					}
					if trace[r].Objective != want.Accuracy() {
						t.Fatalf("round %d: objective %g, the tie rule's best %g", r, trace[r].Objective, want.Accuracy())
					}
				}
			}
			if mostTied < 2 {
				t.Errorf("no tie at the best accuracy: the tie rule was not tested")
			}
			t.Logf("%d points in %d batches, up to %d at the best accuracy", len(sc.seen), len(trace), mostTied)
			if sc.ev == nil { // svm's grid: its Result is svm's (gridResult)
				return
			}
			res := sc.result(out, trace, time.Now())
			if res.C != want.C || res.CriterionEnd != want.Accuracy() || (sc.ev.ard == (res.Kernel.Gamma != 0)) {
				t.Errorf("Result C = %g, criterion %g, kernel %+v; the tie rule's point C = %g at %g", res.C, res.CriterionEnd, res.Kernel, want.C, want.Accuracy())
			}
			if !sc.ev.ard && res.Kernel.Gamma != want.Gamma {
				t.Errorf("Result γ = %g, the tie rule's %g", res.Kernel.Gamma, want.Gamma)
			}
		})
	}
}
