package methods

import (
	"fmt"
	"strings"
)

// All lists the constructors of every registered method, in the order tables
// print them (the baseline first). `tune` and `compare` both range over it.
// Each method file adds its constructor here.
var All = []func() Method{
	NewSVM,
	NewSPD,
	NewGI,
	NewLCCP,
	NewRCSC,
	NewTwoLevel,
}

// Names returns the IDs of the registered methods, in registry order.
func Names() []string {
	out := make([]string, 0, len(All))
	for _, f := range All {
		out = append(out, f().Name())
	}
	return out
}

// Lookup returns a new instance of the method with the given ID.
func Lookup(name string) (Method, error) {
	for _, f := range All {
		if m := f(); m.Name() == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("methods: unknown method %q (known: %s)", name, strings.Join(Names(), ", "))
}

// summaries is one line per method ID, for listings such as tune's help.
var summaries = map[string]string{
	"svm":      "isotropic Gaussian, (C, γ) by k-fold CV over LIBSVM grid.py's grid (the baseline)",
	"spd":      "Laanaya et al. 2011: metric Q by descent on the SPD manifold (margin + Frobenius criterion)",
	"gi":       "Glasmachers & Igel 2005: radius-margin quotient, iRprop+ in the exponential chart",
	"lccp":     "Boughorbel et al.: multi-θ L1 kernel by the log convex-concave procedure",
	"rcsc":     "Yang, Xiong & Yang 2010: γ by the regularised class-separability criterion, C by CV",
	"twolevel": "Schittkowski: validation error minimised by SQP over an L2-SVM",
}

// Summary returns a one-line description of the method with the given ID:
// its paper and what it tunes ("(no description)" for an unknown ID).
func Summary(name string) string {
	if s, ok := summaries[name]; ok {
		return s
	}
	return "(no description)"
}
