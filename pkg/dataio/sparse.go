package dataio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// sparseGroups are the sizes of the one-hot groups of LIBSVM's a1a…a9a (UCI
// Adult: 14 attributes, the continuous ones binned, 123 binary features), as
// read off testdata/libsvm/a1a (features that never occur together in a row).
var sparseGroups = []int{5, 8, 5, 16, 5, 7, 14, 6, 5, 2, 2, 2, 5, 41}

// SparseFeatures is the number of features of SparseBinary: 123, as a1a.
const SparseFeatures = 123

// SparseBinary returns n rows of an a1a-like problem for benchmarks at sizes
// the a1a file (1,605 rows) does not reach: 123 binary features in the 14
// one-hot groups of UCI Adult as LIBSVM encodes it, so a row has one 1 per
// group (a group is missing, all zeros, with probability 0.04: 12–14 ones per
// row, as in a1a), and about a quarter of the rows are +1 (a1a: 24.6%).
//
// Each class is a mixture of three components; a component draws each
// group's category from softmax(b_g + 0.7·z), b_g ~ N(0, 1) shared by all
// components (the population's category frequencies), z ~ N(0, 1) its own.
// The classes overlap (the svm baseline reaches ≈ 83% CV accuracy
// on 1,000 rows, like Adult; 74% are -1) and the mixture makes the boundary nonlinear.
// The components are drawn from rng first, then the rows; n < 0 panics.
func SparseBinary(n int, rng *rand.Rand) *Dataset {
	if n < 0 {
		panic(fmt.Sprintf("dataio: SparseBinary: n = %d", n))
	}
	const (
		comps    = 3
		spread   = 0.7
		pMissing = 0.04
		pPos     = 0.25
	)
	// base[g][k]: shared logits; cum[class][comp][g]: cumulative category
	// probabilities of each component.
	base := make([][]float64, len(sparseGroups))
	for g, size := range sparseGroups {
		base[g] = make([]float64, size)
		for k := range base[g] {
			base[g][k] = rng.NormFloat64()
		}
	}
	var cum [2][comps][][]float64
	for c := range cum {
		for m := range cum[c] {
			cum[c][m] = make([][]float64, len(sparseGroups))
			for g, size := range sparseGroups {
				w := make([]float64, size)
				s := 0.0
				for k := range w {
					w[k] = math.Exp(base[g][k] + spread*rng.NormFloat64())
					s += w[k]
				}
				acc := 0.0
				for k := range w {
					acc += w[k] / s
					w[k] = acc
				}
				w[size-1] = 1
				cum[c][m][g] = w
			}
		}
	}
	const d = SparseFeatures
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		c := 0
		y[i] = -1
		if rng.Float64() < pPos {
			c, y[i] = 1, 1
		}
		comp := cum[c][rng.IntN(comps)]
		row := x[i*d : (i+1)*d]
		off := 0
		for g, size := range sparseGroups {
			if rng.Float64() >= pMissing {
				u := rng.Float64()
				k := 0
				for k < size-1 && u >= comp[g][k] {
					k++
				}
				row[off+k] = 1
			}
			off += size
		}
	}
	names := make([]string, d)
	for j := range names {
		names[j] = "x" + strconv.Itoa(j+1)
	}
	X := &mat.Dense{}
	if n > 0 {
		X = mat.NewDense(n, d, x)
	}
	return &Dataset{
		Name: "sparse", Source: fmt.Sprintf("generated:sparse n=%d", n), Format: "generated",
		X: X, Y: y, FeatureNames: names, Labels: LabelMap{Positive: "1", Negative: "-1"},
		Notes: hint.Texts([]string{"a1a-like: 123 binary features in UCI Adult's 14 one-hot groups, a 3-component mixture per class, about 25% +1"}),
	}
}
