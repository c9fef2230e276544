package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wideSparse is a hashed-feature-shaped file: 60 rows, 2,000,000
// features, 601 non-zeros (testdata/PROVENANCE.md).
const wideSparse = cmdTestdata + "/sparse/wide.svm"

// info, train and predict on a file whose dimension is far above its
// non-zeros give the outputs they gave when the reader, the statistics
// and the normaliser cost O(features) (every number below is the
// kerneltune of main before, at b83d5c5; the predictions are its
// testdata/sparse/wide-predict.csv), and the model stores the normaliser
// of the features set only: 12 MB before, of which the shifts and scales
// of 2 million features.
func TestWideSparseFile(t *testing.T) {
	out := mustRun(t, "info", wideSparse)
	for _, want := range []string{
		"│ features          │ 2000000 ",
		"│ storage           │ sparse (compressed rows): 601 non-zeros, 0.000501% of the values │",
		"│ value range       │ [0, 3] ",
		"│ constant features │ 1,999,516 never set (zero in every row); 1: 1000003 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info: no %q in\n%s", want, out)
		}
	}

	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	var tr struct {
		Features   int      `json:"features"`
		Normalize  string   `json:"normalize"`
		Obj        float64  `json:"obj"`
		Rho        float64  `json:"rho"`
		Iterations int      `json:"iterations"`
		NSV        int      `json:"n_sv"`
		Notes      []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "train", wideSparse, "-g", "0.5", "-c", "4", "--format", "json", "-o", model)), &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Features != 2000000 || tr.Normalize != "maxabs" || tr.Obj != -29.975166024929724 || tr.Rho != -0.00014021671589273106 || tr.Iterations != 46 || tr.NSV != 60 ||
		len(tr.Notes) != 1 || tr.Notes[0] != "1 feature(s) constant on the training part (only shifted): f1000003" {
		t.Errorf("train: %+v", tr)
	}
	st, err := os.Stat(model)
	if err != nil || st.Size() > 200<<10 {
		t.Fatalf("model file: %v, %d bytes", err, st.Size())
	}
	var m struct {
		FormatVersion int `json:"format_version"`
		Normalizer    struct {
			Kind       string    `json:"kind"`
			Shift      []float64 `json:"shift"`
			Features   int       `json:"features"`
			Index      []int32   `json:"index"`
			IndexShift []float64 `json:"index_shift"`
		} `json:"normalizer"`
		FeatureNames []string `json:"feature_names"`
	}
	raw, _ := os.ReadFile(model)
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	// The 484 features set but the 90 whose largest |value| is 1, feature
	// 1000003 shifted by its constant 3 (0-based 1000002).
	nz := m.Normalizer
	if m.FormatVersion != 6 || nz.Kind != "maxabs" || nz.Shift != nil || nz.Features != 2000000 || len(nz.Index) != 394 || m.FeatureNames != nil {
		t.Fatalf("the model: format_version %d; its normaliser: %s, %d shifts, %d features, %d indexed; %d names", m.FormatVersion, nz.Kind, len(nz.Shift), nz.Features, len(nz.Index), len(m.FeatureNames))
	}
	for k, j := range nz.Index {
		if (j == 1000002) != (nz.IndexShift[k] == 3) || (j != 1000002 && nz.IndexShift[k] != 0) {
			t.Errorf("the model's normaliser shifts feature %d by %v", j+1, nz.IndexShift[k])
		}
	}
	// A kerneltune that reads version 5 (v0.2.0) refuses the file by its
	// version; this one refuses it called version 5, by what it holds.
	v5 := filepath.Join(dir, "v5.json")
	if err := os.WriteFile(v5, bytes.Replace(raw, []byte(`"format_version": 6`), []byte(`"format_version": 5`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "predict", v5, wideSparse, "--ignore-checksum"); code == 0 || !strings.Contains(errOut, "a normaliser in its sparse form in a format_version 5 file (it needs 6)") {
		t.Errorf("predict a version-5 file with a sparse normaliser: exit %d, %s", code, errOut)
	}
	want, err := os.ReadFile(cmdTestdata + "/sparse/wide-predict.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, "predict", model, wideSparse, "--format", "csv"); got != string(want) {
		t.Errorf("predict: the decision values differ from before:\n%s", got)
	}
	out, errOut, code := runCLI(t, "predict", model, wideSparse)
	if code != 0 || !strings.Contains(out, "│   60 │      60 │  100.00% │") || !strings.Contains(out, "all 60 rows of "+wideSparse+" were training rows of the model") {
		t.Errorf("predict: exit %d\n%s%s", code, out, errOut)
	}

	if err := json.Unmarshal([]byte(mustRun(t, "train", wideSparse, "-g", "0.5", "-c", "4", "--normalize", "none", "--format", "json")), &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Obj != -30.04087222565645 || tr.Rho != -0.01369230094637567 || tr.Iterations != 84 || tr.NSV != 60 {
		t.Errorf("train --normalize none: %+v", tr)
	}
}
