package dataio

import "fmt"

// The schemes that learn data with more than two classes from binary SVMs
// (ReadOptions.Multiclass, Dataset.Multiclass).
const (
	// OneVsOne is LIBSVM's: k(k-1)/2 SVMs, one per pair of classes on the
	// two classes' rows, and a vote.
	OneVsOne = "ovo"
	// OneVsRest is k SVMs, class c (+1) against all the other classes (-1)
	// on every training row, and the class of the largest decision value
	// (LIBSVM's FAQ; scikit-learn's OneVsRestClassifier).
	OneVsRest = "ovr"
)

// Subproblem is one binary problem of multi-class data: class Pos (+1)
// against class Neg (-1), or, when Neg is Rest, against all the other
// classes.
type Subproblem struct{ Pos, Neg int }

// Rest is Subproblem.Neg for "every class but Pos".
const Rest = -1

// Subproblems lists the binary problems of k classes under scheme: for ""
// or OneVsOne the pairs (i, j), i < j, in LIBSVM's order (0,1), (0,2), …,
// (k-2,k-1); for OneVsRest class c against the rest, c = 0, …, k-1.
func Subproblems(k int, scheme string) []Subproblem {
	var out []Subproblem
	if scheme == OneVsRest {
		for c := range k {
			out = append(out, Subproblem{c, Rest})
		}
		return out
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			out = append(out, Subproblem{i, j})
		}
	}
	return out
}

// Subproblems lists the binary problems of multi-class data d under its
// scheme (Multiclass); nil for binary data.
func (d *Dataset) Subproblems() []Subproblem {
	if !d.MultiClass() {
		return nil
	}
	return Subproblems(len(d.ClassLabels), d.Multiclass)
}

// SubLabels names the two sides of subproblem p of the classes labels: a
// pair's two classes, or class Pos and "not Pos" (LabelMap.OneVsRest).
func SubLabels(labels []string, p Subproblem) LabelMap {
	if p.Neg == Rest {
		return LabelMap{Positive: labels[p.Pos], Negative: "not " + labels[p.Pos], OneVsRest: true}
	}
	return LabelMap{Positive: labels[p.Pos], Negative: labels[p.Neg]}
}

// SubName names subproblem p of the classes labels in messages: `classes
// "a" and "b"` or `class "a" against the rest`.
func SubName(labels []string, p Subproblem) string {
	if p.Neg == Rest {
		return fmt.Sprintf("class %q against the rest", labels[p.Pos])
	}
	return fmt.Sprintf("classes %q and %q", labels[p.Pos], labels[p.Neg])
}

// SubRows returns the rows of multi-class data d that subproblem p trains
// on: a pair's (PairRows: class Pos's rows, then Neg's, as LIBSVM orders
// them), or every row in order against the rest.
func (d *Dataset) SubRows(p Subproblem) []int {
	if p.Neg != Rest {
		return d.PairRows(p.Pos, p.Neg)
	}
	rows := make([]int, len(d.Class))
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// Sub returns the binary problem p of multi-class data d (a copy of the rows
// SubRows returns): class Pos is +1, the others -1, and Labels names them
// (SubLabels).
func (d *Dataset) Sub(p Subproblem) *Dataset {
	if p.Neg != Rest {
		return d.Pair(p.Pos, p.Neg)
	}
	s := d.Subset(d.SubRows(p))
	s.Class, s.ClassLabels, s.Multiclass = nil, nil, ""
	s.Y = make([]float64, len(d.Class))
	for i, c := range d.Class {
		s.Y[i] = -1
		if c == p.Pos {
			s.Y[i] = 1
		}
	}
	s.Labels = SubLabels(d.ClassLabels, p)
	return s
}

// Combine returns each row's class (an index into k classes) from the
// decision values of the subproblems of scheme (dec[p][i] is subproblem p's
// f(x_i), in Subproblems' order). One-vs-one votes as LIBSVM does
// (svm_predict_values): f > 0 votes for the pair's first class, otherwise
// for its second, and the most votes win. One-vs-rest takes the class of
// the largest decision value. Either way a tie goes to the class first in
// the label order.
func Combine(dec [][]float64, k int, scheme string) []int {
	sp := Subproblems(k, scheme)
	if len(dec) != len(sp) {
		panic(fmt.Sprintf("dataio: Combine: %d decision rows for the %d subproblems of %d classes (%s)", len(dec), len(sp), k, schemeName(scheme)))
	}
	n := 0
	if len(dec) > 0 {
		n = len(dec[0])
	}
	out := make([]int, n)
	if scheme == OneVsRest {
		for i := range out {
			best := 0
			for c := 1; c < k; c++ {
				if dec[c][i] > dec[best][i] {
					best = c
				}
			}
			out[i] = best
		}
		return out
	}
	votes := make([]int, k)
	for i := range out {
		clear(votes)
		for p, ij := range sp {
			if dec[p][i] > 0 {
				votes[ij.Pos]++
			} else {
				votes[ij.Neg]++
			}
		}
		best := 0
		for c := 1; c < k; c++ {
			if votes[c] > votes[best] {
				best = c
			}
		}
		out[i] = best
	}
	return out
}

// schemeName is scheme with "" read as OneVsOne.
func schemeName(scheme string) string {
	if scheme == "" {
		return OneVsOne
	}
	return scheme
}
