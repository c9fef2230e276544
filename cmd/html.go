package cmd

// compare --html and report --html: the page is pkg/report's HTMLPage; here
// the flag is checked and the file written.

import (
	"fmt"
	"io"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/htmlreport"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// writeHTMLReport writes the page of sum (the records recs) to o.HTML.
func (o *summaryOptions) writeHTMLReport(g *globalOptions, sum report.Summary, recs []experiment.Record) error {
	page, err := report.HTMLPage(sum, recs, crossDataset(g, sum.Tables), report.PageSettings{
		Command: o.command,
		Version: buildinfo.Version(),
		Plot:    report.PlotOptions{SortWeights: o.PlotSort},
		Spell:   flagSpell,
	})
	if err != nil {
		return err
	}
	if err := outfile.WriteFile(o.HTML, func(w io.Writer) error { return htmlreport.Write(w, page) }); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}
