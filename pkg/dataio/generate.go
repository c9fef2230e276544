package dataio

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// The toy data sets of Generate.
const (
	GenWeston     = "weston"     // Weston et al. 2000 (Weston)
	GenChessboard = "chessboard" // Glasmachers & Igel 2005 (Chessboard)
	GenSparse     = "sparse"     // a1a-like (SparseBinary)
	GenBlobs      = "blobs"      // k Gaussian classes (Blobs), multi-class
	GenText       = "text"       // rcv1-shaped tf-idf rows (TextLike), sparse
)

// The defaults of GenText: rcv1's vocabulary, about 60 words a row.
const (
	TextFeatures = 47236
	TextNonZeros = 60
)

// GenerateStream is the PCG stream Generate draws from: the data depend only
// on the settings and the seed.
const GenerateStream uint64 = 0x67656e6572617465 // "generate"

// MaxGenerateValues bounds N × (features + 1) in Generate: the data are drawn
// in memory (10⁸ values are 800 MB), and a larger set would end in the
// runtime's out-of-memory crash rather than an error.
const MaxGenerateValues = 100_000_000

// GenerateSettings choose a toy data set and its size.
type GenerateSettings struct {
	// Kind is GenWeston, GenChessboard or GenSparse.
	Kind string
	// N is the number of rows, at least 1.
	N int
	// NoiseStd is the standard deviation of Weston's 50 noise features, ≥ 0
	// (0: none; the paper's is 20).
	NoiseStd float64
	// Dim is the chessboard's dimension, 2 to 1000; 0 means 2.
	Dim int
	// Stretch is the chessboard's s in B̃ = Dᵀdiag(s, 1/s, 1, …)D, finite
	// and > 0; 0 means 3.
	Stretch float64
	// Classes is the blobs' number of classes, 2 to 100; 0 means 4. Dim
	// is their dimension too (0 means 4), and text's vocabulary (0 means
	// TextFeatures).
	Classes int
	// NonZeros is text's average number of distinct words a row (0 means
	// TextNonZeros), at least 1 and at most Dim.
	NonZeros int
	// Seed seeds the stream (Seed, GenerateStream).
	Seed uint64
	// TestN, if positive, draws that many test rows from the same
	// distribution into Generated.Test: the rows after the first N of one
	// draw of N+TestN, so the N rows are those drawn without it. (Another
	// Seed draws another distribution, not another sample of this one.)
	TestN int
}

// Generated is a toy data set drawn by Generate.
type Generated struct {
	// Data are the rows, labelled ±1.
	Data *Dataset
	// Transform is the chessboard's B̃ (x = B̃x̃), nil for the others.
	Transform *mat.Dense
	// Test are the TestN test rows, nil without them.
	Test *Dataset
}

// Features returns the number of features of the data set s asks for, and
// an error for an unknown Kind.
func (s GenerateSettings) Features() (int, error) {
	switch s.Kind {
	case GenWeston:
		return WestonFeatures, nil
	case GenChessboard:
		return orDefault(s.Dim, 2), nil
	case GenSparse:
		return SparseFeatures, nil
	case GenBlobs:
		return orDefault(s.Dim, 4), nil
	case GenText:
		return orDefault(s.Dim, TextFeatures), nil
	}
	return 0, fmt.Errorf("generate: unknown data set %q (want weston, chessboard, sparse, blobs or text)", s.Kind)
}

// MaxRows is the most rows Generate draws of s (its features d): N ×
// (d + 1) values at most MaxGenerateValues, of text data (held sparse)
// N × (NonZeros + 1).
func (s GenerateSettings) MaxRows(d int) int {
	if s.Kind == GenText {
		return MaxGenerateValues / (orDefault(s.NonZeros, TextNonZeros) + 1)
	}
	return MaxGenerateValues / (d + 1)
}

// orDefault returns v, or def when v is 0.
func orDefault[T int | float64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Generate draws the toy data set s asks for (Weston, Chessboard or
// SparseBinary) from the stream (s.Seed, GenerateStream).
func Generate(ctx context.Context, s GenerateSettings) (*Generated, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := s.Features()
	if err != nil {
		return nil, err
	}
	dim, stretch := orDefault(s.Dim, 2), orDefault(s.Stretch, 3)
	maxRows := s.MaxRows(d)
	switch {
	case s.N < 1 || s.N > maxRows:
		return nil, fmt.Errorf("generate: %d rows of %d features: want 1 to %d rows", s.N, d, maxRows)
	case s.Kind == GenText && (d < 2 || d > maxLIBSVMIndex || orDefault(s.NonZeros, TextNonZeros) < 1 || orDefault(s.NonZeros, TextNonZeros) > d):
		return nil, fmt.Errorf("generate: text of %d words, %d a row: want 2 to %d words and 1 to all of them a row", d, orDefault(s.NonZeros, TextNonZeros), maxLIBSVMIndex)
	case s.Kind == GenWeston && (!(s.NoiseStd >= 0) || math.IsInf(s.NoiseStd, 0)):
		return nil, fmt.Errorf("generate: noise std %v is not a finite number ≥ 0", s.NoiseStd)
	case s.Kind == GenChessboard && (dim < 2 || dim > 1000 || !(stretch > 0) || math.IsInf(stretch, 0)):
		return nil, fmt.Errorf("generate: chessboard dimension %d and stretch %v: want 2 to 1000 and a finite number > 0", dim, stretch)
	case s.Kind == GenBlobs && (d < 1 || d > 1000 || orDefault(s.Classes, 4) < 2 || orDefault(s.Classes, 4) > 100 || s.N < orDefault(s.Classes, 4)):
		return nil, fmt.Errorf("generate: blobs of %d classes in %d dimensions, %d rows: want 2 to 100 classes, 1 to 1000 dimensions and a row per class at least", orDefault(s.Classes, 4), d, s.N)
	}
	if s.TestN < 0 || s.TestN > maxRows-s.N {
		return nil, fmt.Errorf("generate: %d rows and %d test rows of %d features: want at most %d in all", s.N, s.TestN, d, maxRows)
	}
	if s.TestN > 0 {
		all := s
		all.N, all.TestN = s.N+s.TestN, 0
		g, err := Generate(ctx, all)
		if err != nil {
			return nil, err
		}
		idx := make([]int, all.N)
		for i := range idx {
			idx[i] = i
		}
		g.Data, g.Test = g.Data.Subset(idx[:s.N]), g.Data.Subset(idx[s.N:])
		return g, nil
	}
	rng := rand.New(rand.NewPCG(s.Seed, GenerateStream))
	g := &Generated{}
	switch s.Kind {
	case GenWeston:
		g.Data = Weston(s.N, s.NoiseStd, rng)
	case GenChessboard:
		g.Data, g.Transform = Chessboard(s.N, dim, stretch, rng)
	case GenBlobs:
		g.Data = Blobs(s.N, orDefault(s.Classes, 4), d, rng)
	case GenText:
		g.Data = TextLike(s.N, d, orDefault(s.NonZeros, TextNonZeros), rng)
	default:
		g.Data = SparseBinary(s.N, rng)
	}
	return g, nil
}

// WriteMatrix writes m to w as ReadMatrix reads it: one row per line,
// numbers separated by spaces in full precision.
func WriteMatrix(w io.Writer, m mat.Matrix) error {
	var b strings.Builder
	r, c := m.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(m.At(i, j), 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Write writes d to w in format "csv" (WriteCSV) or "libsvm" (WriteLIBSVM).
func Write(w io.Writer, format string, d *Dataset) error {
	switch format {
	case "csv":
		return WriteCSV(w, d)
	case "libsvm":
		return WriteLIBSVM(w, d)
	}
	return fmt.Errorf("write data: unknown format %q (want csv or libsvm)", format)
}
