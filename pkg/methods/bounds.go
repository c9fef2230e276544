package methods

import (
	"fmt"
	"strconv"
)

// Range is the interval [Lo, Hi] of a numeric setting within which the
// solver and the methods mean something (issue 42): beyond it a value was
// accepted and answered wrongly with exit 0 (--eps 1e308 "converged" with
// no iteration, -c 1e-320 a subnormal C, --weight-pos 1e308 an infinite C).
// The ranges are the one place such bounds live: Common's and Space's
// checks (tune, compare and a study file's keys, which set compare's
// flags) and train's flags check the same ones, and a refusal words the
// range (Want).
type Range struct {
	Lo, Hi float64
	// Pow2 words the bounds as powers of two (C's, 2^-40 to 2^40).
	Pow2 bool
	// Why says what lies beyond the bounds.
	Why string
}

// The ranges of the numeric settings.
var (
	// CRange bounds C (--C, -c): LIBSVM's grid.py searches 2^-5 to 2^15.
	// Below 2^-40 every α is too small to move the gradient's digits
	// (1e-320 is subnormal); above 2^40 the gradient Σ Q_ij α_j holds
	// terms of 2^40 whose rounding exceeds any tolerance.
	CRange = Range{Lo: 0x1p-40, Hi: 0x1p40, Pow2: true,
		Why: "beyond it the solver has no digits to tell the α apart (LIBSVM's grid.py searches 2^-5 to 2^15)"}
	// Log2CRange bounds a log2 C grid's begin and end (--log2c): CRange's
	// exponents.
	Log2CRange = Range{Lo: -40, Hi: 40, Why: "log2 C, as C is bounded to 2^-40 … 2^40"}
	// EpsRange bounds the solver's stopping tolerance on the maximal KKT
	// violation (--eps): the violation at α = 0 is 2, so a tolerance from
	// 2 up stops before the first step, and one below 1e-15 is under
	// float64's rounding of a gradient of order 1.
	EpsRange = Range{Lo: 1e-15, Hi: 1,
		Why: "the KKT violation at the start is 2, and float64 rounds the gradient at about 1e-16 (LIBSVM's default is 1e-3)"}
	// WeightRange bounds a class's multiplier of C (--weight-pos,
	// --weight-neg): 2^20 already weighs one row of a class as a million
	// of the other's.
	WeightRange = Range{Lo: 0x1p-20, Hi: 0x1p20, Pow2: true,
		Why: "a multiplier of C for one class; 2^20 already weighs one row as a million of the other class's"}
)

// Contains reports whether v lies in [Lo, Hi] (false for NaN).
func (r Range) Contains(v float64) bool { return v >= r.Lo && v <= r.Hi }

// Want words the range: "a number from 2^-40 (9.095e-13) to 2^40
// (1.1e+12): why".
func (r Range) Want() string { return r.want("") }

// want is Want with "(or def)" after the bounds ("" for none).
func (r Range) want(def string) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	lo, hi := f(r.Lo), f(r.Hi)
	if r.Pow2 {
		lo, hi = fmt.Sprintf("2^%s (%s)", f(log2(r.Lo)), lo), fmt.Sprintf("2^%s (%s)", f(log2(r.Hi)), hi)
	}
	if def != "" {
		hi += " (or " + def + ")"
	}
	return fmt.Sprintf("a number from %s to %s: %s", lo, hi, r.Why)
}

// log2 is the exponent of a power of two.
func log2(v float64) float64 {
	e := 0
	for ; v >= 2; v /= 2 {
		e++
	}
	for ; v < 1; v *= 2 {
		e--
	}
	return float64(e)
}

// check returns an *OptionError of method's option when v is outside r;
// def, when set, is the value's meaning as "0 for ..." (0 is then allowed).
func (r Range) check(method, option string, v float64, def string) error {
	if def != "" && v == 0 || r.Contains(v) {
		return nil
	}
	return optErr(method, option, v, r.want(def))
}
