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
	ids := []string{"svm", "spd", "gi", "lccp", "rcsc", "twolevel", "random", "halving", "bo"}
	seen := map[string]bool{}
	for _, n := range names {
		if !slices.Contains(ids, n) {
			t.Errorf("method %q is not one of the house IDs %v", n, ids)
		}
		if seen[n] {
			t.Errorf("method %q registered twice", n)
		}
		seen[n] = true
		in, err := Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		if in.Name != n {
			t.Errorf("Lookup(%q).Name = %q", n, in.Name)
		}
		if len(in.Params) == 0 {
			t.Errorf("%s: Params is empty (the first is the default)", n)
		}
		// New builds the method's settings, with its defaults and with
		// every listed param and mode.
		for _, p := range append([]string{""}, in.Params...) {
			for _, m := range append([]string{""}, in.Modes...) {
				s, err := New(n, p, m)
				if err != nil {
					t.Errorf("New(%q, %q, %q): %v", n, p, m, err)
					continue
				}
				if s.Name() != n {
					t.Errorf("New(%q, %q, %q).Name() = %q", n, p, m, s.Name())
				}
				if err := s.Check(); err != nil {
					t.Errorf("New(%q, %q, %q).Check(): %v", n, p, m, err)
				}
			}
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
// parameterisation it does not know, before doing any work: New with an
// *OptionError naming "param", and the settings' Tune the same.
func TestRegistryRejectsUnknownParam(t *testing.T) {
	d := heartHead(t, 30)
	for _, in := range All {
		_, err := New(in.Name, "no-such-param", "")
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "param" || !strings.HasPrefix(err.Error(), in.Name+": ") || !strings.Contains(err.Error(), `"no-such-param"`) {
			t.Errorf("New(%s, no-such-param): error %v, want one naming the method and the param", in.Name, err)
		}
		// The settings type refuses it too, when it has a Param field.
		s, err := New(in.Name, "", "")
		if err != nil {
			t.Fatal(err)
		}
		s = withParam(s, "no-such-param")
		if s == nil {
			continue // svm: one parameterisation, no field
		}
		_, err = withMaxIter(s, 1).tune(context.Background(), d)
		if err == nil || !strings.HasPrefix(err.Error(), in.Name+": ") || !strings.Contains(err.Error(), `"no-such-param"`) {
			t.Errorf("%s: unknown param: error %v, want one naming the method and the param", in.Name, err)
		}
	}
	if _, err := New("svm", "", "paper"); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Errorf(`New("svm", "", "paper"): %v, want a refusal of the mode`, err)
	}
	if _, err := New("rcsc", "", "fast"); err == nil || !strings.Contains(err.Error(), `"fast"`) {
		t.Errorf(`New("rcsc", "", "fast"): %v, want a refusal of the mode`, err)
	}
	var ue *UnknownMethodError
	if _, err := New("nope", "", ""); !errors.As(err, &ue) {
		t.Errorf(`New("nope"): %v, want an *UnknownMethodError`, err)
	}
}

// withParam returns s with its Param set to p, nil for svm (no Param).
func withParam(s Spec, p string) Spec {
	switch x := s.(type) {
	case SPDSettings:
		x.Param = p
		return x
	case GISettings:
		x.Param = p
		return x
	case LCCPSettings:
		x.Param = p
		return x
	case RCSCSettings:
		x.Param = p
		return x
	case TwoLevelSettings:
		x.Param = p
		return x
	}
	return nil
}

// withMaxIter returns s with its iteration limit (gi's Steps) set to n; svm
// has none and is returned as it is.
func withMaxIter(s Spec, n int) Spec {
	switch x := s.(type) {
	case SPDSettings:
		x.MaxIter = n
		return x
	case GISettings:
		x.Steps = n
		return x
	case LCCPSettings:
		x.MaxIter = n
		return x
	case RCSCSettings:
		x.MaxIter = n
		return x
	case TwoLevelSettings:
		x.MaxIter = n
		return x
	}
	return s
}

// TestParseEntry: the command line's "method[:param][@mode]" reads back
// into its parts, builds the same settings as New, and refuses what New
// refuses.
func TestParseEntry(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Entry
	}{
		{"svm", Entry{Method: "svm"}},
		{"spd:full", Entry{Method: "spd", Param: "full"}},
		{"rcsc@paper", Entry{Method: "rcsc", Mode: "paper"}},
		{" twolevel:diag@paper ", Entry{Method: "twolevel", Param: "diag", Mode: "paper"}},
	} {
		e, err := ParseEntry(c.in)
		if err != nil || e != c.want {
			t.Errorf("ParseEntry(%q) = %+v, %v; want %+v", c.in, e, err, c.want)
			continue
		}
		if got := e.String(); got != strings.TrimSpace(c.in) {
			t.Errorf("%+v.String() = %q, want %q", e, got, strings.TrimSpace(c.in))
		}
		s, err := e.Spec()
		if err != nil || s.Name() != e.Method {
			t.Errorf("%+v.Spec() = %v, %v", e, s, err)
		}
	}
	for _, bad := range []string{"nope", "spd:iso", "gi@paper", "rcsc@fast"} {
		if e, err := ParseEntry(bad); err == nil {
			t.Errorf("ParseEntry(%q) = %+v, want an error", bad, e)
		}
	}
}

func TestSPDParamsAndOptionErrors(t *testing.T) {
	if in, err := Lookup("spd"); err != nil || !slices.Equal(in.Params, []string{"diag", "full"}) {
		t.Errorf("spd Params = %v, %v", in.Params, err)
	}
	d := heartHead(t, 40)
	// spd has only the L1 margin (no Margin field): the old {Margin: "hard"}
	// row is the command line's check now.
	for _, s := range []SPDSettings{{Mode: "nope"}, {Init: "nope"}, {Init: "sigma=-1"}, {Init: "sigma=x"}, {Init: "sigma=1e-200"}, {Init: "sigma=1e200"}, {Rho: -1}, {Common: Common{C: -2}}} {
		if _, err := s.tune(context.Background(), d); err == nil || !strings.HasPrefix(err.Error(), "spd: ") || errors.As(err, new(*BreakdownError)) {
			t.Errorf("spd settings %+v: error %v, want an option error", s, err)
		}
	}
	// One class is a data error, not a numerical breakdown at iteration 0.
	for i := range d.Y {
		d.Y[i] = 1
	}
	if _, err := (SPDSettings{}).tune(context.Background(), d); err == nil || !strings.Contains(err.Error(), "both classes") || errors.As(err, new(*BreakdownError)) {
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

// TestParseEntryParamAfterAt: "spd@diag" (a parameterisation written after
// @, as in a study file) is spd:diag; a mode stays a mode, and an "@x" that
// is neither is refused as a mode.
func TestParseEntryParamAfterAt(t *testing.T) {
	for in, want := range map[string]Entry{
		"spd@diag":      {Method: "spd", Param: "diag"},
		"spd@lbfgs":     {Method: "spd", Mode: "lbfgs"},
		"rcsc@diag":     {Method: "rcsc", Param: "diag"},
		"rcsc@paper":    {Method: "rcsc", Mode: "paper"},
		"gi@D":          {Method: "gi", Param: "D"},
		"spd:full@diag": {},
	} {
		got, err := ParseEntry(in)
		if want == (Entry{}) {
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != "mode" {
				t.Errorf("ParseEntry(%q) = %+v, %v; want a mode error", in, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseEntry(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}
