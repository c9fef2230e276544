package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// heartConstant writes heart_scale with a 14th feature that is 0.5 on every
// row: constant on every training part.
func heartConstant(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		b.WriteString(strings.TrimSpace(line) + " 14:0.5\n")
	}
	p := filepath.Join(t.TempDir(), "heart_const")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTuneConstantFeatureNotRanked: a feature with one value has no effect on
// any kernel, so its weight is not learned. tune marks it in JSON, leaves it
// out of the relevance ranking (and of the maximum that "relative" divides
// by) and names it in a note, for every per-feature kernel.
func TestTuneConstantFeatureNotRanked(t *testing.T) {
	t.Parallel()
	data := heartConstant(t)
	for _, method := range []string{"spd", "lccp", "rcsc:diag"} {
		t.Run(method, func(t *testing.T) {
			m, param, _ := strings.Cut(method, ":")
			args := []string{data, "--method", m}
			if param != "" {
				// rcsc's 10 first iterations: its 114 to convergence took
				// 1.1 CPU s (0.13 for 10), and the constant feature's q
				// stays at its start value (0.1538) either way, the others'
				// within 0.04 of their converged values.
				args = append(args, "--param", param, "--max-iter", "10")
			}
			r := tuneJSON(t, args...)
			if len(r.Constant) != 1 || r.Constant[0] != 14 {
				t.Fatalf("constant_features = %v, want [14]", r.Constant)
			}
			if len(r.Relevance) != 14 {
				t.Fatalf("%d relevance entries, want 14", len(r.Relevance))
			}
			maxRel := 0.0
			for _, fw := range r.Relevance {
				if fw.Constant != (fw.Index == 14) {
					t.Errorf("feature %d: constant = %v", fw.Index, fw.Constant)
				}
				if fw.Constant && fw.Relative != 0 {
					t.Errorf("constant feature has relative %v, want 0", fw.Relative)
				}
				maxRel = max(maxRel, fw.Relative)
			}
			if maxRel != 1 {
				t.Errorf("largest relative weight of the learned features = %v, want 1", maxRel)
			}
			out := mustRun(t, append([]string{"tune"}, args...)...)
			rel := out[strings.Index(out, "per-feature relevance"):]
			if !strings.Contains(rel, "not ranked: f14 (14), constant on the training part") {
				t.Errorf("no note on the constant feature:\n%s", rel)
			}
			if strings.Contains(rel, "│ f14 (14)") {
				t.Errorf("the constant feature is ranked:\n%s", rel)
			}
			if n := len(regexp.MustCompile(`│ f\d+ \(\d+\)`).FindAllString(rel, -1)); n != 13 {
				t.Errorf("want 13 ranked features:\n%s", rel)
			}
			if strings.Contains(out, "theta[") {
				t.Errorf("per-feature θ rows in the main table besides the relevance table:\n%s", out)
			}
		})
	}
}

// TestCompareConstantFeatureNotDrawn: compare records which features were
// constant on each training part, and the lccp weights figure leaves such a
// feature out (lccp keeps its θ at the start value 1, which would draw as
// the largest weight) and names it in its title.
func TestCompareConstantFeatureNotDrawn(t *testing.T) {
	t.Parallel()
	data := heartConstant(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "run.jsonl")
	mustRun(t, "compare", data, "--methods", "svm,lccp", "--partitions", "2", "--out", out, "--plot", filepath.Join(dir, "plots"))
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d records, want 4", len(lines))
	}
	for _, l := range lines {
		if !strings.Contains(l, `"constant_features":[14]`) {
			t.Errorf("record without constant_features [14]: %.200s", l)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "plots", "heart_const-lccp-weights.svg"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	// The title is wrapped: join its lines.
	var texts []string
	for _, m := range regexp.MustCompile(`>([^<]*)</text>`).FindAllStringSubmatch(s, 3) {
		texts = append(texts, m[1])
	}
	title := strings.Join(texts, " ")
	if !strings.Contains(title, "; not shown, constant on every training part: feature 14") {
		t.Errorf("the weights figure's title does not name the constant feature: %s", title)
	}
	if strings.Contains(s, ">14</text>") {
		t.Errorf("the constant feature has a bar in the weights figure")
	}
	if !strings.Contains(s, ">13</text>") {
		t.Errorf("feature 13 has no bar: the test does not see the tick labels")
	}
}
