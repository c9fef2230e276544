package dataio

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Duplicate and conflicting rows as counted in PROVENANCE.md.
func TestDescribeSuppliedData(t *testing.T) {
	cases := []struct {
		path         string
		opts         ReadOptions
		dup, confVec int
		constant     []int
		splits       int
	}{
		{"ida/breast-cancer", ReadOptions{}, 20, 6, []int{}, 10},
		{"ida/banana", ReadOptions{}, 0, 0, []int{}, 10},
		{"libsvm/breast-cancer_scale", ReadOptions{}, 8, 0, []int{}, 0},
		{"uci/bupa.data", ReadOptions{}, 4, 0, []int{}, 0},
		// a1a: 14 vectors with both labels (PROVENANCE.md); features that never
		// occur in a1a are constant zeros, 120..123 among them.
		{"libsvm/a1a", ReadOptions{Features: 123}, 47, 14, []int{12, 60, 89, 96, 111, 116, 120, 121, 122, 123}, 0},
	}
	for _, c := range cases {
		d, err := Load(filepath.Join(td, c.path), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		s := Describe(d)
		if c.dup >= 0 && s.DuplicateRows != c.dup {
			t.Errorf("%s: %d duplicate rows, want %d", c.path, s.DuplicateRows, c.dup)
		}
		if c.confVec >= 0 && s.ConflictingVectors != c.confVec {
			t.Errorf("%s: %d vectors with both labels, want %d", c.path, s.ConflictingVectors, c.confVec)
		}
		if !slices.Equal(s.Constant, c.constant) {
			t.Errorf("%s: constant features %v, want %v", c.path, s.Constant, c.constant)
		}
		if len(s.Splits) != c.splits || len(s.Stats) != d.Dim() || s.Rows != d.Len() {
			t.Errorf("%s: %d splits, %d stats, %d rows", c.path, len(s.Splits), len(s.Stats), s.Rows)
		}
		t.Logf("%s: dup %d, conflicting %d vectors / %d rows, constant %v", c.path, s.DuplicateRows, s.ConflictingVectors, s.ConflictingRows, s.Constant)
	}
}

func TestDescribeSmall(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("a,b,c,y\n1,0,5,1\n1,0,5,2\n1,0,5,2\n2,-0,5,1\n3,0,5,1\n"), "x.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := Describe(d)
	// Rows 1-3 share x (1,0,5) with labels 1,2,2 → 2 duplicates, 1 conflicting
	// vector on 3 rows; b (all zero, one -0) and c are constant.
	if s.DuplicateRows != 2 || s.ConflictingVectors != 1 || s.ConflictingRows != 3 || !slices.Equal(s.Constant, []int{2, 3}) {
		t.Errorf("got %+v", s)
	}
	if st := s.Stats[0]; st.Name != "a" || st.Min != 1 || st.Max != 3 || st.Mean != 1.6 {
		t.Errorf("stats %+v", st)
	}
}
