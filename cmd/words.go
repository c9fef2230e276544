package cmd

import (
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// The library names the settings its messages suggest as hint.Settings
// (pkg/hint); the command line words them as its flags. This file holds
// that wording, and the words of the library's typed errors and notes.

// flagSpell spells a setting as its flag: --key value, or --key alone.
func flagSpell(s hint.Setting) string {
	if s.Value == "" {
		return "--" + s.Key
	}
	return "--" + s.Key + " " + s.Value
}

// spellFlags is err with the settings its message names spelled as flags
// (hint.Spell); errors.Is and errors.As see through it.
func spellFlags(err error) error { return hint.Spell(err, flagSpell) }

// methodList is the help's table of registered methods and their params: a
// line per method with its summary, and a line of its --param choices when
// it has several (the first is the default).
func methodList() string {
	var b strings.Builder
	for _, m := range methods.All {
		fmt.Fprintf(&b, "  %-9s %s\n", m.Name, m.Summary.Spell(flagSpell))
		if p := m.Params; len(p) > 1 {
			fmt.Fprintf(&b, "  %-9s --param %s (default %s)\n", "", strings.Join(p, "|"), p[0])
		}
	}
	return b.String()
}

// spellNotes are notes with their settings spelled as flags, for output
// that holds them as text (JSON) as well as for the tables.
func spellNotes(ts []hint.Text) []hint.Text { return hint.Texts(hint.SpellAll(ts, flagSpell)) }

// noticeText is the stderr line of what a comparison found before its jobs
// ran (experiment.Notice), without its newline.
func noticeText(n experiment.Notice) string {
	if n.Kind == experiment.NoticeBaseline {
		return fmt.Sprintf("%s: baseline (C, γ) = (%g, %g) chosen on the TEST parts of the first %d partitions (--select laanaya)",
			n.Dataset, n.Baseline.C, n.Baseline.Gamma, experiment.LaanayaPartitions)
	}
	if n.Kind == experiment.NoticeResumeMidJob {
		if n.Jobs == 1 {
			return fmt.Sprintf("kerneltune: note: 1 job cut short resumes from its checkpoint (%d steps done)", n.Steps)
		}
		return fmt.Sprintf("kerneltune: note: %d jobs cut short resume from their checkpoints (%d steps done)", n.Jobs, n.Steps)
	}
	if n.Kind == experiment.NoticeSmallTrainPart {
		each := fmt.Sprintf("each of the %d partitions", n.Partitions)
		if n.Partitions == 1 {
			each = "the partition"
		}
		return fmt.Sprintf("kerneltune: note: %s of %s trains on %s of its %s rows and tests on %s (Laanaya et al.'s protocol: the default --train-size and --test-size); give --train-fraction 0.5 (half of the rows train, the rest test) or a larger --train-size and --test-size to learn from more of the file",
			each, n.Dataset, report.Thousands(n.TrainSize), report.Thousands(n.Rows), report.Thousands(n.TestSize))
	}
	return fmt.Sprintf("kerneltune: note: each of the %d partitions trains on a random %d of %s's %d rows (the default --train-size); give --train-size %d to train on the whole file",
		n.Partitions, n.TrainSize, n.Dataset, n.Rows, n.Rows)
}
