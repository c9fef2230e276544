package probability

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// reference is testdata/reference.json, written by
// testdata/transcribe_libsvm.py, an independent Python transcription of
// LIBSVM 3.24's sigmoid_train, sigmoid_predict and multiclass_probability.
type reference struct {
	Sigmoid []struct {
		Name string
		Dec  []float64
		Y    []float64
		A, B float64
		Iter int
		P    []float64
	}
	Couple []struct {
		Name string
		R    [][]float64
		P    []float64
		Iter int
	}
}

func readReference(t *testing.T) reference {
	t.Helper()
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Sigmoid) < 6 || len(ref.Couple) < 5 {
		t.Fatalf("reference.json has %d sigmoid and %d coupling cases", len(ref.Sigmoid), len(ref.Couple))
	}
	return ref
}

// TestFitTranscription: the sigmoid fit agrees with the Python
// transcription of sigmoid_train to 1e-6 (the bound; in fact to
// rounding), with the same number of Newton iterations.
func TestFitTranscription(t *testing.T) {
	for _, c := range readReference(t).Sigmoid {
		t.Run(c.Name, func(t *testing.T) {
			r := Fit(c.Dec, c.Y)
			if math.Abs(r.A-c.A) > 1e-6 || math.Abs(r.B-c.B) > 1e-6 {
				t.Errorf("A, B = %.12g, %.12g, want %.12g, %.12g", r.A, r.B, c.A, c.B)
			}
			if r.Iter != c.Iter || r.Status != "converged" {
				t.Errorf("%d iterations (%s), the transcription %d", r.Iter, r.Status, c.Iter)
			}
			for i, f := range c.Dec {
				if p := r.Predict(f); math.Abs(p-c.P[i]) > 1e-9 {
					t.Errorf("P(+1 | %g) = %.12g, want %.12g", f, p, c.P[i])
				}
			}
		})
	}
}

// TestFitHand: hand-checkable facts of the fit. One class only: the
// targets are all (N+1)/(N+2), which the start point A = 0, B =
// log(1/(N+1)) already meets. Constant decision values: A stays 0 and
// 1/(1+e^B) is the mean target.
func TestFitHand(t *testing.T) {
	r := Fit([]float64{-1, 0, 2}, []float64{1, 1, 1})
	if r.A != 0 || math.Abs(r.B-math.Log(1.0/4)) > 1e-15 || r.Iter != 0 {
		t.Errorf("one class: %+v, want A = 0, B = log(1/4), no iteration", r)
	}
	y := []float64{1, -1, 1, 1}
	r = Fit(make([]float64, 4), y)
	mean := (3*(4.0/5) + 1.0/3) / 4
	if math.Abs(r.A) > 1e-12 || math.Abs(r.Predict(0)-mean) > 1e-6 {
		t.Errorf("constant f: A = %g, p = %.9g, want 0 and the mean target %.9g", r.A, r.Predict(0), mean)
	}
}

// TestPredictStable: no NaN or loss of the small side at extreme f.
func TestPredictStable(t *testing.T) {
	s := Sigmoid{A: -2, B: 0.1}
	for _, f := range []float64{-1e6, -400, -1, 0, 1, 400, 1e6} {
		p := s.Predict(f)
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Errorf("Predict(%g) = %g", f, p)
		}
	}
	if p := s.Predict(400); p != 1 {
		t.Errorf("Predict(400) = %g, want 1", p)
	}
	if p := s.Predict(-300); !(p > 0 && p < 1e-250) {
		t.Errorf("Predict(-300) = %g, want a tiny positive number", p)
	}
}

// TestCoupleTranscription: Couple agrees with the transcription of
// multiclass_probability to rounding, in the same sweeps.
func TestCoupleTranscription(t *testing.T) {
	for _, c := range readReference(t).Couple {
		t.Run(c.Name, func(t *testing.T) {
			p, iter := Couple(nil, c.R)
			if iter != c.Iter {
				t.Errorf("%d sweeps, the transcription %d", iter, c.Iter)
			}
			for i := range p {
				if math.Abs(p[i]-c.P[i]) > 1e-12 {
					t.Errorf("p = %v, want %v", p, c.P)
					break
				}
			}
		})
	}
}

// TestCoupleHand: r consistent with some p (r_ij = p_i/(p_i+p_j)) makes p
// the minimiser of pᵀQp (Qp = 0), which the iteration reaches within its
// tolerance; all r = ½ gives 1/k at once.
func TestCoupleHand(t *testing.T) {
	want := []float64{0.5, 0.25, 0.15, 0.1}
	k := len(want)
	r := make([][]float64, k)
	for i := range r {
		r[i] = make([]float64, k)
		for j := range r[i] {
			if i != j {
				r[i][j] = want[i] / (want[i] + want[j])
			}
		}
	}
	p, _ := Couple(nil, r)
	sum := 0.0
	for i := range p {
		sum += p[i]
		if math.Abs(p[i]-want[i]) > 5e-3 {
			t.Errorf("p = %v, want about %v", p, want)
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("Σp = %.15g", sum)
	}
	half := [][]float64{{0, .5, .5}, {.5, 0, .5}, {.5, .5, 0}}
	if p, it := Couple(nil, half); it != 0 || p[0] != 1.0/3 || p[2] != 1.0/3 {
		t.Errorf("r = ½: p = %v after %d sweeps, want 1/3 at once", p, it)
	}
}

// TestClasses: two classes give (r_01, 1-r_01), clipped at MinProb; three
// go through Couple.
func TestClasses(t *testing.T) {
	s := Sigmoid{A: -1, B: 0}
	p := Classes(nil, 2, []float64{0}, []Sigmoid{s})
	if p[0] != 0.5 || p[1] != 0.5 {
		t.Errorf("f = 0: %v", p)
	}
	p = Classes(nil, 2, []float64{1e6}, []Sigmoid{s})
	if hi := 1 - MinProb; p[0] != hi || p[1] != 1-hi {
		t.Errorf("f = 1e6: %v, want clipped at 1-1e-7", p)
	}
	sig := []Sigmoid{s, s, s}
	p = Classes(nil, 3, []float64{2, 2, 0}, sig)
	if !(p[0] > 0.7 && math.Abs(p[1]-p[2]) < 5e-3) || math.Abs(p[0]+p[1]+p[2]-1) > 1e-12 {
		t.Errorf("class 0 beats 1 and 2, which about tie: %v", p)
	}
}

// TestCV: the permutation's folds, LIBSVM's fold bounds, the one-class
// rules and the order of the rows handed to train.
func TestCV(t *testing.T) {
	y := []float64{1, 1, 1, 1, 1, 1, 1, -1, 1, 1, 1}
	var calls [][2][]int
	dec, err := CV(context.Background(), y, rand.New(rand.NewPCG(1, 2)), func(_ context.Context, train, test []int) ([]float64, error) {
		calls = append(calls, [2][]int{slices.Clone(train), slices.Clone(test)})
		out := make([]float64, len(test))
		for i := range out {
			out[i] = 0.25
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 11 rows: folds of 2, 2, 2, 2, 3 rows; the fold holding the one -1
	// row is trained on +1 rows only and gets 1, the others 0.25.
	neg := slices.Index(y, -1)
	for i, v := range dec {
		if i == neg && v != 1 || i != neg && v != 0.25 && v != 1 {
			t.Errorf("dec[%d] = %g", i, v)
		}
	}
	if len(calls) != Folds-1 {
		t.Fatalf("%d SVMs trained, want %d (one fold lacks the -1 class)", len(calls), Folds-1)
	}
	seen := map[int]bool{}
	for _, c := range calls {
		if len(c[0])+len(c[1]) != len(y) {
			t.Errorf("fold split %d + %d rows", len(c[0]), len(c[1]))
		}
		for _, i := range c[1] {
			seen[i] = true
		}
	}
	if len(seen)+3 < len(y) || len(seen) > len(y)-2 {
		t.Errorf("held-out rows %v", seen)
	}
}

// TestCVFewerRowsThanFolds: with fewer rows than folds some folds hold no
// row; they train nothing (a 3-row set panicked on an empty prediction),
// and every row still gets its value.
func TestCVFewerRowsThanFolds(t *testing.T) {
	y := []float64{1, 1, -1}
	calls := 0
	dec, err := CV(context.Background(), y, rand.New(rand.NewPCG(1, 2)), func(_ context.Context, train, test []int) ([]float64, error) {
		if len(test) == 0 {
			t.Fatal("train called for an empty fold")
		}
		calls++
		return make([]float64, len(test)), nil
	})
	if err != nil || len(dec) != 3 || calls > 3 {
		t.Fatalf("dec %v, %d SVMs, %v", dec, calls, err)
	}
}

// TestFitLIBSVMDecisionValues: on the decision values svm-train -b 1 (LIBSVM
// 3.24) fitted its sigmoids to — heart_scale, and every pair of iris and
// wine, reconstructed by testdata/libsvm-prob/reconstruct.py, which replays
// svm-train's unseeded rand() and checks the replay against svm-train's own
// model — Fit gives svm-train's probA and probB to 1e-6 (the bound).
func TestFitLIBSVMDecisionValues(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/libsvm-prob/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Sets []struct {
			Name  string
			Pairs []struct {
				Dec   []float64
				Y     []float64
				ProbA float64 `json:"libsvm_probA"`
				ProbB float64 `json:"libsvm_probB"`
			}
		}
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	n, worst := 0, 0.0
	for _, set := range golden.Sets {
		for p, pair := range set.Pairs {
			wantA, wantB := pair.ProbA, pair.ProbB
			r := Fit(pair.Dec, pair.Y)
			if math.Abs(r.A-wantA) > 1e-6 || math.Abs(r.B-wantB) > 1e-6 || r.Status != "converged" {
				t.Errorf("%s pair %d: A, B = %.12g, %.12g (%s), svm-train %.12g, %.12g", set.Name, p+1, r.A, r.B, r.Status, wantA, wantB)
			}
			worst = max(worst, math.Abs(r.A-wantA), math.Abs(r.B-wantB))
			n++
		}
	}
	t.Logf("%d sigmoids, largest |ΔA|, |ΔB| against svm-train: %.3g", n, worst)
	if n != 7 {
		t.Errorf("%d sigmoids checked, want 7 (heart, 3 pairs of iris, 3 of wine)", n)
	}
}
