package dataio

import (
	"slices"
	"strings"
	"testing"
)

// One-vs-rest reads the scheme into the data set, makes k problems of
// class c against every other row, and combines them by the largest
// decision value, a tie going to the class first in the label order.
func TestOneVsRestSubproblems(t *testing.T) {
	in := "1,2,b\n3,4,a\n5,6,c\n7,8,b\n9,9,a\n"
	d, err := LoadReader(strings.NewReader(in), "x.csv", ReadOptions{Multiclass: OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	if d.Multiclass != OneVsRest || !slices.Equal(d.ClassLabels, []string{"b", "a", "c"}) {
		t.Fatalf("Multiclass %q, classes %q", d.Multiclass, d.ClassLabels)
	}
	sp := d.Subproblems()
	if !slices.Equal(sp, []Subproblem{{0, Rest}, {1, Rest}, {2, Rest}}) {
		t.Fatalf("Subproblems = %v", sp)
	}
	a := d.Sub(sp[1]) // "a" against "b", "c"
	if !slices.Equal(a.Y, []float64{-1, 1, -1, -1, 1}) || a.Len() != 5 || a.MultiClass() || a.Multiclass != "" {
		t.Errorf("Sub(a) Y = %v, %d rows, multi-class %v", a.Y, a.Len(), a.MultiClass())
	}
	if want := (LabelMap{Positive: "a", Negative: "not a", OneVsRest: true}); a.Labels != want {
		t.Errorf("Sub(a) labels %+v, want %+v", a.Labels, want)
	}
	if got := SubName(d.ClassLabels, sp[2]); got != `class "c" against the rest` {
		t.Errorf("SubName = %s", got)
	}
	// A subset keeps the scheme (a partition's training part).
	if s := d.Subset([]int{0, 1, 2}); s.Multiclass != OneVsRest {
		t.Errorf("Subset lost the scheme: %q", s.Multiclass)
	}
	// One-vs-one data keeps the zero value and LIBSVM's pairs.
	o, err := LoadReader(strings.NewReader(in), "x.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Multiclass != "" || !slices.Equal(o.Subproblems(), []Subproblem{{0, 1}, {0, 2}, {1, 2}}) {
		t.Errorf("ovo: Multiclass %q, Subproblems %v", o.Multiclass, o.Subproblems())
	}
	if p := o.Sub(Subproblem{0, 2}); !slices.Equal(p.Y, []float64{1, 1, -1}) || p.Labels.Negative != "c" {
		t.Errorf("ovo Sub(b, c) Y = %v labels %+v", p.Y, p.Labels)
	}
}

func TestCombineArgmaxTies(t *testing.T) {
	// Rows: a clear winner (class 2); a tie of classes 1 and 2 at the top
	// (1 wins: first in label order); all three equal (0); all negative,
	// the least negative wins (1); a tie of 0 and 2 (0).
	dec := [][]float64{
		{-1, -0.5, 0.25, -3, 0.7},
		{-0.2, 0.4, 0.25, -0.1, 0.1},
		{0.9, 0.4, 0.25, -2, 0.7},
	}
	if got, want := Combine(dec, 3, OneVsRest), []int{2, 1, 0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("Combine ovr = %v, want %v", got, want)
	}
	// The same numbers as one-vs-one pairs (0,1), (0,2), (1,2) vote.
	if got, want := Combine(dec, 3, ""), []int{1, 1, 0, 2, 0}; !slices.Equal(got, want) {
		t.Errorf("Combine ovo = %v, want %v", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("Combine with 2 rows for 3 classes one-vs-rest did not panic")
		}
	}()
	Combine(dec[:2], 3, OneVsRest)
}
