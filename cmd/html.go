package cmd

// compare --html and report --html: the page is pkg/report's HTMLPage; here
// the flag is checked and the file written.

import (
	"bytes"
	"fmt"
	"os"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/htmlreport"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// writeHTMLReport writes the page of sum (the records recs) to o.HTML.
func (o *summaryOptions) writeHTMLReport(g *globalOptions, sum report.Summary, recs []experiment.Record) error {
	page, err := report.HTMLPage(sum, recs, crossDataset(g, sum.Tables), report.PageSettings{
		Command: o.command,
		Version: buildinfo.Version(),
		Plot:    report.PlotOptions{SortWeights: o.PlotSort},
	})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, page); err != nil {
		return fmt.Errorf("--html %s: %w", o.HTML, err)
	}
	if err := os.WriteFile(o.HTML, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}
