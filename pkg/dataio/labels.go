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
	v, err := strconv.ParseFloat(s, 64)
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

// mapLabels maps the raw labels to ±1.
//
// Rule (documented in ReadOptions): exactly two distinct labels. If fixed is
// non-nil its mapping is used and any other label is an error (one class is
// then allowed: a test file may hold a single class). Otherwise positive, if
// non-empty, names the +1 class; by default, when both labels are numbers the
// larger is +1 (LIBSVM's +1/-1 stay, 1/2 gives +1 = "2"), and for text labels
// the one later in byte order is +1 ("yes" over "no", "M" over "B").
func mapLabels(file string, raw *rawLabels, positive string, fixed *LabelMap) ([]float64, LabelMap, error) {
	n := len(raw.text)
	if n == 0 {
		return nil, LabelMap{}, perr(file, 0, 0, ErrEmpty)
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
				return nil, LabelMap{}, perr(file, raw.lines[i], 0, errf(ErrNotFinite, "label %q is not a finite number", s))
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

	if fixed != nil {
		pos := canonOf(fixed.Positive)
		neg := canonOf(fixed.Negative)
		y := make([]float64, n)
		for i, c := range canon {
			switch {
			case c == pos || c == fixed.Positive:
				y[i] = 1
			case c == neg || c == fixed.Negative:
				y[i] = -1
			default:
				return nil, LabelMap{}, perr(file, raw.lines[i], 0,
					errf(ErrUnknownLabel, "label %q is neither of the training labels %q (+1) and %q (-1)", raw.text[i], fixed.Positive, fixed.Negative))
			}
		}
		return y, *fixed, nil
	}

	switch {
	case len(classes) == 1:
		return nil, LabelMap{}, perr(file, 0, 0, errf(ErrOneClass,
			"only one class: %s; binary classification needs two", listClasses(classes)))
	case len(classes) > 2:
		// Count every class so the message lists them all; point at the
		// first row of the third class.
		return nil, LabelMap{}, perr(file, classes[2].line, 0, errf(ErrTooManyClasses,
			"%d classes found: %s; binary classification needs exactly two", len(classes), listClasses(classes)))
	}
	a, b := classes[0].name, classes[1].name
	var posName, negName string
	if positive != "" {
		p := positive
		if allNumeric {
			p = canonOf(positive)
		}
		switch p {
		case a:
			posName, negName = a, b
		case b:
			posName, negName = b, a
		default:
			return nil, LabelMap{}, fmt.Errorf("dataio: %s: positive class %q is not one of the labels %q and %q", file, positive, a, b)
		}
	} else {
		posName, negName = a, b
		if allNumeric {
			va, _ := strconv.ParseFloat(a, 64)
			vb, _ := strconv.ParseFloat(b, 64)
			if vb > va {
				posName, negName = b, a
			}
		} else if b > a {
			posName, negName = b, a
		}
	}
	y := make([]float64, n)
	for i, c := range canon {
		if c == posName {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return y, LabelMap{Positive: posName, Negative: negName}, nil
}

// canonOf returns the canonical form of a label given by a user or a saved
// mapping.
func canonOf(s string) string {
	c, _, _ := canonicalLabel(strings.TrimSpace(s))
	return c
}
