package report

import (
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// degenerateNote counts the degenerate runs of a dataset's table by entry
// (in the table's order) and kind; "" when there are none. They are
// included in the means.
func degenerateNote(s DatasetTable, recs []experiment.Record) string {
	counts := map[string]map[string]int{}
	for _, r := range recs {
		if r.Dataset != s.Dataset || r.Degenerate == "" {
			continue
		}
		if counts[r.Entry] == nil {
			counts[r.Entry] = map[string]int{}
		}
		counts[r.Entry][r.Degenerate]++
	}
	var parts []string
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
		parts = append(parts, e+" "+strings.Join(kinds, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("degenerate runs (kept in the means): %s; on the training part, diagonal: median nearest-neighbour K < %g, constant: median K > 0.9 and C·(1 - median K) < %g, one-class: the SVM predicts one class",
		strings.Join(parts, "; "), methods.DiagonalBelow, methods.ConstantBelow)
}
