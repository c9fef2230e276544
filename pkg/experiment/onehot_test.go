package experiment

import (
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// The wrapper fits on the training rows only: "blue" is in the test part.
func TestEncodeNominalPartition(t *testing.T) {
	d, err := dataio.LoadReader(strings.NewReader("c,x,y\nred,1,a\ngreen,2,b\nred,3,a\nblue,4,b\n"), "s.csv", dataio.ReadOptions{Categorical: "codes"})
	if err != nil {
		t.Fatal(err)
	}
	src := EncodeNominal(&SplitSource{Data: d, Splits: []dataio.Split{{Train: []int{0, 1, 2}, Test: []int{3}}}}, d)
	tr, te, err := src.Partition(0)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Dim() != 3 || te.Dim() != 3 || te.X.At(0, 0) != 0 || te.X.At(0, 1) != 0 || te.X.At(0, 2) != 4 {
		t.Errorf("partition: train %d features, test row %v; want 3 and [0 0 4]", tr.Dim(), te.X.RawRowView(0))
	}
	// Data without nominal features are not wrapped.
	num, err := dataio.LoadReader(strings.NewReader("x,y\n1,a\n2,b\n"), "n.csv", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain := &SplitSource{Data: num}
	if EncodeNominal(plain, num) != Source(plain) {
		t.Error("a source without nominal features was wrapped")
	}
}
