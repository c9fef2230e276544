package model

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/solver"
)

// WritePrecomputed writes LIBSVM's -t 4 rows with every value and the
// diagonal shift on training rows only; ReadPrecomputed reads them back
// bit for bit.
func TestPrecomputedRoundTrip(t *testing.T) {
	K := mat.NewDense(2, 3, []float64{1, 0, -0.1, 0.3, 1.0 / 3, 0})
	var b strings.Builder
	if err := WritePrecomputed(&b, K, []float64{1, -1}, 0); err != nil {
		t.Fatal(err)
	}
	want := "+1 0:1 1:1 2:0 3:-0.10000000000000001\n-1 0:2 1:0.29999999999999999 2:0.33333333333333331 3:0\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	got, y, err := ReadPrecomputed(strings.NewReader(b.String()), "k.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, K) || y[0] != 1 || y[1] != -1 {
		t.Errorf("read back %v, %v", mat.Formatted(got), y)
	}

	b.Reset()
	S := mat.NewDense(2, 2, []float64{1, 0.5, 0.5, 1})
	if err := WritePrecomputed(&b, S, nil, 4); err != nil {
		t.Fatal(err)
	}
	if want := "0 0:1 1:5 2:0.5\n0 0:2 1:0.5 2:5\n"; b.String() != want {
		t.Errorf("shifted: got %q, want %q", b.String(), want)
	}
}

func TestReadPrecomputedErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"+1 1:1 2:0\n", "k.txt:1: the first pair must be 0:serial"},
		{"+1 0:1 1:1 2:0\n-1 0:2 1:1\n", "k.txt:2: 1 kernel values, line 1 has 2"},
		{"+1 0:1 1:1 3:0\n", `k.txt:1: token "3:0": want index 2`},
		{"+1 0:1 1:1 2:x\n", `"x" is not a finite number`},
		{"a 0:1 1:1\n", `label "a" is not a number`},
		{"\n", "k.txt: no kernel rows"},
	} {
		if _, _, err := ReadPrecomputed(strings.NewReader(tc.text), "k.txt"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

// HardC is the model's C for the L1 margin, and a power of ten at least 1000
// times the largest α otherwise.
func TestHardC(t *testing.T) {
	m := &Model{MarginKind: solver.L1, C: 2.5, SupportVectors: []SupportVector{{Coef: 2.5}}}
	if got := m.HardC(); got != 2.5 {
		t.Errorf("l1: %v", got)
	}
	for _, tc := range []struct {
		margin solver.Margin
		coef   []float64
		want   float64
	}{
		{solver.L2, []float64{0.02, -0.07}, 100},
		{solver.Hard, []float64{-3, 12.5}, 1e5},
		{solver.Hard, []float64{1}, 1000},
	} {
		m := &Model{MarginKind: tc.margin, C: 1}
		for _, c := range tc.coef {
			m.SupportVectors = append(m.SupportVectors, SupportVector{Coef: c})
		}
		if got := m.HardC(); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%v %v: HardC %v, want %v", tc.margin, tc.coef, got, tc.want)
		}
	}
}
