package dataio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// labelText returns the text written for row i's label: the original label
// from the mapping (or the class labels) when there is one (and, if numeric
// is set, when it is a number), otherwise "1" or "-1" (a class's number).
func labelText(d *Dataset, i int, numeric bool) string {
	var s, def string
	switch {
	case d.Class != nil:
		// Multi-class: the class's label, or its number 1, 2, … in
		// LIBSVM's order where the label cannot be written.
		s, def = d.ClassLabels[d.Class[i]], strconv.Itoa(d.Class[i]+1)
	case d.Y[i] > 0:
		s, def = d.Labels.Positive, "1"
	default:
		s, def = d.Labels.Negative, "-1"
	}
	if s == "" || isMissing(s) || strings.ContainsAny(s, "\n") {
		return def
	}
	if numeric {
		if _, err := parseValue(s); err != nil {
			return def
		}
	}
	return s
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// csvField quotes a field when the reader would otherwise split, trim or
// skip it.
func csvField(s string) string {
	if s == "" || strings.ContainsAny(s, ",;\t\"\r\n") || strings.TrimSpace(s) != s || s[0] == '#' || strings.HasPrefix(s, "\ufeff") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// WriteCSV writes d as comma-separated text: a header line (the feature names,
// then "label") and one row per line with the label last, numbers in the
// shortest form that reads back to the same float64 (strconv 'g', -1), and
// labels as their original text (Dataset.Labels) so the mapping survives.
// Data without labels are written without the label column (read them back
// with ReadOptions.Unlabeled). Sparse data is written a row at a time,
// every zero written (the CSV reader reads it back dense). Feature names that the reader would take for
// numbers or missing values are written as f1, f2, ….
func WriteCSV(w io.Writer, d *Dataset) error {
	bw := bufio.NewWriter(w)
	dim := d.Dim()
	for j := 0; j < dim; j++ {
		name := strings.NewReplacer("\r", " ", "\n", " ").Replace(d.FeatureName(j))
		if _, err := ParseFloat(strings.TrimSpace(name), 64); err == nil || isMissing(strings.TrimSpace(name)) {
			name = "f" + strconv.Itoa(j+1)
		}
		if j > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(csvField(name))
	}
	labeled := d.Labeled()
	if labeled {
		if dim > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("label")
	}
	bw.WriteByte('\n')
	var row []float64 // a sparse row, written dense one at a time
	for i := 0; i < d.Len(); i++ {
		if d.Sparse != nil {
			row = d.Sparse.RowTo(i, row)
		} else if dim > 0 {
			row = d.X.RawRowView(i)
		}
		for j := 0; j < dim; j++ {
			if j > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(formatFloat(row[j]))
		}
		if labeled {
			if dim > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(csvField(labelText(d, i, false)))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// WriteLIBSVM writes d in the LIBSVM sparse format: "label idx:val ..." with
// 1-based indices, zeros left out, numbers in the shortest exact form. Labels
// are the original labels when they are numbers, else 1 and -1. The first
// row also writes the last feature, even when zero, so the width survives a
// round trip. Data without labels are written without them, index:value
// tokens only, a row of zeros as "1:0" (a blank line would be skipped); read
// them back with ReadOptions.Unlabeled.
func WriteLIBSVM(w io.Writer, d *Dataset) error {
	bw := bufio.NewWriter(w)
	dim := d.Dim()
	labeled := d.Labeled()
	for i := 0; i < d.Len(); i++ {
		sep := false // a token was written on this line
		if labeled {
			bw.WriteString(labelText(d, i, true))
			sep = true
		}
		writePair := func(j int, v float64) {
			if sep {
				bw.WriteByte(' ')
			}
			sep = true
			bw.WriteString(strconv.Itoa(j + 1))
			bw.WriteByte(':')
			bw.WriteString(formatFloat(v))
		}
		if d.Sparse != nil {
			ind, val := d.Sparse.Row(i)
			for p, j := range ind {
				writePair(int(j), val[p])
			}
			if i == 0 && dim > 0 && (len(ind) == 0 || int(ind[len(ind)-1]) != dim-1) {
				writePair(dim-1, 0)
			}
		} else {
			for j := 0; j < dim; j++ {
				if v := d.X.At(i, j); v != 0 || (i == 0 && j == dim-1) {
					writePair(j, v)
				}
			}
		}
		if !sep && dim > 0 {
			bw.WriteString("1:0")
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write LIBSVM: %w", err)
	}
	return nil
}

// WriteFile writes d to the file at path in format (Write), atomically
// (outfile.WriteFile): a failed write leaves the file that was there as it
// was; a FIFO, a socket or a device given as the path is refused.
func WriteFile(path, format string, d *Dataset) error {
	return outfile.WriteFile(path, func(w io.Writer) error { return Write(w, format, d) })
}
