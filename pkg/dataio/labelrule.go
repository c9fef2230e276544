package dataio

// The rule that refuses a CSV file's default label column (the last) when
// its values look like a feature's, not classes: a file with its class in
// the first column was otherwise read as a many-class problem of one or
// two rows a class (docs/input.md, "Which column is the label").

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// ErrLabelLooksLikeFeature: the label column's values look like a
// feature's (LabelColumnError).
var ErrLabelLooksLikeFeature = errors.New("the label column looks like a feature")

// Thresholds of the label rule (labelVerdict).
const (
	// labelRuleMinClasses is the fewest classes at which the rule judges
	// by the rows a class has: a few classes of a few rows each is small
	// data, not a feature.
	labelRuleMinClasses = 10
	// labelRuleTinyClass is the most rows of a class the rule calls tiny.
	labelRuleTinyClass = 2
	// labelCandidates is the most columns the error names as looking like
	// labels.
	labelCandidates = 5
)

// LabelColumnError is a CSV file whose label column, the last by default,
// looks like a feature (labelVerdict): Why says what gives it away,
// Candidates the other columns that look like labels, fewest distinct
// values first. Its message names the label-col option, which takes a
// column as the label without the rule.
type LabelColumnError struct {
	File string
	// Column is the 1-based label column, Name its header ("" without).
	Column int
	Name   string
	// Rows and Classes are its non-missing values and distinct ones.
	Rows, Classes int
	Why           string
	Candidates    []LabelCandidate
}

// LabelCandidate is a column that looks like a label: integer or text
// values that the rule would take as classes.
type LabelCandidate struct {
	Column int    // 1-based
	Name   string // its header, "" without
	Values int    // distinct values
	Text   bool   // some value is not a number
	// Sample are its first distinct values in sorted order (at most 4).
	Sample []string
}

// String is "1 (species): 3 text values {a,b,c}".
func (c LabelCandidate) String() string { return c.at() + ": " + c.values() }

// at is the column's number and header: "1 (species)".
func (c LabelCandidate) at() string {
	s := strconv.Itoa(c.Column)
	if c.Name != "" {
		s += " (" + c.Name + ")"
	}
	return s
}

// values is what its values are: "3 text values {a,b,c}".
func (c LabelCandidate) values() string {
	kind := "integer"
	if c.Text {
		kind = "text"
	}
	more := ""
	if c.Values > len(c.Sample) {
		more = ", …"
	}
	return fmt.Sprintf("%d %s values {%s%s}", c.Values, kind, strings.Join(c.Sample, ","), more)
}

func (e *LabelColumnError) Error() string { return e.Words().String() }

// Words is the message of e, naming the label column option that reads
// the file.
func (e *LabelColumnError) Words() hint.Text {
	col := strconv.Itoa(e.Column)
	if e.Name != "" {
		col += " (" + e.Name + ")"
	}
	msg := fmt.Sprintf("%s: column %s, the last, read as the label by default, looks like a feature, not a class: %d classes in %d rows; %s",
		e.File, col, e.Classes, e.Rows, e.Why)
	if len(e.Candidates) > 0 {
		parts := make([]string, len(e.Candidates))
		for i, c := range e.Candidates {
			parts[i] = c.String()
		}
		what := "the column that looks like a label"
		if len(parts) > 1 {
			what = "columns that look like labels"
		}
		msg += fmt.Sprintf("; %s (integer or text values, fewest distinct first): %s; give the label column with ",
			what, strings.Join(parts, "; "))
		t := hint.T(msg, hint.S("label-col", strconv.Itoa(e.Candidates[0].Column)))
		return append(t, " (", hint.S("label-col", strconv.Itoa(e.Column)), fmt.Sprintf(" takes column %d as the label anyway)", e.Column))
	}
	msg += "; no other column looks like a label (integer or text values) either: give the label column with "
	return hint.T(msg, hint.S("label-col", "N"), " (", hint.S("label-col", strconv.Itoa(e.Column)), fmt.Sprintf(" takes column %d as the label anyway)", e.Column))
}

func (e *LabelColumnError) Unwrap() error { return ErrLabelLooksLikeFeature }

// columnValues is what the rule looks at in one column: the counts of its
// distinct values (missing ones left out), whether they are all numbers
// and whether some number has a fraction.
type columnValues struct {
	counts     map[string]int
	rows       int
	numeric    bool
	fractional []string // the values with a fraction, sorted
}

func valuesOf(rows [][]string, col int) columnValues {
	cv := columnValues{counts: map[string]int{}, numeric: true}
	for _, r := range rows {
		f := r[col]
		if isMissing(f) {
			continue
		}
		cv.rows++
		if _, seen := cv.counts[f]; !seen {
			v, err := ParseFloat(f, 64)
			switch {
			case err != nil:
				cv.numeric = false
			case v != math.Trunc(v):
				cv.fractional = append(cv.fractional, f)
			}
		}
		cv.counts[f]++
	}
	slices.Sort(cv.fractional)
	return cv
}

// labelVerdict says why a column's values look like a feature's and not
// classes, "" when they may be classes. The rule (docs/input.md): with
// more than two distinct values, a column is a feature when
//
//   - its values are all numbers and some have a fraction (0.382, 2.4):
//     classes are names or integer codes (1.0 is an integer); or
//   - it has at least labelRuleMinClasses distinct values and most of them
//     (more than half) are tiny classes of one or two rows: no classifier
//     learns, nor cross-validates, a class from one or two rows.
//
// Two values are always classes, whatever they are.
func labelVerdict(cv columnValues) string {
	k := len(cv.counts)
	if k <= 2 {
		return ""
	}
	if cv.numeric && len(cv.fractional) > 0 {
		ex := cv.fractional[:min(3, len(cv.fractional))]
		more := ""
		if len(cv.fractional) > len(ex) {
			more = ", …"
		}
		return fmt.Sprintf("its values are numbers with fractions (%s%s), where classes are names or integer codes", strings.Join(ex, ", "), more)
	}
	if k < labelRuleMinClasses {
		return ""
	}
	tiny := 0
	for _, n := range cv.counts {
		if n <= labelRuleTinyClass {
			tiny++
		}
	}
	if 2*tiny > k {
		return fmt.Sprintf("%d of its %d values occur in at most %d rows each, too few for a class to be learnt", tiny, k, labelRuleTinyClass)
	}
	return ""
}

// checkLabelColumn refuses the default label column label of a CSV
// file's data rows (header removed) when labelVerdict says it looks like
// a feature, naming the other columns that look like labels.
func checkLabelColumn(file string, rows [][]string, label int, names []string) error {
	cv := valuesOf(rows, label)
	why := labelVerdict(cv)
	if why == "" {
		return nil
	}
	e := &LabelColumnError{File: file, Column: label + 1, Name: names[label], Rows: cv.rows, Classes: len(cv.counts), Why: why}
	for j := range rows[0] {
		if j == label {
			continue
		}
		if c, ok := labelCandidate(rows, j, names[j]); ok {
			e.Candidates = append(e.Candidates, c)
		}
	}
	slices.SortStableFunc(e.Candidates, func(a, b LabelCandidate) int { return a.Values - b.Values })
	e.Candidates = e.Candidates[:min(len(e.Candidates), labelCandidates)]
	return e
}

// labelCandidate describes column j when it looks like a label: two or
// more distinct values, integers or text, that labelVerdict takes as
// classes.
func labelCandidate(rows [][]string, j int, name string) (LabelCandidate, bool) {
	cv := valuesOf(rows, j)
	if len(cv.counts) < 2 || len(cv.fractional) > 0 || labelVerdict(cv) != "" {
		return LabelCandidate{}, false
	}
	vals := make([]string, 0, len(cv.counts))
	for v := range cv.counts {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	return LabelCandidate{Column: j + 1, Name: name, Values: len(vals), Text: !cv.numeric, Sample: vals[:min(4, len(vals))]}, true
}

// labelHint is the hint of a nominal-column error under the default label
// column, when that column holds numbers: the first nominal column that
// looks like a label (a text class in another column than the last), as
// the label-col option that takes it; "" for none. Under a text label
// column, text columns are taken for the features they usually are.
func labelHint(rows [][]string, label int, featureOf []int, nominal []NominalFeature, first []string, header bool) hint.Text {
	if !valuesOf(rows, label).numeric {
		return nil
	}
	isNom := map[int]bool{}
	for _, nf := range nominal {
		isNom[nf.Index] = true
	}
	for j, k := range featureOf {
		if k < 0 || !isNom[k] {
			continue
		}
		name := ""
		if header {
			name = first[j]
		}
		if c, ok := labelCandidate(rows, j, name); ok {
			return hint.T(fmt.Sprintf("column %s, with %s, looks like the class: if it is, give ", c.at(), c.values()), hint.S("label-col", strconv.Itoa(c.Column)))
		}
	}
	return nil
}
