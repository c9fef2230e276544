package dataio

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

func TestTextLikeShape(t *testing.T) {
	d := TextLike(2000, 47236, 60, rand.New(rand.NewPCG(1, 2)))
	if !d.IsSparse() || d.X != nil {
		t.Fatal("TextLike is not held sparse")
	}
	n, p := d.Dims()
	if n != 2000 || p != 47236 || d.Len() != 2000 || d.Dim() != 47236 {
		t.Fatalf("shape %d×%d (Len %d, Dim %d), want 2000×47236", n, p, d.Len(), d.Dim())
	}
	perRow := float64(d.Sparse.NNZ()) / 2000
	if perRow < 45 || perRow > 75 {
		t.Errorf("%.1f non-zeros a row, want about 60", perRow)
	}
	pos := 0
	for i, v := range d.Sparse.RowSquaredNorms() {
		if math.Abs(v-1) > 1e-12 {
			t.Fatalf("row %d has squared norm %v, want 1", i, v)
		}
		if d.Y[i] > 0 {
			pos++
		}
	}
	if pos < 900 || pos > 1100 {
		t.Errorf("%d of 2000 rows are +1, want about half", pos)
	}
	// The same seed gives the same data.
	e := TextLike(2000, 47236, 60, rand.New(rand.NewPCG(1, 2)))
	if e.Sparse.NNZ() != d.Sparse.NNZ() || e.Sparse.Val[1234] != d.Sparse.Val[1234] {
		t.Error("TextLike is not deterministic for a seed")
	}
}

func TestTextLikeLIBSVMRoundTrip(t *testing.T) {
	d := TextLike(50, 300, 10, rand.New(rand.NewPCG(3, 4)))
	var buf bytes.Buffer
	if err := WriteLIBSVM(&buf, d); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLIBSVM(bytes.NewReader(buf.Bytes()), "text", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Dim() != 300 || back.Len() != 50 {
		t.Fatalf("read back %d×%d, want 50×300", back.Len(), back.Dim())
	}
	for i := 0; i < 50; i++ {
		want := d.Sparse.RowTo(i, nil)
		for j, v := range want {
			if back.Features().At(i, j) != v {
				t.Fatalf("(%d, %d) = %v, want %v", i, j, back.Features().At(i, j), v)
			}
		}
		if back.Y[i] != d.Y[i] {
			t.Fatalf("label %d = %v, want %v", i, back.Y[i], d.Y[i])
		}
	}
	sub := d.Subset([]int{7, 3})
	if !sub.IsSparse() || sub.Len() != 2 || sub.Dim() != 300 || sub.Sparse.At(1, int(d.Sparse.Ind[d.Sparse.Ptr[3]])) == 0 {
		t.Error("Subset of sparse data lost its rows")
	}
}
