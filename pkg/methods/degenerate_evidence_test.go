package methods

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// degenerateEvidenceSets are the real datasets of the degenerate-kernel
// thresholds' evidence (paths relative to this package).
var degenerateEvidenceSets = []struct {
	name, path string
	ro         dataio.ReadOptions
}{
	{"heart", "builtin:heart", dataio.ReadOptions{}},
	{"breast-wisconsin", "builtin:breast-wisconsin", dataio.ReadOptions{}},
	{"diabetes", "builtin:diabetes", dataio.ReadOptions{}},
	{"bupa", "../../testdata/uci/bupa.data", dataio.ReadOptions{LabelCol: "7", Header: "no"}},
	{"banana", "../../testdata/ida/banana", dataio.ReadOptions{}},
	{"ida breast-cancer", "../../testdata/ida/breast-cancer", dataio.ReadOptions{}},
	{"a1a", "../../testdata/libsvm/a1a", dataio.ReadOptions{Features: 123}},
}

// TestDegenerateThresholdEvidence is the evidence for DiagonalBelow and
// ConstantBelow: on each dataset (KERNELTUNE_EVIDENCE_PARTS partitions,
// default 10, of 100/100, z-scored on the training part) it sweeps the
// isotropic γ = 2^-24 … 2^10, fits the L1 SVM with C by 5-fold CV over the C
// grid and with C = 1, and logs the mean test accuracy and the share of fits
// that predict one class on the training part, against the majority-class
// rate of the test parts:
//
//   - per decade of the median nearest-neighbour K (the diagonal side),
//     and of the median off-diagonal K for comparison;
//   - per decade of C·(1 - median off-diagonal K) where median K > 0.9
//     (the constant side), both fits pooled;
//
// and the three statistics at the svm baseline's own choice.
func TestDegenerateThresholdEvidence(t *testing.T) {
	evidenceEnabled(t)
	ctx := context.Background()
	parts := rcscEvidenceParts(10)
	type bucket struct{ acc, oneClass, maj meanStd }
	var out strings.Builder
	for _, s := range degenerateEvidenceSets {
		d, err := dataio.Load(s.path, s.ro)
		if err != nil {
			t.Fatal(err)
		}
		splits, err := dataio.Partitions(d.Y, dataio.PartitionOptions{K: parts, TrainSize: 100, TestSize: 100}, 1)
		if err != nil {
			t.Fatal(err)
		}
		near := make([]bucket, 10) // by decade(median nearest-neighbour K), C by CV
		medb := make([]bucket, 10) // by decade(median K), C by CV
		cons := make([]bucket, 20) // by decade of C·(1 - median K), index 10 + decade exponent
		var svmNear, svmMed, svmS []float64
		for k, sp := range splits {
			tr, te := d.Subset(sp.Train), d.Subset(sp.Test)
			nz, err := dataio.FitNormalizer(dataio.ZScore, tr.X)
			if err != nil {
				t.Fatal(err)
			}
			tr, te = nz.ApplyDataset(tr), nz.ApplyDataset(te)
			pos, _ := te.ClassCounts()
			maj := math.Max(float64(pos), float64(te.Len()-pos)) / float64(te.Len())
			cm := Common{Seed: uint64(k + 1)}
			fit := func(kern kernel.Kernel, C float64) (acc, one float64) {
				res := &Result{Kernel: kern.Spec(), Margin: solver.L1, C: C}
				a, _ := rlTestAccuracy(ctx, t, res, tr, te)
				deg := ClassifyDegenerate(kern, tr.X, C, degenerateFit(t, tr, kern, C))
				if deg.PredictedPos == 0 || deg.PredictedNeg == 0 {
					one = 1
				}
				return a, one
			}
			for e := -24; e <= 10; e++ {
				g := math.Ldexp(1, e)
				kern, err := kernel.NewGaussianIso(g)
				if err != nil {
					t.Fatal(err)
				}
				m := kern.Rows(tr.X)
				med, _, _ := medianOffDiagPairs(m, tr.Len())
				nn, _, _ := medianNearestK(m, tr.Len())
				Ccv, _, _, err := selectC(ctx, kern.Gram(tr.X), tr.Y, rcscCGrid(), solver.L1, cm)
				if err != nil {
					t.Fatal(err)
				}
				for _, C := range []float64{Ccv, 1} {
					a, one := fit(kern, C)
					if C == Ccv {
						if nn < 0.1 {
							b := &near[decade(nn)]
							b.acc.add(a)
							b.oneClass.add(one)
							b.maj.add(maj)
						}
						if med < 0.1 {
							b := &medb[decade(med)]
							b.acc.add(a)
							b.oneClass.add(one)
							b.maj.add(maj)
						}
					}
					if med > constantMedianAbove {
						i := 10 + int(math.Floor(math.Log10(math.Max(C*(1-med), 1e-9))))
						b := &cons[min(max(i, 0), len(cons)-1)]
						b.acc.add(a)
						b.oneClass.add(one)
						b.maj.add(maj)
					}
				}
			}
			res, err := SVMSettings{Common: cm}.tune(ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			kern, err := kernel.FromSpec(res.Kernel)
			if err != nil {
				t.Fatal(err)
			}
			m := kern.Rows(tr.X)
			med, _, _ := medianOffDiagPairs(m, tr.Len())
			nn, _, _ := medianNearestK(m, tr.Len())
			svmNear, svmMed, svmS = append(svmNear, nn), append(svmMed, med), append(svmS, res.C*(1-med))
		}
		fmt.Fprintf(&out, "\n%s (%d partitions of 100/100, d = %d); the svm baseline's choice: nearest-neighbour K %.3g … %.3g (median %.3g), median K %.3g … %.3g, C·(1 - median K) %.3g … %.3g\n",
			s.name, parts, d.Dim(), minF(svmNear), maxF(svmNear), rlMedian(svmNear), minF(svmMed), maxF(svmMed), minF(svmS), maxF(svmS))
		row := func(label string, b *bucket) {
			if len(b.acc.v) > 0 {
				fmt.Fprintf(&out, "| %s | %d | %s | %s | %s |\n", label, len(b.acc.v), &b.acc, &b.oneClass, &b.maj)
			}
		}
		fmt.Fprintf(&out, "| statistic | fits | test acc %% | one-class %% | majority class %% |\n|---|---|---|---|---|\n")
		for i := 9; i >= 1; i-- {
			row("nearest K "+decadeLabel("", i), &near[i])
		}
		for i := 9; i >= 1; i-- {
			row("median K "+decadeLabel("", i), &medb[i])
		}
		for i := len(cons) - 1; i >= 0; i-- {
			label := fmt.Sprintf("C·(1 - median K) in [1e%d, 1e%d)", i-10, i-9)
			switch i {
			case 0:
				label = "C·(1 - median K) < 1e-9"
			case len(cons) - 1:
				label = "C·(1 - median K) ≥ 1e9"
			}
			row(label, &cons[i])
		}
	}
	t.Log(out.String())
}

// decade returns i with v in [1e-i, 1e-(i-1)), at most 9 (v ≤ 0 included).
func decade(v float64) int {
	if !(v > 1e-8) {
		return 9
	}
	return int(-math.Floor(math.Log10(v)))
}

// decadeLabel names decade i of decade, prefixed ("1 - " for 1 - median K).
func decadeLabel(prefix string, i int) string {
	if i == 9 {
		return prefix + "< 1e-8"
	}
	return fmt.Sprintf("%s[1e-%d, 1e-%d)", prefix, i, i-1)
}

func minF(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

func maxF(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
