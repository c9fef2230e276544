package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"gonum.org/v1/gonum/mat"
)

// checkCase is one row of the Check table: a spec and the *OptionError it
// must be refused with (option "" = accepted).
type checkCase struct {
	spec   Spec
	option string // the refused setting's flag name; "" = accepted
	value  string // the refused value as the user would write it
}

// checkCases lists, for every method, settings Check refuses (one per
// condition) and settings it accepts. The margins svm, spd, rcsc (l1) and
// twolevel (l2) have no choice of are no fields of their settings types,
// so no row refuses one.
func checkCases() []checkCase {
	nan, inf := math.NaN(), math.Inf(1)
	return []checkCase{
		{SVMSettings{Common: Common{C: -1}}, "C", "-1"},
		{SVMSettings{Common: Common{C: nan}}, "C", "NaN"},
		{SVMSettings{Common: Common{Folds: 1}}, "folds", "1"},
		{SVMSettings{Common: Common{Eps: -1}}, "eps", "-1"},
		{SVMSettings{Common: Common{CacheMB: -1}}, "cache-mb", "-1"},
		{SVMSettings{Common: Common{Workers: -1}}, "workers", "-1"},
		{SVMSettings{Common: Common{GridRows: MinGridRows - 1}}, "grid-rows", fmt.Sprint(MinGridRows - 1)},
		{SVMSettings{Common: Common{GridRows: -2}}, "grid-rows", "-2"},
		{SVMSettings{Common: Common{C: 1, Folds: 3}}, "", ""},

		{SPDSettings{Common: Common{C: -1}}, "C", "-1"},
		{SPDSettings{Param: "iso"}, "param", `"iso"`},
		{SPDSettings{Mode: "nosuch"}, "mode", `"nosuch"`},
		{SPDSettings{Rho: -1}, "rho", "-1"},
		{SPDSettings{MaxIter: -1}, "max-iter", "-1"},
		{SPDSettings{Tol: -1}, "tol", "-1"},
		{SPDSettings{Init: "nope"}, "init", `"nope"`},
		{SPDSettings{Init: "sigma=-2"}, "init", `"sigma=-2"`},
		{SPDSettings{Init: "sigma=x"}, "init", `"sigma=x"`},
		{SPDSettings{Init: "sigma=1e-200"}, "init", `"sigma=1e-200"`},
		{SPDSettings{Init: "sigma=1e200"}, "init", `"sigma=1e200"`},
		{SPDSettings{Common: Common{Folds: 1}, Init: "cv"}, "folds", "1"},
		{SPDSettings{Common: Common{Folds: 1}, MaxIter: 2}, "folds", "1"}, // refused even where the heuristic start does not cross-validate

		{GISettings{Param: "Z"}, "param", `"Z"`},
		{GISettings{Margin: "l1"}, "margin", `"l1"`},
		{GISettings{Steps: -1}, "steps", "-1"},
		{GISettings{Tol: nan}, "tol", "NaN"},
		{GISettings{Common: Common{Folds: 1}}, "folds", "1"},
		{GISettings{Common: Common{C: -1}}, "C", "-1"},
		{GISettings{Common: Common{C: 1, Folds: 1}, Steps: 2}, "folds", "1"},     // C given: no CV, still no number of folds
		{GISettings{Common: Common{C: 1}, Steps: 2, Tol: -1}, "", ""},            // negative Tol: run every step
		{GISettings{Common: Common{Folds: 3}, Margin: "hard", Steps: 2}, "", ""}, // hard margin: no C, no CV

		{LCCPSettings{Common: Common{C: inf}}, "C", "+Inf"},
		{LCCPSettings{Param: "diag"}, "param", `"diag"`},
		{LCCPSettings{Margin: "l1"}, "margin", `"l1"`},
		{LCCPSettings{MaxIter: -1}, "max-iter", "-1"},
		{LCCPSettings{Tol: -1}, "tol", "-1"},
		{LCCPSettings{Common: Common{Folds: 1}}, "folds", "1"},
		{LCCPSettings{Common: Common{Folds: 1}, Margin: "hard", MaxIter: 2}, "folds", "1"},

		{RCSCSettings{Common: Common{C: -1}}, "C", "-1"},
		{RCSCSettings{Param: "full"}, "param", `"full"`},
		{RCSCSettings{Schedule: "nosuch"}, "mode", `"nosuch"`},
		{RCSCSettings{MaxIter: -1}, "max-iter", "-1"},
		{RCSCSettings{Tol: -1}, "tol", "-1"},
		{RCSCSettings{Common: Common{Folds: 1}}, "folds", "1"},
		{RCSCSettings{Common: Common{C: 2, Folds: 1}, MaxIter: 2}, "folds", "1"},

		{TwoLevelSettings{Common: Common{C: 1}}, "C", "1"},
		{TwoLevelSettings{Common: Common{C: -1}}, "C", "-1"},
		{TwoLevelSettings{Param: "full"}, "param", `"full"`},
		{TwoLevelSettings{Mode: "robust"}, "mode", `"robust"`},
		{TwoLevelSettings{MaxIter: -1}, "max-iter", "-1"},
		{TwoLevelSettings{Tol: -1}, "tol", "-1"},
		{TwoLevelSettings{Common: Common{Folds: 1}, MaxIter: 2}, "folds", "1"}, // no cross-validation, still no number of folds

		{RandomSettings{Budget: -1}, "budget", "-1"},
		{RandomSettings{Common: Common{Folds: 1}}, "folds", "1"},
		{RandomSettings{Common: Common{C: 2}, Budget: 3}, "", ""},
		{HalvingSettings{Common: Common{C: -1}}, "C", "-1"},
		{HalvingSettings{Common: Common{Folds: 1}}, "folds", "1"},
		{BOSettings{Budget: -1}, "budget", "-1"},
		{BOSettings{Budget: 5}, "budget", "5"}, // fewer than the initial points and one more
		{BOSettings{Param: "full"}, "param", `"full"`},
		{BOSettings{Common: Common{Eps: -1}}, "eps", "-1"},
		{BOSettings{Budget: 6}, "", ""},
	}
}

// name returns the subtest name of row i: the method, then the refused
// setting and value, or "ok".
func (tc checkCase) name(i int) string {
	if tc.option == "" {
		return fmt.Sprintf("%d/%s/ok", i, tc.spec.Name())
	}
	return fmt.Sprintf("%d/%s/%s=%s", i, tc.spec.Name(), tc.option, tc.value)
}

// TestCheck: every method's Check refuses each bad setting with an
// *OptionError naming the method, the setting by its flag name and the
// value, in the one wording "<method>: <option> <value>: want <what>", and
// accepts the good ones.
func TestCheck(t *testing.T) {
	seen := map[string]bool{}
	for i, tc := range checkCases() {
		name := tc.spec.Name()
		seen[name] = true
		t.Run(tc.name(i), func(t *testing.T) {
			err := tc.spec.Check()
			if tc.option == "" {
				if err != nil {
					t.Fatalf("Check of %+v: %v, want nil", tc.spec, err)
				}
				return
			}
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("Check of %+v: %v (%T), want an *OptionError for %s", tc.spec, err, err, tc.option)
			}
			if oe.Method != name || oe.Option != tc.option || oe.Value != tc.value || len(oe.Want) == 0 {
				t.Errorf("Check: %+v, want method %s, option %s, value %s and what is wanted", *oe, name, tc.option, tc.value)
			}
			msg := err.Error()
			if !strings.Contains(msg, name) || !strings.Contains(msg, tc.value) {
				t.Errorf("Check: %q, want the method %s and the value %s in it", msg, name, tc.value)
			}
			if prefix := name + ": " + tc.option + " " + tc.value + ": want "; !strings.HasPrefix(msg, prefix) {
				t.Errorf("Check: %q, want it to start %q", msg, prefix)
			}
		})
	}
	for _, name := range Names() {
		if !seen[name] {
			t.Errorf("no Check case for method %s", name)
		}
	}
}

// TestCheckAgreesWithTune holds Check to Tune: every settings value Check
// refuses, Tune refuses on real data with the same error, and every value
// Check accepts, Tune runs with. compare relies on it to refuse a bad
// setting before any job.
func TestCheckAgreesWithTune(t *testing.T) {
	train := heartHead(t, 30)
	for i, tc := range checkCases() {
		t.Run(tc.name(i), func(t *testing.T) {
			c := tc.spec.Base()
			c.Seed = 1
			s := tc.spec.WithBase(c)
			checkErr := s.Check()
			_, tuneErr := s.tune(context.Background(), train)
			if tc.option == "" {
				if checkErr != nil || tuneErr != nil {
					t.Fatalf("Check: %v; Tune: %v; want both to accept", checkErr, tuneErr)
				}
				return
			}
			var ce, te *OptionError
			if !errors.As(checkErr, &ce) || !errors.As(tuneErr, &te) {
				t.Fatalf("Check: %v; Tune: %v; want the same *OptionError from both", checkErr, tuneErr)
			}
			if ce.Error() != te.Error() || checkErr.Error() != tuneErr.Error() {
				t.Errorf("Check: %v; Tune: %v; want the same error", checkErr, tuneErr)
			}
		})
	}
}

// TestTuneRefusesBadTrainingDataTheSameWay: every method words an empty or
// missing training part and a one-class one the same way, and none panics.
func TestTuneRefusesBadTrainingDataTheSameWay(t *testing.T) {
	one := &dataio.Dataset{X: mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 1, 1, 2}), Y: []float64{1, 1, 1, 1}}
	for _, in := range All {
		spec, err := New(in.Name, "", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			train *dataio.Dataset
			want  string
		}{
			{"nil", nil, in.Name + ": the training part is empty"},
			{"empty", &dataio.Dataset{}, in.Name + ": the training part is empty"},
			{"one class", one, in.Name + ": the training part needs both classes (4 positive, 0 negative)"},
		} {
			_, err := spec.tune(context.Background(), tc.train)
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s on %s data: err = %v, want %q", in.Name, tc.name, err, tc.want)
			}
		}
	}
}
