package experiment

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// TestRecordKeepsTestMetrics: a record's test confusion matrix and AUC are
// those of its final SVM's decision values on its test part, recomputed
// here from the partition, the recorded kernel and C, with the AUC by its
// O(n²) definition (every positive-negative pair, a tie one half).
func TestRecordKeepsTestMetrics(t *testing.T) {
	src := []Source{heartSource(t, 3, 1)}
	recs := runAll(t, Config{Seed: 1, Workers: 1}, src, mustEntries(t, "probe1"))
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for _, r := range recs {
		c := r.TestConfusion
		if c == nil || r.TestAUC == nil {
			t.Fatalf("partition %d: no confusion matrix or AUC: %+v", r.Partition, r)
		}
		if !slices.Equal(c.Labels, []string{"1", "-1"}) || c.Total() != r.TestSize || float64(c.Correct())/float64(c.Total()) != r.TestAccuracy {
			t.Errorf("partition %d: confusion %+v against test size %d, accuracy %v", r.Partition, c, r.TestSize, r.TestAccuracy)
		}
		train, test, err := src[0].Partition(r.Partition)
		if err != nil {
			t.Fatal(err)
		}
		norm, err := dataio.FitNormalizer("zscore", train.X)
		if err != nil {
			t.Fatal(err)
		}
		margin, err := model.ParseMargin(r.Margin)
		if err != nil {
			t.Fatal(err)
		}
		fit, err := model.Fit(context.Background(), model.FitSettings{Train: norm.ApplyDataset(train), Norm: norm,
			Kernel: r.Kernel, Margin: margin, C: r.C})
		if err != nil {
			t.Fatal(err)
		}
		nt := norm.ApplyDataset(test)
		f := fit.Model.DecisionNormalized(nt.X)
		var tp, fn, fp, tn int
		var num, den float64
		for i, y := range nt.Y {
			switch pos := f[i] > 0; {
			case y > 0 && pos:
				tp++
			case y > 0:
				fn++
			case pos:
				fp++
			default:
				tn++
			}
			for j, z := range nt.Y {
				if y > 0 && z < 0 {
					den++
					switch {
					case f[i] > f[j]:
						num++
					case f[i] == f[j]:
						num += 0.5
					}
				}
			}
		}
		if got := c.Counts; !slices.Equal(got[0], []int{tp, fn}) || !slices.Equal(got[1], []int{fp, tn}) {
			t.Errorf("partition %d: confusion %v, recomputed [[%d %d] [%d %d]]", r.Partition, got, tp, fn, fp, tn)
		}
		if math.Abs(*r.TestAUC-num/den) > 1e-12 || num/den < 0.6 {
			t.Errorf("partition %d: AUC %v, recomputed %v (want well above chance on heart)", r.Partition, *r.TestAUC, num/den)
		}
	}
}
