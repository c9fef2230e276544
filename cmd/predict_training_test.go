package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPredictCountsTrainingRows: a model records a hash of each training
// row, so predict on data that holds them (the README's tour: tune on 70% of
// heart, predict on all of heart) counts them and scores the others. The
// others are exactly tune's test part: 68 of 81 correct, 83.95%, where the
// whole file gives the flattering 85.56%.
func TestPredictCountsTrainingRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mf := filepath.Join(dir, "heart-svm.json")
	tr := tuneJSON(t, "builtin:heart", "--method", "svm", "--test-fraction", "0.3", "-o", mf)
	if tr.TestCorrect != 68 || tr.NTest != 81 {
		t.Fatalf("tune test part %d/%d, want 68/81", tr.TestCorrect, tr.NTest)
	}
	p, keys := predictJSON(t, mf, "builtin:heart")
	if p.N != 270 || p.Correct != 231 {
		t.Fatalf("predict %d/%d, want 231/270", p.Correct, p.N)
	}
	if p.TrainingRows == nil || *p.TrainingRows != 189 {
		t.Fatalf("training_rows = %v, want 189", p.TrainingRows)
	}
	if p.Others == nil || p.Others.N != 81 || p.Others.Correct != 68 {
		t.Fatalf("others = %+v, want 68 of 81", p.Others)
	}
	marked := 0
	for _, r := range p.Predictions {
		if r.Training {
			marked++
		}
	}
	if marked != 189 {
		t.Errorf("%d rows marked training_row, want 189", marked)
	}
	if _, ok := keys["others"]; !ok {
		t.Error("JSON has no others key")
	}
	out := mustRun(t, "predict", mf, "builtin:heart")
	for _, want := range []string{
		"│ 270                  │     231 │   85.56% │",
		"│ 81 not training rows │      68 │   83.95% │",
		"│ 189 training rows    │     163 │   86.24% │",
		"note: 189 of the 270 rows of builtin:heart were training rows of the model (it records a hash of each): the accuracy on the 81 others, 83.95%, is the one that says how it does on new data",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}

	// A model trained on all rows: the accuracy is a training accuracy.
	all := filepath.Join(dir, "all.json")
	mustRun(t, "train", "builtin:heart", "-o", all)
	if out := mustRun(t, "predict", all, "builtin:heart"); !strings.Contains(out, "note: all 270 rows of builtin:heart were training rows of the model: the accuracy is a training accuracy") {
		t.Errorf("no training-accuracy note:\n%s", out)
	}

	// A model written before training rows were recorded: no count, no note.
	raw, err := os.ReadFile(mf)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if h, _ := m["training_row_hashes"].(string); len(strings.Fields(h)) != 189 {
		t.Fatalf("model holds %d row hashes, want 189", len(h))
	}
	delete(m, "training_row_hashes")
	// Its checksum was of that content: an edited file's is refused.
	delete(m, "checksum")
	old, _ := json.Marshal(m)
	oldFile := writeFile(t, dir, "old.json", string(old))
	p, keys = predictJSON(t, oldFile, "builtin:heart")
	if p.TrainingRows != nil || p.Others != nil || keys["training_rows"] != nil {
		t.Errorf("old model: training_rows %v, others %+v", p.TrainingRows, p.Others)
	}
	if out := mustRun(t, "predict", oldFile, "builtin:heart"); strings.Contains(out, "training rows") {
		t.Errorf("old model: a training-row count:\n%s", out)
	}
}
