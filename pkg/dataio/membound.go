package dataio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// The memory bound of reading (ReadOptions.MemBytes, a command's --mem-mb):
// a file is refused, naming the rows that fit, before its rows are held,
// rather than read until the memory runs out (a 537 MB CSV file within
// MaxInputBytes took about 50 bytes a value and ended in a fatal error; a
// 2.5 MB LIBSVM file of 268,000 rows with one high index held a 2 GB dense
// matrix twice). The cost counts what the reader holds at its peak and the
// copies a run makes of the data (three, as the methods' estimates count
// them: as read, normalised, and a method's working copy), so that a file
// that passes can also be trained on.

// Bytes a reader holds per content line and per value, besides the file's
// bytes and the file's own copy of its lines (each line a string):
const (
	lineBytes     = 24 + 24 + 48 // the line's textLine, its row slice (CSV) or start offset (LIBSVM), its label and line number (rawLabels, grown by doubling)
	fieldBytes    = 32           // a CSV field's string header, in a slice grown by doubling
	pairBytes     = 12 + 12      // a LIBSVM index:value pair (int32 and float64, and a LIBSVM file's spare capacity)
	copiesOfData  = 3            // the dense matrix as read, normalised, and a method's working copy
	denseValBytes = 8
)

// ReadMemoryError is a data file whose reading would need more memory than
// ReadOptions.MemBytes: Rows content lines (data rows, and a CSV header)
// of Features features need about Need bytes, more than Bound; MaxRows
// rows of Features features fit. With Estimated the file was too large to
// be read within the bound at all, and Rows, Features and MaxRows are
// extrapolated from its first HeadBytes bytes. Sparse data (held in
// compressed rows, ReadOptions.Storage) is costed by its NonZeros, not
// by Rows × Features.
type ReadMemoryError struct {
	Name                    string
	Rows, Features, MaxRows int
	Need, Bound, FileBytes  int64
	Estimated               bool
	HeadBytes               int
	Sparse                  bool
	NonZeros                int64
}

func (e *ReadMemoryError) Error() string { return e.Within("the memory bound of " + mbText(e.Bound)) }

// Within is the message of e with the bound named as within (Error: "the
// memory bound of N MB"; a command line names its flag).
func (e *ReadMemoryError) Within(within string) string {
	about := ""
	if e.Estimated {
		mb := func(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
		about = fmt.Sprintf("about %d rows (estimated from its first %s, of %s)", e.Rows, mb(int64(e.HeadBytes)), mb(e.FileBytes))
	} else {
		about = fmt.Sprintf("%d rows", e.Rows)
	}
	bound := within
	if e.Rows == 0 {
		return fmt.Sprintf("%s: reading it needs at least %s (the file and its lines), more than fits in %s", e.Name, mbText(e.Need), bound)
	}
	fit := fmt.Sprintf("at most %d rows of %d features fit", e.MaxRows, e.Features)
	if e.MaxRows == 0 {
		fit = fmt.Sprintf("not one row of %d features fits", e.Features)
	}
	if e.Sparse {
		return fmt.Sprintf("%s: %s in %s: reading and holding %s × %d features in compressed rows (%d non-zeros) needs about %s (the file, its rows as read, and three copies of the non-zeros as a run makes)",
			e.Name, fit, bound, about, e.Features, e.NonZeros, mbText(e.Need))
	}
	return fmt.Sprintf("%s: %s in %s: reading and holding %s × %d features needs about %s (the file, its rows as read, and three copies of the values as a run makes)",
		e.Name, fit, bound, about, e.Features, mbText(e.Need))
}

func mbText(b int64) string { return fmt.Sprintf("%d MB", (b+(1<<20)-1)>>20) }

// readCost is the memory reading and running on a file of size bytes
// needs: rows content lines of fields fields (CSV) or pairs index:value
// pairs (LIBSVM) each, held as rows × d float64 values, or with nnz ≥ 0
// (sparse data) as rows of nnz non-zeros in compressed rows
// (sparse.Bytes).
func readCost(size int64, rows, fieldsPerRow int, pairs int64, d int, nnz int64) int64 {
	r := int64(rows)
	held := denseValBytes * r * int64(d)
	if nnz >= 0 {
		held = sparse.Bytes(rows, nnz)
	}
	return 2*size + r*lineBytes + r*int64(fieldsPerRow)*fieldBytes + pairs*pairBytes + copiesOfData*held
}

// checkReadCost refuses (a *ReadMemoryError) a file whose readCost exceeds
// opts.MemBytes (no bound when it is 0), naming the rows that fit: those
// of the file's average size in bytes, fields and pairs. nnz is the
// non-zeros of data held sparse, -1 for dense data.
func checkReadCost(name string, opts ReadOptions, size int64, rows, fieldsPerRow int, pairs int64, d int, nnz int64) error {
	bound := opts.MemBytes
	if bound <= 0 || rows == 0 {
		return nil
	}
	need := readCost(size, rows, fieldsPerRow, pairs, d, nnz)
	if need <= bound {
		return nil
	}
	return &ReadMemoryError{Name: name, Rows: rows, Features: d, Need: need, Bound: bound, FileBytes: size,
		MaxRows: rowsThatFit(need, rows, bound), Sparse: nnz >= 0, NonZeros: max(nnz, 0)}
}

// rowsThatFit is the number of rows of a file like one of rows rows
// needing need bytes (linear in the rows) that fit in bound.
func rowsThatFit(need int64, rows int, bound int64) int {
	perRow := float64(need) / float64(rows)
	return int(float64(bound) / perRow)
}

// headBytes is how much of a file too large for the bound is read to
// estimate its rows.
const headBytes = 1 << 20

// checkFileSize refuses, before reading it, a regular file at path whose
// bytes alone (twice: the file and its lines) exceed opts.MemBytes, with
// the rows that fit estimated from its first headBytes bytes (parsed as the
// whole file would be). It returns nil when the file fits, is not regular,
// or there is no bound.
func checkFileSize(path string, opts ReadOptions) error {
	bound := opts.MemBytes
	if bound <= 0 {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || 2*st.Size() <= bound {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // Load reports it
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, headBytes))
	if err != nil {
		return nil
	}
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1] // whole lines
	}
	e := &ReadMemoryError{Name: path, Bound: bound, FileBytes: st.Size(), Estimated: true, HeadBytes: len(head)}
	scale := float64(st.Size()) / float64(max(len(head), 1))
	rows, fields, pairs, d, nnz := shapeOf(head, path, opts)
	if rows == 0 {
		e.Need = 2 * st.Size()
		return e
	}
	// The whole file as its head: its rows, the same values per row.
	e.Rows, e.Features = int(float64(rows)*scale), d
	if nnz >= 0 {
		nnz = int64(float64(nnz) * scale)
		e.Sparse, e.NonZeros = true, nnz
	}
	e.Need = readCost(st.Size(), e.Rows, fields, int64(float64(pairs)*scale), d, nnz)
	e.MaxRows = rowsThatFit(e.Need, e.Rows, bound)
	return e
}

// shapeOf returns the content lines of data, their fields (CSV: those of
// the first line) and index:value pairs (LIBSVM), the number of features
// held, as the reader of its format counts them, and the non-zeros when
// the reader would hold them in compressed rows (its storage rule on
// data's shape; -1 for dense data), without holding the rows; zeros when
// the format's reader would not read it.
func shapeOf(data []byte, name string, opts ReadOptions) (rows, fields int, pairs int64, d int, nnz int64) {
	format := opts.Format
	if format == "" || format == "auto" {
		format = DetectFormat(name, data)
	}
	switch format {
	case "libsvm":
		for _, l := range contentLines(data) {
			rows++
			for rest := l.text; ; {
				var tok string
				if tok, rest = nextToken(rest); tok == "" {
					break
				}
				if is, vs, ok := strings.Cut(tok, ":"); ok {
					pairs++
					d = max(d, atoiOrZero(is))
					if v, err := parseValue(vs); err != nil || v != 0 {
						nnz++
					}
				}
			}
		}
		if opts.Features > 0 {
			d = opts.Features
		}
		if opts.storageFor(rows, d, int(nnz)) == storageDense {
			nnz = -1
		}
		return rows, 0, pairs, d, nnz
	case "csv":
		rows := countContentLines(data)
		if rows == 0 {
			return 0, 0, 0, 0, -1
		}
		first, err := firstRecords(data, csvDelimiter(data, opts), 1)
		if err != nil || len(first) == 0 {
			return 0, 0, 0, 0, -1
		}
		return rows, len(first[0]), 0, csvFeatures(len(first[0]), opts), -1
	}
	return 0, 0, 0, 0, -1
}

func atoiOrZero(s string) int {
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' || n > maxLIBSVMIndex {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// csvFeatures is the number of features of a CSV file of ncol columns read
// with opts (parseCSV's rule: every column unlabelled, else all but one).
func csvFeatures(ncol int, opts ReadOptions) int {
	if opts.Unlabeled || (opts.AutoUnlabeled > 0 && opts.LabelCol == "" && ncol == opts.AutoUnlabeled) || ncol < 2 {
		return ncol
	}
	return ncol - 1
}
