package cmd

import (
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// TestHelpTexts holds the help texts to what the issue-35 reader found
// wrong: the top-level help lists every method; report's paragraphs are
// separated and say that different runs merge; train's LIBSVM claim says
// what is tested; a "(devel)" version says how to set one.
func TestHelpTexts(t *testing.T) {
	t.Parallel()
	root := mustRun(t, "--help")
	for _, m := range methods.Names() {
		if !strings.Contains(root, "\n  "+m+" ") {
			t.Errorf("kerneltune --help does not list method %s", m)
		}
	}
	if n := len(methods.Names()); n != 9 {
		t.Errorf("%d methods registered; the top-level help says nine are listed", n)
	}
	report := mustRun(t, "report", "--help")
	for _, want := range []string{"and exits 1.\n\nOutput (--format)", "Files of different runs merge too", "--budget 15 vs 10", "methods in --methods order.\n\n--datasets"} {
		if !strings.Contains(report, want) {
			t.Errorf("report --help lacks %q", want)
		}
	}
	if strings.Contains(report, "must come from the same settings") || strings.Contains(report, "\n\n\n") {
		t.Errorf("report --help still says records must come from the same settings, or has empty paragraphs:\n%s", report)
	}
	train := mustRun(t, "train", "--help")
	if strings.Contains(train, "fifth decimal") || !strings.Contains(train, "|Δρ| ≤ 1e-5 + 3e-8·Σα") || !strings.Contains(train, "3.1e-4 on diabetes_scale") {
		t.Errorf("train --help's LIBSVM paragraph:\n%s", train)
	}
	if v := mustRun(t, "--version"); strings.HasPrefix(v, "kerneltune version (devel)\n") && !strings.Contains(v, "make build") {
		t.Errorf("a (devel) version without the hint:\n%s", v)
	}
}
