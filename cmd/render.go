package cmd

// The commands' tables and renderers are pkg/report's; these names keep
// cmd's call sites short.

import "github.com/kerneltune/kerneltune/pkg/report"

// table is one titled table of a command's output (report.Table).
type table = report.Table

// Output formats (report's).
const (
	formatTable    = report.FormatTable
	formatJSON     = report.FormatJSON
	formatCSV      = report.FormatCSV
	formatMarkdown = report.FormatMarkdown
	formatLaTeX    = report.FormatLaTeX
)

// checkFormat returns a usage error (exit code 2) unless format is one of
// allowed.
func checkFormat(format string, allowed ...string) error {
	if err := report.CheckFormat(format, allowed...); err != nil {
		return &flagError{err}
	}
	return nil
}

// Rendering and number formatting (report's).
var (
	renderJSON   = report.RenderJSON
	renderTables = report.Render
	fmtFixed     = report.Fixed
	fmtSig       = report.Sig
)
