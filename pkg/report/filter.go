package report

// report --datasets and --methods: the records of some datasets and
// methods only, as if the run had planned only them.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// Filter keeps the records of the datasets and method entries listed (nil
// or empty: all). A method matches an entry by its whole name ("spd:diag"),
// by what its name resolves to ("spd:diag" keeps the records of entry spd,
// whose default param is diag; "spd@diag" is "spd:diag", as ParseEntry reads
// it) or by its method ("spd" keeps every spd entry). The records' grid is cut
// to the same datasets and entries (a new grid: the records' own are not
// changed), so that the tables count only the jobs kept as planned. A name
// that matches nothing is an error naming what the records hold.
func Filter(recs []experiment.Record, datasets, methods []string) ([]experiment.Record, error) {
	if len(datasets) == 0 && len(methods) == 0 {
		return recs, nil
	}
	recs = byIdentity(recs) // the names the tables give, NAME#2 too
	var haveDS, haveEntries []string
	for _, r := range recs {
		if !slices.Contains(haveDS, r.Dataset) {
			haveDS = append(haveDS, r.Dataset)
		}
		if !slices.Contains(haveEntries, r.Entry) {
			haveEntries = append(haveEntries, r.Entry)
		}
	}
	keepDS := func(name string) bool { return len(datasets) == 0 || slices.Contains(datasets, name) }
	entryOf := map[string]*experiment.Record{} // a record of each entry, for what it resolves to
	for i := range recs {
		if _, ok := entryOf[recs[i].Entry]; !ok {
			entryOf[recs[i].Entry] = &recs[i]
		}
	}
	matches := func(entry, m string) bool {
		r := entryOf[entry]
		if r == nil { // an entry of the grid without records
			r = &experiment.Record{Entry: entry}
		}
		return entryMatches(r, m)
	}
	keepEntry := func(entry string) bool {
		return len(methods) == 0 || slices.ContainsFunc(methods, func(m string) bool { return matches(entry, m) })
	}
	for _, d := range datasets {
		if !slices.Contains(haveDS, d) {
			return nil, hint.Errorf(nil, hint.S("datasets", ""), fmt.Sprintf(": no records of dataset %q (the records hold %s)", d, strings.Join(haveDS, ", ")))
		}
	}
	for _, m := range methods {
		if !slices.ContainsFunc(haveEntries, func(e string) bool { return matches(e, m) }) {
			return nil, hint.Errorf(nil, hint.S("methods", ""), fmt.Sprintf(": no records of method %q (the records hold %s)", m, strings.Join(haveEntries, ", ")))
		}
	}
	grids := map[*experiment.Grid]*experiment.Grid{}
	var out []experiment.Record
	for _, r := range recs {
		if !keepDS(r.Dataset) || !keepEntry(r.Entry) {
			continue
		}
		if g := r.Grid; g != nil {
			cut, ok := grids[g]
			if !ok {
				cut = &experiment.Grid{}
				for _, d := range g.Datasets {
					if keepDS(d.Name) {
						cut.Datasets = append(cut.Datasets, d)
					}
				}
				for _, e := range g.Entries {
					if keepEntry(e) {
						cut.Entries = append(cut.Entries, e)
					}
				}
				grids[g] = cut
			}
			r.Grid = cut
		}
		out = append(out, r)
	}
	return out, nil
}

// FilterMerge is Filter on the records of res, and keeps only the datasets
// given (nil: all) in res.Datasets.
func FilterMerge(res *experiment.MergeResult, datasets, methods []string) error {
	recs, err := Filter(res.Records, datasets, methods)
	if err != nil {
		return err
	}
	res.Records = recs
	if len(datasets) > 0 {
		res.Datasets = slices.DeleteFunc(res.Datasets, func(d string) bool { return !slices.Contains(datasets, d) })
	}
	return nil
}

// entryMatches reports whether the entry of r, "method[:param][@mode]", is
// name, is of the method name, or is what name resolves to: the same
// method, and the param and mode name gives (each resolved to its method's
// default where the record or the name leaves it out), so that "spd:diag"
// finds the records of entry "spd" (issue 42, item 17).
func entryMatches(r *experiment.Record, name string) bool {
	method, _, _ := strings.Cut(strings.SplitN(r.Entry, "@", 2)[0], ":")
	if r.Entry == name || method == name {
		return true
	}
	e, err := methods.ParseEntry(name)
	if err != nil || e.Method != cmp.Or(r.Method, method) {
		return false
	}
	info, err := methods.Lookup(e.Method)
	if err != nil {
		return false
	}
	param, mode := r.Param, r.Mode
	if param == "" || mode == "" {
		if re, err := methods.ParseEntry(r.Entry); err == nil {
			param, mode = cmp.Or(param, re.Param), cmp.Or(mode, re.Mode)
		}
	}
	def := func(v string, choices []string) string {
		if v == "" && len(choices) > 0 {
			return choices[0]
		}
		return v
	}
	return (e.Param == "" || e.Param == def(param, info.Params)) && (e.Mode == "" || e.Mode == def(mode, info.Modes))
}
