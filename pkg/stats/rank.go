package stats

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// Float is a float64 that encodes NaN and ±Inf as JSON null (encoding/json
// refuses them), e.g. F_F when every dataset ranks the methods alike.
type Float float64

// MarshalJSON writes the number, or null when it is not finite.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number or null (NaN).
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Ranks ranks the methods within each dataset: scores[i][j] is the score of
// method j on dataset i (higher is better, e.g. mean accuracy), and the
// result's [i][j] is its rank, 1 for the best; tied scores share the mean of
// the ranks they span (Demšar 2006, §3.2.2). Scores are compared exactly:
// round them first if near-equal scores should tie. It panics if the rows
// differ in length.
func Ranks(scores [][]float64) [][]float64 {
	out := make([][]float64, len(scores))
	for i, row := range scores {
		if len(row) != len(scores[0]) {
			panic("stats: Ranks: rows of different lengths")
		}
		idx := make([]int, len(row))
		for j := range idx {
			idx[j] = j
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case row[a] > row[b]:
				return -1
			case row[a] < row[b]:
				return 1
			}
			return 0
		})
		r := make([]float64, len(row))
		for s := 0; s < len(idx); {
			e := s + 1
			for e < len(idx) && row[idx[e]] == row[idx[s]] {
				e++
			}
			mid := float64(s+e+1) / 2 // mean of the 1-based positions s+1..e
			for _, j := range idx[s:e] {
				r[j] = mid
			}
			s = e
		}
		out[i] = r
	}
	return out
}

// AverageRanks returns the mean rank of each method over the datasets (the
// rows of ranks), R_j = (1/N) Σ_i r_i^j.
func AverageRanks(ranks [][]float64) []float64 {
	if len(ranks) == 0 {
		return nil
	}
	avg := make([]float64, len(ranks[0]))
	for _, row := range ranks {
		for j, r := range row {
			avg[j] += r
		}
	}
	for j := range avg {
		avg[j] /= float64(len(ranks))
	}
	return avg
}

// Friedman is the result of the Friedman test of k methods on N datasets
// and of its Iman–Davenport F correction (Demšar 2006, §3.2.2).
type Friedman struct {
	K int `json:"methods"`
	N int `json:"datasets"`
	// ChiSq is Friedman's statistic as Demšar gives it,
	// χ²_F = 12N/(k(k+1)) [Σ_j R_j² − k(k+1)²/4], with no correction for
	// ties; ChiSqP is P(χ²_{k−1} ≥ χ²_F).
	ChiSq  Float `json:"chi2_f"`
	ChiSqP Float `json:"chi2_p_value"`
	// ChiSqTies is χ²_F divided by the tie correction
	// 1 − Σ(t³−t)/(N k (k²−1)) over the groups of t tied methods within a
	// dataset: the statistic scipy.stats.friedmanchisquare reports. It
	// equals ChiSq when no dataset has ties (NaN when every dataset ties
	// every method). It is reported alongside; F_F and P follow Demšar.
	ChiSqTies Float `json:"chi2_f_tie_corrected"`
	// FF is the Iman–Davenport statistic F_F = (N−1)χ²_F / (N(k−1) − χ²_F),
	// distributed as F with DF1 = k−1 and DF2 = (k−1)(N−1) degrees of
	// freedom; +Inf (JSON null) when every dataset ranks the methods alike.
	FF  Float `json:"f_f"`
	DF1 int   `json:"df1"`
	DF2 int   `json:"df2"`
	// P is P(F(DF1, DF2) ≥ F_F), the p-value of the null hypothesis that
	// all methods are equivalent.
	P Float `json:"p_value"`
}

// FriedmanTest runs the Friedman test on a rank matrix (datasets × methods,
// as Ranks returns). It panics unless there are at least 2 methods and 2
// datasets.
func FriedmanTest(ranks [][]float64) Friedman {
	n := len(ranks)
	if n < 2 || len(ranks[0]) < 2 {
		panic("stats: FriedmanTest: needs at least 2 datasets and 2 methods")
	}
	k := len(ranks[0])
	nf, kf := float64(n), float64(k)
	var sumSq float64
	for _, r := range AverageRanks(ranks) {
		sumSq += r * r
	}
	chi := 12 * nf / (kf * (kf + 1)) * (sumSq - kf*(kf+1)*(kf+1)/4)
	if math.Abs(chi) < 1e-12*nf*kf {
		chi = 0 // all methods tie on average: rounding would make it −1e-15
	}
	var ties float64
	for _, row := range ranks {
		for _, t := range tieGroups(row) {
			ties += t*t*t - t
		}
	}
	corr := 1 - ties/(nf*kf*(kf*kf-1))
	chiTies := math.NaN()
	if corr > 1e-12 {
		chiTies = chi / corr
	}
	df1, df2 := k-1, (k-1)*(n-1)
	ff := math.Inf(1)
	if den := nf*(kf-1) - chi; den > 1e-12*nf*kf {
		ff = (nf - 1) * chi / den
	}
	p := 0.0
	if !math.IsInf(ff, 1) {
		p = distuv.F{D1: float64(df1), D2: float64(df2)}.Survival(ff)
	}
	return Friedman{
		K: k, N: n,
		ChiSq:     Float(chi),
		ChiSqP:    Float(distuv.ChiSquared{K: kf - 1}.Survival(chi)),
		ChiSqTies: Float(chiTies),
		FF:        Float(ff), DF1: df1, DF2: df2,
		P: Float(p),
	}
}

// tieGroups returns the sizes (> 1) of the groups of equal ranks in row.
func tieGroups(row []float64) []float64 {
	s := slices.Clone(row)
	slices.Sort(s)
	var out []float64
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, float64(j-i))
		}
		i = j
	}
	return out
}
