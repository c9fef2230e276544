package report

// info's tables: what a data set holds, its features, the embedded sets.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

// BuiltinsTable lists the embedded data sets bs (info with no data).
func BuiltinsTable(bs []dataio.Builtin) *Table {
	t := &Table{
		Title:  "Embedded data sets (use as DATA, e.g. kerneltune info builtin:heart)",
		Header: []string{"DATA", "rows", "features", "description"},
	}
	for _, b := range bs {
		t.Add(dataio.BuiltinPrefix+b.Name, strconv.Itoa(b.Rows), strconv.Itoa(b.Features), b.Description)
	}
	return t
}

// infoPct is k of n rows with its percentage.
func infoPct(k, n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.1f%%)", k, 100*float64(k)/float64(n))
}

// DataTable is info's main table of a data set: one property per row
// (format, size, classes and labels, value range, constant features,
// duplicates, predefined splits), with the summary's notes below it; the
// settings its notes name are spelled as a study file names them.
func DataTable(s dataio.Summary) *Table { return dataTable(s, hint.Plain) }

// dataTable is DataTable with the settings spelled by sp.
func dataTable(s dataio.Summary, sp hint.Speller) *Table {
	title := s.Name
	if s.Source != s.Name {
		title += " — " + s.Source
	}
	t := &Table{Title: title, Header: []string{"property", "value"}}
	t.Add("format", s.Format)
	t.Add("rows", strconv.Itoa(s.Rows))
	t.Add("features", strconv.Itoa(s.Features))
	if s.Storage == dataio.StorageSparse {
		t.Add("storage", fmt.Sprintf("sparse (compressed rows): %s non-zeros, %s of the values", Thousands(int(s.NonZeros)), percentOf(s.Density)))
	}
	if len(s.Nominal) > 0 {
		declared := ""
		if s.OneHotDeclared > 0 {
			declared = fmt.Sprintf("; %d with every declared category", s.OneHotDeclared)
		}
		t.Add("nominal features", hint.T(fmt.Sprintf("%d of %d (%d features one-hot, with ", len(s.Nominal), s.Features, s.OneHotFeatures), hint.S("categorical", "onehot"), declared+")").Spell(sp))
		for i, nf := range s.Nominal {
			if i == 30 {
				t.Add("…", fmt.Sprintf("%d more nominal features", len(s.Nominal)-i))
				break
			}
			lv := nf.Levels
			more := ""
			if len(lv) > 12 {
				lv, more = lv[:12], fmt.Sprintf(", … (%d)", len(nf.Levels))
			}
			short := make([]string, len(lv))
			for i, l := range lv {
				short[i] = clipText(l)
			}
			t.Add(fmt.Sprintf("  %d %s", nf.Index+1, nf.Name), "{"+strings.Join(short, ", ")+more+"}")
		}
	}
	multi := len(s.Classes) > 2
	if multi {
		t.Add("classes", strconv.Itoa(len(s.Classes)))
		for _, c := range s.Classes {
			t.Add(fmt.Sprintf("  %q", c.Label), infoPct(c.Rows, sum(s.Classes)))
		}
	}
	if !s.Unlabeled || !multi {
		t.Add(fmt.Sprintf("+1 = %q", s.Labels.Positive), infoPct(s.Positive, s.Rows))
		t.Add(fmt.Sprintf("-1 = %q", s.Labels.Negative), infoPct(s.Negative, s.Rows))
	}
	t.Add("value range", fmt.Sprintf("[%s, %s]", Sig(s.ValueRange[0], 6), Sig(s.ValueRange[1], 6)))
	if m := s.Missing; m != nil {
		cols := make([]string, len(m.Columns))
		for i, c := range m.Columns {
			cols[i] = fmt.Sprintf("%s %d", c.Name, c.Rows)
		}
		t.Add("missing values", fmt.Sprintf("%d row%s: %s", m.Rows, plural(m.Rows), strings.Join(cols, ", ")))
	}
	t.Add("constant features", infoConstantList(s))
	t.Add("duplicate rows", strconv.Itoa(s.DuplicateRows)+" (same features as an earlier row)")
	t.Add("both labels", fmt.Sprintf("%d feature vectors on %d rows", s.ConflictingVectors, s.ConflictingRows))
	if len(s.Splits) > 0 {
		t.Add("predefined splits", infoSplitSummary(s.Splits))
	}
	if s.SHA256 != "" {
		t.Add("sha256", s.SHA256)
	}
	for _, n := range s.Notes {
		t.Notes = append(t.Notes, "note: "+n)
		if strings.HasPrefix(n, dataio.DecimalCommaNote) {
			// Its nominal columns and classes are the misreading's: no
			// advice on them.
			return t
		}
	}
	if m := s.Missing; m != nil && !m.Dropped {
		what := fmt.Sprintf("the %d rows with missing values are", m.Rows)
		if m.Rows == 1 {
			what = "the row with missing values is"
		}
		t.Notes = append(t.Notes, hint.T("note: "+what+" left out of the description above; train, tune and compare refuse them unless ", hint.S("missing", "drop")).Spell(sp))
	}
	if multi && s.Unlabeled {
		t.Notes = append(t.Notes, hint.T(fmt.Sprintf("note: %d classes: train, tune and compare learn them one-vs-one (a binary SVM per pair of classes, LIBSVM's vote), or with ", len(s.Classes)),
			hint.S("multiclass", "ovr"), " one-vs-rest (a binary SVM per class, the largest decision value); ", hint.S("positive", "CLASS"), " makes one against the rest, ", hint.S("classes", "A,B"), " keeps two").Spell(sp))
	}
	for _, nf := range s.Nominal {
		if s.Format != "csv" {
			break // an ARFF header declares its nominal attributes: no typo
		}
		var nums, words []string
		for _, l := range nf.Levels {
			if _, err := dataio.ParseFloat(l, 64); err == nil {
				nums = append(nums, l)
			} else if l != "" {
				words = append(words, strconv.Quote(clipText(l)))
			}
		}
		if len(words) > 0 && len(nums) > len(words) {
			t.Notes = append(t.Notes, fmt.Sprintf("note: feature %d %s is nominal because of %s among %d numbers: a typo in a numeric column?", nf.Index+1, nf.Name, strings.Join(words, ", "), len(nums)))
		}
	}
	if len(s.Nominal) > 0 {
		t.Notes = append(t.Notes, hint.T("note: nominal features are read as category codes 0, 1, … here; train, tune and compare need ", hint.S("categorical", "onehot")).Spell(sp))
	}
	return t
}

// sum is the number of rows of the classes cs.
func sum(cs []dataio.ClassCount) int {
	n := 0
	for _, c := range cs {
		n += c.Rows
	}
	return n
}

// infoConstantList names the constant features: numbers, with names when the
// file has real ones; at most 20.
func infoConstantList(s dataio.Summary) string {
	unset := ""
	if s.UnsetFeatures > 0 {
		unset = fmt.Sprintf("%s never set (zero in every row); ", Thousands(s.UnsetFeatures))
		if len(s.Constant) == 0 {
			return unset + "no other"
		}
	}
	if len(s.Constant) == 0 {
		return "none"
	}
	var parts []string
	for i, j := range s.Constant {
		if i == 20 {
			parts = append(parts, "…")
			break
		}
		name := ""
		if j-1 < len(s.Stats) {
			name = s.Stats[j-1].Name
		}
		// Generated names (f12, x12) add nothing to the number.
		if strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") == strconv.Itoa(j) || name == "" {
			parts = append(parts, strconv.Itoa(j))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", j, name))
		}
	}
	return fmt.Sprintf("%s%d: %s", unset, len(s.Constant), strings.Join(parts, ", "))
}

// percentOf writes a share (0.00127) as a percentage of three significant
// digits ("0.127%").
func percentOf(share float64) string { return Sig(100*share, 3) + "%" }

// infoSplitSummary describes a data set's predefined train/test
// realisations.
func infoSplitSummary(sp []dataio.SplitSize) string {
	same := true
	for _, s := range sp {
		same = same && s == sp[0]
	}
	if same {
		return fmt.Sprintf("%d realisation%s of %d train / %d test", len(sp), plural(len(sp)), sp[0].Train, sp[0].Test)
	}
	return fmt.Sprintf("%d realisations (first: %d train / %d test)", len(sp), sp[0].Train, sp[0].Test)
}

// FeatureTable lists the min, max, mean and std of every feature (info
// --feature-stats).
func FeatureTable(s dataio.Summary) *Table {
	t := &Table{Title: "features of " + s.Name, Header: []string{"#", "name", "min", "max", "mean", "std"}}
	for j, f := range s.Stats {
		t.Add(strconv.Itoa(j+1), f.Name, Sig(f.Min, 6), Sig(f.Max, 6), Sig(f.Mean, 6), Sig(f.Std, 6))
	}
	return t
}

// InfoSettings choose what WriteInfo writes.
type InfoSettings struct {
	// FeatureStats adds each data set's FeatureTable.
	FeatureStats bool
	// List writes JSON as a list even for one summary (info was given
	// several data sets and only one could be read).
	List bool
	// Spell spells the settings the notes name (nil: hint.Plain; the
	// command line spells them as its flags).
	Spell hint.Speller
}

// WriteInfo writes info's output for the summaries in format: JSON (the
// summary itself when there is one and not s.List, else the list; nothing
// for none), or each data set's DataTable (and FeatureTable), separated by
// blank lines.
func WriteInfo(w io.Writer, format string, sums []dataio.Summary, s InfoSettings) error {
	if format == FormatJSON {
		switch {
		case len(sums) == 0:
			return nil
		case len(sums) == 1 && !s.List:
			return RenderJSON(w, sums[0])
		}
		return RenderJSON(w, sums)
	}
	var ts []*Table
	for _, sum := range sums {
		ts = append(ts, dataTable(sum, plainOr(s.Spell)))
		if s.FeatureStats {
			ts = append(ts, FeatureTable(sum))
		}
	}
	return Render(w, format, ts...)
}

// clipText cuts a text from the data (a nominal level) longer than 40
// bytes, on a UTF-8 boundary, so that a malformed megabyte token does not
// widen every row of the table.
func clipText(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
