package dataio

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// rawLabels collects the label text of each row with its line number, so the
// mapping to ±1 can be decided once the whole file has been read.
type rawLabels struct {
	text  []string
	lines []int
}

func (r *rawLabels) add(text string, line int) {
	r.text = append(r.text, text)
	r.lines = append(r.lines, line)
}

// canonicalLabel returns the text a label is known by: numeric labels are
// written in Go's shortest form ("+1", "1.0" and "1" are all "1"), so the
// same class is recognised however a file spells it; other labels are kept
// as they are. ok is false for NaN and ±Inf.
func canonicalLabel(s string) (canon string, numeric, ok bool) {
	v, err := ParseFloat(s, 64)
	if err != nil {
		return s, false, true
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return s, true, false
	}
	if v == 0 {
		v = 0 // -0 and 0 are one class
	}
	return strconv.FormatFloat(v, 'g', -1, 64), true, true
}

type classInfo struct {
	name  string
	count int
	line  int // first line with this label
}

func (c classInfo) String() string {
	if c.count == 1 {
		return fmt.Sprintf("%q (1 row)", c.name)
	}
	return fmt.Sprintf("%q (%d rows)", c.name, c.count)
}

func listClasses(cs []classInfo) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}

// labeling is what mapLabels makes of a file's labels: ±1 labels y and
// their map lm (binary data), or a class index per row and the class
// labels in LIBSVM's order (multi-class data), and the file's classes with
// their counts.
type labeling struct {
	y      []float64
	lm     LabelMap
	counts []ClassCount
	class  []int
	names  []string
}

// mapLabels maps the raw labels to ±1, with the options' Positive, Classes,
// Labels and AnyClasses, and returns the file's classes with their counts.
// A file with more than two classes and none of those options is
// multi-class: each row keeps its class index, the classes in the order the
// file first shows them (LIBSVM's svm_group_classes); with ClassLabels (a
// test file read with the training file's classes) that order is kept and
// any other label is an error.
// A row of a class that Classes does not keep gets y = 0 (dropUnselected
// removes it).
//
// Rule (documented in ReadOptions): exactly two distinct labels, or two
// chosen by Classes, or one chosen by Positive against all the others
// (one-vs-rest). If Labels is non-nil its mapping is used and any other
// label is an error (one class is then allowed: a test file may hold a
// single class), except that a one-vs-rest mapping sends every other label
// to -1. Otherwise Positive, if non-empty, names the +1 class; by default,
// when both labels are numbers the larger is +1 (LIBSVM's +1/-1 stay, 1/2
// gives +1 = "2"), and for text labels the one later in byte order is +1
// ("yes" over "no", "M" over "B").
func mapLabels(file string, raw *rawLabels, opts ReadOptions) (labeling, error) {
	y, lm, counts, class, names, err := mapLabelsK(file, raw, opts)
	return labeling{y: y, lm: lm, counts: counts, class: class, names: names}, err
}

func mapLabelsK(file string, raw *rawLabels, opts ReadOptions) ([]float64, LabelMap, []ClassCount, []int, []string, error) {
	positive, fixed := opts.Positive, opts.Labels
	n := len(raw.text)
	if n == 0 {
		return nil, LabelMap{}, nil, nil, nil, perr(file, 0, 0, ErrEmpty)
	}
	canon := make([]string, n)
	allNumeric := true
	type canonical struct {
		text    string
		numeric bool
	}
	seen := map[string]canonical{} // a file has few distinct label texts
	for i, s := range raw.text {
		c, hit := seen[s]
		if !hit {
			t, num, ok := canonicalLabel(s)
			if !ok {
				return nil, LabelMap{}, nil, nil, nil, perr(file, raw.lines[i], 0, errf(ErrNotFinite, "label %q is not a finite number", s))
			}
			c = canonical{t, num}
			seen[s] = c
		}
		canon[i] = c.text
		allNumeric = allNumeric && c.numeric
	}
	if !allNumeric {
		// Text labels: keep every label as written so "1" and "1.0" do not
		// silently merge when some labels are words.
		copy(canon, raw.text)
	}
	var classes []classInfo
	index := map[string]int{}
	for i, c := range canon {
		k, seen := index[c]
		if !seen {
			k = len(classes)
			index[c] = k
			classes = append(classes, classInfo{name: c, line: raw.lines[i]})
		}
		classes[k].count++
	}
	counts := make([]ClassCount, len(classes))
	for i, c := range classes {
		counts[i] = ClassCount{Label: c.name, Rows: c.count}
	}
	// user turns a class named by the user into the file's spelling.
	user := func(s string) string {
		if allNumeric {
			return canonOf(s)
		}
		return s
	}
	known := func(s string) bool { _, ok := index[user(s)]; return ok }

	if opts.ClassLabels != nil {
		at := map[string]int{}
		for k, l := range opts.ClassLabels {
			at[l] = k
			if c := canonOf(l); allNumeric {
				at[c] = k
			}
		}
		class := make([]int, n)
		for i, c := range canon {
			k, ok := at[c]
			if !ok {
				return nil, LabelMap{}, nil, nil, nil, perr(file, raw.lines[i], 0,
					errf(ErrUnknownLabel, "label %q is not one of the training classes %s", raw.text[i], quoteList(opts.ClassLabels)))
			}
			class[i] = k
		}
		return nil, LabelMap{}, counts, class, opts.ClassLabels, nil
	}
	if fixed != nil {
		pos := canonOf(fixed.Positive)
		neg := canonOf(fixed.Negative)
		var keep map[string]bool
		if len(opts.Classes) == 2 {
			keep = map[string]bool{user(opts.Classes[0]): true, user(opts.Classes[1]): true}
		}
		y := make([]float64, n)
		for i, c := range canon {
			switch {
			case keep != nil && !keep[c]:
				// dropped: y = 0
			case c == pos || c == fixed.Positive:
				y[i] = 1
			case fixed.OneVsRest || c == neg || c == fixed.Negative:
				y[i] = -1
			default:
				return nil, LabelMap{}, nil, nil, nil, perr(file, raw.lines[i], 0,
					errf(ErrUnknownLabel, "label %q is neither of the training labels %q (+1) and %q (-1)", raw.text[i], fixed.Positive, fixed.Negative))
			}
		}
		return y, *fixed, counts, nil, nil, nil
	}

	var keep map[string]bool
	if len(opts.Classes) == 2 {
		for _, c := range opts.Classes {
			if !known(c) {
				return nil, LabelMap{}, nil, nil, nil, perr(file, 0, 0, errf(ErrUnknownLabel, "class %q is not in the file; its classes: %s", c, listClasses(classes)))
			}
		}
		a, b := user(opts.Classes[0]), user(opts.Classes[1])
		keep = map[string]bool{a: true, b: true}
		classes = []classInfo{classes[index[a]], classes[index[b]]}
	}
	switch {
	case len(classes) == 1:
		return nil, LabelMap{}, nil, nil, nil, perr(file, 0, 0, errf(ErrOneClass,
			"only one class: %s; binary classification needs two", listClasses(classes)))
	case len(classes) > 2 && positive != "":
		p := user(positive)
		if !known(positive) {
			return nil, LabelMap{}, nil, nil, nil, fmt.Errorf("read %s: positive class %q is not one of the %d classes %s", file, positive, len(classes), listClasses(classes))
		}
		y := make([]float64, n)
		for i, c := range canon {
			y[i] = -1
			if c == p {
				y[i] = 1
			}
		}
		return y, LabelMap{Positive: p, Negative: "not " + p, OneVsRest: true}, counts, nil, nil, nil
	case len(classes) > 2 && opts.AnyClasses:
		return nil, LabelMap{}, counts, nil, nil, nil
	case len(classes) > 2 && keep == nil:
		// Multi-class: each row's class index, the classes in the order
		// the file first shows them.
		names := make([]string, len(classes))
		for k, c := range classes {
			names[k] = c.name
		}
		class := make([]int, n)
		for i, c := range canon {
			class[i] = index[c]
		}
		return nil, LabelMap{}, counts, class, names, nil
	}
	a, b := classes[0].name, classes[1].name
	var posName, negName string
	if positive != "" {
		switch user(positive) {
		case a:
			posName, negName = a, b
		case b:
			posName, negName = b, a
		default:
			return nil, LabelMap{}, nil, nil, nil, fmt.Errorf("read %s: positive class %q is not one of the labels %q and %q", file, positive, a, b)
		}
	} else {
		posName, negName = a, b
		if allNumeric {
			va, _ := ParseFloat(a, 64)
			vb, _ := ParseFloat(b, 64)
			if vb > va {
				posName, negName = b, a
			}
		} else if b > a {
			posName, negName = b, a
		}
	}
	y := make([]float64, n)
	for i, c := range canon {
		switch {
		case keep != nil && !keep[c]:
		case c == posName:
			y[i] = 1
		default:
			y[i] = -1
		}
	}
	return y, LabelMap{Positive: posName, Negative: negName}, counts, nil, nil, nil
}

// dropUnselected removes the rows whose label mapLabels set to 0 (a class
// ReadOptions.Classes does not keep) and says so in the Notes. It fails when
// no row is left.
func dropUnselected(ds *Dataset) error {
	var keep []int
	for i, v := range ds.Y {
		if v != 0 {
			keep = append(keep, i)
		}
	}
	if ds.Y == nil || len(keep) == len(ds.Y) {
		return nil
	}
	if len(keep) == 0 {
		return perr(ds.Source, 0, 0, errf(ErrEmpty, "no rows of the classes %q and %q", ds.Labels.Positive, ds.Labels.Negative))
	}
	dropped := len(ds.Y) - len(keep)
	sub := ds.Subset(keep)
	sub.Splits = ds.Splits
	sub.Notes = append(append([]hint.Text(nil), ds.Notes...), hint.T(fmt.Sprintf("classes %q and %q kept: %d rows of the other classes dropped", ds.Labels.Positive, ds.Labels.Negative, dropped)))
	sub.Dropped = append(append([]DroppedRows(nil), ds.Dropped...), DroppedRows{Rows: dropped, Why: "other classes"})
	*ds = *sub
	return nil
}

// quoteList writes labels quoted and comma-separated.
func quoteList(labels []string) string {
	q := make([]string, len(labels))
	for i, l := range labels {
		q[i] = strconv.Quote(l)
	}
	return strings.Join(q, ", ")
}

// canonOf returns the canonical form of a label given by a user or a saved
// mapping.
func canonOf(s string) string {
	c, _, _ := canonicalLabel(strings.TrimSpace(s))
	return c
}
