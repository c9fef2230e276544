package model

// Export of a multi-class model whose pairs have kernels of their own: one
// binary LIBSVM export per pair of classes, and a README.txt that says how
// to vote.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// ExportPairs is ExportLIBSVM's kind for a multi-class model exported pair
// by pair (pair-I-J directories, each an ExportRBF or ExportPrecomputed).
const ExportPairs = "pairs"

// sharedRBF reports whether every pair of a multi-class model has the same
// kernel, margin and C, and LIBSVM's RBF kernel reproduces that kernel
// (exportKind ExportRBF): then svm-train's own one-vs-one is the model.
func (m *Model) sharedRBF() bool {
	first := m.Pairs[0]
	for _, pm := range m.Pairs[1:] {
		if pm.MarginKind != first.MarginKind || pm.C != first.C || !sameSpec(pm.Kernel, first.Kernel) {
			return false
		}
	}
	return exportKind(first.KernelFunc(), first.MarginKind) == ExportRBF
}

// sameSpec reports whether two kernel specs are equal, entry by entry.
func sameSpec(a, b kernel.Spec) bool {
	if a.Kind != b.Kind || a.Gamma != b.Gamma || len(a.Diag) != len(b.Diag) || len(a.Q) != len(b.Q) || len(a.Theta) != len(b.Theta) {
		return false
	}
	for i := range a.Diag {
		if a.Diag[i] != b.Diag[i] {
			return false
		}
	}
	for i := range a.Theta {
		if a.Theta[i] != b.Theta[i] {
			return false
		}
	}
	for i := range a.Q {
		for j := range a.Q[i] {
			if a.Q[i][j] != b.Q[i][j] {
				return false
			}
		}
	}
	return true
}

// exportPairs writes, for every pair (i, j) of a multi-class model, the
// binary export of its SVM (ExportLIBSVM) into dir/pair-I-J (1-based class
// numbers in LIBSVM's order): its training file holds the pair's training
// rows, its test file every row of the test part (labelled class i or
// class j: svm-predict's accuracy there means nothing, its predictions are
// the votes), and a README.txt in dir says how to vote.
func exportPairs(dir string, m *Model, train, test *dataio.Dataset, s ExportSettings) (string, error) {
	hasTest := test != nil && test.Len() > 0
	var b strings.Builder
	k := exportHeader(&b, "one-vs-one", m, s)
	fmt.Fprintf(&b, "Its %d pairs have kernels of their own (%s tuned each pair), which one LIBSVM model\n", len(m.Pairs), s.Method)
	fmt.Fprintf(&b, "cannot hold: each pair-I-J directory is the binary export of pair (I, J), class I = +1,\n")
	fmt.Fprintf(&b, "with its own README.txt and commands. Its training file holds the pair's training rows;\n")
	fmt.Fprintf(&b, "its test file holds every row of the test part, in order (rows of the other classes carry\n")
	fmt.Fprintf(&b, "class J's label there, so svm-predict's accuracy in a pair directory means nothing).\n\n")
	fmt.Fprintf(&b, "Vote as LIBSVM does (svm_predict_values): for each test row, each pair's predicted label\n")
	fmt.Fprintf(&b, "(pair-I-J/test.predictions, line by line) is one vote for that class; the class with the\n")
	fmt.Fprintf(&b, "most votes wins, and a tie goes to the class with the smaller number above.\n\n")
	fmt.Fprintf(&b, "In each directory below, run the svm-train and svm-predict commands of its README.txt:\n")
	for p, ij := range PairIndex(k) {
		name := fmt.Sprintf("pair-%d-%d", ij[0]+1, ij[1]+1)
		sub := filepath.Join(dir, name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", &ExportError{Err: err}
		}
		var pt *dataio.Dataset
		if hasTest {
			pt = pairLabelled(test, ij[0], ij[1])
		}
		if _, err := ExportLIBSVM(sub, m.Pairs[p], train.Pair(ij[0], ij[1]), pt, s); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  %s   classes %s (+1) and %s (-1)\n", name, m.Classes[ij[0]], m.Classes[ij[1]])
	}
	if err := writeReadme(dir, b.String()); err != nil {
		return "", err
	}
	return ExportPairs, nil
}

// pairLabelled is every row of multi-class d labelled for the pair (a, b):
// +1 for class a, -1 for any other (d's classes in Labels).
func pairLabelled(d *dataio.Dataset, a, b int) *dataio.Dataset {
	c := *d
	c.Class, c.ClassLabels = nil, nil
	c.Y = make([]float64, d.Len())
	for i, cl := range d.Class {
		c.Y[i] = -1
		if cl == a {
			c.Y[i] = 1
		}
	}
	c.Labels = dataio.LabelMap{Positive: d.ClassLabels[a], Negative: d.ClassLabels[b]}
	return &c
}

// ExportOneVsRest is ExportLIBSVM's kind for a one-vs-rest model, exported
// class by class (class-C directories, each an ExportRBF or
// ExportPrecomputed).
const ExportOneVsRest = "one-vs-rest"

// exportOneVsRest writes, for every class c of a one-vs-rest model, the
// binary export of its SVM (ExportLIBSVM) into dir/class-C (1-based class
// numbers in LIBSVM's order): its training file holds every training row,
// class c labelled +1 and the others -1, its test file every row of the
// test part labelled alike; and a README.txt in dir says how to combine
// them: the class with the largest decision value, which svm-predict does
// not print (LIBSVM's svm_predict_values does: Python's svm_predict
// returns them), positive for class c (LIBSVM orders two-class ±1 data
// "1 -1").
func exportOneVsRest(dir string, m *Model, train, test *dataio.Dataset, s ExportSettings) (string, error) {
	hasTest := test != nil && test.Len() > 0
	var b strings.Builder
	exportHeader(&b, "one-vs-rest", m, s)
	fmt.Fprintf(&b, "Each class C has a binary SVM of its own (class C = 1 against all the others = -1,\n")
	fmt.Fprintf(&b, "on every training row), which LIBSVM's one-vs-one cannot hold: each class-C directory is\n")
	fmt.Fprintf(&b, "the binary export of class C's SVM, with its own README.txt and commands. Its training\n")
	fmt.Fprintf(&b, "file holds every training row, its test file every row of the test part, in order.\n\n")
	fmt.Fprintf(&b, "Predict the class with the largest decision value: for each test row, compute every\n")
	fmt.Fprintf(&b, "class's decision value f_C(x) = sum_i coef_i K(x_i, x) - rho of class-C/tuned.model and\n")
	fmt.Fprintf(&b, "take the class C of the largest (a tie goes to the class with the smaller number above).\n")
	fmt.Fprintf(&b, "svm-predict prints only the sign; LIBSVM's svm_predict_values gives f (Python:\n")
	fmt.Fprintf(&b, "  p_label, p_acc, p_val = svmutil.svm_predict(y, x, svmutil.svm_load_model(\"tuned.model\"))\n")
	fmt.Fprintf(&b, "returns it as p_val[i][0]). The files label class C 1 and the others -1; LIBSVM's f is\n")
	fmt.Fprintf(&b, "positive for the first label of tuned.model's \"label\" line, which LIBSVM writes as\n")
	fmt.Fprintf(&b, "\"label 1 -1\" for such data (it puts +1 first): f_C is f. Were it \"label -1 1\", f_C = -f.\n\n")
	fmt.Fprintf(&b, "In each directory below, run the svm-train and svm-predict commands of its README.txt:\n")
	for c, sp := range m.Subproblems() {
		name := fmt.Sprintf("class-%d", c+1)
		sub := filepath.Join(dir, name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", &ExportError{Err: err}
		}
		// The files say 1 and -1, not the class's own label (WriteLIBSVM
		// writes a numeric label as it is: class "-1" would be both sides).
		var ct *dataio.Dataset
		if hasTest {
			ct = test.Sub(sp)
			ct.Labels = dataio.LabelMap{}
		}
		tr := train.Sub(sp)
		tr.Labels = dataio.LabelMap{}
		if _, err := ExportLIBSVM(sub, m.Pairs[c], tr, ct, s); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  %s   class %s (1) against the rest (-1)\n", name, m.Classes[c])
	}
	if err := writeReadme(dir, b.String()); err != nil {
		return "", err
	}
	return ExportOneVsRest, nil
}

// exportHeader writes the first lines of a multi-class export's README:
// who exported it, the scheme and the classes numbered in LIBSVM's label
// order; it returns the number of classes.
func exportHeader(b *strings.Builder, scheme string, m *Model, s ExportSettings) int {
	fmt.Fprintf(b, "Exported by: %s\n\n", s.Command)
	fmt.Fprintf(b, "A %s model of %d classes, in LIBSVM's label order:\n", scheme, len(m.Classes))
	for c, l := range m.Classes {
		fmt.Fprintf(b, "  %d: %s\n", c+1, l)
	}
	return len(m.Classes)
}
