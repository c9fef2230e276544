package dataio

import "testing"

// A label column given by a name that several columns carry is ambiguous:
// an error listing them, not silently the first (which it used to be).
func TestLabelColByName(t *testing.T) {
	data := []byte("a,A,label\n1,2,1\n3,4,2\n")
	for _, tc := range []struct {
		spec, err string
		dim       int
	}{
		{"label", "", 2},
		{"LABEL", "", 2},
		{"a", "", 2}, // exact match beats the case-insensitive one
		{"b", `read t.csv: no column named "b" (columns: a, A, label)`, 0},
	} {
		d, err := readBytes(data, "t.csv", ReadOptions{LabelCol: tc.spec})
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%q: err = %v, want %q", tc.spec, err, tc.err)
		case tc.err == "" && (err != nil || d.Dim() != tc.dim):
			t.Errorf("%q: %v", tc.spec, err)
		}
	}
	dup := []byte("a,a,label\n1,2,x\n3,4,y\n")
	for _, spec := range []string{"a", "A"} {
		_, err := readBytes(dup, "t.csv", ReadOptions{LabelCol: spec})
		if want := `read t.csv: 2 columns are named "` + spec + `" (columns 1, 2): give the label column by number`; err == nil || err.Error() != want {
			t.Errorf("%q: err = %v, want %q", spec, err, want)
		}
	}
}
