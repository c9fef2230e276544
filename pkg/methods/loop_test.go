package methods

import (
	"errors"
	"reflect"
	"testing"
)

// WithLoop sets each method's own loop fields from a Loop, and a zero field
// keeps the method's value.
func TestWithLoop(t *testing.T) {
	l := Loop{MaxIter: 7, Tol: 0.5, Rho: 3, Init: "cv", Margin: "hard", Budget: 11}
	for _, c := range []struct {
		in, want Spec
	}{
		{SPDSettings{MaxIter: 1, Tol: 1, Rho: 1, Init: "heuristic"}, SPDSettings{MaxIter: 7, Tol: 0.5, Rho: 3, Init: "cv"}},
		{GISettings{Steps: 1, Tol: 1, Margin: "l1"}, GISettings{Steps: 7, Tol: 0.5, Margin: "hard"}},
		{LCCPSettings{MaxIter: 1, Tol: 1, Margin: "l2"}, LCCPSettings{MaxIter: 7, Tol: 0.5, Margin: "hard"}},
		{RCSCSettings{MaxIter: 1, Tol: 1}, RCSCSettings{MaxIter: 7, Tol: 0.5}},
		{TwoLevelSettings{MaxIter: 1, Tol: 1}, TwoLevelSettings{MaxIter: 7, Tol: 0.5}},
		{RandomSettings{Budget: 1}, RandomSettings{Budget: 11}},
		{BOSettings{Budget: 1}, BOSettings{Budget: 11}},
	} {
		if got := WithLoop(c.in, l); !reflect.DeepEqual(got, c.want) {
			t.Errorf("WithLoop(%T): %+v, want %+v", c.in, got, c.want)
		}
		if got := WithLoop(c.in, Loop{}); !reflect.DeepEqual(got, c.in) {
			t.Errorf("WithLoop(%T, zero) changed it: %+v", c.in, got)
		}
	}
}

// The user's search space goes to the methods that search one (svm's and
// halving's grid, random's and bo's box), a grid the Loop leaves zero
// keeping the method's own, and to no other method.
func TestWithLoopSpace(t *testing.T) {
	var c, g Log2Grid
	if err := c.Set("-1,3,2"); err != nil {
		t.Fatal(err)
	}
	if err := g.Set("0,-4,-2"); err != nil {
		t.Fatal(err)
	}
	own := Space{Log2Gamma: g}
	l := Loop{Space: Space{Log2C: c}}
	want := Space{Log2C: c, Log2Gamma: g}
	for _, spec := range []Spec{SVMSettings{Space: own}, HalvingSettings{Space: own}, RandomSettings{Space: own}, BOSettings{Space: own}} {
		got := reflect.ValueOf(WithLoop(spec, l)).FieldByName("Space").Interface()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: space %+v, want %+v", spec, got, want)
		}
	}
	if got := WithLoop(SPDSettings{Rho: 2}, l); !reflect.DeepEqual(got, SPDSettings{Rho: 2}) {
		t.Errorf("spd took a search space: %+v", got)
	}
}

// Every registered method whose settings have a loop field a Loop names
// takes it through withLoop: a new method with MaxIter, Tol or Budget that
// forgot withLoop would silently ignore tune's --max-iter, --tol or --budget.
func TestEveryLoopMethodTakesLoop(t *testing.T) {
	for _, in := range All {
		spec := in.build(in.Params[0], "")
		typ := reflect.TypeOf(spec)
		has := false
		for _, f := range []string{"MaxIter", "Steps", "Tol", "Budget", "Rho", "Init", "Space"} {
			if _, ok := typ.FieldByName(f); ok {
				has = true
			}
		}
		if _, ok := spec.(loopSetter); has && !ok {
			t.Errorf("%s: %s has loop fields but no withLoop", in.Name, typ)
		}
	}
}

// ApplyLoop refuses a margin the entry's method does not train with, naming
// the margin, and applies the loop otherwise; without a margin it takes a
// spec outside the registry as it is.
func TestApplyLoop(t *testing.T) {
	got, err := ApplyLoop(GISettings{Steps: 1}, Loop{MaxIter: 4, Margin: "hard"})
	if err != nil || !reflect.DeepEqual(got, GISettings{Steps: 4, Margin: "hard"}) {
		t.Errorf("gi: %+v, %v", got, err)
	}
	var oe *OptionError
	if _, err := ApplyLoop(RCSCSettings{}, Loop{Margin: "hard"}); !errors.As(err, &oe) || oe.Option != "margin" || oe.Method != "rcsc" {
		t.Errorf("rcsc with a margin: %v, want an *OptionError of rcsc's margin", err)
	}
	if got, err := ApplyLoop(RCSCSettings{MaxIter: 2}, Loop{Tol: 0.25}); err != nil || !reflect.DeepEqual(got, RCSCSettings{MaxIter: 2, Tol: 0.25}) {
		t.Errorf("rcsc: %+v, %v", got, err)
	}
}
