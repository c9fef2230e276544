// Package dataio reads and writes the data kerneltune works on: CSV, LIBSVM and
// IDA-realisation files (CSV and LIBSVM also without labels, for new points
// to score), dense matrices (a user's kernel metric), the embedded default
// datasets, label mapping to ±1, normalisers fitted on a training part,
// train/test partitions and splits, and the toy generators. It imports no
// other package of this module.
package dataio

import (
	"fmt"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// Dataset is a classification data set: binary, with labels mapped to ±1
// (Y), or multi-class, with a class index per row (Class, ClassLabels).
type Dataset struct {
	Name   string // short display name, e.g. "heart" or "diabetes_scale"
	Source string // the path or "builtin:NAME" it was read from
	SHA256 string // hex digest of the raw bytes read (provenance of a model)
	Format string // "csv", "arff", "libsvm", "ida" or "generated"

	// X holds the n×d features of dense data, row i is x_i; nil when the
	// data are sparse (Sparse).
	X *mat.Dense
	// Sparse holds the features of sparse data in compressed rows (a
	// LIBSVM file of many features and few non-zeros; see docs/input.md,
	// "Sparse data"); nil for dense data. Exactly one of X and Sparse is
	// set. Features returns whichever it is as a mat.Matrix; code that
	// computes on the rows type-switches on *sparse.CSR, and code that
	// only works on dense rows refuses sparse data (IsSparse) by name.
	Sparse *sparse.CSR
	// Y holds the labels, each -1 or +1; nil for data without labels
	// (ReadOptions.Unlabeled), which Labeled reports, and for multi-class
	// data (Class).
	Y []float64
	// FeatureNames has length d, "f1".."fd" when the file has none;
	// nil for a LIBSVM file held in compressed rows, whose names are
	// f1..fd made on demand (FeatureName): a hashed-feature file's 20
	// million names were 1.5 GB for a few hundred thousand non-zeros.
	FeatureNames []string
	Labels       LabelMap // which original label became +1 and which -1; zero without labels
	// Class holds, for multi-class data (more than two classes, read with
	// neither ReadOptions.Positive nor Classes), each row's class as an
	// index into ClassLabels; Y is then nil and Labels zero. nil for binary
	// data and data without labels.
	Class []int
	// ClassLabels are the classes of multi-class data in LIBSVM's label
	// order (svm_group_classes: the order in which the training file first
	// shows them); a test file read with them (ReadOptions.ClassLabels)
	// keeps the training file's order.
	ClassLabels []string
	// Multiclass is how multi-class data is learnt: "" (one-vs-one, LIBSVM's)
	// or OneVsRest (ReadOptions.Multiclass "ovr"). Subproblems lists the
	// binary problems it makes.
	Multiclass string

	// Nominal lists the nominal (categorical) feature columns, read with
	// ReadOptions.Categorical "codes": X holds each such column's category
	// as an index into its Levels (0, 1, …), which no method may use as a
	// number. OneHot encodes them (FitOneHot on a training part, Apply to
	// any part); nil when every feature is numeric.
	Nominal []NominalFeature
	// Encoder is the one-hot encoding that produced X from a file's nominal
	// columns (nil when none was applied). It travels with the data into a
	// saved model, so predict encodes new data the same way.
	Encoder *OneHot
	// Classes are the file's classes with their row counts, in the order
	// first seen, before any selection by ReadOptions.Classes (nil for data
	// without labels).
	Classes []ClassCount
	// Dropped are the rows the reader left out, by reason (rows with
	// missing values under ReadOptions.Missing "drop", rows of the classes
	// ReadOptions.Classes does not keep); nil when none was.
	Dropped []DroppedRows
	// Missing counts the rows with missing values per column when the
	// reader left them out (ReadOptions.Missing "drop" or "count"); nil
	// when there were none.
	Missing *MissingValues

	// Splits are predefined train/test realisations (the IDA sets); nil
	// when the file defines none.
	Splits []Split
	// Notes are facts a user should know about the data (e.g. "feature 1 is a
	// patient ID"), reported by `info`.
	Notes []hint.Text
}

// LabelMap records the original label text of each class.
type LabelMap struct {
	Positive string `json:"positive"` // original label mapped to +1
	Negative string `json:"negative"` // original label mapped to -1
	// OneVsRest: +1 is Positive and -1 every other class (ReadOptions.Positive
	// on data with more than two classes); Negative is then "not " + Positive.
	OneVsRest bool `json:"one_vs_rest,omitempty"`
}

// ClassCount is one class of a file: its original label and its rows.
type ClassCount struct {
	Label string `json:"label"`
	Rows  int    `json:"rows"`
}

// DroppedRows counts the rows a reader left out for one reason.
type DroppedRows struct {
	Rows int    `json:"rows"`
	Why  string `json:"why"` // "missing values" or "other classes"
}

// MissingValues are the rows with missing values a text reader left out.
type MissingValues struct {
	// Rows is the number of rows with a missing value.
	Rows int `json:"rows"`
	// Columns are the file's columns with missing values, in file order.
	Columns []MissingColumn `json:"columns"`
	// Dropped is false when they were only counted, for a description
	// (ReadOptions.Missing "count"): the other commands refuse them unless
	// told to drop them.
	Dropped bool `json:"dropped"`
}

// MissingColumn is one column with missing values: its 1-based column (ARFF
// attribute) number, its name and the number of rows missing it.
type MissingColumn struct {
	Column int    `json:"column"`
	Name   string `json:"name"`
	Rows   int    `json:"rows"`
}

// missingTally counts rows with missing values per column as a text reader
// leaves them out.
type missingTally struct {
	rows   int
	counts []int
	name   func(j int) string
}

func newMissingTally(ncol int, name func(j int) string) *missingTally {
	return &missingTally{counts: make([]int, ncol), name: name}
}

// row counts the columns j < ncol for which missing(j) is true and reports
// whether there was one (the row is then left out).
func (m *missingTally) row(missing func(j int) bool) bool {
	found := false
	for j := range m.counts {
		if missing(j) {
			m.counts[j]++
			found = true
		}
	}
	if found {
		m.rows++
	}
	return found
}

// values is the tally as Dataset.Missing (nil without missing values).
func (m *missingTally) values(dropped bool) *MissingValues {
	if m.rows == 0 {
		return nil
	}
	mv := &MissingValues{Rows: m.rows, Dropped: dropped}
	for j, c := range m.counts {
		if c > 0 {
			mv.Columns = append(mv.Columns, MissingColumn{Column: j + 1, Name: m.name(j), Rows: c})
		}
	}
	return mv
}

// dropsMissing reports whether rows with missing values are left out
// (Missing "drop" or "count") rather than an error.
func (o ReadOptions) dropsMissing() bool { return o.Missing == "drop" || o.Missing == "count" }

// NominalFeature is a nominal feature column: its 0-based feature index, its
// name and its categories (an ARFF file's declared order; in CSV the
// distinct values in byte order).
type NominalFeature struct {
	Index  int      `json:"index"`
	Name   string   `json:"name"`
	Levels []string `json:"levels"`
}

// Split is one train/test partition, as row indices into a Dataset.
// Train and Test are disjoint.
type Split struct {
	Train []int `json:"train"`
	Test  []int `json:"test"`
}

// Len returns the number of rows: len(Y), or the rows of X for data without
// labels.
func (d *Dataset) Len() int {
	if d.Class != nil {
		return len(d.Class)
	}
	if d.Y != nil || (d.X == nil && d.Sparse == nil) {
		return len(d.Y)
	}
	r, _ := d.Dims()
	return r
}

// Labeled reports whether the rows carry labels (Y or, for multi-class data,
// Class is not nil). Data read with ReadOptions.Unlabeled have none: Y is
// nil, Labels zero, ClassCounts zero.
func (d *Dataset) Labeled() bool { return d.Y != nil || d.Class != nil }

// MultiClass reports whether d is multi-class data (Class, ClassLabels).
func (d *Dataset) MultiClass() bool { return d.Class != nil }

// NumClasses returns the number of classes: len(ClassLabels) for
// multi-class data, 2 for binary data, 0 without labels.
func (d *Dataset) NumClasses() int {
	switch {
	case d.Class != nil:
		return len(d.ClassLabels)
	case d.Y != nil:
		return 2
	}
	return 0
}

// ClassSizes returns the rows of each class of multi-class data, in
// ClassLabels' order (nil for binary data).
func (d *Dataset) ClassSizes() []int {
	if d.Class == nil {
		return nil
	}
	n := make([]int, len(d.ClassLabels))
	for _, c := range d.Class {
		n[c]++
	}
	return n
}

// Strata returns one number per row that tells the classes apart, for
// stratified partitions and folds: Y for binary data, the class index for
// multi-class data.
func (d *Dataset) Strata() []float64 {
	if d.Class == nil {
		return d.Y
	}
	s := make([]float64, len(d.Class))
	for i, c := range d.Class {
		s[i] = float64(c)
	}
	return s
}

// PairRows returns the rows of classes a and b of multi-class data as
// LIBSVM's one-vs-one training orders them (svm_train): the rows of class a
// in file order, then those of class b.
func (d *Dataset) PairRows(a, b int) []int {
	// Counted first, then filled: one array of the pair's size, where
	// appending grew two arrays by doubling and joined them (on letter's
	// 325 pairs, 56 MB of garbage for 3 MB of rows).
	na, nb := 0, 0
	for _, c := range d.Class {
		switch c {
		case a:
			na++
		case b:
			nb++
		}
	}
	rows := make([]int, na+nb)
	ia, ib := 0, na
	for i, c := range d.Class {
		switch c {
		case a:
			rows[ia] = i
			ia++
		case b:
			rows[ib] = i
			ib++
		}
	}
	return rows
}

// Pair returns the binary problem of classes a and b of multi-class data
// (a copy of the rows PairRows returns): class a is +1 and class b is -1,
// as in LIBSVM's one-vs-one, and Labels names them.
func (d *Dataset) Pair(a, b int) *Dataset {
	rows := d.PairRows(a, b)
	p := d.Subset(rows)
	p.Class, p.ClassLabels, p.Multiclass = nil, nil, ""
	p.Y = make([]float64, len(rows))
	for k, i := range rows {
		p.Y[k] = -1
		if d.Class[i] == a {
			p.Y[k] = 1
		}
	}
	p.Labels = LabelMap{Positive: d.ClassLabels[a], Negative: d.ClassLabels[b]}
	return p
}

// Dim returns the number of features.
func (d *Dataset) Dim() int {
	_, c := d.Dims()
	return c
}

// FeatureName is the name of feature j (0-based): FeatureNames[j], or
// f(j+1) when FeatureNames does not name it (nil: a LIBSVM file held
// in compressed rows).
func (d *Dataset) FeatureName(j int) string {
	if j < len(d.FeatureNames) && d.FeatureNames[j] != "" {
		return d.FeatureNames[j]
	}
	return "f" + strconv.Itoa(j+1)
}

// Subset returns a new Dataset holding copies of the rows idx, in that order.
// It carries the name, source, hash, feature names, label map, nominal
// columns, encoder and the file's class counts, not the splits. A subset of data without labels has none either.
func (d *Dataset) Subset(idx []int) *Dataset {
	dim := d.Dim()
	var (
		x  *mat.Dense
		sp *sparse.CSR
	)
	switch {
	case d.Sparse != nil:
		sp, dim = d.Sparse.SelectRows(idx), 0
	case len(idx) == 0 || dim == 0:
		x = &mat.Dense{}
	default:
		x = mat.NewDense(len(idx), dim, nil)
	}
	var (
		y     []float64
		class []int
	)
	if d.Y != nil {
		y = make([]float64, len(idx))
	}
	if d.Class != nil {
		class = make([]int, len(idx))
	}
	for k, i := range idx {
		if dim > 0 {
			x.SetRow(k, d.X.RawRowView(i))
		}
		if y != nil {
			y[k] = d.Y[i]
		}
		if class != nil {
			class[k] = d.Class[i]
		}
	}
	return &Dataset{
		Name: d.Name, Source: d.Source, SHA256: d.SHA256, Format: d.Format,
		X: x, Sparse: sp, Y: y, FeatureNames: d.FeatureNames, Labels: d.Labels, Notes: d.Notes,
		Class: class, ClassLabels: d.ClassLabels, Multiclass: d.Multiclass,
		Nominal: d.Nominal, Encoder: d.Encoder, Classes: d.Classes, Dropped: d.Dropped,
		Missing: d.Missing,
	}
}

// SplitAt cuts d into its first n rows and the rest, copies made by Subset:
// the split of a sample that is already in random order, such as a
// generated one. It panics unless 0 ≤ n ≤ d.Len().
func (d *Dataset) SplitAt(n int) (head, tail *Dataset) {
	m := d.Len()
	if n < 0 || n > m {
		panic(fmt.Sprintf("dataio: SplitAt(%d) of %d rows", n, m))
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx[:n]), d.Subset(idx[n:])
}

// ClassCounts returns the number of +1 and -1 labels (0, 0 without labels
// and for multi-class data).
func (d *Dataset) ClassCounts() (pos, neg int) {
	for _, v := range d.Y {
		if v > 0 {
			pos++
		} else {
			neg++
		}
	}
	return pos, neg
}

// finishDataset is the end shared by the text readers (CSV, ARFF): n rows of
// d features in x (row-major) are read; it maps the labels (unless the data
// is read without them), says how many rows missing=drop dropped, and keeps
// only the classes --positive/--classes select.
func finishDataset(name, format string, x []float64, n, d int, featureNames []string, nominal []NominalFeature,
	labels *rawLabels, missing *missingTally, unlabeled bool, opts ReadOptions) (*Dataset, error) {
	dropped := missing.rows
	if n == 0 {
		return nil, perr(name, 0, 0, errf(ErrEmpty, "no data rows left after dropping %d rows with missing values", dropped))
	}
	var (
		lab labeling
		err error
	)
	if !unlabeled {
		if lab, err = mapLabels(name, labels, opts); err != nil {
			return nil, err
		}
	}
	xm := &mat.Dense{}
	if d > 0 {
		xm = mat.NewDense(n, d, x)
	}
	ds := &Dataset{
		Name: name, Source: name, Format: format,
		X: xm, Y: lab.y, FeatureNames: featureNames, Labels: lab.lm,
		Nominal: nominal, Classes: lab.counts, Class: lab.class, ClassLabels: lab.names,
	}
	ds.Missing = missing.values(opts.Missing == "drop")
	switch {
	case opts.Missing == "count":
	case dropped == 1:
		ds.Notes = append(ds.Notes, hint.T("1 row with a missing value was dropped"))
	case dropped > 1:
		ds.Notes = append(ds.Notes, hint.T(fmt.Sprintf("%d rows with missing values were dropped", dropped)))
	}
	if dropped > 0 {
		ds.Dropped = []DroppedRows{{Rows: dropped, Why: "missing values"}}
	}
	if err := dropUnselected(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// InLIBSVMOrder returns multi-class data d, and other (a test part with d's
// classes, or nil), with the classes in the order d's rows first show them
// (LIBSVM's svm_group_classes on the training data it is given), classes
// without a row of d last in their old order: a training part drawn from a
// file may show them in another order than the whole file. Both are
// returned as they are when the order is already that, or d is not
// multi-class; otherwise as copies with Class renumbered and ClassLabels
// reordered.
func InLIBSVMOrder(d, other *Dataset) (*Dataset, *Dataset) {
	if !d.MultiClass() {
		return d, other
	}
	k := len(d.ClassLabels)
	seen := make([]bool, k)
	var order []int // order[new] = old
	for _, c := range d.Class {
		if !seen[c] {
			seen[c] = true
			order = append(order, c)
		}
	}
	for c := range k {
		if !seen[c] {
			order = append(order, c)
		}
	}
	same := true
	for i, c := range order {
		same = same && i == c
	}
	if same {
		return d, other
	}
	newOf := make([]int, k)
	labels := make([]string, k)
	for i, c := range order {
		newOf[c] = i
		labels[i] = d.ClassLabels[c]
	}
	remap := func(x *Dataset) *Dataset {
		if x == nil || !x.MultiClass() {
			return x
		}
		c := *x
		c.ClassLabels = labels
		c.Class = make([]int, len(x.Class))
		for i, v := range x.Class {
			c.Class[i] = newOf[v]
		}
		return &c
	}
	return remap(d), remap(other)
}

// IsSparse reports whether the features are held in compressed rows
// (Sparse) rather than dense (X).
func (d *Dataset) IsSparse() bool { return d.Sparse != nil }

// Features returns the n×d features as a mat.Matrix: the *sparse.CSR of
// sparse data, else the *mat.Dense X.
func (d *Dataset) Features() mat.Matrix {
	if d.Sparse != nil {
		return d.Sparse
	}
	return d.X
}

// Dims returns the numbers of rows and features, dense or sparse (0, 0 when
// neither is set).
func (d *Dataset) Dims() (n, p int) {
	switch {
	case d.Sparse != nil:
		return d.Sparse.Dims()
	case d.X != nil:
		return d.X.Dims()
	}
	return 0, 0
}
