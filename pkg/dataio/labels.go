package dataio

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
	if len(raw.text) == 0 {
		return labeling{}, perr(file, 0, 0, ErrEmpty)
	}
	ls, err := newLabelSet(file, raw)
	if err != nil {
		return labeling{}, err
	}
	switch {
	case opts.ClassLabels != nil:
		return ls.trainingClasses(opts.ClassLabels)
	case opts.Labels != nil:
		return ls.trainingLabels(*opts.Labels, opts.Classes)
	}
	return ls.choose(opts)
}

// labelSet is a file's labels as mapLabels reads them: each row's label in
// canonical form (numbers as canonOf spells them when every label is a
// number, else as written), the file's classes in the order it first shows
// them, their index by name and their counts.
type labelSet struct {
	file       string
	raw        *rawLabels
	canon      []string
	allNumeric bool
	classes    []classInfo
	index      map[string]int
	counts     []ClassCount
}

// newLabelSet reads the labels of raw (at least one), refusing a
// label that looks like a number but is not finite.
func newLabelSet(file string, raw *rawLabels) (*labelSet, error) {
	ls := &labelSet{file: file, raw: raw, canon: make([]string, len(raw.text)), allNumeric: true, index: map[string]int{}}
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
				return nil, perr(file, raw.lines[i], 0, errf(ErrNotFinite, "label %q is not a finite number", s))
			}
			c = canonical{t, num}
			seen[s] = c
		}
		ls.canon[i] = c.text
		ls.allNumeric = ls.allNumeric && c.numeric
	}
	if !ls.allNumeric {
		// Text labels: keep every label as written so "1" and "1.0" do not
		// silently merge when some labels are words.
		copy(ls.canon, raw.text)
	}
	for i, c := range ls.canon {
		k, seen := ls.index[c]
		if !seen {
			k = len(ls.classes)
			ls.index[c] = k
			ls.classes = append(ls.classes, classInfo{name: c, line: raw.lines[i]})
		}
		ls.classes[k].count++
	}
	ls.counts = make([]ClassCount, len(ls.classes))
	for i, c := range ls.classes {
		ls.counts[i] = ClassCount{Label: c.name, Rows: c.count}
	}
	return ls, nil
}

// user turns a class named by the user into the file's spelling.
func (ls *labelSet) user(s string) string {
	if ls.allNumeric {
		return canonOf(s)
	}
	return s
}

// known reports whether the user's class s is one of the file's.
func (ls *labelSet) known(s string) bool { _, ok := ls.index[ls.user(s)]; return ok }

// trainingClasses maps a test file's labels to the training file's
// classes (their order kept); any other label is an error.
func (ls *labelSet) trainingClasses(classLabels []string) (labeling, error) {
	at := map[string]int{}
	for k, l := range classLabels {
		at[l] = k
		if c := canonOf(l); ls.allNumeric {
			at[c] = k
		}
	}
	class := make([]int, len(ls.canon))
	for i, c := range ls.canon {
		k, ok := at[c]
		if !ok {
			return labeling{}, perr(ls.file, ls.raw.lines[i], 0,
				errf(ErrUnknownLabel, "label %q is not one of the training classes %s", ls.raw.text[i], quoteList(classLabels)))
		}
		class[i] = k
	}
	return labeling{counts: ls.counts, class: class, names: classLabels}, nil
}

// trainingLabels maps the labels by a test file's fixed map (the
// training file's): any other label is an error, except that a
// one-vs-rest map sends it to -1; a class that classes (two) does not keep
// gets y = 0.
func (ls *labelSet) trainingLabels(fixed LabelMap, classes []string) (labeling, error) {
	pos := canonOf(fixed.Positive)
	neg := canonOf(fixed.Negative)
	var keep map[string]bool
	if len(classes) == 2 {
		keep = map[string]bool{ls.user(classes[0]): true, ls.user(classes[1]): true}
	}
	y := make([]float64, len(ls.canon))
	for i, c := range ls.canon {
		switch {
		case keep != nil && !keep[c]:
			// dropped: y = 0
		case c == pos || c == fixed.Positive:
			y[i] = 1
		case fixed.OneVsRest || c == neg || c == fixed.Negative:
			y[i] = -1
		default:
			return labeling{}, perr(ls.file, ls.raw.lines[i], 0,
				errf(ErrUnknownLabel, "label %q is neither of the training labels %q (+1) and %q (-1)", ls.raw.text[i], fixed.Positive, fixed.Negative))
		}
	}
	return labeling{y: y, lm: fixed, counts: ls.counts}, nil
}

// choose maps a training file's labels by the options' Classes, Positive
// and AnyClasses: one-vs-rest, multi-class, or the two classes (binary).
func (ls *labelSet) choose(opts ReadOptions) (labeling, error) {
	positive := opts.Positive
	classes := ls.classes
	var keep map[string]bool
	if len(opts.Classes) == 2 {
		for _, c := range opts.Classes {
			if !ls.known(c) {
				return labeling{}, perr(ls.file, 0, 0, errf(ErrUnknownLabel, "class %q is not in the file; its classes: %s", c, listClasses(classes)))
			}
		}
		a, b := ls.user(opts.Classes[0]), ls.user(opts.Classes[1])
		keep = map[string]bool{a: true, b: true}
		classes = []classInfo{classes[ls.index[a]], classes[ls.index[b]]}
	}
	switch {
	case len(classes) == 1:
		return labeling{}, perr(ls.file, 0, 0, errf(ErrOneClass,
			"only one class: %s; binary classification needs two", listClasses(classes)))
	case len(classes) > 2 && positive != "":
		p := ls.user(positive)
		if !ls.known(positive) {
			return labeling{}, fmt.Errorf("read %s: positive class %q is not one of the %d classes %s", ls.file, positive, len(classes), listClasses(classes))
		}
		y := make([]float64, len(ls.canon))
		for i, c := range ls.canon {
			y[i] = -1
			if c == p {
				y[i] = 1
			}
		}
		return labeling{y: y, lm: LabelMap{Positive: p, Negative: "not " + p, OneVsRest: true}, counts: ls.counts}, nil
	case len(classes) > 2 && opts.AnyClasses:
		return labeling{counts: ls.counts}, nil
	case len(classes) > 2 && keep == nil:
		// Multi-class: each row's class index, the classes in the order
		// the file first shows them.
		names := make([]string, len(classes))
		for k, c := range classes {
			names[k] = c.name
		}
		class := make([]int, len(ls.canon))
		for i, c := range ls.canon {
			class[i] = ls.index[c]
		}
		return labeling{counts: ls.counts, class: class, names: names}, nil
	}
	return ls.binary(classes[0].name, classes[1].name, positive, keep)
}

// binary maps the two classes a and b to ±1: positive's is +1 when given,
// else the larger number, or for text labels the one later in byte order;
// a class keep does not hold gets y = 0.
func (ls *labelSet) binary(a, b, positive string, keep map[string]bool) (labeling, error) {
	var posName, negName string
	if positive != "" {
		switch ls.user(positive) {
		case a:
			posName, negName = a, b
		case b:
			posName, negName = b, a
		default:
			return labeling{}, fmt.Errorf("read %s: positive class %q is not one of the labels %q and %q", ls.file, positive, a, b)
		}
	} else {
		posName, negName = a, b
		if ls.allNumeric {
			va, _ := ParseFloat(a, 64)
			vb, _ := ParseFloat(b, 64)
			if vb > va {
				posName, negName = b, a
			}
		} else if b > a {
			posName, negName = b, a
		}
	}
	y := make([]float64, len(ls.canon))
	for i, c := range ls.canon {
		switch {
		case keep != nil && !keep[c]:
		case c == posName:
			y[i] = 1
		default:
			y[i] = -1
		}
	}
	return labeling{y: y, lm: LabelMap{Positive: posName, Negative: negName}, counts: ls.counts}, nil
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
	sub.Notes = append(append([]string(nil), ds.Notes...), fmt.Sprintf("classes %q and %q kept: %d rows of the other classes dropped", ds.Labels.Positive, ds.Labels.Negative, dropped))
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
