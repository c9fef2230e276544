package dataio

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// The four files of an IDA benchmark set NAME (Rätsch's repository, in the
// compact layout of the shared data folder).
var idaSuffixes = []string{"_data.asc", "_labels.asc", "_train_index.asc", "_test_index.asc"}

// IDAPrefix returns the prefix NAME of an IDA file path (…/banana_data.asc →
// …/banana) and whether path names one of the four IDA files.
func IDAPrefix(path string) (string, bool) {
	for _, s := range idaSuffixes {
		if strings.HasSuffix(path, s) && len(path) > len(s) {
			return strings.TrimSuffix(path, s), true
		}
	}
	return path, false
}

// isIDA reports whether path is an IDA file or an IDA prefix on disk.
func isIDA(path string) bool {
	if _, ok := IDAPrefix(path); ok {
		return true
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return false
	}
	_, err := os.Stat(path + idaSuffixes[0])
	return err == nil
}

// ReadIDA reads an IDA benchmark set given its prefix (…/banana) or any of its
// four files: NAME_data.asc (one pattern per line, white-space separated),
// NAME_labels.asc (one label per line), and NAME_train_index.asc and
// NAME_test_index.asc (line k lists the 1-based rows of realisation k). The
// result holds every row once, with Splits set to the realisations; the
// index files are optional, but not one without the other. SHA256 is the
// digest of the four files' bytes concatenated in that order.
func ReadIDA(path string, opts ReadOptions) (*Dataset, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	prefix, _ := IDAPrefix(path)
	if opts.Unlabeled {
		return nil, fmt.Errorf("IDA set %s is labelled (%s); to read only its features, read %s as CSV", prefix, prefix+idaSuffixes[1], prefix+idaSuffixes[0])
	}
	files := make([]string, 4)
	raw := make([][]byte, 4)
	h := sha256.New()
	for k, s := range idaSuffixes {
		files[k] = prefix + s
		b, err := os.ReadFile(files[k])
		if err != nil {
			if k >= 2 && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("read IDA set %s: %w", prefix, err)
		}
		raw[k] = b
		h.Write(b)
	}
	if (raw[2] == nil) != (raw[3] == nil) {
		return nil, fmt.Errorf("IDA set %s: found one of %s and %s but not the other", prefix, files[2], files[3])
	}

	// Data: one row per line, all rows the same width.
	lines := contentLines(raw[0])
	if len(lines) == 0 {
		return nil, perr(files[0], 0, 0, ErrEmpty)
	}
	d := len(strings.Fields(lines[0].text))
	if len(lines) > opts.maxCells()/d {
		return nil, perr(files[0], 0, 0, errf(ErrTooLarge, "%d rows × %d features exceed the limit of %d values", len(lines), d, opts.maxCells()))
	}
	x := make([]float64, 0, len(lines)*d)
	for _, l := range lines {
		f := strings.Fields(l.text)
		if len(f) != d {
			return nil, perr(files[0], l.num, 0, errf(ErrRagged, "%d values, want %d as on line %d", len(f), d, lines[0].num))
		}
		for j, s := range f {
			v, err := parseValue(s)
			if err != nil {
				return nil, perr(files[0], l.num, j+1, err)
			}
			x = append(x, v)
		}
	}
	n := len(lines)

	// Labels: one per line, as many as data rows.
	llines := contentLines(raw[1])
	var labels rawLabels
	for _, l := range llines {
		f := strings.Fields(l.text)
		if len(f) != 1 {
			return nil, perr(files[1], l.num, 0, errf(ErrRagged, "%d values, want one label", len(f)))
		}
		labels.add(f[0], l.num)
	}
	if len(labels.text) != n {
		return nil, perr(files[1], 0, 0, fmt.Errorf("%d labels for %d data rows in %s", len(labels.text), n, files[0]))
	}
	lab, err := mapLabels(files[1], &labels, opts)
	if err != nil {
		return nil, err
	}
	for _, v := range lab.y {
		if v == 0 {
			return nil, fmt.Errorf("read %s: an IDA set is used whole (its realisations index its rows): classes cannot drop rows", prefix)
		}
	}

	names := make([]string, d)
	for j := range names {
		names[j] = "f" + strconv.Itoa(j+1)
	}
	ds := &Dataset{
		Name: baseName(prefix), Source: prefix, Format: "ida",
		SHA256: hex.EncodeToString(h.Sum(nil)),
		X:      mat.NewDense(n, d, x), Y: lab.y, FeatureNames: names, Labels: lab.lm, Classes: lab.counts,
		Class: lab.class, ClassLabels: lab.names,
	}
	setScheme(ds, opts)
	if raw[2] == nil {
		return ds, nil
	}
	train, err := readIndexLines(files[2], raw[2], n)
	if err != nil {
		return nil, err
	}
	test, err := readIndexLines(files[3], raw[3], n)
	if err != nil {
		return nil, err
	}
	if len(train) != len(test) {
		return nil, fmt.Errorf("IDA set %s: %d training realisations but %d test realisations", prefix, len(train), len(test))
	}
	inTrain := make([]int, n) // realisation number+1 that last marked the row
	for k := range train {
		for _, i := range train[k].rows {
			inTrain[i] = k + 1
		}
		for c, i := range test[k].rows {
			if inTrain[i] == k+1 {
				return nil, perr(files[3], test[k].line, c+1, fmt.Errorf("row %d is also in training realisation %d", i+1, k+1))
			}
		}
		ds.Splits = append(ds.Splits, Split{Train: train[k].rows, Test: test[k].rows})
	}
	return ds, nil
}

type indexLine struct {
	rows []int // 0-based
	line int
}

// readIndexLines parses an IDA index file: each line the 1-based rows of one
// realisation, each row at most once.
func readIndexLines(file string, data []byte, n int) ([]indexLine, error) {
	var out []indexLine
	seen := make([]int, n)
	for _, l := range contentLines(data) {
		f := strings.Fields(l.text)
		rows := make([]int, len(f))
		for c, s := range f {
			v, err := strconv.Atoi(s)
			if err != nil {
				// Tolerate "12.0"-style integers written by numeric tools.
				fv, ferr := ParseFloat(s, 64)
				if ferr != nil || fv != float64(int(fv)) {
					return nil, perr(file, l.num, c+1, errf(ErrIndex, "row number %q is not an integer", s))
				}
				v = int(fv)
			}
			if v < 1 || v > n {
				return nil, perr(file, l.num, c+1, errf(ErrIndex, "row number %d is outside 1..%d", v, n))
			}
			if seen[v-1] == len(out)+1 {
				return nil, perr(file, l.num, c+1, errf(ErrIndex, "row number %d appears twice", v))
			}
			seen[v-1] = len(out) + 1
			rows[c] = v - 1
		}
		out = append(out, indexLine{rows: rows, line: l.num})
	}
	if len(out) == 0 {
		return nil, perr(file, 0, 0, errf(ErrEmpty, "no realisations"))
	}
	return out, nil
}
