package methods

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// subSym returns the symmetric matrix f(A[idx, idx]).
func subSym(A mat.Symmetric, idx []int, f func(float64) float64) *mat.SymDense {
	m := len(idx)
	out := mat.NewSymDense(m, nil)
	raw := out.RawSymmetric()
	for a, i := range idx {
		row := raw.Data[a*raw.Stride:]
		for b := a; b < m; b++ {
			v := A.At(i, idx[b])
			if f != nil {
				v = f(v)
			}
			row[b] = v
		}
	}
	return out
}

// subCross returns the matrix f(A[rows, cols]).
func subCross(A mat.Matrix, rows, cols []int, f func(float64) float64) *mat.Dense {
	out := mat.NewDense(len(rows), len(cols), nil)
	for a, i := range rows {
		row := out.RawRowView(a)
		for b, j := range cols {
			v := A.At(i, j)
			if f != nil {
				v = f(v)
			}
			row[b] = v
		}
	}
	return out
}

func pick(y []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for k, i := range idx {
		out[k] = y[i]
	}
	return out
}

// countPositive returns the number of labels y_i > 0.
func countPositive(y []float64) int {
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	return pos
}

// pickInt returns v[idx].
func pickInt(v []int, idx []int) []int {
	out := make([]int, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

// stratifiedSubsetOf is stratifiedSubset for a data set: for multi-class
// data, each class's share kept by dataio.Partitions' stratification (the
// same seed and stream).
func stratifiedSubsetOf(train *dataio.Dataset, m int, seed uint64) []int {
	if !train.MultiClass() {
		return stratifiedSubset(train.Y, m, seed)
	}
	sp, err := dataio.Partitions(train.Strata(), dataio.PartitionOptions{TrainSize: m, TestSize: train.Len() - m, Stratified: true}, seed^gridSubsetStream)
	if err != nil {
		return stratifiedSubset(train.Strata(), m, seed) // unreachable: m < n
	}
	return sp[0].Train
}

// classRows returns the rows labelled positive and the others, ascending.
func classRows(y []float64) (pos, neg []int) {
	for i, v := range y {
		if v > 0 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	return pos, neg
}

// stratifiedSubset returns m of the rows labelled y (m < len(y)), drawn at
// random from seed (stream gridSubsetStream) with each class's share kept
// (largest remainders round; every class keeps a row when m allows),
// ascending.
func stratifiedSubset(y []float64, m int, seed uint64) []int {
	pos, neg := classRows(y)
	np := int(math.Round(float64(m) * float64(len(pos)) / float64(len(y))))
	np = min(max(np, min(1, len(pos)), m-len(neg)), len(pos), m-min(1, len(neg)))
	rng := rand.New(rand.NewPCG(seed, gridSubsetStream))
	out := make([]int, 0, m)
	for _, part := range []struct {
		rows []int
		k    int
	}{{pos, np}, {neg, m - np}} {
		p := rng.Perm(len(part.rows))
		for _, i := range p[:part.k] {
			out = append(out, part.rows[i])
		}
	}
	slices.Sort(out)
	return out
}

// moderateGamma returns the LIBSVM γ at which the median off-diagonal value
// of exp(-γ D) is e⁻², D a matrix of squared distances: γ = 2 / median(D_ij),
// i < j. It returns 1 when all points coincide.
func moderateGamma(D mat.Symmetric) float64 {
	return gammaOfMedian(medianOffDiag(D))
}

// gammaOfMedian is moderateGamma of the squared distances whose median
// off the diagonal is med.
func gammaOfMedian(med float64) float64 {
	if !(med > 0) || math.IsInf(med, 0) {
		return 1
	}
	return 2 / med
}

// medianOffDiag returns the median of A_ij over i < j.
func medianOffDiag(A mat.Symmetric) float64 { return kernel.MedianOffDiag(A) }

// median returns the median of v (the mean of the two middle values when
// len(v) is even), reordering v; NaN for an empty v.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}
