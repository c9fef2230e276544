package report

import (
	"math"
	"strconv"
)

// Fixed formats v with prec digits after the point ("-" for NaN, "inf"
// and "-inf" for infinities), e.g. accuracies and times.
func Fixed(v float64, prec int) string { return formatFloat(v, 'f', prec) }

// Sig formats v with sig significant digits, switching to exponent form
// for very large or small magnitudes (e.g. γ, objectives, margins).
func Sig(v float64, sig int) string { return formatFloat(v, 'g', sig) }

// formatFloat is strconv.FormatFloat(v, verb, prec, 64) with "-" for NaN and
// "inf"/"-inf" for infinities.
func formatFloat(v float64, verb byte, prec int) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, verb, prec, 64)
}
