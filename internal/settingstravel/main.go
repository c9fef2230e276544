// Command settingstravel measures how a settings struct travels through
// the module: issue 31's "how one Compare call's settings travel (files
// entered, climbs)", for experiment.CompareSettings from experiment.Compare
// by default.
//
//	go run ./internal/settingstravel [-v] [-type import/path.Name] [-entry import/path.Name]
//
// It type-checks the module's packages from source (non-test files; the
// packages outside the module from their export data) and follows the
// settings by a whole-program, flow-insensitive, field-sensitive and
// context-insensitive analysis:
//
//   - Carrying the settings. An expression of the settings type, or a
//     pointer to it, carries them. So does a variable, parameter, named
//     result or struct field (one location for the field of every value of
//     its struct type) that something carrying them is assigned to; a
//     field of, an element of, a slice of, the address of and the value
//     pointed to by something that carries them; a composite literal with
//     an element that carries them; a conversion, append, or slices.Clone,
//     maps.Clone, slices.Concat or cmp.Or of something that carries them;
//     ranging over it (the values; the keys of a map); the result of a
//     call of a function of the module that returns something that carries
//     them (as a whole or as one of its results); a parameter (or
//     receiver) of a function of the module that some call passes
//     something carrying them. Values computed from them (arithmetic,
//     formatting, other library calls) are new values and do not carry
//     them: the measure is where the settings themselves go.
//   - The functions followed. entry, every function with an expression of
//     the settings type (the code that makes them and hands them over),
//     and what these call, transitively: functions and methods named,
//     every method of a type of the module that implements an interface's
//     method called, and the functions a function value called may be
//     (every function, method value and function literal assigned to that
//     variable or field anywhere); function literals inside a followed
//     function are followed.
//   - Files entered: the files (non-test, of the module) in which a
//     followed function has an identifier or selector that carries the
//     settings, whether it reads a field, writes one, or passes them on.
//   - Climbs: a call in a followed function, between two packages, that
//     takes the settings up: either the callee's package is not below the
//     caller's (does not import it, directly or not: a function value or
//     an interface's method calls up) and the call carries the settings
//     (an argument, or the function value itself), or the callee's package
//     is below and the callee returns something that carries them (the
//     settings went down and come back up). Counted once per (kind,
//     calling function, called function); a function literal counts as
//     the function it is written in.
//
// Being context-insensitive, the analysis over-approximates: a function
// that some path passes the settings to carries them for every caller,
// and a struct field that is assigned them somewhere carries them wherever
// it is read in a followed function. Calls that go through code outside
// the module (a callback given to sort.Slice, say) are not followed. Only
// the counts of one tree compare with the counts of another under the
// same definition.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
)

func main() {
	typ := flag.String("type", "github.com/kerneltune/kerneltune/pkg/experiment.CompareSettings", "the settings type, import/path.Name")
	entry := flag.String("entry", "github.com/kerneltune/kerneltune/pkg/experiment.Compare", "the function that takes them, import/path.Name")
	stop := flag.String("stop", "github.com/kerneltune/kerneltune/pkg/dataio.Dataset", "comma-separated types whose values do not carry the settings (the data, which Sources hold)")
	verbose := flag.Bool("v", false, "list the files (with one carrying expression each) and the climbs")
	flag.Parse()
	prog, err := Load(".")
	if err == nil {
		var t *Travel
		if t, err = Measure(prog, *typ, *entry, strings.Split(*stop, ",")...); err == nil {
			t.Write(os.Stdout, *verbose)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "settingstravel:", err)
	os.Exit(1)
}

// Write prints the counts, and with verbose the files by package, the
// files and the climbs.
func (t *Travel) Write(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "files entered: %d\nclimbs: %d\n", len(t.Files), len(t.Climbs))
	if !verbose {
		return
	}
	fmt.Fprintln(w, "\nfiles by package:")
	byPkg := map[string]int{}
	for _, f := range t.Files {
		byPkg[path.Dir(f)]++
	}
	for _, p := range sortedKeys(byPkg) {
		fmt.Fprintf(w, "  %-20s %d\n", p, byPkg[p])
	}
	fmt.Fprintln(w, "\nfiles (one carrying expression each):")
	for _, f := range t.Files {
		fmt.Fprintf(w, "  %s\n", t.Evidence[f])
	}
	fmt.Fprintln(w, "\nclimbs (from the package below up to the one above):")
	for _, c := range t.Climbs {
		fmt.Fprintf(w, "  %-6s %s -> %s: %s -> %s\n", c.Kind, c.From, c.To, c.Caller, c.Callee)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
