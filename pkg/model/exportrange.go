package model

// The range file of a LIBSVM export: the normaliser composed with a
// diagonal metric's factor, for svm-scale -r.

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// RangeFile is the name of an RBF export's range file for svm-scale -r.
const RangeFile = "raw.range"

// RangeLimits returns, for a per-feature map x'_j = a_j (x_j - m_j), the
// svm-scale range file's lines: svm-scale -r maps each feature's [min, max]
// linearly (not clipped) onto [lower, upper], here [0, 1], so min = m_j
// (which it maps to exactly 0) and max = m_j + 1/a_j. A feature with a_j = 0
// gets min = max, which svm-scale skips: it writes it as 0, the map's value.
// ok is false when some feature's map is not expressible in float64 (1/a_j
// lost against m_j, or not finite), feature then its 0-based index.
func RangeLimits(a, m []float64) (lo, hi []float64, feature int, ok bool) {
	lo, hi = make([]float64, len(a)), make([]float64, len(a))
	for j := range a {
		lo[j], hi[j] = m[j], m[j]
		if a[j] == 0 {
			continue
		}
		hi[j] = m[j] + 1/a[j]
		if !(a[j] > 0) || math.IsInf(hi[j], 0) || math.IsNaN(hi[j]) || hi[j] == lo[j] {
			return nil, nil, j, false
		}
	}
	return lo, hi, -1, true
}

// exportRange writes RangeFile into dir when the export's map of raw data
// is per feature (x ↦ Lᵀ((x - shift)/scale) with L diagonal, diag its
// diagonal: an isotropic γ or a diagonal Q), and says in b how LIBSVM's
// tools apply the tuned model to new raw data with it, or why they cannot
// (a full Q, diag nil; nominal features).
func exportRange(b *strings.Builder, dir string, diag []float64, s ExportSettings, d int, hasTest bool) error {
	fmt.Fprintf(b, "\nNew raw data, with LIBSVM's tools alone: ")
	if s.encoded {
		fmt.Fprintf(b, "the data has nominal features, which kerneltune one-hot\n")
		fmt.Fprintf(b, "encodes and svm-scale cannot read, so there is no range file: apply the saved model\n")
		fmt.Fprintf(b, "(tune -o) with kerneltune predict.\n")
		return nil
	}
	if diag == nil {
		fmt.Fprintf(b, "the learned metric Q is full, not diagonal: L'x mixes\n")
		fmt.Fprintf(b, "the features, which svm-scale's map of each feature on its own cannot express, so there\n")
		fmt.Fprintf(b, "is no range file. Apply the saved model (tune -o) with kerneltune predict, or map a row\n")
		fmt.Fprintf(b, "as train.libsvm's were: z_j = (x_j - shift_j)/scale_j with the model's normalizer, then\n")
		fmt.Fprintf(b, "L'z, L the lower Cholesky factor of the model's kernel.Q (Q = LL').\n")
		return nil
	}
	a, m := make([]float64, d), make([]float64, d)
	for j := range a {
		shift, scale := 0.0, 1.0
		if s.norm != nil {
			shift, scale = s.norm.At(j)
		}
		a[j], m[j] = diag[j]/scale, shift
	}
	lo, hi, bad, ok := RangeLimits(a, m)
	if !ok {
		fmt.Fprintf(b, "feature %d's map x -> %g (x - %g) is beyond what a range file\n", bad+1, a[bad], m[bad])
		fmt.Fprintf(b, "can hold in float64, so there is none: apply the saved model (tune -o) with kerneltune predict.\n")
		return nil
	}
	path := filepath.Join(dir, RangeFile)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	err := outfile.WriteFile(path, func(f io.Writer) error {
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, "x\n0 1\n")
		for j := range lo {
			fmt.Fprintf(w, "%d %s %s\n", j+1, g(lo[j]), g(hi[j]))
		}
		return w.Flush()
	})
	if err != nil {
		return &ExportError{Err: err} // outfile's errors name the path
	}
	kind := "none"
	if s.norm != nil {
		kind = s.norm.Kind
	}
	fmt.Fprintf(b, "%s is the normaliser fitted on the training part\n", RangeFile)
	fmt.Fprintf(b, "(normalisation %s) composed with L', one positive affine map per feature,\n", kind)
	fmt.Fprintf(b, "x'_j = a_j (x_j - m_j), as a range file for svm-scale -r: lines \"x\", \"0 1\", then \"j min max\"\n")
	fmt.Fprintf(b, "with min = m_j and max = m_j + 1/a_j (svm-scale maps [min, max] linearly onto [0, 1] and\n")
	fmt.Fprintf(b, "does not clip; a feature the kernel ignores has min = max, which svm-scale writes as 0).\n")
	fmt.Fprintf(b, "On a LIBSVM-format file RAW of the features as read, before kerneltune's normalisation\n")
	fmt.Fprintf(b, "(the same feature numbers as the training file):\n")
	fmt.Fprintf(b, "  svm-scale -r %s RAW > RAW.scaled\n", RangeFile)
	fmt.Fprintf(b, "  svm-predict RAW.scaled tuned.model RAW.predictions\n")
	fmt.Fprintf(b, "with tuned.model from svm-train above (svm-scale's WARNING that #nonzeros grew is expected:\n")
	fmt.Fprintf(b, "the map moves zeros). svm-scale prints 6 significant digits (%%g), so\n")
	fmt.Fprintf(b, "svm-scale -r %s on the raw training file gives train.libsvm to a relative 5e-6", RangeFile)
	if hasTest {
		fmt.Fprintf(b, ",\nand on the raw test file test.libsvm")
	}
	fmt.Fprintf(b, ";\nthe predictions differ from the tuned model's only for a row whose decision value is\nthat close to 0.\n")
	return nil
}
