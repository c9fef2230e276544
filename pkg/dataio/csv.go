package dataio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// defaultMaxCells bounds the dense matrix a file may describe (2 GiB of
// float64), so a hostile LIBSVM index such as 1:1 999999999:1 is an error,
// not an out-of-memory crash.
const defaultMaxCells = 1 << 28

// ReadOptions control how a file is read. The zero value reads any supported
// file with the defaults below.
type ReadOptions struct {
	// Format is "", "auto", "csv", "arff", "libsvm" or "ida". Empty or "auto"
	// detects it: IDA by file name (NAME_data.asc, …, or a prefix NAME whose
	// NAME_data.asc exists), ARFF by the .arff extension or a first line
	// "@relation", LIBSVM when tokens after the first look like index:value,
	// CSV otherwise.
	Format string
	// Delimiter of CSV fields: "" (detect among comma, tab, semicolon and
	// runs of white space), ",", ";", "\t" or "tab", "space" or "whitespace".
	Delimiter string
	// Header of a CSV file: "" (detect: the first row is a header when none
	// of its fields is a number), "yes" or "no".
	Header string
	// LabelCol is the CSV label column (or ARFF class attribute), by header
	// (attribute) name or 1-based index; empty means the last column.
	LabelCol string
	// Positive is the original label mapped to +1. Empty: the larger of two
	// numeric labels, or the later in byte order of two text labels. With
	// more than two classes it makes a one-vs-rest problem: Positive against
	// all the others (LabelMap.OneVsRest).
	Positive string
	// Classes, if set, are the two classes to keep (e.g. two of iris's
	// three); rows of any other class are dropped and counted in the Notes.
	Classes []string
	// Multiclass is how data with more than two classes (and neither
	// Positive nor Classes) is learnt: "" or "ovo", one-vs-one with
	// LIBSVM's vote (the data is read with a class per row, Dataset.Class);
	// "ovr", one-vs-rest: every class against all the others, the class of
	// the largest decision value (Dataset.Multiclass). Binary data ignores
	// it.
	Multiclass string
	// ClassLabels, if non-nil, are the classes of multi-class training data
	// in its order (Dataset.ClassLabels): a test file is read with them,
	// and any other label is an error.
	ClassLabels []string
	// AnyClasses reads a file with more than two classes (and neither
	// Positive nor Classes) without failing: the Dataset then has no labels
	// (Y nil) but Classes lists them with their counts (for info).
	AnyClasses bool
	// Categorical says what a nominal (text) feature column is: "" or
	// "error" (an error naming the nominal columns; ErrNominal) or "codes"
	// (read as category codes, listed in Dataset.Nominal, to be encoded with
	// FitOneHot). A CSV column is nominal when any of its values is not a
	// number (and not a missing-value marker); an ARFF one when declared
	// {a,b,…}.
	Categorical string
	// Missing is "" or "error" (a missing-value marker "?", "NA", "N/A" or an
	// empty CSV field is an error) or "drop" (such rows are dropped and
	// counted in the Notes).
	// A description (DescribeFiles) reads with "count": such rows are left
	// out as with "drop" and counted per column (Dataset.Missing), with no
	// note that they were dropped.
	Missing string
	// Features fixes the number of features of a LIBSVM file (a1a declares
	// 123 but its highest index is 119); 0 uses the highest index present.
	// An index above Features is an error.
	Features int
	// Storage says how the features are held (docs/input.md, "Sparse
	// data"): "" or "auto" applies the storage rule of a LIBSVM file
	// (compressed rows, Dataset.Sparse, when it has at least
	// SparseMinFeatures features and fewer than one cell in
	// SparseMaxDensity non-zero; CSV, ARFF and IDA files are dense);
	// "dense" holds every file dense, as before sparse storage (a file
	// beyond MaxCells is refused with a *DenseLimitError); "sparse" holds
	// a LIBSVM file in compressed rows whatever its density (no MaxCells
	// limit: its non-zeros are what it holds), and refuses a CSV, ARFF or
	// IDA file (a *StorageError: their readers hold dense rows).
	Storage string
	// Labels, if non-nil, fixes the label mapping (a test file read with the
	// training file's mapping): any other label is an error, and a file with
	// one class is accepted.
	Labels *LabelMap
	// MaxCells bounds rows × features of the dense matrix; 0 means 2^28.
	MaxCells int
	// MemBytes bounds the memory reading a file and holding its values
	// takes, in bytes (a command's --mem-mb, sysmem.Bound); 0 sets no
	// bound. A CSV, ARFF or LIBSVM file that would need more is refused with a
	// *ReadMemoryError naming the rows that fit, before its rows are held
	// (a regular file too large to be read within it, before it is read).
	// It says nothing of the data, so no identity or record names it.
	MemBytes int64

	// Unlabeled reads a file whose rows carry no label, such as new points
	// to score with a trained model: every CSV column is a feature, and a
	// LIBSVM line holds only index:value tokens ("1:0.5 3:-1"; svm-predict
	// wants a label first, but files without one are common). A row of
	// zeros must then be written with an explicit zero such as "1:0", since
	// blank lines are skipped. The Dataset has Y == nil (Labeled reports
	// false) and a zero Labels. LabelCol, Positive and Labels cannot be
	// combined with it; builtin data and IDA sets are labelled and are
	// refused.
	Unlabeled bool
	// AutoUnlabeled, when > 0, lets the file say whether it is labelled,
	// for a caller that knows how many features to expect (predict, from
	// its model): a CSV file is read as unlabelled when its rows have
	// exactly AutoUnlabeled fields and LabelCol is empty, a LIBSVM file when
	// its first content line starts with an index:value token. Other files
	// (and builtin data and IDA sets) are read with labels as usual.
	AutoUnlabeled int

	// atWidth, when > 0, reads a LIBSVM file at that many features and
	// leaves out (and counts in a note) the values of higher indices: a
	// test file read at its sparse training file's width (OpenDataset),
	// as svm-scale -r leaves out the features its range file does not
	// have. Features, when set, wins.
	atWidth int

	// ctx, set by the reading of OpenDataset (loadContext), stops the
	// parsing of a long file when it is done (interrupted); nil for none.
	// It is no option of the reading.
	ctx context.Context
}

// checkRows is how many rows a parser reads between two looks at its
// context (ReadOptions.interrupted): a few milliseconds of parsing.
const checkRows = 1 << 13

// interrupted returns the error of the context that stops the parsing
// (ReadOptions.ctx) when it is done and row is a multiple of checkRows;
// nil otherwise.
func (o ReadOptions) interrupted(row int) error {
	if o.ctx == nil || row%checkRows != 0 {
		return nil
	}
	return o.ctx.Err()
}

func (o ReadOptions) maxCells() int {
	if o.MaxCells > 0 {
		return o.MaxCells
	}
	return defaultMaxCells
}

func (o ReadOptions) check() error {
	switch o.Format {
	case "", "auto", "csv", "arff", "libsvm", "ida":
	default:
		return fmt.Errorf("unknown format %q (want csv, arff, libsvm or ida)", o.Format)
	}
	switch o.Categorical {
	case "", "error", "codes":
	default:
		return fmt.Errorf("unknown categorical setting %q (want error or codes)", o.Categorical)
	}
	if len(o.Classes) != 0 {
		if len(o.Classes) != 2 || o.Classes[0] == o.Classes[1] {
			return fmt.Errorf("classes %q: give two different classes", strings.Join(o.Classes, ","))
		}
		if o.Positive != "" && o.Positive != o.Classes[0] && o.Positive != o.Classes[1] {
			return fmt.Errorf("positive class %q is not one of the classes %q and %q", o.Positive, o.Classes[0], o.Classes[1])
		}
	}
	switch o.Multiclass {
	case "", OneVsOne, OneVsRest:
	default:
		return fmt.Errorf("unknown multiclass setting %q (want ovo or ovr)", o.Multiclass)
	}
	switch o.Missing {
	case "", "error", "drop", "count":
	default:
		return fmt.Errorf("unknown missing-value policy %q (want error or drop)", o.Missing)
	}
	switch o.Header {
	case "", "auto", "yes", "no":
	default:
		return fmt.Errorf("unknown header setting %q (want yes or no)", o.Header)
	}
	if _, err := delimiterOf(o.Delimiter); err != nil {
		return err
	}
	switch o.Storage {
	case "", StorageAuto, StorageDense, StorageSparse:
	default:
		return fmt.Errorf("unknown storage %q (want auto, dense or sparse)", o.Storage)
	}
	if o.Features < 0 {
		return fmt.Errorf("negative number of features %d", o.Features)
	}
	if o.AutoUnlabeled < 0 {
		return fmt.Errorf("negative number of features %d to detect unlabelled data", o.AutoUnlabeled)
	}
	if o.Unlabeled {
		switch {
		case o.LabelCol != "":
			return fmt.Errorf("label column %q given for data read without labels", o.LabelCol)
		case o.Positive != "":
			return fmt.Errorf("positive class %q given for data read without labels", o.Positive)
		case len(o.Classes) > 0:
			return fmt.Errorf("classes given for data read without labels")
		case o.Labels != nil:
			return fmt.Errorf("label mapping given for data read without labels")
		}
	}
	return nil
}

// whitespace is the delimiter value meaning "runs of spaces and tabs".
const whitespace = ' '

func delimiterOf(s string) (byte, error) {
	switch s {
	case "":
		return 0, nil
	case ",":
		return ',', nil
	case ";":
		return ';', nil
	case "\t", "tab", `\t`:
		return '\t', nil
	case " ", "space", "whitespace":
		return whitespace, nil
	}
	return 0, fmt.Errorf("unknown delimiter %q (want , ; tab or space)", s)
}

// isMissing reports whether a field is a missing-value marker.
func isMissing(s string) bool {
	switch s {
	case "", "?", "NA", "N/A", "na", "n/a":
		return true
	}
	return false
}

// ParseFloat is strconv.ParseFloat for data files: decimal numbers only.
// Go's syntax also reads digits separated by underscores (1_000) and
// hexadecimal floats (0x1p3), which no data format writes: such a text is
// not a number here (a *strconv.NumError with ErrSyntax), as it is not for
// LIBSVM, Weka or a spreadsheet.
func ParseFloat(s string, bitSize int) (float64, error) {
	i := 0
	for i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++ // strings.TrimLeft(s, "+-") without its set built on every value
	}
	t := s[i:]
	if strings.ContainsRune(s, '_') || len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		return 0, &strconv.NumError{Func: "ParseFloat", Num: s, Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(s, bitSize)
}

// parseValue parses a feature value: a finite float64. Underflow to zero is
// accepted; overflow is an error like ±Inf.
func parseValue(s string) (float64, error) {
	v, err := ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange && !math.IsInf(v, 0) {
			return v, nil
		}
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, errf(ErrNotFinite, "%q is out of the float64 range", s)
		}
		return 0, errf(ErrNotNumber, "%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errf(ErrNotFinite, "%q is not a finite number", s)
	}
	return v, nil
}

// textLine is one content line of a text file with its 1-based line number.
type textLine struct {
	text string
	num  int
}

// contentLines splits data into lines, dropping a UTF-8 byte-order mark, the
// \r of CRLF line ends, blank lines and comment lines starting with '#'.
func contentLines(data []byte) []textLine { return textLines(data, '#', false, -1) }

// textLines splits data into its content lines: without a UTF-8 byte-order
// mark and the \r of CRLF ends, and without blank lines and lines whose
// first non-blank character is comment. trim also trims the kept lines'
// leading and trailing blanks (ARFF); otherwise only the \r goes. With
// limit ≥ 0 it stops after that many content lines.
// Each line is its own string (a label or a category kept from it must not
// pin the whole file); the slice is sized once from the newline count.
func textLines(data []byte, comment byte, trim bool, limit int) []textLine {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []textLine
	if limit < 0 {
		out = make([]textLine, 0, bytes.Count(data, []byte{'\n'})+1)
	}
	num, pos := 0, 0
	for pos < len(data) && (limit < 0 || len(out) < limit) {
		num++
		end := len(data)
		next := end
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		s := strings.TrimRight(string(data[pos:end]), "\r")
		pos = next
		t := strings.TrimSpace(s)
		if t == "" || t[0] == comment {
			continue
		}
		if trim {
			s = t
		}
		out = append(out, textLine{text: s, num: num})
	}
	return out
}

// looksLikeHeader: no field is a number and at least one is real text.
func looksLikeHeader(fields []string) bool {
	text := false
	for _, f := range fields {
		if _, err := ParseFloat(f, 64); err == nil {
			return false
		}
		if !isMissing(f) {
			text = true
		}
	}
	return text
}

// ReadCSV reads a delimited text file: one row per line, one column the label
// (ReadOptions.LabelCol, default the last), every other column a numeric
// feature; with ReadOptions.Unlabeled every column is a feature. name is used in error messages and as the data set's Source.
// Blank lines and lines starting with '#' are skipped. Like Load, it sets
// Name, Source and SHA256.
func ReadCSV(r io.Reader, name string, opts ReadOptions) (*Dataset, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	opts.Format = "csv"
	return readBytes(data, name, opts)
}

// parseCSV reads a delimited file: its records (readCSVRecords), their
// layout (csvLayout: header, label column, feature names), the nominal
// columns, and the values.
func parseCSV(data []byte, name string, opts ReadOptions) (*Dataset, error) {
	t, err := readCSVRecords(data, name, opts)
	if err != nil {
		return nil, err
	}
	l, err := t.layout(name, opts)
	if err != nil {
		return nil, err
	}
	nominal, levelIndex := csvNominalColumns(t.rows, l.featureOf, l.names, opts.dropsMissing())
	if len(nominal) > 0 && opts.Categorical != "codes" {
		return nil, t.nominalError(name, opts, l, nominal)
	}
	v, err := t.values(name, opts, l, levelIndex)
	if err != nil {
		return nil, err
	}
	ds, err := finishDataset(name, "csv", v.x, v.n, l.d, l.names, nominal, &v.labels, v.missing, l.unlabeled, opts)
	if err == nil && (t.delim == ',' || t.delim == ';') {
		if lines := textLines(data, '#', false, 21); decimalCommas(lines) {
			ds.Notes = append([]hint.Text{{DecimalCommaNote + " (e.g. " + strconv.Quote(lines[0].text) +
				"): kerneltune reads '.' as the decimal point, so it sees text where the numbers are; convert the commas to points (sed 's/,/./g') before reading"}}, ds.Notes...)
		}
	}
	return ds, err
}

// csvLayout is what a delimited file's first record and columns say: the
// header (first, when header), the label column (-1 unlabelled), the d
// features' names and each column's feature (featureOf, -1 the label).
type csvLayout struct {
	first             []string
	firstLine         int
	header, unlabeled bool
	labelCol, d       int
	names             []string
	featureOf         []int
}

// layout reads the header rule, the label column and the feature names,
// and drops the header record from t.
func (t *csvRecords) layout(name string, opts ReadOptions) (*csvLayout, error) {
	l := &csvLayout{first: t.rows[0], firstLine: t.lines[0]}
	ncol := len(l.first)
	switch opts.Header {
	case "yes":
		l.header = true
	case "no":
	default:
		l.header = isHeader(t.rows)
	}
	l.unlabeled = opts.Unlabeled || (opts.AutoUnlabeled > 0 && opts.LabelCol == "" && ncol == opts.AutoUnlabeled)
	l.labelCol, l.d = -1, ncol // every column a feature when unlabelled
	if !l.unlabeled {
		var err error
		if l.labelCol, err = resolveLabelCol(opts.LabelCol, l.first, l.header, name); err != nil {
			return nil, err
		}
		if ncol < 2 {
			return nil, perr(name, l.firstLine, 0, fmt.Errorf("one column only: need at least one feature and the label (delimiter %s)", delimName(t.delim)))
		}
		l.d = ncol - 1
	}
	l.names = make([]string, 0, l.d)
	if l.header {
		for j, h := range l.first {
			if j != l.labelCol {
				if h == "" {
					h = "f" + strconv.Itoa(len(l.names)+1)
				}
				l.names = append(l.names, h)
			}
		}
		t.rows, t.lines = t.rows[1:], t.lines[1:]
		if len(t.rows) == 0 {
			return nil, perr(name, l.firstLine, 0, errf(ErrEmpty, "no data rows after the header"))
		}
	} else {
		for j := 1; j <= l.d; j++ {
			l.names = append(l.names, "f"+strconv.Itoa(j))
		}
	}
	if !l.unlabeled && opts.LabelCol == "" {
		// The default label column, the last, refused when it looks like a
		// feature; a label column given by name or number is the user's.
		colNames := make([]string, ncol)
		if l.header {
			copy(colNames, l.first)
		}
		if err := checkLabelColumn(name, t.rows, l.labelCol, colNames); err != nil {
			return nil, err
		}
	}
	if len(t.rows) > opts.maxCells()/l.d {
		return nil, perr(name, 0, 0, errf(ErrTooLarge, "%d rows × %d features exceed the limit of %d values", len(t.rows), l.d, opts.maxCells()))
	}
	l.featureOf = make([]int, ncol)
	for j, k := 0, 0; j < ncol; j++ {
		l.featureOf[j] = -1
		if j != l.labelCol {
			l.featureOf[j] = k
			k++
		}
	}
	return l, nil
}

// nominalError is the error of nominal columns read without
// categorical=codes: it names the first non-number in file order, with a
// hint at what the layout may have got wrong.
func (t *csvRecords) nominalError(name string, opts ReadOptions, l *csvLayout, nominal []NominalFeature) error {
	isNom := map[int]bool{}
	for _, nf := range nominal {
		isNom[nf.Index] = true
	}
	colOf := func(nf NominalFeature) int {
		for j, k := range l.featureOf {
			if k == nf.Index {
				return j + 1
			}
		}
		return 0
	}
	for i, fields := range t.rows {
		for j, f := range fields {
			if l.featureOf[j] < 0 || !isNom[l.featureOf[j]] || isMissing(f) {
				continue
			}
			if _, err := parseValue(f); err == nil {
				continue
			}
			var why hint.Text
			switch {
			case i == 0 && !l.header && opts.Header == "no":
				why = hint.T(fmt.Sprintf("line %d is read as data because header=no: is it a header?", t.lines[i]))
			case l.unlabeled:
				why = hint.T(fmt.Sprintf("the data are read without labels, so every column is a feature: is column %d a label?", j+1))
			case opts.LabelCol == "":
				why = labelHint(t.rows, l.labelCol, l.featureOf, nominal, l.first, l.header)
			}
			return nominalError(name, t.lines[i], j+1, f, why, nominal, colOf)
		}
	}
	return nil
}

// csvValues are a delimited file's values as read: n rows of x, their
// labels and the missing values counted.
type csvValues struct {
	x       []float64
	n       int
	labels  rawLabels
	missing *missingTally
}

// values reads every record's values: a number per numeric feature, the
// code of a nominal one's category (levelIndex), the label; a missing
// value is an error, or with missing=drop drops its row.
func (t *csvRecords) values(name string, opts ReadOptions, l *csvLayout, levelIndex []map[string]int) (*csvValues, error) {
	missing := newMissingTally(len(l.first), func(j int) string {
		switch {
		case l.header && l.first[j] != "":
			return l.first[j]
		case j == l.labelCol:
			return "label"
		}
		return l.names[l.featureOf[j]]
	})
	drop := opts.dropsMissing()
	v := &csvValues{x: make([]float64, 0, len(t.rows)*l.d), missing: missing}
	row := make([]float64, l.d)
	for i, fields := range t.rows {
		if err := opts.interrupted(i); err != nil {
			return nil, err
		}
		line := t.lines[i]
		if drop && missing.row(func(j int) bool { return isMissing(fields[j]) }) {
			continue
		}
		label := ""
		for j, f := range fields {
			if isMissing(f) {
				return nil, perr(name, line, j+1, errh(ErrMissing, textf("missing value %q (rows with missing values can be dropped: ", f), hint.S("missing", "drop"), ")"))
			}
			k := l.featureOf[j]
			if k < 0 {
				label = f
				continue
			}
			if levelIndex[k] != nil {
				row[k] = float64(levelIndex[k][f])
				continue
			}
			x, err := parseValue(f)
			if err != nil {
				if errors.Is(err, ErrNotNumber) && line == l.firstLine && !l.header && opts.Header == "" {
					err = fmt.Errorf("%w (line %d is not read as a header because some of its fields are numbers)", err, line)
				}
				return nil, perr(name, line, j+1, err)
			}
			row[k] = x
		}
		v.x = append(v.x, row...)
		v.n++
		if !l.unlabeled {
			v.labels.add(label, line)
		}
	}
	return v, nil
}

// DecimalCommaNote begins the note on a CSV file that looks written with
// decimal commas; what the columns then seem to be (nominal, many classes)
// is an artefact of it.
const DecimalCommaNote = "the numbers look like decimal commas with ';' between fields"

// decimalCommas reports whether the sampled lines read as numbers with a
// decimal comma and ';' between fields (1,5;2,3;1): every line splits at ';'
// into the same number (≥ 2) of fields, each a number once its comma is a
// point (the first line may be a header), and some field has a comma.
func decimalCommas(lines []textLine) bool {
	n, comma := -1, false
	for i, l := range lines[:min(len(lines), 21)] {
		f := strings.Split(l.text, ";")
		if len(f) < 2 || (n >= 0 && len(f) != n) {
			return false
		}
		n = len(f)
		for _, v := range f {
			v = strings.TrimSpace(v)
			if _, err := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64); err != nil {
				if i == 0 {
					break // a header line
				}
				return false
			}
			comma = comma || strings.Contains(v, ",")
		}
	}
	return comma
}

// csvNominalColumns finds the nominal feature columns: those with a value
// that is not a number (nor a missing-value marker; a row that missing=drop
// drops does not count). Their levels are the distinct values in byte
// order; levelIndex[k] maps a value of feature k to its code (nil for a
// numeric feature).
func csvNominalColumns(rows [][]string, featureOf []int, names []string, drop bool) ([]NominalFeature, []map[string]int) {
	isNom := make([]bool, len(names))
	values := make([]map[string]bool, len(names))
	usable := func(fields []string) bool {
		if !drop {
			return true
		}
		for _, f := range fields {
			if isMissing(f) {
				return false
			}
		}
		return true
	}
	for _, fields := range rows {
		if !usable(fields) {
			continue
		}
		for j, f := range fields {
			k := featureOf[j]
			if k < 0 || isMissing(f) {
				continue
			}
			if !isNom[k] {
				if _, err := parseValue(f); err == nil || !errors.Is(err, ErrNotNumber) {
					continue
				}
				isNom[k] = true
			}
		}
	}
	var nominal []NominalFeature
	levelIndex := make([]map[string]int, len(names))
	for k := range names {
		if isNom[k] {
			values[k] = map[string]bool{}
		}
	}
	for _, fields := range rows {
		if !usable(fields) {
			continue
		}
		for j, f := range fields {
			if k := featureOf[j]; k >= 0 && isNom[k] && !isMissing(f) {
				values[k][f] = true
			}
		}
	}
	for k := range names {
		if !isNom[k] {
			continue
		}
		lv := make([]string, 0, len(values[k]))
		for v := range values[k] {
			lv = append(lv, v)
		}
		sort.Strings(lv)
		idx := make(map[string]int, len(lv))
		for i, v := range lv {
			idx[v] = i
		}
		levelIndex[k] = idx
		nominal = append(nominal, NominalFeature{Index: k, Name: names[k], Levels: lv})
	}
	return nominal, levelIndex
}

// isHeader is the header rule of --header auto. The first row is a header
// when none of its fields is a number (and one is text), and it does not
// look like the other rows: either some column is numeric in the rows
// below (a name above numbers), or, when the rows below are text too (all
// nominal data, such as UCI's house-votes or mushroom files), no field of
// the first row occurs again in its column (names are not categories). So
// a file whose every row is letters, like its first, has no header.
func isHeader(rows [][]string) bool {
	if !looksLikeHeader(rows[0]) {
		return false
	}
	if len(rows) == 1 {
		return true
	}
	rest := rows[1:]
	for j := range rows[0] {
		numeric := false
		for _, r := range rest {
			if isMissing(r[j]) {
				continue
			}
			if _, err := ParseFloat(r[j], 64); err != nil {
				numeric = false
				break
			}
			numeric = true
		}
		if numeric {
			return true
		}
	}
	for j, h := range rows[0] {
		if isMissing(h) {
			continue
		}
		for _, r := range rest {
			if r[j] == h {
				return false
			}
		}
	}
	return true
}

func delimName(c byte) string {
	switch c {
	case ',':
		return "comma"
	case ';':
		return "semicolon"
	case '\t':
		return "tab"
	}
	return "white space"
}

// resolveLabelCol returns the 0-based label column.
func resolveLabelCol(spec string, first []string, header bool, file string) (int, error) {
	ncol := len(first)
	if spec == "" {
		return ncol - 1, nil
	}
	if k, err := strconv.Atoi(spec); err == nil {
		if k < 1 || k > ncol {
			return 0, fmt.Errorf("read %s: label column %d is out of range: the file has %d columns", file, k, ncol)
		}
		return k - 1, nil
	}
	if !header {
		return 0, fmt.Errorf("read %s: label column %q given by name, but the file has no header line", file, spec)
	}
	// An exact match first, else a case-insensitive one; a name that
	// several columns carry is ambiguous, not the first of them.
	for _, same := range []func(a, b string) bool{func(a, b string) bool { return a == b }, strings.EqualFold} {
		var at []int
		for j, h := range first {
			if same(h, spec) {
				at = append(at, j)
			}
		}
		switch {
		case len(at) == 1:
			return at[0], nil
		case len(at) > 1:
			nums := make([]string, len(at))
			for i, j := range at {
				nums[i] = strconv.Itoa(j + 1)
			}
			return 0, fmt.Errorf("read %s: %d columns are named %q (columns %s): give the label column by number", file, len(at), spec, strings.Join(nums, ", "))
		}
	}
	return 0, fmt.Errorf("read %s: no column named %q (columns: %s)", file, spec, strings.Join(first, ", "))
}
