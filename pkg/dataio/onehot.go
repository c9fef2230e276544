package dataio

import (
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// ErrNominal: a feature column holds text (categories), not numbers, and the
// data were read without an encoding for it. It matches ErrNotNumber too.
var ErrNominal = fmt.Errorf("nominal feature: %w", ErrNotNumber)

// OneHot is a one-hot encoding of nominal feature columns, fitted on a
// training part and applied unchanged to any other data (a test part, a
// file given to predict): a nominal column with categories c_1 … c_m becomes
// m columns "name=c_k", 1 in the column of the row's category and 0
// elsewhere; a category the training part did not have encodes as all
// zeros. Numeric columns pass through. It is JSON-serialisable: it travels
// with a saved model.
type OneHot struct {
	// InputFeatures is the number of feature columns of the data it reads.
	InputFeatures int `json:"input_features"`
	// InputNames are those columns' names.
	InputNames []string `json:"input_names"`
	// Columns are the encoded nominal columns, in feature order.
	Columns []OneHotColumn `json:"columns"`
}

// OneHotColumn is one encoded column: its 0-based input feature and the
// categories seen in the training part, in the file's order of categories.
type OneHotColumn struct {
	Feature int      `json:"feature"`
	Name    string   `json:"name"`
	Levels  []string `json:"levels"`
}

// FitOneHot fits the encoding of d's nominal columns (d.Nominal, X holding
// category codes): each column gets the categories that occur in d's rows,
// in the order of d.Nominal's levels. It uses no labels. It returns nil
// when d has no nominal column.
func FitOneHot(d *Dataset) (*OneHot, error) {
	if len(d.Nominal) == 0 {
		return nil, nil
	}
	if d.Sparse != nil {
		return nil, &SparseError{Op: "one-hot encoding", Source: d.Source, Rows: d.Len(), Features: d.Dim()}
	}
	e := &OneHot{InputFeatures: d.Dim(), InputNames: append([]string(nil), d.FeatureNames...)}
	for _, nf := range d.Nominal {
		seen := make([]bool, len(nf.Levels))
		for i := 0; i < d.Len(); i++ {
			c, err := levelCode(d.X.At(i, nf.Index), len(nf.Levels))
			if err != nil {
				return nil, fmt.Errorf("fit one-hot encoding of %s, row %d: %w", nf.Name, i+1, err)
			}
			seen[c] = true
		}
		col := OneHotColumn{Feature: nf.Index, Name: nf.Name}
		for k, l := range nf.Levels {
			if seen[k] {
				col.Levels = append(col.Levels, l)
			}
		}
		e.Columns = append(e.Columns, col)
	}
	return e, nil
}

func levelCode(v float64, n int) (int, error) {
	c := int(v)
	if float64(c) != v || c < 0 || c >= n {
		return 0, fmt.Errorf("category code %v is not one of 0…%d", v, n-1)
	}
	return c, nil
}

// Dim returns the number of encoded features.
func (e *OneHot) Dim() int {
	d := e.InputFeatures
	for _, c := range e.Columns {
		d += len(c.Levels) - 1
	}
	return d
}

// Names returns the encoded features' names: a numeric column keeps its
// name, a nominal one becomes "name=category" per category.
func (e *OneHot) Names() []string {
	byFeature := e.byFeature()
	var out []string
	for j := 0; j < e.InputFeatures; j++ {
		name := "f" + strconv.Itoa(j+1)
		if j < len(e.InputNames) {
			name = e.InputNames[j]
		}
		c, ok := byFeature[j]
		if !ok {
			out = append(out, name)
			continue
		}
		for _, l := range c.Levels {
			out = append(out, name+"="+l)
		}
	}
	return out
}

func (e *OneHot) byFeature() map[int]OneHotColumn {
	m := make(map[int]OneHotColumn, len(e.Columns))
	for _, c := range e.Columns {
		m[c.Feature] = c
	}
	return m
}

// Check reports an encoding that is not self-consistent (a saved model's,
// say): a column outside the input features, twice, or without categories.
func (e *OneHot) Check() error {
	seen := map[int]bool{}
	for _, c := range e.Columns {
		switch {
		case c.Feature < 0 || c.Feature >= e.InputFeatures:
			return fmt.Errorf("one-hot encoding: column %q is feature %d of %d", c.Name, c.Feature+1, e.InputFeatures)
		case seen[c.Feature]:
			return fmt.Errorf("one-hot encoding: feature %d is encoded twice", c.Feature+1)
		case len(c.Levels) == 0:
			return fmt.Errorf("one-hot encoding: column %q has no categories", c.Name)
		}
		seen[c.Feature] = true
	}
	return nil
}

// Apply returns a copy of d with its nominal columns one-hot encoded: d must
// have the encoder's input features, its nominal columns read as codes
// (ReadOptions.Categorical "codes") with their own levels, so files whose
// categories differ (a test file without some category) encode alike. A
// column the encoder treats as nominal but d read as numbers (every value
// of a test file's column looked like a number) is matched by the numbers'
// text. The result has no Nominal columns and Encoder set to e.
func (e *OneHot) Apply(d *Dataset) (*Dataset, error) {
	if d.Sparse != nil {
		return nil, &SparseError{Op: "one-hot encoding", Source: d.Source, Rows: d.Len(), Features: d.Dim()}
	}
	if d.Len() > 0 && d.Dim() != e.InputFeatures {
		return nil, fmt.Errorf("%s has %d feature columns, the one-hot encoding was fitted on %d", d.Source, d.Dim(), e.InputFeatures)
	}
	byFeature := e.byFeature()
	dataNominal := map[int]NominalFeature{}
	for _, nf := range d.Nominal {
		if _, ok := byFeature[nf.Index]; !ok {
			return nil, fmt.Errorf("one-hot encode %s: feature %d (%s) holds categories, but it was numeric in the training data", d.Source, nf.Index+1, nf.Name)
		}
		dataNominal[nf.Index] = nf
	}
	// out[j] is the first output column of input feature j; index[j] maps a
	// category code of d's column j to its output offset (-1: unseen).
	out := make([]int, e.InputFeatures)
	index := make([][]int, e.InputFeatures)
	lookup := make([]map[string]int, e.InputFeatures)
	k := 0
	for j := 0; j < e.InputFeatures; j++ {
		out[j] = k
		c, ok := byFeature[j]
		if !ok {
			k++
			continue
		}
		pos := make(map[string]int, len(c.Levels))
		for i, l := range c.Levels {
			pos[l] = i
		}
		lookup[j] = pos
		if nf, ok := dataNominal[j]; ok {
			index[j] = make([]int, len(nf.Levels))
			for i, l := range nf.Levels {
				if p, ok := pos[l]; ok {
					index[j][i] = p
				} else {
					index[j][i] = -1
				}
			}
		}
		k += len(c.Levels)
	}
	n, dim := d.Len(), e.Dim()
	c := *d
	c.Nominal, c.Encoder = nil, e
	c.FeatureNames = e.Names()
	if n == 0 {
		c.X = &mat.Dense{}
		return &c, nil
	}
	x := mat.NewDense(n, dim, nil)
	for i := 0; i < n; i++ {
		row := d.X.RawRowView(i)
		dst := x.RawRowView(i)
		for j, v := range row {
			switch {
			case lookup[j] == nil:
				dst[out[j]] = v
			case index[j] != nil:
				code, err := levelCode(v, len(index[j]))
				if err != nil {
					return nil, fmt.Errorf("one-hot encode %s: row %d feature %d: %w", d.Source, i+1, j+1, err)
				}
				if p := index[j][code]; p >= 0 {
					dst[out[j]+p] = 1
				}
			default: // read as a number: match its text
				if p, ok := lookup[j][strconv.FormatFloat(v, 'g', -1, 64)]; ok {
					dst[out[j]+p] = 1
				}
			}
		}
	}
	c.X = x
	return &c, nil
}

// Describe is a one-line account of the encoding, for notes: "one-hot: 3
// nominal columns → 9 features (outlook 3, temp 3, windy 2)", the first
// five columns named.
func (e *OneHot) Describe() string {
	var parts []string
	for i, c := range e.Columns {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", c.Name, len(c.Levels)))
	}
	return fmt.Sprintf("one-hot encoding: %d nominal column%s → %d features (%s)", len(e.Columns), plural(len(e.Columns)), e.Dim(), strings.Join(parts, ", "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// nominalList lists nominal columns for a message: "3 nominal (text)
// columns: 1 outlook {overcast,rainy,sunny}; …", numbered by fieldOf.
func nominalList(cols []NominalFeature, fieldOf func(NominalFeature) int) string {
	var parts []string
	for i, c := range cols {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(cols)))
			break
		}
		lv := c.Levels
		more := ""
		if len(lv) > 6 {
			lv, more = lv[:6], ",…"
		}
		typo := ""
		nums := 0
		for _, l := range c.Levels {
			if _, err := ParseFloat(l, 64); err == nil {
				nums++
			}
		}
		if 2*nums > len(c.Levels) {
			typo = fmt.Sprintf(" (%d of its %d values are numbers: a typo?)", nums, len(c.Levels))
		}
		parts = append(parts, fmt.Sprintf("%d (%s) {%s%s}%s", fieldOf(c), c.Name, strings.Join(lv, ","), more, typo))
	}
	what := "a nominal (text) column"
	if len(cols) > 1 {
		what = fmt.Sprintf("%d nominal (text) columns", len(cols))
	}
	return what + ": " + strings.Join(parts, "; ")
}

// nominalError is the error for nominal columns read without an encoding:
// at the first non-number, naming every nominal column and the option.
func nominalError(file string, line, col int, value string, why hint.Text, cols []NominalFeature, fieldOf func(NominalFeature) int) *ParseError {
	if len(why) > 0 {
		why = append(append(hint.T(" ("), why...), ")")
	}
	return perr(file, line, col, errh(ErrNominal, append(append(hint.T(textf("%q is not a number", value)), why...),
		"; "+nominalList(cols, fieldOf)+"; encode them with ", hint.S("categorical", "onehot"))...))
}
