package dataio

import (
	"bufio"
	"io"
	"math"
	"strings"
)

// ReadMatrix reads a dense matrix of finite numbers from r, named name in
// errors: one row per line, numbers separated by commas, semicolons, tabs or
// spaces (any mix, runs count as one); blank lines and lines starting with #
// are skipped. Every row must have as many numbers as the first. It is the
// form of a user-given metric Q (train --Q FILE): no labels, no header.
//
// Problems are *ParseError values naming name, the line and the number's
// position on it (ErrNotNumber, ErrNotFinite), the line (ErrRagged) or the
// whole input (ErrEmpty for no rows, or the read error).
func ReadMatrix(r io.Reader, name string) ([][]float64, error) {
	var rows [][]float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.FieldsFunc(text, func(c rune) bool {
			return c == ',' || c == ';' || c == ' ' || c == '\t'
		})
		row := make([]float64, len(fields))
		for k, fv := range fields {
			v, err := ParseFloat(fv, 64)
			if err != nil {
				return nil, perr(name, line, k+1, errf(ErrNotNumber, "%q is not a number", fv))
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, perr(name, line, k+1, errf(ErrNotFinite, "%q is not a finite number", fv))
			}
			row[k] = v
		}
		if len(rows) > 0 && len(row) != len(rows[0]) {
			return nil, perr(name, line, 0, errf(ErrRagged, "%d numbers, the first row has %d", len(row), len(rows[0])))
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, perr(name, 0, 0, err)
	}
	if len(rows) == 0 {
		return nil, perr(name, 0, 0, errf(ErrEmpty, "no matrix rows"))
	}
	return rows, nil
}
