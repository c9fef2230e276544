package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

type infoOptions struct {
	*globalOptions
	data         dataOptions
	Format       string
	FeatureStats bool
}

func init() { subcommands = append(subcommands, newInfoCmd) }

func newInfoCmd(g *globalOptions) *cobra.Command {
	o := &infoOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:   "info [DATA ...]",
		Short: "Describe data sets: size, classes, label mapping, duplicates, constant features",
		Long: `info reads each DATA exactly as train, tune and compare would, and reports what
matters before tuning a kernel on it:

  rows and features, the format and the sha256 of the bytes read;
  the classes with their original labels, e.g. +1 = "2" (labels are mapped to
    ±1; numbers: the larger is +1 unless --positive says otherwise);
  constant features (one value in every row: a normaliser leaves them as they
    are, and they carry no information);
  duplicate rows (same features as an earlier row) and feature vectors that
    occur with both labels (no classifier can get all of those right);
  the range of the values (already scaled to [-1, 1]? then --normalize none
    reproduces LIBSVM on it);
  the predefined train/test realisations of an IDA set, and notes about the
    data (e.g. breast-wisconsin's feature 1 is a patient ID).

A file that cannot be read gets an error naming the file, line and column.
With no DATA, info lists the embedded data sets.

` + dataHelp,
		Example: `  kerneltune info builtin:heart
  kerneltune info data/heart.dat data/bupa.data
  kerneltune info data.csv --label-col diagnosis --positive M
  kerneltune info data/ida/banana --format json
  kerneltune info a1a --features 123 --feature-stats
  kerneltune generate weston | kerneltune info -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(o.Format, formatTable, formatJSON, formatMarkdown); err != nil {
				return err
			}
			if err := o.data.check(); err != nil {
				return err
			}
			return runInfo(cmd.Context(), o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Format, "format", formatTable, "output: table, markdown or json")
	f.BoolVar(&o.FeatureStats, "feature-stats", false, "also print min, max, mean and std of every feature")
	o.data.addReadFlags(f)
	return c
}

// runInfo describes each data set; a set that cannot be read is reported on
// stderr and the others are still described (exit code 1 at the end).
func runInfo(ctx context.Context, o *infoOptions, args []string) error {
	if len(args) == 0 {
		return infoListBuiltins(o)
	}
	var sums []dataio.Summary
	var errs []error
	for _, path := range args {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := o.data.loadAny(path)
		if err != nil {
			var fe *flagError
			if errors.As(err, &fe) {
				return err
			}
			errs = append(errs, err)
			continue
		}
		sums = append(sums, dataio.Describe(d))
	}
	if o.Format == formatJSON {
		var v any = sums
		if len(args) == 1 && len(sums) == 1 {
			v = sums[0]
		}
		if len(sums) > 0 {
			if err := renderJSON(o.Out, v); err != nil {
				return err
			}
		}
	} else {
		for i, s := range sums {
			ts := []*table{infoSummaryTable(s)}
			if o.FeatureStats {
				ts = append(ts, infoFeatureTable(s))
			}
			if i > 0 {
				fmt.Fprintln(o.Out)
			}
			if err := renderTables(o.Out, o.Format, ts...); err != nil {
				return err
			}
		}
	}
	switch {
	case len(errs) == 1 && len(args) == 1:
		return errs[0]
	case len(errs) > 0:
		for _, e := range errs {
			fmt.Fprintf(o.ErrOut, "kerneltune: %v\n", e)
		}
		return fmt.Errorf("%d of %d data sets could not be read", len(errs), len(args))
	}
	return nil
}

func infoListBuiltins(o *infoOptions) error {
	bs := dataio.Builtins()
	if o.Format == formatJSON {
		return renderJSON(o.Out, bs)
	}
	t := &table{
		Title:  "Embedded data sets (use as DATA, e.g. kerneltune info builtin:heart)",
		Header: []string{"DATA", "rows", "features", "description"},
	}
	for _, b := range bs {
		t.Add(dataio.BuiltinPrefix+b.Name, strconv.Itoa(b.Rows), strconv.Itoa(b.Features), b.Description)
	}
	return renderTables(o.Out, o.Format, t)
}

func infoPct(k, n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.1f%%)", k, 100*float64(k)/float64(n))
}

// infoSummaryTable is info's main table: one property per row.
func infoSummaryTable(s dataio.Summary) *table {
	title := s.Name
	if s.Source != s.Name {
		title += " — " + s.Source
	}
	t := &table{Title: title, Header: []string{"property", "value"}}
	t.Add("format", s.Format)
	t.Add("rows", strconv.Itoa(s.Rows))
	t.Add("features", strconv.Itoa(s.Features))
	if len(s.Nominal) > 0 {
		t.Add("nominal features", fmt.Sprintf("%d of %d (%d features one-hot, with --categorical onehot)", len(s.Nominal), s.Features, s.OneHotFeatures))
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
			t.Add(fmt.Sprintf("  %d %s", nf.Index+1, nf.Name), "{"+strings.Join(lv, ", ")+more+"}")
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
	lo, hi := 0.0, 0.0
	for j, f := range s.Stats {
		if j == 0 || f.Min < lo {
			lo = f.Min
		}
		if j == 0 || f.Max > hi {
			hi = f.Max
		}
	}
	t.Add("value range", fmt.Sprintf("[%s, %s]", fmtSig(lo, 6), fmtSig(hi, 6)))
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
	}
	if multi && s.Unlabeled {
		t.Notes = append(t.Notes, fmt.Sprintf("note: %d classes: train, tune and compare need --positive CLASS (one against the rest) or --classes A,B (two of them)", len(s.Classes)))
	}
	for _, nf := range s.Nominal {
		var nums, words []string
		for _, l := range nf.Levels {
			if _, err := strconv.ParseFloat(l, 64); err == nil {
				nums = append(nums, l)
			} else {
				words = append(words, strconv.Quote(l))
			}
		}
		if len(nums) > len(words) {
			t.Notes = append(t.Notes, fmt.Sprintf("note: feature %d %s is nominal because of %s among %d numbers: a typo in a numeric column?", nf.Index+1, nf.Name, strings.Join(words, ", "), len(nums)))
		}
	}
	if len(s.Nominal) > 0 {
		t.Notes = append(t.Notes, "note: nominal features are read as category codes 0, 1, … here; train, tune and compare need --categorical onehot")
	}
	return t
}

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
	if len(s.Constant) == 0 {
		return "none"
	}
	var parts []string
	for i, j := range s.Constant {
		if i == 20 {
			parts = append(parts, "…")
			break
		}
		name := s.Stats[j-1].Name
		// Generated names (f12, x12) add nothing to the number.
		if strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") == strconv.Itoa(j) || name == "" {
			parts = append(parts, strconv.Itoa(j))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", j, name))
		}
	}
	return fmt.Sprintf("%d: %s", len(s.Constant), strings.Join(parts, ", "))
}

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

func infoFeatureTable(s dataio.Summary) *table {
	t := &table{Title: "features of " + s.Name, Header: []string{"#", "name", "min", "max", "mean", "std"}}
	for j, f := range s.Stats {
		t.Add(strconv.Itoa(j+1), f.Name, fmtSig(f.Min, 6), fmtSig(f.Max, 6), fmtSig(f.Mean, 6), fmtSig(f.Std, 6))
	}
	return t
}
