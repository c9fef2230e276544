package dataio

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// The storage rule of a LIBSVM file (docs/input.md, "Sparse data"): it is
// held in compressed rows (Dataset.Sparse) when it has at least
// SparseMinFeatures features and fewer than one cell in SparseMaxDensity
// is non-zero; otherwise dense (Dataset.X), as every file was before sparse
// storage (a1a's 123 features, w8a's 300 and the 778 of a digits set stay
// dense, so their results are unchanged).
const (
	SparseMinFeatures = 1000
	SparseMaxDensity  = 4
)

// The values of ReadOptions.Storage ("" is StorageAuto).
const (
	StorageAuto   = "auto"
	StorageDense  = "dense"
	StorageSparse = "sparse"
)

type storage int

const (
	storageDense storage = iota
	storageSparse
)

// storageOf applies the storage rule to n rows of d features with nnz
// non-zeros.
func storageOf(n, d, nnz int) storage {
	if d >= SparseMinFeatures && int64(nnz)*SparseMaxDensity < int64(n)*int64(d) {
		return storageSparse
	}
	return storageDense
}

// storageFor is the storage of a LIBSVM file of n rows of d features with
// nnz non-zeros read with o: the rule (storageOf) unless o.Storage forces
// one.
func (o ReadOptions) storageFor(n, d, nnz int) storage {
	switch o.Storage {
	case StorageDense:
		return storageDense
	case StorageSparse:
		return storageSparse
	}
	return storageOf(n, d, nnz)
}

// DenseLimitError is a LIBSVM file held dense (by the storage rule, or
// ReadOptions.Storage "dense") whose Rows × Features exceed the limit of
// dense data (ReadOptions.MaxCells): at most MaxRows rows of Features
// fit. Its NonZeros, in compressed rows (storage "sparse"), need no such
// limit. It matches ErrTooLarge.
type DenseLimitError struct {
	Rows, Features, MaxCells, MaxRows int
	NonZeros                          int64
}

func (e *DenseLimitError) Error() string { return e.Words().String() }

// Unwrap makes the error match ErrTooLarge.
func (e *DenseLimitError) Unwrap() error { return ErrTooLarge }

// Words is the message of e, naming the storage setting that holds the
// file's non-zeros only.
func (e *DenseLimitError) Words() hint.Text {
	density := float64(e.NonZeros) / (float64(e.Rows) * float64(e.Features))
	return hint.T(fmt.Sprintf("%d rows × %d features exceed the limit of %d values of dense data (at most %d rows of %d features); its %d non-zeros (%.3g%% of the cells) fit in compressed rows: read it with ",
		e.Rows, e.Features, e.MaxCells, e.MaxRows, e.Features, e.NonZeros, 100*density), hint.S("storage", StorageSparse))
}

// StorageError is ReadOptions.Storage "sparse" given for a file of another
// Format than LIBSVM's ("csv", "arff" or "ida"), whose reader holds dense
// rows: compressed rows are read from LIBSVM files only.
type StorageError struct {
	Name, Format string
}

func (e *StorageError) Error() string { return e.Words().String() }

// Words is the message of e, naming the storage setting.
func (e *StorageError) Words() hint.Text {
	return hint.T(e.Name+": ", hint.S("storage", StorageSparse), fmt.Sprintf(" holds a LIBSVM file in compressed rows; a %s file is read into dense rows (write it as LIBSVM to keep only its non-zeros, or read it with ", strings.ToUpper(e.Format)),
		hint.S("storage", StorageAuto), ")")
}

// maxLIBSVMIndex bounds a LIBSVM feature index (also bounded by MaxCells).
const maxLIBSVMIndex = 1 << 26

// ReadLIBSVM reads the LIBSVM sparse format: one row per line,
//
//	label index:value index:value ...
//
// with 1-based, strictly ascending indices (an error otherwise, as in
// LIBSVM's svm-train); absent indices are zeros. CRLF line ends, trailing
// spaces, blank lines and lines starting with '#' are accepted. The number
// of features is the highest index present unless ReadOptions.Features fixes
// it. Labels must be numbers. Error columns count tokens, the label being 1.
// With ReadOptions.Unlabeled a line holds only index:value tokens, the first
// being column 1, and the Dataset has no labels.
// Like Load, it sets Name (name without directory and extension), Source
// and SHA256.
func ReadLIBSVM(r io.Reader, name string, opts ReadOptions) (*Dataset, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	opts.Format = "libsvm"
	return readBytes(data, name, opts)
}

func parseLIBSVM(data []byte, name string, opts ReadOptions) (*Dataset, error) {
	// The lines are read in place, as strings sharing data's memory (data
	// is not changed while they live, and a label kept is a copy: intern),
	// not each copied as contentLines does: on 10,000 rows of 778 features
	// the copies were 12 MB beside the file's 12 MB and the parsed rows.
	sc := lineScanner{text: unsafe.String(unsafe.SliceData(data), len(data))}
	sc.text = strings.TrimPrefix(sc.text, "\xef\xbb\xbf")
	probe := sc
	firstLine, _, ok := probe.next()
	if !ok {
		return nil, perr(name, 0, 0, ErrEmpty)
	}
	lineCap := strings.Count(sc.text, "\n") + 1
	intern := map[string]string{}
	limit := maxLIBSVMIndex
	if opts.Features > 0 {
		limit = opts.Features
	}
	width := 0 // atWidth: higher indices are left out and counted
	if opts.Features == 0 && opts.atWidth > 0 {
		width = opts.atWidth
	}
	var beyond, beyondRows int // values left out above width, their rows
	first, _ := nextToken(firstLine)
	unlabeled := opts.Unlabeled || (opts.AutoUnlabeled > 0 && isIndexValue(first))
	var (
		labels rawLabels
		idx    []int32
		val    []float64
		start  = make([]int, 0, lineCap+1)
		maxIdx int
	)
	// One index:value pair per colon, comments aside: sized once, the
	// slices do not grow through a chain of copies (fresh memory is slow
	// to touch on some machines, and a small file's parse is mostly that).
	if pairs := bytes.Count(data, []byte{':'}); pairs > 0 {
		idx, val = make([]int32, 0, pairs), make([]float64, 0, pairs)
	}
	for li := 0; ; li++ {
		var l textLine
		if l.text, l.num, ok = sc.next(); !ok {
			break
		}
		if err := opts.interrupted(li); err != nil {
			return nil, err
		}
		rest := l.text
		col := 1 // the token number of the first index:value pair
		var lab string
		if !unlabeled {
			lab, rest = nextToken(rest)
			if _, err := parseValue(lab); err != nil {
				if isIndexValue(lab) {
					err = errf(ErrNotNumber, "the line starts with %q, not a label (data without labels must be read as unlabelled)", lab)
				}
				return nil, perr(name, l.num, 1, fmt.Errorf("label: %w", err))
			}
			col = 2
		}
		start = append(start, len(idx))
		prev := 0
		rowBeyond := false
		for ; ; col++ {
			var tok string
			tok, rest = nextToken(rest)
			if tok == "" {
				break
			}
			is, vs, ok := strings.Cut(tok, ":")
			if !ok {
				if unlabeled && col == 1 {
					return nil, perr(name, l.num, col, errf(ErrIndex, "token %q is not index:value (the data are read without labels: is it a label?)", tok))
				}
				return nil, perr(name, l.num, col, errf(ErrIndex, "token %q is not index:value", tok))
			}
			i, err := strconv.Atoi(is)
			if err != nil {
				return nil, perr(name, l.num, col, errf(ErrIndex, "feature index %q in %q is not an integer", is, tok))
			}
			switch {
			case i < 1:
				return nil, perr(name, l.num, col, errf(ErrIndex, "feature index %d in %q: indices start at 1", i, tok))
			case i <= prev:
				return nil, perr(name, l.num, col, errf(ErrIndex, "feature index %d after %d: indices must be strictly ascending", i, prev))
			case i > limit && opts.Features > 0:
				return nil, perr(name, l.num, col, errf(ErrIndex, "feature index %d exceeds the %d features set", i, opts.Features))
			case i > limit:
				return nil, perr(name, l.num, col, errf(ErrTooLarge, "feature index %d is too large", i))
			}
			prev = i
			v, err := parseValue(vs)
			if err != nil {
				return nil, perr(name, l.num, col, err)
			}
			if width > 0 && i > width {
				if v != 0 {
					beyond++
					rowBeyond = true
				}
				continue
			}
			if v != 0 {
				idx = append(idx, int32(i-1))
				val = append(val, v)
			}
			maxIdx = max(maxIdx, i)
		}
		if rowBeyond {
			beyondRows++
		}
		if !unlabeled {
			c, seen := intern[lab]
			if !seen {
				c = strings.Clone(lab) // not a slice of data
				intern[c] = c
			}
			labels.add(c, l.num)
		}
	}
	n := len(start)
	start = append(start, len(idx))
	d := maxIdx
	switch {
	case opts.Features > 0:
		d = opts.Features
	case width > 0:
		d = width
	}
	if d == 0 {
		// Unreachable without labels: every content line holds a token.
		return nil, perr(name, 0, 0, fmt.Errorf("no features: every row holds only a label"))
	}
	held := opts.storageFor(n, d, len(idx))
	if held == storageDense && n > opts.maxCells()/d {
		return nil, perr(name, 0, 0, &DenseLimitError{Rows: n, Features: d, MaxCells: opts.maxCells(), MaxRows: opts.maxCells() / d, NonZeros: int64(len(idx))})
	}
	nnz := int64(-1) // dense
	if held == storageSparse {
		nnz = int64(len(idx))
	}
	if err := checkReadCost(name, opts, int64(len(data)), n, 0, int64(cap(idx)), d, nnz); err != nil {
		return nil, err
	}
	var lab labeling
	if !unlabeled {
		var err error
		if lab, err = mapLabels(name, &labels, opts); err != nil {
			return nil, err
		}
	}
	var names []string // compressed rows: nil, f1..fd made on demand (Dataset.FeatureName)
	if held == storageDense {
		names = make([]string, d)
		for j := range names {
			names[j] = "f" + strconv.Itoa(j+1)
		}
	}
	ds := &Dataset{
		Name: name, Source: name, Format: "libsvm",
		Y: lab.y, FeatureNames: names, Labels: lab.lm, Classes: lab.counts,
		Class: lab.class, ClassLabels: lab.names,
	}
	if held == storageSparse {
		sp, err := sparse.New(n, d, start, idx[:len(idx):len(idx)], val[:len(val):len(val)])
		if err != nil {
			return nil, perr(name, 0, 0, err) // unreachable: the parse keeps rows ascending
		}
		ds.Sparse = sp
	} else {
		x := mat.NewDense(n, d, nil)
		raw := x.RawMatrix()
		for r := 0; r < n; r++ {
			row := raw.Data[r*raw.Stride : r*raw.Stride+d]
			for p := start[r]; p < start[r+1]; p++ {
				row[idx[p]] = val[p]
			}
		}
		ds.X = x
	}
	if beyond > 0 {
		ds.Notes = append(ds.Notes, hint.T(fmt.Sprintf("%d values in %d rows at features above %d were left out: the training data has %d features (as svm-scale -r leaves out the features its range file does not have)", beyond, beyondRows, d, d)))
	}
	if err := dropUnselected(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// lineScanner yields the content lines of text as contentLines splits
// them (no \r of a CRLF end, no blank line, no line whose first non-blank
// character is '#'), each a substring of text, with its 1-based number.
type lineScanner struct {
	text     string
	pos, num int
}

func (s *lineScanner) next() (line string, num int, ok bool) {
	for s.pos < len(s.text) {
		s.num++
		end := len(s.text)
		next := end
		if i := strings.IndexByte(s.text[s.pos:], '\n'); i >= 0 {
			end, next = s.pos+i, s.pos+i+1
		}
		l := strings.TrimRight(s.text[s.pos:end], "\r")
		s.pos = next
		if t := strings.TrimSpace(l); t == "" || t[0] == '#' {
			continue
		}
		return l, s.num, true
	}
	return "", 0, false
}

// isIndexValue reports whether tok looks like a LIBSVM index:value pair: an
// unsigned integer, a colon, and something after it.
func isIndexValue(tok string) bool {
	i := strings.IndexByte(tok, ':')
	if i <= 0 || i == len(tok)-1 {
		return false
	}
	for _, c := range []byte(tok[:i]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isBlank reports the separators of LIBSVM's reader (space and tab; also the
// other ASCII white space, so CR and form feed do not end up in a token).
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// nextToken returns the next blank-separated token of s and the rest; the
// token is "" at the end.
func nextToken(s string) (tok, rest string) {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isBlank(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}
