package methods

import "slices"

// GridLog2C returns the log2 C values of the baseline's grid (LIBSVM
// grid.py's default), for callers outside the package that search the same
// grid (compare's --select laanaya).
func GridLog2C() []float64 { return slices.Clone(gridLog2C) }

// GridLog2Gamma returns the log2 γ values of the baseline's grid.
func GridLog2Gamma() []float64 { return slices.Clone(gridLog2Gamma) }
