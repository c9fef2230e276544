package metrics

import (
	"math"
	"testing"
)

// TestProbabilityScores: log-loss and Brier by hand, on two and three
// classes, with a zero probability clipped.
func TestProbabilityScores(t *testing.T) {
	cases := []struct {
		name         string
		prob         [][]float64
		truth        []int
		logLoss, bri float64
	}{
		// -(log .8 + log .4)/2; ((.2² + .2²) + (.6² + .6²))/2.
		{"binary", [][]float64{{.8, .2}, {.6, .4}}, []int{0, 1}, -(math.Log(.8) + math.Log(.4)) / 2, (0.08 + 0.72) / 2},
		// -(log .7 + log .5 + log 1e-15)/3; (.09+.01+.04, .25+.25+0, 1+0+1)/3.
		{"three", [][]float64{{.7, .1, .2}, {.5, .5, 0}, {0, 0, 1}}, []int{0, 1, 0},
			-(math.Log(.7) + math.Log(.5) + math.Log(1e-15)) / 3, (0.14 + 0.5 + 2) / 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ll, err := LogLoss(c.prob, c.truth)
			if err != nil || math.Abs(ll-c.logLoss) > 1e-12 {
				t.Errorf("LogLoss = %.15g, %v; want %.15g", ll, err, c.logLoss)
			}
			b, err := Brier(c.prob, c.truth)
			if err != nil || math.Abs(b-c.bri) > 1e-12 {
				t.Errorf("Brier = %.15g, %v; want %.15g", b, err, c.bri)
			}
		})
	}
	if _, err := LogLoss([][]float64{{.5, .5}}, []int{2}); err == nil {
		t.Error("class 2 of 2 accepted")
	}
	if v, err := Brier(nil, nil); err != nil || !math.IsNaN(v) {
		t.Errorf("no rows: %v, %v", v, err)
	}
}
