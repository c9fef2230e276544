package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

func loadHeart(t *testing.T) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Load("../../testdata/libsvm/heart_scale", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func iso(gamma float64) kernel.Spec { return kernel.Spec{Kind: kernel.KindGaussian, Gamma: gamma} }

// TestFitHeartMatchesLIBSVM trains the C-SVC on heart_scale as
//
//	svm-train -c 1 -g 0.5 -e 1e-5 heart_scale   (LIBSVM 3.24, Debian libsvm-tools 3.24+ds-6)
//	  obj = -90.017945, rho = 0.001048, nSV = 193, nBSV = 69
//	svm-predict heart_scale heart_scale.model out
//	  Accuracy = 92.963% (251/270)
//
// and checks the model keeps exactly the support vectors and reproduces those
// numbers.
func TestFitHeartMatchesLIBSVM(t *testing.T) {
	d := loadHeart(t)
	m, res, err := fitSVM(context.Background(), d, nil, iso(0.5),
		solver.SVCParams{Margin: solver.L1, C: 1}, solver.Settings{Eps: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if m.NSV() != 193 || res.NSV != 193 || m.Training.NBSV != 69 {
		t.Errorf("nSV = %d (solver %d), nBSV = %d; LIBSVM 193, 69", m.NSV(), res.NSV, m.Training.NBSV)
	}
	if got := m.Training.Obj; math.Abs(got-(-90.017945)) > 1e-6*90 {
		t.Errorf("obj = %.7f, LIBSVM -90.017945", got)
	}
	if got := -m.Bias; math.Abs(got-0.001048) > 5e-6 {
		t.Errorf("rho = %.7f, LIBSVM 0.001048", got)
	}
	if acc := m.Accuracy(d, true); math.Abs(acc-251.0/270) > 1e-12 {
		t.Errorf("training accuracy %.5f, LIBSVM 251/270 = %.5f", acc, 251.0/270)
	}
	// The confusion counts add up to those 251 of 270 and to heart's 120 +1
	// and 150 -1 labels.
	c := ConfusionOf(m.Decision(d.X), d.Y)
	if pos, neg := d.ClassCounts(); c.Correct() != 251 || c.Total() != 270 || c.TruePos+c.FalseNeg != pos || c.FalsePos+c.TrueNeg != neg || pos != 120 {
		t.Errorf("confusion %+v (correct %d of %d); labels %d +1, %d -1", c, c.Correct(), c.Total(), pos, neg)
	}
	// No normaliser: raw and normalised decisions are the same.
	if a, b := m.Accuracy(d, false), m.Accuracy(d, true); a != b {
		t.Errorf("accuracy raw %v vs normalised %v without a normaliser", a, b)
	}
	if m.Labels.Positive != "+1" && m.Labels.Positive != "1" {
		t.Errorf("positive label %q", m.Labels.Positive)
	}
	if m.Provenance.DataSHA256 != "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9" {
		t.Errorf("data hash %q", m.Provenance.DataSHA256)
	}
}

// TestDecisionEqualsSolver: the model's decision values on the training points
// equal Σ_j y_jα_j k(x_j, x_i) + b computed from the solver's full α with
// scalar kernel evaluations, and the SVs are exactly the α_j > 0.
func TestDecisionEqualsSolver(t *testing.T) {
	d := loadHeart(t)
	norm, err := dataio.FitNormalizer(dataio.ZScore, d.X)
	if err != nil {
		t.Fatal(err)
	}
	dn := norm.ApplyDataset(d)
	for _, tc := range []struct {
		name   string
		spec   kernel.Spec
		margin solver.Margin
		C      float64
	}{
		{"gauss-l1", iso(0.1), solver.L1, 2},
		{"diag-l1", kernel.Spec{Kind: kernel.KindGaussian, Diag: []float64{0.1, 0.2, 0.05, 0.1, 0.1, 0.3, 0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 0.1}}, solver.L1, 1},
		{"gauss-l2", iso(0.05), solver.L2, 0.5},
		{"linear-l1", kernel.Spec{Kind: kernel.KindLinear}, solver.L1, 0.1},
		{"l1kernel-l1", kernel.Spec{Kind: kernel.KindL1, Theta: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}, solver.L1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, res, err := fitSVM(context.Background(), dn, norm, tc.spec, solver.SVCParams{Margin: tc.margin, C: tc.C}, solver.Settings{Eps: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			k, _ := kernel.FromSpec(tc.spec)
			n := dn.Len()
			nsv := 0
			for _, a := range res.Alpha {
				if a > 0 {
					nsv++
				}
			}
			if m.NSV() != nsv || nsv == 0 {
				t.Fatalf("model keeps %d SVs, solver has %d", m.NSV(), nsv)
			}
			fn := m.DecisionNormalized(dn.X)
			fr := m.Decision(d.X) // raw inputs through the normaliser
			for i := 0; i < n; i++ {
				want := res.Bias
				for j := 0; j < n; j++ {
					want += res.Coef[j] * k.Eval(dn.X.RawRowView(j), dn.X.RawRowView(i))
				}
				if math.Abs(fn[i]-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("f(x_%d) = %.12g, want %.12g", i, fn[i], want)
				}
				if math.Abs(fr[i]-fn[i]) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("raw f(x_%d) = %.12g, normalised %.12g", i, fr[i], fn[i])
				}
			}
			// ‖w‖²: the solver's W2 uses the training matrix (K + I/C for
			// L2), the model's the decision kernel K.
			w2 := m.W2()
			want := res.W2
			if tc.margin == solver.L2 {
				for _, a := range res.Alpha {
					want -= a * a / tc.C
				}
			}
			if math.Abs(w2-want) > 1e-8*want {
				t.Errorf("W2 = %.10g, solver gives %.10g", w2, want)
			}
			if mg := m.Margin(); math.Abs(mg-1/math.Sqrt(w2)) > 1e-15 {
				t.Errorf("Margin %v vs 1/sqrt(W2) %v", mg, 1/math.Sqrt(w2))
			}
		})
	}
}

// TestDecisionBlocks: more rows than one block, on a non-Dense matrix, agree
// with scalar evaluation.
func TestDecisionBlocks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const n, d = 300, 3
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rnd.NormFloat64())
		}
		y[i] = 1
		if X.At(i, 0)*X.At(i, 1) < 0 {
			y[i] = -1
		}
	}
	train := &dataio.Dataset{X: X, Y: y, Labels: dataio.LabelMap{Positive: "a", Negative: "b"}}
	m, _, err := fitSVM(context.Background(), train, nil, iso(0.7), solver.SVCParams{C: 10}, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	const nt = 2*blockRows + 17
	T := mat.NewDense(nt, d, nil)
	for i := 0; i < nt; i++ {
		for j := 0; j < d; j++ {
			T.Set(i, j, 2*rnd.NormFloat64())
		}
	}
	got := m.Decision(T.T().T()) // not a *mat.Dense: the copying path
	got2 := m.Decision(T)
	k := m.KernelFunc()
	for i := 0; i < nt; i++ {
		want := m.Bias
		for _, sv := range m.SupportVectors {
			want += sv.Coef * k.Eval(sv.X, T.RawRowView(i))
		}
		if math.Abs(got[i]-want) > 1e-10*(1+math.Abs(want)) || got2[i] != got[i] {
			t.Fatalf("row %d: %v, %v, want %v", i, got[i], got2[i], want)
		}
	}
	if acc := m.Accuracy(train, true); acc < 0.9 {
		t.Errorf("XOR-like training accuracy %.3f, want ≥ 0.9", acc)
	}
	if l := m.Label(1); l != "a" {
		t.Errorf("Label(+1) = %q", l)
	}
	if l := m.Label(-1); l != "b" {
		t.Errorf("Label(-1) = %q", l)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	d := loadHeart(t)
	norm, err := dataio.FitNormalizer(dataio.MinMax01, d.X)
	if err != nil {
		t.Fatal(err)
	}
	dn := norm.ApplyDataset(d)
	// A full Q, so the file must carry the matrix.
	q := mat.NewSymDense(13, nil)
	for i := 0; i < 13; i++ {
		q.SetSym(i, i, 0.5)
		if i > 0 {
			q.SetSym(i, i-1, 0.1)
		}
	}
	qs := make([][]float64, 13)
	for i := range qs {
		qs[i] = make([]float64, 13)
		for j := range qs[i] {
			qs[i][j] = q.At(i, j)
		}
	}
	for _, margin := range []solver.Margin{solver.L1, solver.L2} {
		m, _, err := fitSVM(context.Background(), dn, norm, kernel.Spec{Kind: kernel.KindGaussian, Q: qs},
			solver.SVCParams{Margin: margin, C: 3, WeightPos: 2}, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		m.Provenance.Seed = 42
		m.Provenance.Method = "spd"
		m.Tuning = json.RawMessage(`{"method":"spd","iterations":3}`)
		path := filepath.Join(t.TempDir(), "m.json")
		if err := m.SaveFile(path); err != nil {
			t.Fatal(err)
		}
		m2, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f1, f2 := m.Decision(d.X), m2.Decision(d.X)
		for i := range f1 {
			if f1[i] != f2[i] {
				t.Fatalf("%v: decision %d: %v before save, %v after", margin, i, f1[i], f2[i])
			}
		}
		if m2.MarginKind != margin || m2.C != 3 || m2.WeightPos != 2 || m2.Provenance.Seed != 42 ||
			m2.Normalizer.Kind != dataio.MinMax01 || len(m2.Kernel.Q) != 13 || m2.Labels != m.Labels ||
			m2.NumFeatures != 13 || len(m2.FeatureNames) != 13 || m2.Training != m.Training {
			t.Errorf("%v: fields changed in the round trip:\n%+v\n%+v", margin, m, m2)
		}
		// The checksum survives the indented file and the round trip, and
		// tells a changed number.
		if !strings.HasPrefix(m2.Checksum, "sha256:") || len(m2.Checksum) != 7+64 || m2.Verify() != nil {
			t.Errorf("%v: checksum %q, Verify: %v", margin, m2.Checksum, m2.Verify())
		}
		m2.SupportVectors[0].Coef *= 1 + 1e-15
		if ce := (*ChecksumError)(nil); !errors.As(m2.Verify(), &ce) || ce.Missing {
			t.Errorf("%v: Verify after an edit: %v, want a *ChecksumError", margin, m2.Verify())
		}
		m2.SupportVectors[0].Coef = m.SupportVectors[0].Coef
		var tun map[string]any
		if err := json.Unmarshal(m2.Tuning, &tun); err != nil || tun["iterations"] != 3.0 {
			t.Errorf("tuning field: %s (%v)", m2.Tuning, err)
		}
		// Saving again gives the same bytes.
		var b1, b2 bytes.Buffer
		if err := m.Save(&b1); err != nil {
			t.Fatal(err)
		}
		if err := m2.Save(&b2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Errorf("%v: save → load → save changed the file", margin)
		}
		raw, _ := os.ReadFile(path)
		for _, key := range []string{`"format_version": 1`, `"margin": "` + margin.String() + `"`, `"q": [`, `"support_vectors": [`, `"data_sha256": "5defa0a4`} {
			if !bytes.Contains(raw, []byte(key)) {
				t.Errorf("%v: file lacks %s", margin, key)
			}
		}
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	d := loadHeart(t)
	m, _, err := fitSVM(context.Background(), d.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), nil, iso(0.5),
		solver.SVCParams{C: 1}, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("model file lacks %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	tests := []struct {
		name, file string
		sentinel   error
		msg        string
	}{
		{"version", edit(`"format_version": 1`, `"format_version": 7`), ErrVersion, "read model m.json: unsupported format_version 7 (this kerneltune reads 1, 2, 3, 4, 5 and 6)"},
		{"no version", edit(`"format_version": 1,`, ``), ErrInvalid, "read model m.json: invalid model: not a kerneltune model (no format_version)"},
		{"kind", edit(`"kind": "gaussian"`, `"kind": "polynomial"`), ErrInvalid, `read model m.json: invalid model: unknown kernel kind "polynomial" (this kerneltune knows gaussian, l1, linear)`},
		{"margin", edit(`"margin": "l1"`, `"margin": "l3"`), ErrInvalid, `unknown margin "l3"`},
		{"C", edit(`"C": 1,`, `"C": 0,`), ErrInvalid, "l1 margin with C = 0"},
		{"sv dim", edit(`"num_features": 13`, `"num_features": 12`), ErrInvalid, "13 feature names for 12 features"},
		{"not json", "hello", ErrInvalid, "not a kerneltune model"},
		{"type", edit(`"bias": `, `"bias": "x", "b": `), ErrInvalid, "field bias"},
		{"weight", edit(`"C": 1,`, `"C": 1, "weight_neg": -2,`), ErrInvalid, "weight_neg = -2, want a finite class weight > 0 (0 means 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.json")
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("error %v does not wrap %v", err, tc.sentinel)
			}
			msg := strings.ReplaceAll(err.Error(), path, "m.json")
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("error %q lacks %q", msg, tc.msg)
			}
		})
	}
	if _, err := Load(strings.NewReader(good)); err != nil {
		t.Errorf("the unedited file does not load: %v", err)
	}
}

// TestSaveFileInvalidKeepsFile: saving an invalid model fails before the
// file is touched (it used to truncate an existing model to nothing first).
func TestSaveFileInvalidKeepsFile(t *testing.T) {
	d := loadHeart(t)
	m, _, err := fitSVM(context.Background(), d.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), nil, iso(0.5),
		solver.SVCParams{C: 1}, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	m.NumFeatures = 12 // now inconsistent with the 13 feature names
	err = m.SaveFile(path)
	if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "save model "+path+": invalid model: ") {
		t.Fatalf("SaveFile of an invalid model: %v, want ErrInvalid naming the file", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) || len(after) == 0 {
		t.Fatalf("the failed save changed the file: %d bytes before, %d after", len(before), len(after))
	}
}

func TestHardMargin(t *testing.T) {
	// Separable: two points at ±1 on the first axis, linear kernel: w = (1,0),
	// b = 0, margin 1.
	sep := &dataio.Dataset{
		X:      mat.NewDense(4, 2, []float64{1, 0, 2, 1, -1, 0, -3, -1}),
		Y:      []float64{1, 1, -1, -1},
		Labels: dataio.LabelMap{Positive: "yes", Negative: "no"},
	}
	m, _, err := fitSVM(context.Background(), sep, nil, kernel.Spec{Kind: kernel.KindLinear},
		solver.SVCParams{Margin: solver.Hard}, solver.Settings{Eps: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if mg := m.Margin(); math.Abs(mg-1) > 1e-6 {
		t.Errorf("margin %v, want 1", mg)
	}
	if math.Abs(m.Bias) > 1e-6 {
		t.Errorf("bias %v, want 0", m.Bias)
	}
	if m.C != 0 || m.MarginKind != solver.Hard {
		t.Errorf("C %v margin %v", m.C, m.MarginKind)
	}
	// Not separable: the same point with both labels.
	bad := &dataio.Dataset{
		Source: "dup.csv",
		X:      mat.NewDense(3, 2, []float64{1, 1, 1, 1, 0, 0}),
		Y:      []float64{1, -1, -1},
	}
	_, _, err = fitSVM(context.Background(), bad, nil, iso(1), solver.SVCParams{Margin: solver.Hard}, solver.Settings{})
	if !errors.Is(err, solver.ErrNotSeparable) {
		t.Fatalf("error %v, want ErrNotSeparable", err)
	}
	if !strings.HasPrefix(err.Error(), "fit hard-margin SVM on dup.csv: ") {
		t.Errorf("message %q", err)
	}
}

func TestFitErrors(t *testing.T) {
	d := loadHeart(t)
	if _, _, err := fitSVM(context.Background(), d, nil, kernel.Spec{Kind: kernel.KindGaussian, Diag: []float64{1, 2}},
		solver.SVCParams{C: 1}, solver.Settings{}); err == nil || !strings.Contains(err.Error(), "2 diagonal entries of Q for 13 features") {
		t.Errorf("dimension mismatch: %v", err)
	}
	if _, _, err := fitSVM(context.Background(), d, nil, iso(1), solver.SVCParams{Margin: solver.L2}, solver.Settings{}); err == nil {
		t.Error("L2 margin with C = 0 accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := fitSVM(ctx, d, nil, iso(1), solver.SVCParams{C: 1}, solver.Settings{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: %v", err)
	}
}

func TestCompactNumberArrays(t *testing.T) {
	in := "{\n \"a\": [\n  1,\n  -2.5e-3\n ],\n \"q\": [\n  [\n   1,\n   0\n  ],\n  []\n ],\n \"s\": \"x\\\"[1,  2]\",\n \"n\": [\n  \"f1\",\n  \"f2\"\n ]\n}\n"
	want := "{\n \"a\": [1, -2.5e-3],\n \"q\": [\n  [1, 0],\n  []\n ],\n \"s\": \"x\\\"[1,  2]\",\n \"n\": [\n  \"f1\",\n  \"f2\"\n ]\n}\n"
	got := string(compactNumberArrays([]byte(in)))
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var a, b any
	if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal([]byte(got), &b) != nil {
		t.Fatal("not JSON")
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("compaction changed the value: %s vs %s", ja, jb)
	}
}

// TestSaveLayout: each support vector's point is one line of the file.
func TestSaveLayout(t *testing.T) {
	d := loadHeart(t)
	m, _, err := fitSVM(context.Background(), d, nil, iso(0.5), solver.SVCParams{C: 1}, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "\n   \"x\": ["); got != m.NSV() {
		t.Errorf("%d one-line support vectors, want %d", got, m.NSV())
	}
	if lines := strings.Count(b.String(), "\n"); lines > 5*m.NSV()+80 {
		t.Errorf("model file has %d lines for %d SVs", lines, m.NSV())
	}
}

func BenchmarkDecision(b *testing.B) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const n, d, nt = 2000, 20, 5000
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rnd.NormFloat64())
		}
		y[i] = 1
		if X.At(i, 0)+0.5*rnd.NormFloat64() < 0 {
			y[i] = -1
		}
	}
	m, _, err := fitSVM(context.Background(), &dataio.Dataset{X: X, Y: y, Labels: dataio.LabelMap{Positive: "1", Negative: "-1"}},
		nil, iso(1.0/d), solver.SVCParams{C: 1}, solver.Settings{})
	if err != nil {
		b.Fatal(err)
	}
	T := mat.NewDense(nt, d, nil)
	for i := 0; i < nt; i++ {
		for j := 0; j < d; j++ {
			T.Set(i, j, rnd.NormFloat64())
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Decision(T)
	}
	b.ReportMetric(float64(m.NSV()), "SVs")
}
