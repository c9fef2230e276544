package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// FromSpec builds the kernel a Spec describes (the inverse of Kernel.Spec).
// A Gaussian spec must set exactly one of gamma, q_diag and q; q must be
// square, symmetric (to a relative 1e-12, then symmetrised) and positive
// definite. Errors say which field is wrong.
func FromSpec(s Spec) (Kernel, error) {
	switch s.Kind {
	case KindGaussian:
		if s.Theta != nil {
			return nil, fmt.Errorf("build kernel: a gaussian kernel takes no theta")
		}
		set := 0
		if s.Gamma != 0 {
			set++
		}
		if s.Diag != nil {
			set++
		}
		if s.Q != nil {
			set++
		}
		if set != 1 {
			return nil, fmt.Errorf("build kernel: a gaussian kernel needs exactly one of gamma, q_diag and q (got %d)", set)
		}
		switch {
		case s.Gamma != 0:
			return NewGaussianIso(s.Gamma)
		case s.Diag != nil:
			return NewGaussianDiag(s.Diag)
		}
		q, err := symFromRows("build kernel", s.Q)
		if err != nil {
			return nil, err
		}
		return NewGaussian(q)
	case KindL1:
		if s.Gamma != 0 || s.Diag != nil || s.Q != nil {
			return nil, fmt.Errorf("build kernel: an l1 kernel takes only theta")
		}
		if s.Theta == nil {
			return nil, fmt.Errorf("build kernel: an l1 kernel needs theta")
		}
		return NewL1(s.Theta)
	case KindLinear:
		if s.Gamma != 0 || s.Diag != nil || s.Q != nil || s.Theta != nil {
			return nil, fmt.Errorf("build kernel: a linear kernel takes no parameters")
		}
		return Linear{}, nil
	case "":
		return nil, fmt.Errorf("build kernel: no kernel kind given (want %q, %q or %q)", KindGaussian, KindL1, KindLinear)
	}
	return nil, fmt.Errorf("build kernel: unknown kernel kind %q (want %q, %q or %q)", s.Kind, KindGaussian, KindL1, KindLinear)
}

// symFromRows checks that q is a square, symmetric matrix of finite numbers
// and returns it, symmetrised. Symmetric means |q_ij - q_ji| ≤ 1e-12 max|q_kl|
// (relative to the matrix's largest entry, so that rounding in a computed Q
// passes whatever its scale); a pair that differs more is a *SymmetryError.
// op names the operation in the messages ("build kernel", "check metric").
func symFromRows(op string, q [][]float64) (*mat.SymDense, error) {
	d := len(q)
	if d == 0 {
		return nil, fmt.Errorf("%s: q is empty", op)
	}
	var scale float64
	for i, row := range q {
		if len(row) != d {
			return nil, fmt.Errorf("%s: q is not square: row %d has %d entries, want %d", op, i, len(row), d)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: q[%d][%d] = %v is not finite", op, i, j, v)
			}
			scale = math.Max(scale, math.Abs(v))
		}
	}
	m := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			a, b := q[i][j], q[j][i]
			if math.Abs(a-b) > 1e-12*scale {
				return nil, &SymmetryError{Op: op, I: i, J: j, A: a, B: b}
			}
			m.SetSym(i, j, (a+b)/2)
		}
	}
	return m, nil
}

// SymmetryError reports the first pair of entries of a matrix given as rows
// (Spec.Q, or a metric read from a file) that are not equal to a relative
// 1e-12 of the largest entry: A = q[I][J] but B = q[J][I], I < J, 0-based.
type SymmetryError struct {
	Op   string // what was being done: "build kernel" (FromSpec) or "check metric" (SpecFromMetric)
	I, J int
	A, B float64
}

func (e *SymmetryError) Error() string {
	return fmt.Sprintf("%s: q is not symmetric: q[%d][%d] = %v but q[%d][%d] = %v", e.Op, e.I, e.J, e.A, e.J, e.I, e.B)
}
