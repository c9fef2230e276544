package cmd

// The commands' tables and renderers are pkg/report's; these names keep
// cmd's call sites short.

import "github.com/kerneltune/kerneltune/pkg/report"

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
		return &flagError{spellFlags(err)}
	}
	return nil
}

// Rendering (report's).
var (
	renderJSON   = report.RenderJSON
	renderTables = report.Render
)
