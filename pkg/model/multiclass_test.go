package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// LIBSVM's vote: f > 0 votes for the pair's first class; the most votes
// win; a tie goes to the class first in the label order.
func TestVote(t *testing.T) {
	if got := PairIndex(4); !slices.Equal(got, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}) {
		t.Errorf("PairIndex(4) = %v", got)
	}
	// Three classes, pairs (0,1), (0,2), (1,2); one row per column.
	dec := [][]float64{
		{1, -1, 1, -1, 0},  // (0,1)
		{1, 1, -1, -1, 0},  // (0,2)
		{1, 1, 1, -1, 0.5}, // (1,2)
	}
	// Row 1: 0,0,1 → 0. Row 2: 1,0,1 → 1 (two votes). Row 3: 0,2,1 →
	// a three-way tie → 0. Row 4: 1,2,2 → 2. Row 5: f = 0 votes for the
	// second class (LIBSVM: dec_value > 0), 1,2,1 → 1.
	if got, want := Vote(dec, 3), []int{0, 1, 0, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("Vote = %v, want %v", got, want)
	}
	if got := ConfusionMatrix([]int{0, 1, 1, 2}, []int{0, 1, 2, 2}, 3); !slices.Equal(got[1], []int{0, 1, 1}) || got[2][2] != 1 || got[0][0] != 1 {
		t.Errorf("ConfusionMatrix = %v", got)
	}
}

func wineModel(t *testing.T) (*Model, *dataio.Dataset) {
	t.Helper()
	d, err := dataio.Load(filepath.Join("..", "..", "testdata", "multiclass", "wine.scale"), dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	norm, _ := dataio.FitNormalizer(dataio.ZScore, d.X)
	tr := norm.ApplyDataset(d)
	f, err := Fit(context.Background(), FitSettings{Train: tr, Norm: norm, Kernel: kernel.Spec{Kind: kernel.KindGaussian, Gamma: 0.1}, Margin: L1, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f.Model, d
}

// A multi-class model saves as format version 3 with every pair and loads
// back predicting the same; a file claiming a later version, pairs in the
// wrong order or a pair lost are refused.
func TestMultiClassSaveLoad(t *testing.T) {
	m, d := wineModel(t)
	if m.FormatVersion != 3 || len(m.Pairs) != 3 || m.Training.N != 178 || m.Training.NSV == 0 {
		t.Fatalf("model: version %d, %d pairs, n %d, #SV %d", m.FormatVersion, len(m.Pairs), m.Training.N, m.Training.NSV)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(); err != nil {
		t.Error(err)
	}
	want := m.PredictClasses(d.X)
	if got := back.PredictClasses(d.X); !slices.Equal(got, want) {
		t.Error("the loaded model predicts differently")
	}
	if acc := back.Accuracy(d, false); acc < 0.95 {
		t.Errorf("accuracy %v", acc)
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"future version", `"format_version": 3`, `"format_version": 7`, "unsupported format_version 7"},
		{"old version", `"format_version": 3`, `"format_version": 2`, "multi-class models need 3"},
		{"pair order", `"positive": "1",` + "\n" + `    "negative": "2"`, `"positive": "2",` + "\n" + `    "negative": "1"`, `pair 1 has classes "2" and "1", want "1" and "2"`},
		{"class twice", `"classes": [` + "\n" + `  "1",` + "\n" + `  "2",`, `"classes": [` + "\n" + `  "1",` + "\n" + `  "1",`, `class "1" listed twice`},
	} {
		s := strings.Replace(buf.String(), c.old, c.new, 1)
		if s == buf.String() {
			t.Fatalf("%s: %q not in the file", c.name, c.old)
		}
		if _, err := Load(strings.NewReader(s)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		} else if c.name == "future version" && !errors.Is(err, ErrVersion) {
			t.Errorf("%s: %v is not ErrVersion", c.name, err)
		}
	}
}

// Train takes LIBSVM's label order from the training part it is given: a
// part of iris whose first row is of class "3" has the classes 3, 1, 2, as
// svm-train on that part would, and its test part is renumbered alike.
func TestTrainClassOrderOfTheTrainingPart(t *testing.T) {
	d, err := dataio.Load(filepath.Join("..", "..", "testdata", "multiclass", "iris.scale"), dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var tr, te []int
	for i := range d.Len() {
		if i%2 == 0 {
			tr = append(tr, i)
		} else {
			te = append(te, i)
		}
	}
	tr = append([]int{149}, tr...) // a class-"3" row first
	norm, _ := dataio.FitNormalizer(dataio.NoScale, d.X)
	r, err := Train(context.Background(), TrainSettings{Train: d.Subset(tr), Test: d.Subset(te), Norm: norm, Margin: L1, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Model
	if !slices.Equal(m.Classes, []string{"3", "1", "2"}) || !slices.Equal(r.FitData.Classes, m.Classes) || m.Pairs[0].Labels.Positive != "3" {
		t.Fatalf("classes %q (fit data %q), first pair +1 = %q", m.Classes, r.FitData.Classes, m.Pairs[0].Labels.Positive)
	}
	// The test part's confusion matrix is in that order: its row "3" holds
	// the 25 test rows of class 3.
	if n := r.Confusion.Counts[0][0] + r.Confusion.Counts[0][1] + r.Confusion.Counts[0][2]; n != 25 || *r.TestAccuracy < 0.9 {
		t.Errorf("confusion %v, test accuracy %v", r.Confusion, *r.TestAccuracy)
	}
}

// blockDecisions (rows outside, two at a time) gives every pair's decision
// values bit for bit as the plain loop over one pair and one row does, for
// every number of rows (odd ones included).
func TestBlockDecisionsEqualsPairLoop(t *testing.T) {
	m, d := wineModel(t)
	m.PredictClasses(d.X) // prepares the shared support vectors
	sh := m.shared
	if sh == nil {
		t.Fatal("no shared support vectors")
	}
	X := m.Normalizer.ApplyDataset(d).X
	for _, rows := range []int{0, 1, 2, 3, 7, 178} {
		kb := m.kernelBlock(X.Slice(0, rows, 0, m.NumFeatures), sh.X, sh.sparse)
		out := make([][]float64, len(m.Pairs))
		for p := range out {
			out[p] = make([]float64, rows+3)
		}
		sh.blockDecisions(out, 3, kb, m)
		for p, pm := range m.Pairs {
			coef := pm.coef.RawVector().Data
			for i := 0; i < rows; i++ {
				f := 0.0
				for j, u := range sh.idx[p] {
					f += coef[j] * kb.At(i, u)
				}
				if want := f + pm.Bias; math.Float64bits(out[p][3+i]) != math.Float64bits(want) {
					t.Fatalf("%d rows, pair %d, row %d: %v, the pair's loop %v", rows, p, i, out[p][3+i], want)
				}
			}
		}
	}
}

// The training accuracy of a one-vs-one model from the pairs' own decision
// values (trainVotes) equals the model's prediction of every training row,
// on every multi-class set in testdata and at several C and γ (rows won by
// every pair of their class are settled; the others are predicted), and
// the votes do settle most rows, so that the shortcut is what ran.
func TestTrainCorrectFromVotes(t *testing.T) {
	for _, file := range []string{"iris.scale", "wine.scale", "svmguide2", "dna.scale"} {
		d, err := dataio.Load(filepath.Join("..", "..", "testdata", "multiclass", file), dataio.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ C, gamma float64 }{{0.1, 0.05}, {1, 0.5}, {100, 2}} {
			s := FitSettings{Train: d, Kernel: kernel.Spec{Kind: kernel.KindGaussian, Gamma: c.gamma}, Margin: L1, C: c.C}
			votes := newTrainVotes(d.Len())
			m, _, err := fitMulti(context.Background(), s, nil, solver.Settings{}, new(int), votes)
			if err != nil {
				t.Fatal(err)
			}
			want := correct(d.Class, m.PredictClassesNormalized(d.X))
			settled := 0
			for i := range d.Class {
				if !votes.doubt[i] && votes.own[i] == len(m.Classes)-1 {
					settled++
				}
			}
			if got := trainCorrect(m, d, votes); got != want {
				t.Errorf("%s, C %g, γ %g: %d correct from the votes, %d from the prediction (%d rows settled)", file, c.C, c.gamma, got, want, settled)
			}
			if settled == 0 || settled > want {
				t.Errorf("%s, C %g, γ %g: %d rows settled of %d correct", file, c.C, c.gamma, settled, want)
			}
		}
	}
}

// dnaTrain is LIBSVM's dna (2,000 × 180 binary features, 3 classes) in
// LIBSVM's class order.
func dnaTrain(t *testing.T) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Load(filepath.Join("..", "..", "testdata", "multiclass", "dna.scale"), dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, _ = dataio.InLIBSVMOrder(d, nil)
	return d
}

// A multi-class fit holds the training rows once (issue 44): each pair's
// SVM reads its rows of the one matrix in place instead of a copy of its
// two classes, and the model stores each support vector once however many
// pairs share it (LIBSVM's total_sv rows), none of them aliasing the
// training data.
func TestMultiClassFitHoldsDataOnce(t *testing.T) {
	d := dnaTrain(t)
	f, err := Fit(context.Background(), FitSettings{Train: d, Kernel: kernel.Spec{Kind: kernel.KindGaussian, Gamma: 0.02}, Margin: L1, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := f.Model
	raw := d.X.RawMatrix().Data
	inData := func(x []float64) bool {
		p := uintptr(unsafe.Pointer(&x[0]))
		return p >= uintptr(unsafe.Pointer(&raw[0])) && p <= uintptr(unsafe.Pointer(&raw[len(raw)-1]))
	}
	at := map[string]*float64{}
	shared, total := 0, 0
	for _, pm := range m.Pairs {
		for _, sv := range pm.SupportVectors {
			total++
			if inData(sv.X) {
				t.Fatal("a support vector's X aliases the training matrix")
			}
			key := fmt.Sprint(sv.X)
			if p, ok := at[key]; ok {
				shared++
				if p != &sv.X[0] {
					t.Fatalf("one support vector held twice by two pairs")
				}
				continue
			}
			at[key] = &sv.X[0]
		}
	}
	// dna repeats some rows: 1,104 training rows are support vectors
	// (LIBSVM's total_sv), 1,085 distinct ones.
	if m.shared == nil || len(at) != 1085 || m.Training.NSV != 1104 || total != 1557 {
		t.Fatalf("%d distinct support vectors of %d in the pairs (%d training rows), want 1085 of 1557 (1104)", len(at), total, m.Training.NSV)
	}
	if got, _ := m.shared.X.Dims(); got != len(at) || &any(m.shared.X).(*mat.Dense).RawMatrix().Data[0] != at[fmt.Sprint(m.Pairs[0].SupportVectors[0].X)] {
		t.Fatalf("the shared matrix has %d rows and is not the pairs' rows", got)
	}
}

// The streamed prediction (sharedSVs.classes: a block of rows at a time,
// the kernel block in one array, the pairs' values of a block voted and
// dropped) gives every pair's decision value with the bits of decisions
// (all rows, every pair's values held), in blocks of any number of rows,
// and so the same classes: on dense rows with the prepared Gaussian
// (kernel.CrossBlocks), on dna's binary rows (the sparse route of dense
// rows), a model held in compressed rows, and one-vs-rest.
func TestStreamedClassesSameBits(t *testing.T) {
	wine, wd := wineModel(t)
	dna := dnaTrain(t)
	fd, err := Fit(context.Background(), FitSettings{Train: dna, Kernel: iso(0.02), Margin: L1, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, ovr, _, _, fo := wineOneVsRest(t)
	sp := tenClasses(600, 30)
	fs, err := Fit(context.Background(), FitSettings{Train: sp, Kernel: iso(0.5), Margin: L1, C: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *Model
		X    mat.Matrix
	}{
		{"wine", wine, wine.Normalizer.ApplyDataset(wd).X},
		{"dna", fd.Model, dna.X},
		{"ten classes, sparse", fs.Model, sp.Sparse},
		{"wine, one-vs-rest", fo.Model, ovr.X},
	} {
		sh := c.m.shared
		if sh == nil {
			t.Fatalf("%s: no shared support vectors", c.name)
		}
		want := sh.decisions(c.m, c.X)
		n, _ := c.X.Dims()
		for _, rows := range []int{0, 1, 7, 64, n} {
			seen := 0
			sh.eachDecisionBlock(c.m, c.X, rows, func(r0 int, dec [][]float64) {
				if r0 != seen {
					t.Fatalf("%s, %d rows: a block at row %d after %d rows", c.name, rows, r0, seen)
				}
				for p := range dec {
					for i, f := range dec[p] {
						if math.Float64bits(f) != math.Float64bits(want[p][r0+i]) {
							t.Fatalf("%s, blocks of %d rows: pair %d, row %d: %v, decisions %v", c.name, rows, p, r0+i, f, want[p][r0+i])
						}
					}
				}
				seen += len(dec[0])
			})
			if seen != n {
				t.Fatalf("%s, %d rows: %d rows seen of %d", c.name, rows, seen, n)
			}
		}
		if got, w := c.m.PredictClassesNormalized(c.X), dataio.Combine(want, len(c.m.Classes), c.m.Multiclass); !slices.Equal(got, w) {
			t.Fatalf("%s: streamed classes differ from the vote of decisions", c.name)
		}
	}
}
