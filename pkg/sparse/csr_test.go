package sparse

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func example() *mat.Dense {
	return mat.NewDense(3, 5, []float64{
		0, 2, 0, 0, -3,
		0, 0, 0, 0, 0,
		1.5, 0, 0, 4, 0,
	})
}

func TestFromDenseRoundTrip(t *testing.T) {
	d := example()
	s := FromDense(d)
	if r, c := s.Dims(); r != 3 || c != 5 {
		t.Fatalf("Dims = %d×%d, want 3×5", r, c)
	}
	if s.NNZ() != 4 {
		t.Fatalf("NNZ = %d, want 4", s.NNZ())
	}
	if got, want := s.Density(), 4.0/15; got != want {
		t.Errorf("Density = %v, want %v", got, want)
	}
	if !mat.Equal(s.ToDense(), d) {
		t.Errorf("ToDense = %v, want %v", mat.Formatted(s.ToDense()), mat.Formatted(d))
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 5; j++ {
			if s.At(i, j) != d.At(i, j) {
				t.Errorf("At(%d, %d) = %v, want %v", i, j, s.At(i, j), d.At(i, j))
			}
		}
	}
	if got := s.T().At(4, 0); got != -3 {
		t.Errorf("T().At(4, 0) = %v, want -3", got)
	}
	if got := s.Bytes(); got != 8*4+12*4 {
		t.Errorf("Bytes = %d, want 80", got)
	}
}

func TestSelectRowsDotNorms(t *testing.T) {
	s := FromDense(example())
	sub := s.SelectRows([]int{2, 0, 2})
	want := mat.NewDense(3, 5, []float64{1.5, 0, 0, 4, 0, 0, 2, 0, 0, -3, 1.5, 0, 0, 4, 0})
	if !mat.Equal(sub.ToDense(), want) {
		t.Fatalf("SelectRows = %v", mat.Formatted(sub.ToDense()))
	}
	if got := Dot(s, 0, sub, 1); got != 13 {
		t.Errorf("Dot(row 0, row 0) = %v, want 13", got)
	}
	if got := Dot(s, 0, s, 2); got != 0 {
		t.Errorf("Dot(row 0, row 2) = %v, want 0", got)
	}
	if got := s.RowSquaredNorms(); got[0] != 13 || got[1] != 0 || got[2] != 18.25 {
		t.Errorf("RowSquaredNorms = %v, want [13 0 18.25]", got)
	}
	if got := s.ColumnMaxAbs(); got[0] != 1.5 || got[1] != 2 || got[2] != 0 || got[4] != 3 {
		t.Errorf("ColumnMaxAbs = %v", got)
	}
	if got := s.ColumnNNZ(); got[0] != 1 || got[2] != 0 || got[3] != 1 {
		t.Errorf("ColumnNNZ = %v", got)
	}
	c := FromDense(example())
	c.ScaleColumns([]float64{2, 0.5, 1, 0.25, -1})
	if got := c.RowTo(2, nil); got[0] != 3 || got[3] != 1 {
		t.Errorf("ScaleColumns row 2 = %v, want [3 0 0 1 0]", got)
	}
	if got := c.RowTo(0, make([]float64, 5)); got[1] != 1 || got[4] != 3 {
		t.Errorf("ScaleColumns row 0 = %v, want [0 1 0 0 3]", got)
	}
}

func TestNewRefusesMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		r, c int
		ptr  []int
		ind  []int32
		val  []float64
	}{
		{"short ptr", 2, 3, []int{0, 1}, []int32{0}, []float64{1}},
		{"descending columns", 1, 3, []int{0, 2}, []int32{2, 1}, []float64{1, 1}},
		{"repeated column", 1, 3, []int{0, 2}, []int32{1, 1}, []float64{1, 1}},
		{"column out of range", 1, 3, []int{0, 1}, []int32{3}, []float64{1}},
		{"values and indices differ", 1, 3, []int{0, 1}, []int32{0}, []float64{1, 2}},
		{"decreasing pointers", 2, 3, []int{0, 2, 1}, []int32{0}, []float64{1}},
	} {
		if _, err := New(tc.r, tc.c, tc.ptr, tc.ind, tc.val); !errors.Is(err, ErrShape) {
			t.Errorf("%s: err = %v, want ErrShape", tc.name, err)
		}
	}
	m, err := New(2, 3, []int{0, 1, 2}, []int32{2, 0}, []float64{math.Pi, -1})
	if err != nil {
		t.Fatal(err)
	}
	if m.At(0, 2) != math.Pi || m.At(1, 0) != -1 || m.At(1, 2) != 0 {
		t.Errorf("New: At = %v %v %v", m.At(0, 2), m.At(1, 0), m.At(1, 2))
	}
}
