package model

// Export of a tuned model for LIBSVM: the files and commands from which
// svm-train reproduces it.

import (
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// Kinds of LIBSVM export (ExportLIBSVM's result).
const (
	ExportRBF         = "rbf"         // data mapped by x ↦ Lᵀx, svm-train -t 2 -g 0.5
	ExportPrecomputed = "precomputed" // kernel matrices, svm-train -t 4
)

// exportKind says which LIBSVM export reproduces a model with kernel k and
// margin: LIBSVM's RBF kernel on mapped data for a Gaussian kernel with the
// L1 or the hard margin (a huge C), a precomputed kernel otherwise (the
// L1-distance kernel; the L2 margin, whose K + I/C no built-in kernel has).
func exportKind(k kernel.Kernel, margin Margin) string {
	if _, ok := k.(*kernel.Gaussian); ok && margin != L2 {
		return ExportRBF
	}
	return ExportPrecomputed
}

// ExportSettings describe the tuned model for ExportLIBSVM's README.txt.
type ExportSettings struct {
	// Method and Param name the method that learned the kernel (Param ""
	// for its default), Kernel is the kernel it returned.
	Method, Param string
	Kernel        kernel.Spec
	// Eps is the SMO tolerance to give svm-train (-e).
	Eps float64
	// Command is the command line that made the export.
	Command string

	// The exported model's normaliser and whether it one-hot encodes
	// nominal features: the top model's, also for the binary exports of a
	// multi-class model's pairs, which have none of their own (set by
	// ExportLIBSVM on its first call).
	norm          *dataio.Normalizer
	encoded, held bool
}

// ExportError is a file of the export that could not be written: Path is
// "" when Err names the file (outfile.WriteFile's errors do).
type ExportError struct {
	Path string
	Err  error
}

func (e *ExportError) Error() string {
	if e.Path == "" {
		return "export for LIBSVM: " + e.Err.Error()
	}
	return "export for LIBSVM " + e.Path + ": " + e.Err.Error()
}

func (e *ExportError) Unwrap() error { return e.Err }

// ExportLIBSVM writes into dir files from which LIBSVM's svm-train reproduces the
// tuned model m (fitted on the normalised train; test may be nil), and a
// README.txt with the exact commands. Which files depends on exportKind:
// train.libsvm and test.libsvm mapped by x ↦ Lᵀx (Q = LLᵀ, so LIBSVM's RBF
// kernel with γ = 0.5 is the learned kernel), or the precomputed kernel
// files train.kernel (K, plus I/C on its diagonal for the L2 margin),
// test.kernel (test rows against the training points) and, for the L2
// margin, train-eval.kernel (the training rows with K, to score them). It
// returns the kind.
//
// A multi-class model whose pairs share one kernel that LIBSVM's RBF kernel
// reproduces (the svm baseline, train) is exported as one multi-class data
// set: svm-train's own one-vs-one is then the model. Otherwise each pair is
// exported into its own directory (ExportPairs; see exportPairs). A
// one-vs-rest model, which LIBSVM's one-vs-one cannot express, is always
// exported class by class (ExportOneVsRest; see exportOneVsRest).
func ExportLIBSVM(dir string, m *Model, train, test *dataio.Dataset, s ExportSettings) (string, error) {
	if !s.held {
		s.norm, s.encoded, s.held = m.Normalizer, m.Encoder != nil, true
	}
	if m.Multiclass == dataio.OneVsRest {
		return exportOneVsRest(dir, m, train, test, s)
	}
	if m.IsMultiClass() && !m.sharedRBF() {
		return exportPairs(dir, m, train, test, s)
	}
	kind := exportKind(m.KernelFunc(), m.MarginKind)
	hasTest := test != nil && test.Len() > 0
	create := func(name string, write func(w io.Writer) error) error {
		path := filepath.Join(dir, name)
		if err := outfile.WriteFile(path, write); err != nil {
			return &ExportError{Err: err}
		}
		return nil
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	learned := s.Method
	if s.Param != "" {
		learned += ", " + s.Param
	}
	var b, raw strings.Builder // raw: how to apply the model to new raw data, last
	fmt.Fprintf(&b, "Exported by: %s\n\n", s.Command)
	trainFile, evalFile, testFile := "train.libsvm", "train.libsvm", "test.libsvm"
	var trainCmd string
	switch kind {
	case ExportRBF:
		gk := m.KernelFunc().(*kernel.Gaussian)
		// Data held in compressed rows has an isotropic or a diagonal
		// metric (fit refuses a full one there): L is the diagonal, a
		// column scale, and the rows are written as compressed as they are.
		var L *mat.Dense
		diag := factorDiag(gk, train.Dim())
		if !train.IsSparse() {
			L = mat.DenseCopyOf(gk.Factor(train.Dim())) // Q = LLᵀ
			diag = lowerDiag(L)
		}
		mapped := func(d *dataio.Dataset) func(w io.Writer) error {
			return func(w io.Writer) error {
				c := *d
				switch {
				case d.Sparse != nil:
					c.Sparse = d.Sparse.SelectRows(allRows(d.Len()))
					c.Sparse.ScaleColumns(diag)
				case L == nil:
					var x mat.Dense
					x.Apply(func(_, j int, v float64) float64 { return v * diag[j] }, d.X)
					c.X = &x
				default:
					var x mat.Dense
					x.Mul(d.X, L) // row i is (Lᵀx_i)ᵀ
					c.X = &x
				}
				return dataio.WriteLIBSVM(w, &c)
			}
		}
		if err := create(trainFile, mapped(train)); err != nil {
			return "", err
		}
		files, verb := trainFile, "holds"
		if hasTest {
			if err := create(testFile, mapped(test)); err != nil {
				return "", err
			}
			files, verb = trainFile+" and "+testFile, "hold"
		}
		fmt.Fprintf(&b, "%s %s the data after the normaliser fitted on the training part,\n", files, verb)
		fmt.Fprintf(&b, "mapped by x -> L'x with Q = LL' the learned metric (%s).\n", learned)
		fmt.Fprintf(&b, "exp(-0.5 (x-z)'Q(x-z)) = exp(-gamma ||L'x - L'z||^2) with gamma = 0.5, so LIBSVM's\n")
		fmt.Fprintf(&b, "RBF kernel with -g 0.5 on these files is the learned kernel.\n")
		if err := exportRange(&raw, dir, diag, s, train.Dim(), hasTest); err != nil {
			return "", err
		}
		if m.MarginKind == Hard {
			fmt.Fprintf(&b, "The tuned SVM has the hard margin: LIBSVM's C-SVC with C = %s, 1000 times the largest\n", g(m.HardC()))
			fmt.Fprintf(&b, "dual variable or more, never reaches its box, and so solves the hard-margin problem.\n")
		}
		trainCmd = fmt.Sprintf("svm-train -s 0 -t 2 -g 0.5 -c %s -e %s %s tuned.model", g(m.HardC()), g(s.Eps), trainFile)
	default:
		trainFile, evalFile, testFile = "train.kernel", "train.kernel", "test.kernel"
		k := m.KernelFunc()
		K := k.Gram(train.Features())
		shift := 0.0
		if m.MarginKind == L2 {
			shift = 1 / m.C
			evalFile = "train-eval.kernel"
		}
		if err := create(trainFile, func(w io.Writer) error { return WritePrecomputed(w, K, train.Y, shift) }); err != nil {
			return "", err
		}
		if shift != 0 {
			if err := create(evalFile, func(w io.Writer) error { return WritePrecomputed(w, K, train.Y, 0) }); err != nil {
				return "", err
			}
		}
		if hasTest {
			Kt := k.Cross(test.Features(), train.Features())
			if err := create(testFile, func(w io.Writer) error { return WritePrecomputed(w, Kt, test.Y, 0) }); err != nil {
				return "", err
			}
		}
		fmt.Fprintf(&b, "LIBSVM precomputed kernels (-t 4) of the learned kernel (%s, %s) on the data\n", learned, DescribeKernel(s.Kernel))
		fmt.Fprintf(&b, "after the normaliser fitted on the training part. Each line is\n")
		fmt.Fprintf(&b, "  label 0:i 1:K(x_i,x_1) ... n:K(x_i,x_n)\n")
		fmt.Fprintf(&b, "against the %d training points, in the order of %s; label +1 is %q, -1 is %q.\n", train.Len(), trainFile, m.Labels.Positive, m.Labels.Negative)
		switch m.MarginKind {
		case L2:
			fmt.Fprintf(&b, "\nThe tuned SVM has the L2 soft margin with C = %s, which LIBSVM does not offer. Its dual\n", g(m.C))
			fmt.Fprintf(&b, "is the hard-margin dual with the kernel K + I/C on the training points, with the same\n")
			fmt.Fprintf(&b, "bias, so %s holds K + I/C (%s added on the diagonal), and a C-SVC with\n", trainFile, g(shift))
			fmt.Fprintf(&b, "C = %s (1000 times the largest dual variable or more) never reaches its box: it is\n", g(m.HardC()))
			fmt.Fprintf(&b, "that hard margin. New points have no diagonal term: %s holds K\n", testFile)
			fmt.Fprintf(&b, "for the test rows, and %s K for the training rows, to score them\n", evalFile)
			fmt.Fprintf(&b, "as the model does (predicting %s itself would add α_i y_i/C to each row).\n", trainFile)
		case Hard:
			fmt.Fprintf(&b, "\nThe tuned SVM has the hard margin: LIBSVM's C-SVC with C = %s, 1000 times the largest\n", g(m.HardC()))
			fmt.Fprintf(&b, "dual variable or more, never reaches its box, and so solves the hard-margin problem.\n")
		}
		trainCmd = fmt.Sprintf("svm-train -s 0 -t 4 -c %s -e %s %s tuned.model", g(m.HardC()), g(s.Eps), trainFile)
		fmt.Fprintf(&raw, "\nNew raw data needs its kernel values against the %d training points, which LIBSVM's\n", train.Len())
		fmt.Fprintf(&raw, "tools cannot compute from raw data: apply the saved model (tune -o) with kerneltune predict.\n")
	}
	if m.IsMultiClass() {
		fmt.Fprintf(&b, "\nThe data has %d classes (%s); every pair of classes shares this kernel and C,\n", len(m.Classes), strings.Join(m.Classes, ", "))
		fmt.Fprintf(&b, "so svm-train's own one-vs-one on these files is the tuned model, and svm-predict its vote.\n")
	}
	predict := "svm-predict"
	if m.HasProbability() {
		// The model has probability estimates: LIBSVM's -b 1 fits its own
		// (on its own CV folds, so probA and probB differ a little).
		trainCmd = strings.Replace(trainCmd, "svm-train ", "svm-train -b 1 ", 1)
		predict = "svm-predict -b 1"
		fmt.Fprintf(&b, "\nThe model has probability estimates (probA, probB per SVM): svm-train -b 1 fits\n")
		fmt.Fprintf(&b, "LIBSVM's on its own 5 CV folds (unseeded rand()), so they differ a little from the model's.\n")
	}
	fmt.Fprintf(&b, "\nReproduce the tuned SVM (its #SV: %d):\n  %s\n", m.Training.NSV, trainCmd)
	fmt.Fprintf(&b, "  %s %s tuned.model train.predictions\n", predict, evalFile)
	if hasTest {
		fmt.Fprintf(&b, "  %s %s tuned.model test.predictions\n", predict, testFile)
	}
	if kind == ExportRBF {
		fmt.Fprintf(&b, "scikit-learn: sklearn.svm.SVC(kernel=\"rbf\", gamma=0.5, C=%s, tol=%s)\n", g(m.HardC()), g(s.Eps))
	}
	b.WriteString(raw.String())
	if err := writeReadme(dir, b.String()); err != nil {
		return "", err
	}
	return kind, nil
}

// factorDiag returns the diagonal of the factor L of an isotropic or a
// diagonal metric Q = LLᵀ on d features (√(2γ) or √q_k), nil for a full one.
func factorDiag(g *kernel.Gaussian, d int) []float64 {
	if gamma, ok := g.Gamma(); ok {
		out := make([]float64, d)
		for j := range out {
			out[j] = math.Sqrt(2 * gamma)
		}
		return out
	}
	if q, ok := g.QDiag(); ok {
		for j, v := range q {
			q[j] = math.Sqrt(v)
		}
		return q
	}
	return nil
}

// lowerDiag returns the diagonal of the lower triangular L when L is
// diagonal, nil when an entry below it is not 0 (a full metric).
func lowerDiag(L *mat.Dense) []float64 {
	d, _ := L.Dims()
	out := make([]float64, d)
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			if L.At(i, j) != 0 {
				return nil
			}
		}
		out[i] = L.At(i, i)
	}
	return out
}

// allRows returns 0, 1, …, n-1.
func allRows(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// ExportFiles are the names ExportLIBSVM may write into its directory, and
// into its pair-I-J and class-C directories (ExportWrites).
var ExportFiles = []string{"README.txt", RangeFile, "train.libsvm", "test.libsvm", "train.kernel", "test.kernel", "train-eval.kernel"}

// ExportWrites reports whether ExportLIBSVM may write rel, a slash-separated
// path within its directory: a command refuses an export directory that
// would write over one of its inputs or outputs.
func ExportWrites(rel string) bool {
	dir, name := path.Split(rel)
	if !slices.Contains(ExportFiles, name) {
		return false
	}
	dir = strings.TrimSuffix(dir, "/")
	return dir == "" || !strings.Contains(dir, "/") && (strings.HasPrefix(dir, "pair-") || strings.HasPrefix(dir, "class-"))
}

// writeReadme writes dir's README.txt (atomically).
func writeReadme(dir, text string) error {
	path := filepath.Join(dir, "README.txt")
	if err := outfile.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		return &ExportError{Err: err}
	}
	return nil
}
