package methods

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	names := Names()
	if len(names) == 0 || names[0] != "svm" {
		t.Fatalf("Names() = %v, want the baseline svm first", names)
	}
	ids := []string{"svm", "spd", "gi", "lccp", "rcsc", "twolevel"}
	seen := map[string]bool{}
	for _, n := range names {
		if !slices.Contains(ids, n) {
			t.Errorf("method %q is not one of the house IDs %v", n, ids)
		}
		if seen[n] {
			t.Errorf("method %q registered twice", n)
		}
		seen[n] = true
		m, err := Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != n {
			t.Errorf("Lookup(%q).Name() = %q", n, m.Name())
		}
		if len(m.Params()) == 0 {
			t.Errorf("%s: Params() is empty (the first is the default)", n)
		}
	}
	// Every house ID, in the order of the package doc (tables print them so).
	if !slices.Equal(names, ids) {
		t.Errorf("Names() = %v, want %v", names, ids)
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), strings.Join(ids, ", ")) {
		t.Errorf(`Lookup("nope"): %v, want an error listing the known methods`, err)
	}
}

// TestRegistryRejectsUnknownParam: every registered method refuses a
// parameterisation it does not know, before doing any work.
func TestRegistryRejectsUnknownParam(t *testing.T) {
	d := heartHead(t, 30)
	for _, f := range All {
		m := f()
		_, err := m.Tune(context.Background(), d, Options{Param: "no-such-param", MaxIter: 1})
		if err == nil || !strings.HasPrefix(err.Error(), "methods: "+m.Name()+": ") || !strings.Contains(err.Error(), `"no-such-param"`) {
			t.Errorf("%s: unknown param: error %v, want one naming the method and the param", m.Name(), err)
		}
	}
}

func TestSPDParamsAndOptionErrors(t *testing.T) {
	if p := NewSPD().Params(); !slices.Equal(p, []string{"diag", "full"}) {
		t.Errorf("spd Params() = %v", p)
	}
	d := heartHead(t, 40)
	for _, o := range []Options{{Mode: "nope"}, {Init: "nope"}, {Init: "sigma=-1"}, {Init: "sigma=x"}, {Init: "sigma=1e-200"}, {Init: "sigma=1e200"}, {Rho: -1}, {Margin: "hard"}, {C: -2}} {
		if _, err := NewSPD().Tune(context.Background(), d, o); err == nil || !strings.HasPrefix(err.Error(), "methods: spd: ") || errors.As(err, new(*BreakdownError)) {
			t.Errorf("spd options %+v: error %v, want an option error", o, err)
		}
	}
	// One class is a data error, not a numerical breakdown at iteration 0.
	for i := range d.Y {
		d.Y[i] = 1
	}
	if _, err := NewSPD().Tune(context.Background(), d, Options{}); err == nil || !strings.Contains(err.Error(), "both classes") || errors.As(err, new(*BreakdownError)) {
		t.Errorf("one class: error %v, want a data error naming both classes", err)
	}
}

// Every registered method has its one-line summary (tune's help lists them).
func TestSummaryOfEveryMethod(t *testing.T) {
	for _, name := range Names() {
		if s := Summary(name); s == "(no description)" || s == "" {
			t.Errorf("method %s has no summary", name)
		}
	}
	if s := Summary("nosuch"); s != "(no description)" {
		t.Errorf(`Summary("nosuch") = %q, want "(no description)"`, s)
	}
}
