package report

import (
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// A best row ("name *") is marked and keeps its star; the preface comes
// before the notes.
func TestHTMLTable(t *testing.T) {
	h := htmlTable(&Table{
		Preface: []string{"WARNING: incomplete"},
		Header:  []string{"method", "acc"},
		Rows:    [][]string{{"svm", "80"}, {"spd *", "85"}, {}},
		Notes:   []string{"* best"},
	})
	if want := []bool{false, true, false}; !slices.Equal(h.Mark, want) {
		t.Errorf("marks %v, want %v", h.Mark, want)
	}
	if h.Rows[1][0] != "spd *" {
		t.Errorf("star dropped: %q", h.Rows[1][0])
	}
	if want := []string{"WARNING: incomplete", "* best"}; !slices.Equal(h.Notes, want) {
		t.Errorf("notes %q, want %q", h.Notes, want)
	}
}

func TestFigureCaption(t *testing.T) {
	for _, tc := range []struct {
		nf   NamedFigure
		want string
	}{
		{NamedFigure{Name: "heart-spd-trace", Dataset: "heart", Entry: "spd"}, "spd on heart: the criterion per iteration, each partition thin, their median bold."},
		{NamedFigure{Name: "other"}, "other"},
	} {
		if got := figureCaption(tc.nf, metrics.Accuracy); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.nf.Name, got, tc.want)
		}
	}
}

func TestCrossTablesNil(t *testing.T) {
	if ts := CrossTables(nil); ts != nil {
		t.Errorf("CrossTables(nil) = %v, want nil", ts)
	}
}
