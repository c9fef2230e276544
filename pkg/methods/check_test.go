package methods

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestCheckOptionsAgreesWithTune holds CheckOptions to the methods' own
// checks: every option set it refuses, Tune refuses too (on real data, with
// the same words), and every option set it accepts, Tune runs with. compare
// relies on it to refuse a bad option before any job.
func TestCheckOptionsAgreesWithTune(t *testing.T) {
	train := heartHead(t, 30)
	for _, tc := range []struct {
		method string
		opts   Options
		want   string // "" = accepted
	}{
		{"svm", Options{C: -1}, "C must be positive"},
		{"svm", Options{C: math.NaN()}, "C must be positive"},
		{"svm", Options{Folds: 1}, "at least 2 folds, got 1"},
		{"svm", Options{Margin: "l2"}, `margin "l2" not offered`},
		{"svm", Options{Eps: -1}, "Eps"},
		{"svm", Options{C: 1, Folds: 3}, ""},
		{"spd", Options{C: -1}, "C must be positive"},
		{"spd", Options{Rho: -1}, "rho must be positive"},
		{"spd", Options{Init: "sigma=-2"}, "sigma must be a positive number"},
		{"spd", Options{Init: "cv", Folds: 1}, "at least 2 folds, got 1"},
		{"spd", Options{Folds: 1, MaxIter: 2}, ""}, // the heuristic start does not cross-validate
		{"spd", Options{Mode: "nosuch"}, `unknown mode "nosuch"`},
		{"gi", Options{Margin: "l1"}, `margin "l1" not offered`},
		{"gi", Options{MaxIter: -1}, "steps must be ≥ 0"},
		{"gi", Options{Folds: 1}, "at least 2 folds, got 1"},
		{"gi", Options{C: 1, Folds: 1, MaxIter: 2}, ""}, // C given: no CV
		{"gi", Options{C: -1}, "C must be positive"},
		{"lccp", Options{C: math.Inf(1)}, "C"},
		{"lccp", Options{Margin: "l1"}, `margin "l1" not offered`},
		{"lccp", Options{Folds: 1}, "at least 2 folds, got 1"},
		{"lccp", Options{Margin: "hard", Folds: 1, MaxIter: 2}, ""},
		{"rcsc", Options{C: -1}, "C"},
		{"rcsc", Options{Mode: "nosuch"}, `"nosuch"`},
		{"rcsc", Options{Margin: "hard"}, `margin "hard" not offered`},
		{"rcsc", Options{Folds: 1}, "at least 2 folds, got 1"},
		{"rcsc", Options{C: 2, Folds: 1, MaxIter: 2}, ""},
		{"twolevel", Options{C: 1}, "C is learned"},
		{"twolevel", Options{C: -1}, "C"},
		{"twolevel", Options{Margin: "l1"}, `margin "l1" not offered`},
		{"twolevel", Options{Param: "full"}, `"full"`},
		{"twolevel", Options{Folds: 1, MaxIter: 2}, ""}, // no cross-validation
	} {
		t.Run(fmt.Sprintf("%s%+v", tc.method, tc.opts), func(t *testing.T) {
			m, err := Lookup(tc.method)
			if err != nil {
				t.Fatal(err)
			}
			checkErr := CheckOptions(m, tc.opts)
			tc.opts.Seed = 1
			_, tuneErr := m.Tune(context.Background(), train, tc.opts)
			if tc.want == "" {
				if checkErr != nil || tuneErr != nil {
					t.Fatalf("CheckOptions: %v; Tune: %v; want both to accept", checkErr, tuneErr)
				}
				return
			}
			if checkErr == nil || !strings.Contains(checkErr.Error(), tc.want) || !strings.HasPrefix(checkErr.Error(), "methods: "+tc.method+": ") {
				t.Errorf("CheckOptions: %v; want an error naming %s and %q", checkErr, tc.method, tc.want)
			}
			if tuneErr == nil || !strings.Contains(tuneErr.Error(), tc.want) {
				t.Errorf("Tune: %v; want an error with %q (CheckOptions refuses what Tune accepts)", tuneErr, tc.want)
			}
		})
	}
}
