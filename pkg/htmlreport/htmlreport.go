// Package htmlreport writes one self-contained HTML page: a run's settings,
// its warnings, its tables and its figures (inline SVG), with inline CSS and
// no script, font or image fetched from anywhere, so the file can be mailed,
// archived with a paper's data, or opened on a machine with no network.
//
// It is a package of its own because the page is a rendering of results that
// other packages compute (experiment's tables, stats' cross-dataset tests,
// the figures): it takes plain values (strings, string tables, SVG
// documents) and imports nothing else of this module, so the commands that
// build a page (compare, report) decide what goes in it and this package
// only decides how it looks.
//
// Everything that came from data (file names, labels, feature names, error
// messages) is escaped by html/template. Figures are SVG documents this
// module drew; they are checked (no script, no event handler, no external
// reference) and their ids are made unique per figure before they are
// inlined, because a page holds many figures and SVG ids are document-wide.
package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Page is the content of a report.
type Page struct {
	Title     string
	Subtitle  string // e.g. the command line that made the run
	Generated string // e.g. "kerneltune v0.4.0, 2026-11-24 10:00 UTC"
	// Warnings are shown in a box at the top of the page, before anything
	// else: an incomplete run, a baseline chosen on test data.
	Warnings []string
	Settings []KV // the run's settings and fingerprint
	// SettingsGroups are an appendix after the sections ("Appendix:
	// provenance"), each under its own heading (e.g. each dataset's
	// provenance): a reader comes for the results first.
	SettingsGroups []KVGroup
	Sections       []Section
}

// KV is one line of a settings list.
type KV struct{ Key, Value string }

// KVGroup is a headed settings list.
type KVGroup struct {
	Title string
	Items []KV
}

// Section is a headed part of the page: tables, then figures, then notes.
type Section struct {
	Heading string
	// Nav, if set, is the section's short name in the page's table of
	// contents (a dataset's name, where its heading also gives its
	// partition sizes); Heading otherwise.
	Nav string
	// Provenance, if set, is the Title of the SettingsGroups entry the
	// section links to (its dataset's provenance in the appendix).
	Provenance string
	Intro      []string // paragraphs before the tables
	Tables     []Table
	Figures    []Figure
	Notes      []string // paragraphs after the figures
}

// Table is a table of text cells, shown as the text output shows it.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	// Mark flags rows to highlight (e.g. the best mean); nil for none.
	Mark []bool
	// Warn flags rows to show as a problem (e.g. failures); nil for none.
	Warn  []bool
	Notes []string
}

// Figure is one drawing: an SVG document (as written by gonum/plot's vgsvg)
// and its caption.
type Figure struct {
	Caption string
	SVG     []byte
}

//go:embed page.html.tmpl
var pageTemplate string

// tmpl is parsed on first use, not at start-up: every kerneltune command
// would otherwise pay for it (0.6 ms of `kerneltune --version`).
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"numeric": numericColumns,
		"at": func(flags []bool, i int) bool {
			return i < len(flags) && flags[i]
		},
		"anchor": anchor,
	}).Parse(pageTemplate))
})

// Write renders p to w.
func Write(w io.Writer, p *Page) error {
	type figure struct {
		Caption string
		SVG     template.HTML
	}
	type section struct {
		Section
		ID   string
		Figs []figure
	}
	view := struct {
		*Page
		Secs []section
	}{Page: p}
	for si, s := range p.Sections {
		sec := section{Section: s, ID: anchor(s.Heading)}
		for fi, f := range s.Figures {
			svg, err := inlineSVG(f.SVG, fmt.Sprintf("f%d-%d-", si+1, fi+1))
			if err != nil {
				return fmt.Errorf("write HTML report: figure %q in section %q: %w", f.Caption, s.Heading, err)
			}
			sec.Figs = append(sec.Figs, figure{Caption: f.Caption, SVG: svg})
		}
		view.Secs = append(view.Secs, sec)
	}
	var buf bytes.Buffer
	if err := tmpl().Execute(&buf, view); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// numericColumns reports, per column, whether every non-empty cell reads as a
// number (possibly with "±", "%" or "/"), so that it is right-aligned.
func numericColumns(t Table) []bool {
	out := make([]bool, len(t.Header))
	for j := range t.Header {
		num, seen := true, false
		for _, r := range t.Rows {
			if j >= len(r) || strings.TrimSpace(r[j]) == "" || r[j] == "-" || r[j] == "—" {
				continue
			}
			seen = true
			if !numericCell(r[j]) {
				num = false
				break
			}
		}
		out[j] = num && seen
	}
	return out
}

func numericCell(s string) bool {
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '±' || r == '/' }) {
		p := strings.TrimSpace(part)
		p = strings.TrimSuffix(p, "%")
		p = strings.TrimSuffix(p, "×")
		if _, err := strconv.ParseFloat(p, 64); err != nil {
			return false
		}
	}
	return true
}

var nonAnchor = regexp.MustCompile(`[^a-z0-9]+`)

// anchor makes a fragment id from a heading.
func anchor(s string) string {
	return "s-" + strings.Trim(nonAnchor.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

var (
	idAttr  = regexp.MustCompile(`\bid="([^"]+)"`)
	urlRef  = regexp.MustCompile(`url\(#([^)]+)\)`)
	hrefRef = regexp.MustCompile(`href="#([^"]+)"`)
)

// inlineSVG checks that doc is an SVG document safe to inline and returns
// its <svg> element with every id prefixed by prefix (and the references to
// them: url(#id), href="#id"). It refuses scripts, event handlers, foreign
// objects and references to anything outside the document.
func inlineSVG(doc []byte, prefix string) (template.HTML, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	start := -1
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("not well-formed SVG: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if start < 0 {
			if se.Name.Local != "svg" {
				return "", fmt.Errorf("root element is <%s>, not <svg>", se.Name.Local)
			}
			start = int(off)
		}
		switch strings.ToLower(se.Name.Local) {
		case "script", "foreignobject", "iframe":
			return "", fmt.Errorf("SVG holds a <%s> element", se.Name.Local)
		}
		for _, a := range se.Attr {
			name := strings.ToLower(a.Name.Local)
			if strings.HasPrefix(name, "on") {
				return "", fmt.Errorf("SVG element <%s> has an event handler %s", se.Name.Local, a.Name.Local)
			}
			if name == "href" && !strings.HasPrefix(a.Value, "#") && !strings.HasPrefix(a.Value, "data:") {
				return "", fmt.Errorf("SVG element <%s> refers to %q outside the page", se.Name.Local, a.Value)
			}
			if v := strings.ToLower(a.Value); strings.Contains(v, "url(") && !strings.Contains(v, "url(#") {
				return "", fmt.Errorf("SVG element <%s> refers to %q outside the page", se.Name.Local, a.Value)
			}
		}
	}
	if start < 0 {
		return "", fmt.Errorf("no <svg> element")
	}
	body := doc[start:]
	body = idAttr.ReplaceAll(body, []byte(`id="`+prefix+`$1"`))
	body = urlRef.ReplaceAll(body, []byte(`url(#`+prefix+`$1)`))
	body = hrefRef.ReplaceAll(body, []byte(`href="#`+prefix+`$1"`))
	return template.HTML(body), nil // checked above; text in it is escaped by the SVG writer
}
