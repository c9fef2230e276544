package report

import (
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// degenerateNote counts the degenerate runs of a dataset's table by entry
// (in the table's order) and kind, or on multi-class records that keep
// their binary SVMs the degenerate pairs ("lccp 3 of 15 pairs: 3
// one-class"); "" when there are none. They are included in the means.
func degenerateNote(s DatasetTable, recs []experiment.Record) string {
	counts := map[string]map[string]int{}
	add := func(e, kind string) {
		if counts[e] == nil {
			counts[e] = map[string]int{}
		}
		counts[e][kind]++
	}
	for _, r := range recs {
		if r.Dataset != s.Dataset || r.Failed() {
			continue
		}
		if len(r.Pairs) == 0 {
			if r.Degenerate != "" {
				add(r.Entry, r.Degenerate)
			}
			continue
		}
		for _, p := range r.Pairs {
			if p.Degenerate != "" {
				add(r.Entry, p.Degenerate)
			}
		}
	}
	var parts []string
	pairs := false
	for _, row := range s.Rows {
		e := row.Entry
		if counts[e] == nil {
			continue
		}
		var kinds []string
		for _, k := range []string{methods.DegenerateDiagonal, methods.DegenerateConstant, methods.DegenerateOneClass} {
			if c := counts[e][k]; c > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", c, k))
			}
		}
		if row.SVMs > 0 {
			pairs = true
			parts = append(parts, e+" "+row.degenerateCell()+": "+strings.Join(kinds, ", "))
			continue
		}
		parts = append(parts, e+" "+strings.Join(kinds, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	what := "degenerate runs (kept in the means)"
	if pairs {
		what = "degenerate runs (kept in the means; on multi-class data the binary SVMs of all runs are counted, since a run with one degenerate pair is not degenerate as a whole)"
	}
	return fmt.Sprintf("%s: %s; on the training part, diagonal: median nearest-neighbour K < %g, constant: median K > 0.9 and C·(1 - median K) < %g, one-class: the SVM predicts one class",
		what, strings.Join(parts, "; "), methods.DiagonalBelow, methods.ConstantBelow)
}

// memorisingNote names the entries of a dataset's table with memorising
// runs and how many, with the rule (experiment.CheckMemorisation); "" when
// there are none. They are included in the means.
func memorisingNote(s DatasetTable) string {
	var parts []string
	for _, row := range s.Rows {
		if row.Memorising > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", row.Entry, row.Memorising))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("memorising runs (kept in the means): %s; more than %g%% of the training rows are SVs, and the training error is at least %g points below the held-out error (the method's CV or validation error, else the test error) and at most %g of it",
		strings.Join(parts, "; "), 100*experiment.MemorisingSVShare, 100*experiment.MemorisingGap, experiment.MemorisingErrorRatio)
}
