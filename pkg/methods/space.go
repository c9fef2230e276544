package methods

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

// The search space is the user's (issue 35): a grid of log2 C and of log2 γ
// as LIBSVM's grid.py takes them (-log2c begin,end,step), for svm and
// halving; the box between begin and end for random and bo; and class
// weights on C for the searches whose criterion is the CV accuracy of
// C-SVMs (svm, halving, random, bo).

// Log2Grid is a grid of log2 values as LIBSVM grid.py's -log2c and -log2g
// take it: Begin, Begin+Step, Begin+2·Step, ... as far as End, End
// included when a step reaches it; Step may be negative (3,-15,-2 gives
// 3, 1, ..., -15). The zero value (Step 0) is no grid: the method's
// default. It is a flag value (Set, String, Type), so that a command line,
// a study file and a Go program give it the same way.
type Log2Grid struct {
	Begin, End, Step float64
}

// MaxGridPoints bounds the values of one Log2Grid: grid.py's default has 11
// and 10, and a grid of 1,000 × 1,000 points is already a million CV runs.
const MaxGridPoints = 1_000

// maxLog2 bounds |begin| and |end|: 2^1024 overflows a float64.
const maxLog2 = 1_000

// IsSet reports whether g is a grid (not the zero value).
func (g Log2Grid) IsSet() bool { return g.Step != 0 }

// String returns "begin,end,step" ("" for the zero value), the form Set
// reads; the run's settings and fingerprint record it so.
func (g Log2Grid) String() string {
	if !g.IsSet() {
		return ""
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return f(g.Begin) + "," + f(g.End) + "," + f(g.Step)
}

// Type is the flag's kind ("string": a study file gives it as a string or
// a list).
func (*Log2Grid) Type() string { return "string" }

// Set reads "begin,end,step" (grid.py's form; a YAML list's items joined
// by commas) or "begin,end", whose step is grid.py's 2 towards end. It
// refuses a step of 0, a step that leads away from end, a value that is no
// finite number or beyond ±1000, and more than MaxGridPoints values.
func (g *Log2Grid) Set(s string) error {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return fmt.Errorf("want begin,end,step (grid.py's -log2c form, e.g. -5,15,2 or 3,-15,-2), got %q", s)
	}
	v := make([]float64, len(parts))
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%q is not a number (want begin,end,step, e.g. -5,15,2)", strings.TrimSpace(p))
		}
		v[i] = x
	}
	ng := Log2Grid{Begin: v[0], End: v[1], Step: 2}
	if v[1] < v[0] {
		ng.Step = -2
	}
	if len(v) == 3 {
		ng.Step = v[2]
	}
	switch {
	case math.Abs(ng.Begin) > maxLog2 || math.Abs(ng.End) > maxLog2:
		return fmt.Errorf("begin and end must be within ±%d (log2 values), got %s", maxLog2, s)
	case ng.Step == 0:
		return fmt.Errorf("step 0 never reaches the end (want a step towards end, e.g. -5,15,2 or 3,-15,-2), got %s", s)
	case ng.End > ng.Begin && ng.Step < 0, ng.End < ng.Begin && ng.Step > 0:
		return fmt.Errorf("step %g leads away from end %g (begin %g): give it the sign of end - begin", ng.Step, ng.End, ng.Begin)
	}
	if n := ng.count(); n > MaxGridPoints {
		return fmt.Errorf("%s has %d values, more than %d: give a larger step", s, n, MaxGridPoints)
	}
	*g = ng
	return nil
}

// count is the number of values of a grid that Set accepted.
func (g Log2Grid) count() int {
	span := (g.End - g.Begin) / g.Step // ≥ 0
	if span > 2*MaxGridPoints {
		return 2 * MaxGridPoints
	}
	return int(math.Floor(span+1e-9)) + 1
}

// Points returns the grid's values, Begin first (grid.py's range_f:
// begin, begin+step, ... while not past end), or def for the zero value.
func (g Log2Grid) Points(def []float64) []float64 {
	if !g.IsSet() {
		return def
	}
	out := make([]float64, g.count())
	for i := range out {
		out[i] = g.Begin + float64(i)*g.Step
	}
	return out
}

// Bounds returns the box [lo, hi] between Begin and End, or [defLo, defHi]
// for the zero value: the domain random and bo search.
func (g Log2Grid) Bounds(defLo, defHi float64) (lo, hi float64) {
	if !g.IsSet() {
		return defLo, defHi
	}
	return min(g.Begin, g.End), max(g.Begin, g.End)
}

// Space is a search's domain: the user's log2 C and log2 γ grids (svm and
// halving search their points; random and bo the box between begin and
// end), each the zero value for grid.py's default.
type Space struct {
	Log2C, Log2Gamma Log2Grid
}

// check refuses a log2 C grid with a fixed C (one of them is ignored).
func (sp Space) check(method string, c float64) error {
	if g := sp.Log2C; g.IsSet() && !(Log2CRange.Contains(g.Begin) && Log2CRange.Contains(g.End)) {
		return &OptionError{Method: method, Option: "log2c", Value: g.String(), Want: hint.T("a begin and an end each " + Log2CRange.Want())}
	}
	if sp.Log2C.IsSet() && c > 0 {
		return &OptionError{Method: method, Option: "log2c", Value: sp.Log2C.String(), Want: hint.T("no C grid when C is fixed (", hint.S("C", ""), "): give one of them")}
	}
	return nil
}

// log2Cs and log2Gammas are the grid's values (grid.py's by default).
func (sp Space) log2Cs() []float64     { return sp.Log2C.Points(gridLog2C) }
func (sp Space) log2Gammas() []float64 { return sp.Log2Gamma.Points(gridLog2Gamma) }

// box returns the domain of random and bo: grid.py's box, or the user's.
func (sp Space) box() (cLo, cHi, gLo, gHi float64) {
	cLo, cHi = sp.Log2C.Bounds(boxLog2CMin, boxLog2CMax)
	gLo, gHi = sp.Log2Gamma.Bounds(boxLog2GammaMin, boxLog2GammaMax)
	return cLo, cHi, gLo, gHi
}

// describe words the grid for an Init: grid.py's, or the user's.
func (sp Space) describe() string {
	if !sp.Log2C.IsSet() && !sp.Log2Gamma.IsSet() {
		return "LIBSVM grid.py's grid (log2 C = -5..15, log2 gamma = 3..-15, step 2)"
	}
	f := func(g Log2Grid, def string) string {
		if !g.IsSet() {
			return def
		}
		return fmt.Sprintf("%g..%g step %g", g.Begin, g.End, g.Step)
	}
	return fmt.Sprintf("the user's grid (log2 C = %s, log2 gamma = %s)", f(sp.Log2C, "-5..15 step 2"), f(sp.Log2Gamma, "3..-15 step -2"))
}

// describeBox words the box of random and bo for an Init.
func (sp Space) describeBox() string {
	cLo, cHi, gLo, gHi := sp.box()
	what := "grid.py's box"
	if sp.Log2C.IsSet() || sp.Log2Gamma.IsSet() {
		what = "the user's box"
	}
	return fmt.Sprintf("[%g, %g] × [%g, %g] (%s)", cLo, cHi, gLo, gHi, what)
}

// ClassBalanced is Common.ClassWeight's one value: scikit-learn's
// class_weight="balanced".
const ClassBalanced = "balanced"

// checkWeights refuses class weights that are not positive, and weights
// for a method whose criterion does not use them (honours false).
func (c Common) checkWeights(method string, honours bool) error {
	for _, w := range []struct {
		name string
		v    float64
	}{{"weight-pos", c.WeightPos}, {"weight-neg", c.WeightNeg}} {
		if err := WeightRange.check(method, w.name, w.v, "0 for the default 1"); err != nil {
			return err
		}
	}
	if err := checkChoice(method, "class-weight", c.ClassWeight, []string{ClassBalanced}, "n / (classes · rows of the class), scikit-learn's"); err != nil {
		return err
	}
	if c.ClassWeight != "" && (c.WeightPos != 0 || c.WeightNeg != 0) {
		return &OptionError{Method: method, Option: "class-weight", Value: strconv.Quote(c.ClassWeight),
			Want: hint.T("either balanced or ", hint.S("weight-pos", ""), "/", hint.S("weight-neg", ""), ", not both")}
	}
	if !honours && c.weighted() {
		opt, v := "class-weight", c.ClassWeight
		if v == "" {
			opt, v = "weight-pos", strconv.FormatFloat(c.WeightPos, 'g', -1, 64)
			if c.WeightPos == 0 {
				opt, v = "weight-neg", strconv.FormatFloat(c.WeightNeg, 'g', -1, 64)
			}
		}
		return &OptionError{Method: method, Option: opt, Value: v,
			Want: hint.T("no class weights: " + method + "'s criterion has no per-class C; svm, halving, random and bo honour them")}
	}
	return nil
}

// weighted reports whether c asks for class weights other than 1.
func (c Common) weighted() bool {
	return c.ClassWeight != "" || c.WeightPos != 0 && c.WeightPos != 1 || c.WeightNeg != 0 && c.WeightNeg != 1
}

// SubproblemWeights returns the multipliers of C (for the +1 side, for the
// -1 side) of every binary SVM of a model of train under c's class weights,
// in the order of train.Subproblems() (one for binary data), or nil without
// weights. --weight-pos and --weight-neg apply to binary data only (an
// error otherwise). Balanced weights are scikit-learn's n / (k · n_c) from
// train's class counts: for binary data and one-vs-one, each class's weight
// (LIBSVM's -wi per label, a pair (i, j) with C·w_i and C·w_j); one-vs-rest,
// each class-against-the-rest SVM balanced as a binary problem,
// n / (2 n_c) and n / (2 (n - n_c)) (scikit-learn's OneVsRestClassifier
// of SVC(class_weight="balanced")).
func SubproblemWeights(c Common, train *dataio.Dataset) ([][2]float64, error) {
	return cvSetOf(train).weights(c)
}

// weights is SubproblemWeights on the rows of cs: the cross-validated
// searches weigh every fold's solves by the weights of the rows they
// cross-validate on (all of them, or the subset of large data), fixed per
// class as LIBSVM's -wi are, not recomputed per fold.
func (cs cvSet) weights(c Common) ([][2]float64, error) {
	if !c.weighted() {
		return nil, nil
	}
	one := func(v float64) float64 {
		if v == 0 {
			return 1
		}
		return v
	}
	ratio := func(n, nc int) float64 { return float64(n) / float64(max(nc, 1)) }
	if cs.class == nil {
		if c.ClassWeight == "" {
			return [][2]float64{{one(c.WeightPos), one(c.WeightNeg)}}, nil
		}
		n, pos := len(cs.y), countPositive(cs.y)
		return [][2]float64{{ratio(n, 2*pos), ratio(n, 2*(n-pos))}}, nil
	}
	if c.ClassWeight == "" {
		return nil, hint.Errorf(nil, "class weights ", hint.S("weight-pos", ""), " and ", hint.S("weight-neg", ""), fmt.Sprintf(" are for two classes; this data has %d (give ", cs.k), hint.S("class-weight", "balanced"), ")")
	}
	sizes := make([]int, cs.k)
	for _, v := range cs.class {
		sizes[v]++
	}
	n := len(cs.class)
	var out [][2]float64
	for _, sp := range dataio.Subproblems(cs.k, cs.scheme) {
		if sp.Neg == dataio.Rest {
			out = append(out, [2]float64{ratio(n, 2*sizes[sp.Pos]), ratio(n, 2*(n-sizes[sp.Pos]))})
			continue
		}
		out = append(out, [2]float64{ratio(n, cs.k*sizes[sp.Pos]), ratio(n, cs.k*sizes[sp.Neg])})
	}
	return out, nil
}

// refine returns the refinement's values around the log2 value l of the
// grid's choice (gridProposer): l and l ± h, h half the step (def
// without a user grid), as 2^v, ascending or descending; a user's grid
// keeps them within [begin, end].
func (g Log2Grid) refine(l, def float64, ascending bool) []float64 {
	h := def
	if g.IsSet() {
		h = math.Abs(g.Step) / 2
	}
	vs := []float64{l - h, l, l + h}
	if !ascending {
		vs = []float64{l + h, l, l - h}
	}
	lo, hi := g.Bounds(math.Inf(-1), math.Inf(1))
	out := make([]float64, 0, 3)
	for _, v := range vs {
		if v >= lo-1e-9 && v <= hi+1e-9 {
			out = append(out, math.Exp2(v))
		}
	}
	return out
}

// weightsNote says in an Init which class weights every solve used, ""
// without any.
func weightsNote(c Common) string {
	switch {
	case c.ClassWeight != "":
		return "; class weights " + c.ClassWeight + " (n / (classes · rows of the class), on the rows cross-validated)"
	case c.weighted():
		one := func(v float64) float64 {
			if v == 0 {
				return 1
			}
			return v
		}
		return fmt.Sprintf("; class weights: C × %g for +1, C × %g for -1", one(c.WeightPos), one(c.WeightNeg))
	}
	return ""
}

// over returns own with sp's grids where sp sets them: a grid sp leaves
// zero keeps own's (Loop.Space).
func (sp Space) over(own Space) Space {
	if sp.Log2C.IsSet() {
		own.Log2C = sp.Log2C
	}
	if sp.Log2Gamma.IsSet() {
		own.Log2Gamma = sp.Log2Gamma
	}
	return own
}

// isDefault reports whether g resolves to the default of log2 C (gamma
// false) or log2 γ: grid.py's points in their order, and so its box.
func isDefault(g Log2Grid, gamma bool) bool {
	def, lo, hi := gridLog2C, boxLog2CMin, boxLog2CMax
	if gamma {
		def, lo, hi = gridLog2Gamma, boxLog2GammaMin, boxLog2GammaMax
	}
	l, h := g.Bounds(lo, hi)
	return slices.Equal(g.Points(def), def) && l == lo && h == hi
}

// DefaultGrid reports whether value, a grid as --log2c (gamma false) or
// --log2g reads it ("begin,end,step"), is what the default resolves to
// (issue 42, item 16): report's merge takes the settings of a run that
// spelled it out as those of a run without it.
func DefaultGrid(value string, gamma bool) bool {
	var g Log2Grid
	return g.Set(value) == nil && isDefault(g, gamma)
}
