package model

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// DescribeKernel describes a kernel spec in words, with its parameters to
// six significant digits (a diagonal Q or many θ by their range), e.g.
// "gaussian exp(-γ‖x-z‖²), γ = 0.5 (σ = 1)".
func DescribeKernel(s kernel.Spec) string {
	switch s.Kind {
	case kernel.KindGaussian:
		switch {
		case s.Gamma != 0:
			return fmt.Sprintf("gaussian exp(-γ‖x-z‖²), γ = %s (σ = %s)", sig(s.Gamma, 6), sig(1/math.Sqrt(2*s.Gamma), 6))
		case s.Diag != nil:
			return fmt.Sprintf("gaussian, diagonal Q (%d entries, %s … %s)", len(s.Diag), sig(minOf(s.Diag), 4), sig(maxOf(s.Diag), 4))
		}
		return fmt.Sprintf("gaussian, full %d×%d Q", len(s.Q), len(s.Q))
	case kernel.KindL1:
		if minOf(s.Theta) == maxOf(s.Theta) {
			return fmt.Sprintf("l1 -Σ|x_k-z_k|/θ_k, θ = %s", sig(s.Theta[0], 6))
		}
		return fmt.Sprintf("l1 -Σ|x_k-z_k|/θ_k, θ in [%s, %s]", sig(minOf(s.Theta), 4), sig(maxOf(s.Theta), 4))
	}
	return s.Kind
}

// sig formats v with n significant digits, as the tables do (a kernel's
// parameters are finite: Fit and Validate refuse others).
func sig(v float64, n int) string { return strconv.FormatFloat(v, 'g', n, 64) }

// minOf returns the smallest value of v (+Inf for none).
func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

// maxOf returns the largest value of v (-Inf for none).
func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
