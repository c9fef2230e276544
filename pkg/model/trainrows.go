package model

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// rowHashSig is the number of significant digits a normalised value keeps
// in a training-row hash: enough to tell rows of real data apart, few
// enough that the rounding of the normalisation (fitted once, applied the
// same way by fit and predict) cannot split one row into two.
const rowHashSig = 10

// RowHashes are the hashes of a model's training rows (Model.TrainingRows).
// In JSON they are one string, the hashes as 16 hex digits each separated by
// a space, so that a model file stays one line per support vector and not
// one per training row.
type RowHashes []string

// MarshalJSON writes the hashes as one space-separated string.
func (h RowHashes) MarshalJSON() ([]byte, error) {
	return json.Marshal(strings.Join(h, " "))
}

// UnmarshalJSON reads the space-separated string; a word that is not 16
// hex digits is an error.
func (h *RowHashes) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("training_row_hashes: want one string of hashes separated by spaces")
	}
	words := strings.Fields(s)
	for i, w := range words {
		if _, err := strconv.ParseUint(w, 16, 64); err != nil || len(w) != 16 {
			return fmt.Errorf("training_row_hashes: word %d, %.20q, is not 16 hex digits", i+1, w)
		}
	}
	*h = words
	return nil
}

// rowHash is the 64-bit FNV-1a hash of a normalised row, each value rounded
// to rowHashSig significant digits, as 16 hex digits.
func rowHash(x []float64) string {
	h := fnv.New64a()
	var buf []byte
	for _, v := range x {
		if v == 0 {
			v = 0 // -0 and +0 are one value
		}
		buf = strconv.AppendFloat(buf[:0], v, 'g', rowHashSig, 64)
		buf = append(buf, ',')
		h.Write(buf)
	}
	return hex16(h.Sum64())
}

// sparseRowHash is rowHash's form for a sparse model (Model.Sparse): the
// hash of the row's non-zero features alone, each written as its number
// (from 1), a colon and its value with rowHashSig significant digits,
// followed by a comma, so that it costs the row's non-zeros, not its
// width, and is the same whether the row was held dense or compressed.
func sparseRowHash(ind []int32, val []float64) string {
	h := fnv.New64a()
	var buf []byte
	for p, k := range ind {
		v := val[p]
		if v == 0 {
			continue
		}
		buf = strconv.AppendInt(buf[:0], int64(k)+1, 10)
		buf = append(buf, ':')
		buf = strconv.AppendFloat(buf, v, 'g', rowHashSig, 64)
		buf = append(buf, ',')
		h.Write(buf)
	}
	return hex16(h.Sum64())
}

// hex16 writes h as 16 hex digits.
func hex16(h uint64) string {
	var out [8]byte
	binary.BigEndian.PutUint64(out[:], h)
	const hexDigits = "0123456789abcdef"
	s := make([]byte, 16)
	for i, b := range out {
		s[2*i], s[2*i+1] = hexDigits[b>>4], hexDigits[b&15]
	}
	return string(s)
}

// trainingRowHashes hashes the rows of the normalised training matrix X:
// by rowHash, or by sparseRowHash for compressed rows (a sparse model).
func trainingRowHashes(X mat.Matrix) RowHashes {
	n, d := X.Dims()
	out := make(RowHashes, n)
	if s, ok := X.(*sparse.CSR); ok {
		for i := range n {
			out[i] = sparseRowHash(s.Row(i))
		}
		return out
	}
	row := make([]float64, d)
	for i := range n {
		mat.Row(row, i, X)
		out[i] = rowHash(row)
	}
	return out
}

// TrainingRowsIn marks the rows of X (raw features, in the model's input
// space: one-hot encoded, not normalised) that are rows the model was
// trained on, by their hash (Model.TrainingRows); nil when the model does
// not record its training rows (written before it did). A row with the
// features of a training row counts whatever its label.
func (m *Model) TrainingRowsIn(X mat.Matrix) []bool {
	if len(m.TrainingRows) == 0 {
		return nil
	}
	known := make(map[string]bool, len(m.TrainingRows))
	for _, h := range m.TrainingRows {
		known[h] = true
	}
	n, d := X.Dims()
	out := make([]bool, n)
	norm := m.Normalizer
	if norm != nil && norm.Dim() != d {
		norm = nil
	}
	if m.Sparse {
		// The non-zeros of each normalised row, in blocks.
		const rows = 1024
		for r0 := 0; r0 < n; r0 += rows {
			r1 := min(r0+rows, n)
			b := normalizedCSR(X, r0, r1, norm)
			for i := r0; i < r1; i++ {
				ind, val := b.Row(i - r0)
				if !hasNaN(val) {
					out[i] = known[sparseRowHash(ind, val)]
				}
			}
		}
		return out
	}
	row := make([]float64, d)
	for i := range n {
		rowTo(X, i, row)
		if norm != nil {
			norm.ApplyRow(row, row)
		}
		if hasNaN(row) {
			continue
		}
		out[i] = known[rowHash(row)]
	}
	return out
}

func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}
