package methods

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// Info describes one registered method: its ID, a one-line summary, its
// parameterisations and modes (the first of each the default), and how to
// build its settings from the command line's param and mode.
type Info struct {
	Name    string
	Summary hint.Text
	// Params lists the accepted parameterisations; the first is the
	// default.
	Params []string
	// Modes lists the algorithm variants (nil: none); the first is the
	// default.
	Modes []string
	// Margins lists the SVM margins the method trains with ("l1", "l2",
	// "hard"): the first is the default; only gi and lccp offer a choice
	// (their settings' Margin), and marginWhy says why the others do not.
	Margins   []string
	marginWhy string
	// OptIn marks the practitioners' baselines (random, halving, bo): they
	// are not in compare's default list (Defaults), only in "all" or a
	// list that names them.
	OptIn bool
	// build returns the method's settings with param and mode set and
	// every other field at its default.
	build func(param, mode string) Spec
}

// All lists every registered method, in the order tables print them (the
// baseline first). `tune` and `compare` both range over it. Each method's
// entry is defined in its own file, beside its settings type.
var All = []Info{svmInfo, spdInfo, giInfo, lccpInfo, rcscInfo, twoLevelInfo, randomInfo, halvingInfo, boInfo}

// Defaults returns the IDs of the methods compare runs when no list is
// given: every registered method but the opt-in baselines (the seeds'
// baseline svm and the five papers' methods), in registry order.
func Defaults() []string {
	var out []string
	for _, in := range All {
		if !in.OptIn {
			out = append(out, in.Name)
		}
	}
	return out
}

// CheckMargin refuses a margin the method does not train with ("" is its
// default): an *OptionError naming "margin".
func (in Info) CheckMargin(margin string) error {
	return checkChoice(in.Name, "margin", margin, in.Margins, in.marginWhy)
}

// Names returns the IDs of the registered methods, in registry order.
func Names() []string {
	out := make([]string, 0, len(All))
	for _, in := range All {
		out = append(out, in.Name)
	}
	return out
}

// UnknownMethodError is a method ID the registry does not know.
type UnknownMethodError struct{ Name string }

func (e *UnknownMethodError) Error() string {
	return fmt.Sprintf("unknown method %q (known: %s)", e.Name, strings.Join(Names(), ", "))
}

// Lookup returns the registry's entry for a method ID.
func Lookup(name string) (Info, error) {
	for _, in := range All {
		if in.Name == name {
			return in, nil
		}
	}
	return Info{}, &UnknownMethodError{Name: name}
}

// Summary returns a one-line description of the method with the given ID:
// its paper and what it tunes ("(no description)" for an unknown ID).
func Summary(name string) string {
	if in, err := Lookup(name); err == nil {
		return in.Summary.String()
	}
	return "(no description)"
}

// New returns the settings of method name with the parameterisation param
// and the mode mode ("" for the method's default), every other field at its
// default. It refuses an unknown method, parameterisation or mode (an
// *OptionError naming "param" or "mode").
func New(name, param, mode string) (Spec, error) {
	in, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if err := checkChoice(name, "param", param, in.Params, ""); err != nil {
		return nil, err
	}
	if mode != "" && len(in.Modes) == 0 {
		return nil, optErr(name, "mode", mode, "nothing: "+name+" has no modes")
	}
	if err := checkChoice(name, "mode", mode, in.Modes, ""); err != nil {
		return nil, err
	}
	return in.build(param, mode), nil
}

// Entry names one method with a parameterisation and a mode as the command
// line writes it: "method", "method:param", "method@mode" or
// "method:param@mode" ("" param or mode: the method's default).
type Entry struct {
	Method string
	Param  string
	Mode   string
}

// String returns the entry as the command line writes it.
func (e Entry) String() string {
	s := e.Method
	if e.Param != "" {
		s += ":" + e.Param
	}
	if e.Mode != "" {
		s += "@" + e.Mode
	}
	return s
}

// Spec returns the entry's settings (New).
func (e Entry) Spec() (Spec, error) { return New(e.Method, e.Param, e.Mode) }

// ParseEntry reads "method[:param][@mode]" and checks it against the
// registry. "method@x" where x is no mode of the method but one of its
// parameterisations means "method:x" (the form "spd@diag" that users write;
// no method has a name that is both).
func ParseEntry(s string) (Entry, error) {
	item, mode, _ := strings.Cut(strings.TrimSpace(s), "@")
	name, param, _ := strings.Cut(item, ":")
	if in, err := Lookup(name); err == nil && param == "" && mode != "" &&
		!slices.Contains(in.Modes, mode) && slices.Contains(in.Params, mode) {
		param, mode = mode, ""
	}
	e := Entry{Method: name, Param: param, Mode: mode}
	if _, err := e.Spec(); err != nil {
		return Entry{}, err
	}
	return e, nil
}
