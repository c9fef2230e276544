package dataio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// TextLike returns n rows of text-like sparse data over a vocabulary of d
// words, about nnz distinct words a row, held in compressed rows (Sparse):
// the shape of LIBSVM's rcv1 (47,236 words, about 75 a row) or news20
// (1,355,191 words) for tests and benchmarks at sizes and widths no file
// here has.
//
// A document's length in distinct words is nnz·exp(0.5·z - 0.125), z ~
// N(0, 1), at least 3 and at most d. Each token is, with probability 0.7, a
// word of the whole vocabulary by Zipf's law (rank k has probability ∝
// (k+2)^-1.1, the ranks a random permutation of the words), else a word of
// its class's topic (one of 2% of the words of ranks 20–20% of d, drawn
// uniformly, separate for each class); 3% of the labels are flipped. The
// weights are tf-idf, (1 + ln tf)·ln(n/df), and each row has unit length,
// as rcv1's. About half the rows are +1. d < 2, nnz < 1 or n < 0 panics.
func TextLike(n, d, nnz int, rng *rand.Rand) *Dataset {
	if n < 0 || d < 2 || nnz < 1 {
		panic(fmt.Sprintf("dataio: TextLike: n = %d, d = %d, nnz = %d", n, d, nnz))
	}
	perm := rng.Perm(d)
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(d-1))
	lo, hi := min(20, d-1), max(min(20, d-1)+1, d/5)
	topicSize := max(1, (hi-lo)/50)
	var topics [2][]int
	for c := range topics {
		topics[c] = make([]int, topicSize)
		for k := range topics[c] {
			topics[c][k] = perm[lo+rng.IntN(hi-lo)]
		}
	}
	y := make([]float64, n)
	ptr := make([]int, n+1)
	var (
		ind []int32
		val []float64
	)
	tf := map[int32]int{}
	for i := range n {
		c := rng.IntN(2)
		want := int(math.Round(float64(nnz) * math.Exp(0.5*rng.NormFloat64()-0.125)))
		want = min(max(want, 3), d)
		clear(tf)
		for tokens := 0; len(tf) < want && tokens < 50*want; tokens++ {
			var w int
			if rng.Float64() < 0.7 {
				w = perm[zipf.Uint64()]
			} else {
				w = topics[c][rng.IntN(topicSize)]
			}
			tf[int32(w)]++
		}
		start := len(ind)
		for w, k := range tf {
			ind = append(ind, w)
			val = append(val, 1+math.Log(float64(k)))
		}
		row := ind[start:]
		order := make([]int, len(row))
		for k := range order {
			order[k] = k
		}
		slices.SortFunc(order, func(a, b int) int { return int(row[a]) - int(row[b]) })
		ri := append([]int32(nil), row...)
		rv := append([]float64(nil), val[start:]...)
		for k, o := range order {
			ind[start+k], val[start+k] = ri[o], rv[o]
		}
		ptr[i+1] = len(ind)
		if rng.Float64() < 0.03 {
			c = 1 - c
		}
		y[i] = float64(2*c - 1)
	}
	df := make([]int, d)
	for _, w := range ind {
		df[w]++
	}
	for i := range n {
		var s float64
		for p := ptr[i]; p < ptr[i+1]; p++ {
			val[p] *= math.Log(float64(n) / float64(df[ind[p]]))
			s += val[p] * val[p]
		}
		if s > 0 {
			s = 1 / math.Sqrt(s)
		}
		for p := ptr[i]; p < ptr[i+1]; p++ {
			val[p] *= s
		}
	}
	// A word in every row has idf 0: drop the explicit zeros it leaves.
	out := 0
	for i := range n {
		a, b := ptr[i], ptr[i+1]
		ptr[i] = out
		for p := a; p < b; p++ {
			if val[p] != 0 {
				ind[out], val[out] = ind[p], val[p]
				out++
			}
		}
	}
	ptr[n] = out
	X, err := sparse.New(n, d, ptr, ind[:out:out], val[:out:out])
	if err != nil {
		panic(err) // the construction above keeps each row ascending
	}
	names := make([]string, d)
	for j := range names {
		names[j] = "w" + strconv.Itoa(j+1)
	}
	return &Dataset{
		Name: "text", Source: fmt.Sprintf("generated:text n=%d d=%d nnz=%d", n, d, nnz), Format: "generated",
		Sparse: X, Y: y, FeatureNames: names, Labels: LabelMap{Positive: "1", Negative: "-1"},
		Notes: hint.Texts([]string{fmt.Sprintf("text-like: %d words by Zipf's law, about %d a row, a topic per class, tf-idf rows of unit length", d, nnz)}),
	}
}
