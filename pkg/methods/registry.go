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
