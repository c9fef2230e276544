package model

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

// TestFitWidth: data narrower than the model is padded with zero features
// under FeaturesPad, wider data truncated under FeaturesTruncate, each with
// a note; otherwise the error names both widths and the setting.
func TestFitWidth(t *testing.T) {
	d := &dataio.Dataset{X: mat.NewDense(2, 2, []float64{1, 2, 3, 4}), Y: []float64{1, -1}, FeatureNames: []string{"a", "b"}, Format: "libsvm"}
	p, note, err := fitWidth(d, 3, "d.txt", PredictSettings{Features: FeaturesPad, ModelFile: "m.json"})
	if err != nil || !reflect.DeepEqual(p.X.RawRowView(1), []float64{3, 4, 0}) || !reflect.DeepEqual(p.FeatureNames, []string{"a", "b", "f3"}) ||
		!strings.Contains(note.String(), "features 3-3 are read as 0 (features=pad)") || !slices.Contains(note, any(hint.S("features", "pad"))) {
		t.Errorf("pad: %v, %q, %v", p, note, err)
	}
	tr, note, err := fitWidth(d, 1, "d.txt", PredictSettings{Features: FeaturesTruncate, ModelFile: "m.json"})
	if err != nil || !reflect.DeepEqual(tr.X.RawRowView(1), []float64{3}) || !strings.Contains(note.String(), "features 2-2 are dropped") {
		t.Errorf("truncate: %v, %q, %v", tr, note, err)
	}
	_, _, err = fitWidth(d, 3, "d.txt", PredictSettings{ModelFile: "m.json"})
	if err == nil || !strings.Contains(err.Error(), "predict: d.txt has 2 features, the model m.json was trained on 3 (a LIBSVM file need not mention") {
		t.Errorf("no setting: %v", err)
	}
}
