package model

// LIBSVM export of a model whose kernel or margin LIBSVM's built-in kernels
// cannot express: a precomputed kernel (svm-train -t 4), and the C under
// which LIBSVM's C-SVC is a hard-margin SVM.
//
// The L2 soft margin (Chapelle et al. 2002; Schittkowski's inner SVM) is
//
//	min ½‖w‖² + (C/2) Σ ξ_i²  s.t.  y_i(w·φ(x_i) + b) ≥ 1 - ξ_i,
//
// with the dual  max Σα - ½ αᵀY(K + I/C)Yα,  α ≥ 0, yᵀα = 0. That is, word
// for word, the dual of the hard-margin SVM with the kernel matrix
// K̃ = K + I/C on the training points. The bias is the same too: the KKT
// conditions of an α_i > 0 read y_i(Σ_j α_j y_j K_ij + b) = 1 - α_i/C in the
// L2 problem (ξ_i = α_i/C) and y_i(Σ_j α_j y_j K̃_ij + b) = 1 in the hard
// one, the same equation. A point that is not a training point has no
// diagonal term, so its decision value Σ_j α_j y_j K(x_j, x) + b is the L2
// model's exactly when its kernel row is K, not K̃: test rows (and the
// training rows when they are scored as data) take K.
//
// LIBSVM has no hard margin, but its C-SVC box 0 ≤ α_i ≤ C is inactive once
// C exceeds every α_i of the hard-margin optimum: that optimum is then
// feasible for the boxed problem, whose feasible set is a subset, and so
// optimal there too. HardC picks such a C from the fitted α.

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// HardC returns the C under which LIBSVM's C-SVC reproduces the model's
// hard-margin or L2-margin SVM (trained on K + I/C): a power of ten at least
// 1000 times the largest α_i = |coef_i|, so that no α reaches the box even
// where LIBSVM's solution differs from ours within the stopping tolerance.
// For the L1 margin it returns the model's C.
func (m *Model) HardC() float64 {
	if m.MarginKind != solver.L2 && m.MarginKind != solver.Hard {
		return m.C
	}
	if m.IsMultiClass() { // the largest over the pairs
		c := 0.0
		for _, pm := range m.Pairs {
			c = math.Max(c, pm.HardC())
		}
		return c
	}
	amax := 0.0
	for _, sv := range m.SupportVectors {
		amax = math.Max(amax, math.Abs(sv.Coef))
	}
	if !(amax > 0) {
		amax = 1
	}
	return math.Pow(10, math.Ceil(math.Log10(amax))+3)
}

// WritePrecomputed writes the rows of K (m×n: m points against the n
// training points) as LIBSVM precomputed-kernel lines,
//
//	label 0:i 1:K(x_i,x_1) … n:K(x_i,x_n)
//
// with i the 1-based row number, label +1 or -1 (y[i] > 0 or not; y nil:
// 0, for rows without labels) and every one of the n values written,
// zeros included (LIBSVM looks kernel values up by position). shift is
// added to K_ii (the I/C of the L2 margin; 0 for test rows), which needs a
// square K. Values are written with 17 significant digits, which read back
// to the same float64.
func WritePrecomputed(w io.Writer, K mat.Matrix, y []float64, shift float64) error {
	rows, n := K.Dims()
	if y != nil && len(y) != rows {
		panic(fmt.Sprintf("model: WritePrecomputed: %d labels for %d rows", len(y), rows))
	}
	if shift != 0 && rows != n {
		panic("model: WritePrecomputed: a diagonal shift needs a square kernel matrix")
	}
	bw := bufio.NewWriter(w)
	buf := make([]byte, 0, 32)
	for i := 0; i < rows; i++ {
		switch {
		case y == nil:
			bw.WriteString("0")
		case y[i] > 0:
			bw.WriteString("+1")
		default:
			bw.WriteString("-1")
		}
		bw.WriteString(" 0:")
		bw.WriteString(strconv.Itoa(i + 1))
		for j := 0; j < n; j++ {
			v := K.At(i, j)
			if i == j {
				v += shift
			}
			bw.WriteByte(' ')
			buf = strconv.AppendInt(buf[:0], int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, v, 'g', 17, 64)
			bw.Write(buf)
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadPrecomputed reads a LIBSVM precomputed-kernel file as WritePrecomputed
// writes it: its kernel values (rows × n) and labels. Every line must give
// 0:serial and then the indices 1…n in order, n the same on every line;
// errors name the file (name), the line and the token.
func ReadPrecomputed(r io.Reader, name string) (*mat.Dense, []float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	var data, y []float64
	n, line := -1, 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		errf := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
		}
		lab, err := dataio.ParseFloat(f[0], 64)
		if err != nil {
			return nil, nil, errf("label %q is not a number", f[0])
		}
		if len(f) < 2 || !strings.HasPrefix(f[1], "0:") {
			return nil, nil, errf("the first pair must be 0:serial (a precomputed kernel row)")
		}
		if n < 0 {
			n = len(f) - 2
		} else if len(f)-2 != n {
			return nil, nil, errf("%d kernel values, line 1 has %d", len(f)-2, n)
		}
		for j, tok := range f[2:] {
			idx, val, ok := strings.Cut(tok, ":")
			if !ok || idx != strconv.Itoa(j+1) {
				return nil, nil, errf("token %q: want index %d (every kernel value, in order)", tok, j+1)
			}
			v, err := dataio.ParseFloat(val, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, errf("token %q: %q is not a finite number", tok, val)
			}
			data = append(data, v)
		}
		y = append(y, lab)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(y) == 0 || n <= 0 {
		return nil, nil, fmt.Errorf("read %s: no kernel rows", name)
	}
	return mat.NewDense(len(y), n, data), y, nil
}
