package cmd

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// giWideData writes 60 rows of 140 features in LIBSVM form, classes 1..k by
// row (i mod k), each class a shift of its own feature over uniform noise:
// above 128 features, where gi's diagonal parameterisations take the
// diagonal path.
func giWideData(t *testing.T, dir string, k int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, uint64(k)))
	var b strings.Builder
	for i := range 60 {
		c := i % k
		fmt.Fprintf(&b, "%d", c+1)
		for j := range 140 {
			v := 2*rng.Float64() - 1
			if j == c {
				v += 1.5
			}
			fmt.Fprintf(&b, " %d:%.4f", j+1, v)
		}
		b.WriteByte('\n')
	}
	return writeFile(t, dir, fmt.Sprintf("wide%d", k), b.String())
}

// hasKey reports whether the JSON value v holds an object with the key.
func hasKey(v any, key string) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == key || hasKey(e, key) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasKey(e, key) {
				return true
			}
		}
	}
	return false
}

// TestGIDiagPathOutputs: gi on 140 features (its diagonal path) reports B
// as its diagonal, b_diag, with no "b": tune --format json on two classes,
// and the saved model of three (a pair each) whose tuning record is then
// O(d) (its b_diag, q_diag and trace: 29 kB at d = 140), under the 2d²
// bytes one d×d B alone takes (a digit and a separator an entry). A model written the old way, each pair with its d×d
// "b", still loads, verifies and predicts every row as the new one does.
func TestGIDiagPathOutputs(t *testing.T) {
	t.Parallel()
	const d = 140
	dir := t.TempDir()
	bin := giWideData(t, dir, 2)
	r, raw := runJSON[map[string]any](t, "tune", bin, "--method", "gi", "--param", "C", "--C", "1", "--steps", "8")
	if bd, _ := r["b_diag"].([]any); len(bd) != d || hasKey(r, "b") {
		t.Errorf("tune --format json: b_diag has %d numbers, \"b\" present %v; want %d and no b", len(bd), hasKey(r, "b"), d)
	}
	if q, _ := r["kernel"].(map[string]any)["q_diag"].([]any); len(q) != d {
		t.Errorf("kernel q_diag has %d numbers, want %d:\n%.500s", len(q), d, raw)
	}

	three := giWideData(t, dir, 3)
	newPath, oldPath := filepath.Join(dir, "new.json"), filepath.Join(dir, "old.json")
	mustRun(t, "tune", three, "--method", "gi", "--param", "C", "--C", "1", "--steps", "8", "-o", newPath, "-q")
	m, err := model.LoadFile(newPath)
	if err != nil {
		t.Fatal(err)
	}
	var tuning any
	if err := json.Unmarshal(m.Tuning, &tuning); err != nil {
		t.Fatal(err)
	}
	if hasKey(tuning, "b") || len(m.Tuning) >= 2*d*d {
		t.Errorf("the model's tuning record: \"b\" present %v, %d bytes; want no b and under 2d² = %d", hasKey(tuning, "b"), len(m.Tuning), 2*d*d)
	}
	var res methods.Result
	if err := json.Unmarshal(m.Tuning, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(res.Pairs))
	}
	// The old form: each pair's B d×d (diagonal), no b_diag.
	for _, p := range res.Pairs {
		pr := p.Result
		if len(pr.BDiag) != d || pr.B != nil {
			t.Fatalf("pair %s/%s: b_diag %d numbers, b %d rows; want %d and none", p.Positive, p.Negative, len(pr.BDiag), len(pr.B), d)
		}
		pr.B = make([][]float64, d)
		for k := range pr.B {
			pr.B[k] = make([]float64, d)
			pr.B[k][k] = pr.BDiag[k]
		}
		pr.BDiag = nil
	}
	if m.Tuning, err = json.Marshal(&res); err != nil {
		t.Fatal(err)
	}
	if err := m.SaveFile(oldPath); err != nil {
		t.Fatal(err)
	}
	old, err := model.LoadFile(oldPath)
	if err != nil {
		t.Fatalf("a model with gi's d×d b does not load: %v", err)
	}
	var back methods.Result
	if err := old.Verify(); err != nil || json.Unmarshal(old.Tuning, &back) != nil || len(back.Pairs[0].Result.B) != d || back.Pairs[0].Result.B[5][5] != res.Pairs[0].Result.B[5][5] {
		t.Fatalf("the old-form model: verify %v, its first pair's b %d rows", err, len(back.Pairs[0].Result.B))
	}
	if fi, _ := os.Stat(oldPath); fi.Size() < 3*2*d*d {
		t.Fatalf("the old-form model is %d bytes: not three d×d matrices", fi.Size())
	}
	predNew := mustRun(t, "predict", newPath, three, "--format", "csv")
	predOld := mustRun(t, "predict", oldPath, three, "--format", "csv")
	if predNew != predOld || strings.Count(predNew, "\n") != 61 {
		t.Errorf("predictions differ (or not 60 rows):\nnew model\n%s\nold form\n%s", predNew, predOld)
	}
}
