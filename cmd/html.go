package cmd

// compare --html and report --html: the page is pkg/report's HTMLPage; here
// the flag is checked and the file written.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/htmlreport"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// checkHTMLPath refuses, before any work, an --html file whose directory
// does not exist or that names a directory.
func checkHTMLPath(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageErrorf("--html %s is a directory: give a file name, e.g. %s", path, filepath.Join(path, "report.html"))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageErrorf("--html %s: directory %s does not exist", path, dir)
	}
	return nil
}

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
