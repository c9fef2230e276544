// Package figure draws the figures of a kernel-tuning comparison from plain
// data — names and numbers, never records, methods or kernels:
//
//	Accuracy            box plots of test accuracy per method, one panel per dataset
//	CriticalDifference  Demšar's (2006) critical-difference diagram
//	Traces              a criterion per iteration, every partition and their median
//	Weights             per-feature weights (a diagonal Q, per-feature γ or 1/θ) as bars
//	Metric              a full metric Q: off-diagonal heat map, colour bar, diagonal bars
//
// It is its own package, depending on gonum/plot but on nothing of this
// module, so that the two consumers — the files of compare/report --plot
// (report.WritePlots) and the HTML report, which inlines the SVG — draw
// the same figures from the same data, and so that tests can drive every kind
// with made-up data (long names, wide ranges) without running an experiment.
//
// Every constructor returns a *Figure, which knows its own size (chosen from
// the content: more methods, features or datasets make a larger figure, so
// that text never needs to be clipped) and encodes itself as SVG, PNG or PDF.
package figure

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// Formats are the encodings a Figure writes.
var Formats = []string{"svg", "png", "pdf"}

// Figure is a drawing of a known size.
type Figure struct {
	Width, Height vg.Length
	draw          func(c draw.Canvas)
}

// Draw draws the figure onto c, which should have the figure's size.
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	f.draw(c)
}

// DefaultDPI is the resolution of PNG files when none is given: 300 dots
// per inch, what journals ask of figures for print (a 6.4-inch figure is
// 1920 pixels wide).
const DefaultDPI = 300

// Encode writes the figure to w as "svg", "png" (at DefaultDPI) or "pdf".
func (f *Figure) Encode(w io.Writer, format string) error {
	return f.EncodeDPI(w, format, 0)
}

// EncodeDPI is Encode with the PNG resolution in dots per inch (0 means
// DefaultDPI; SVG and PDF are vector formats and ignore it).
func (f *Figure) EncodeDPI(w io.Writer, format string, dpi int) error {
	if !validFormat(format) {
		return fmt.Errorf("encode figure: unknown format %q (want svg, png or pdf)", format)
	}
	if dpi < 0 {
		return fmt.Errorf("encode figure: resolution %d dpi, want > 0", dpi)
	}
	if dpi == 0 {
		dpi = DefaultDPI
	}
	var c vg.CanvasWriterTo
	if format == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi))}
	} else {
		var err error
		if c, err = draw.NewFormattedCanvas(f.Width, f.Height, format); err != nil {
			return fmt.Errorf("encode figure: make %s canvas: %w", format, err)
		}
	}
	f.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return fmt.Errorf("encode figure: write %s: %w", format, err)
	}
	out := b.Bytes()
	if format == "svg" {
		out = bytes.ReplaceAll(out, []byte("font-family:Liberation Sans;"), []byte(svgFontFamily))
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("encode figure: write %s: %w", format, err)
	}
	return nil
}

// SVG returns the figure as an SVG document.
func (f *Figure) SVG() ([]byte, error) {
	var b bytes.Buffer
	if err := f.Encode(&b, "svg"); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Save writes the figure to path in the format its extension names
// (.svg, .png or .pdf), a PNG at DefaultDPI.
func (f *Figure) Save(path string) error { return f.SaveDPI(path, 0) }

// SaveDPI is Save with the PNG resolution in dots per inch (0 means
// DefaultDPI).
func (f *Figure) SaveDPI(path string, dpi int) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if !validFormat(format) {
		return fmt.Errorf("write figure %s: unknown format %q (want .svg, .png or .pdf)", path, format)
	}
	var b bytes.Buffer
	if err := f.EncodeDPI(&b, format, dpi); err != nil {
		return fmt.Errorf("write figure %s: %w", path, err)
	}
	if err := outfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		return fmt.Errorf("write figure: %w", err)
	}
	return nil
}

func validFormat(f string) bool {
	for _, g := range Formats {
		if f == g {
			return true
		}
	}
	return false
}

// textFont is the one family of every text in a figure: Liberation Sans,
// metric-compatible with Arial and Helvetica, so that an SVG viewed where
// Liberation is not installed keeps its layout (svgFontFamily names those
// as fallbacks), and sans-serif like the HTML report's page around it.
var textFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// svgFontFamily is what the SVG says for textFont: the family gonum/plot
// writes, then the metric-compatible fallbacks and the generic family (a
// browser without Liberation Sans would otherwise fall back to its default,
// a serif face).
const svgFontFamily = "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"

// Text styles. Sizes are in points.
func textStyle(size vg.Length) draw.TextStyle {
	return draw.TextStyle{
		Color:   color.Black,
		Font:    font.From(textFont, size),
		Handler: plot.DefaultTextHandler,
	}
}

// inset keeps plots off the figure's left and right edges: gonum/plot
// draws a rotated y-axis label flush with its canvas's edge, so the
// descenders of "(%)" would be cut.
const inset = vg.Length(4)

// Sizes of the texts, in points: at a figure's natural size (1 pt = 4/3 CSS
// px) the smallest, 10 pt, is 13.3 px, the HTML page's small text (.85 ×
// 15 px = 12.75 px), and 2.8 mm high in print — above the 7–8 pt journals
// ask of figure text.
const (
	titleSize = 13
	labelSize = 11
	tickSize  = 10
	noteSize  = 10
)

// wrap breaks s into lines no wider than width in style sty, at spaces
// (a single word wider than width stays whole and is shortened by fit).
func wrap(s string, sty draw.TextStyle, width vg.Length) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			try := w
			if line != "" {
				try = line + " " + w
			}
			if line != "" && sty.Width(try) > width {
				out = append(out, fit(line, sty, width))
				line = w
				continue
			}
			line = try
		}
		out = append(out, fit(line, sty, width))
	}
	return strings.Join(out, "\n")
}

// fit shortens s with an ellipsis until it is no wider than width.
func fit(s string, sty draw.TextStyle, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if t := string(r) + "…"; sty.Width(t) <= width {
			return t
		}
	}
	return string(r)
}

// maxWidth is the width of the widest of ss in style sty.
func maxWidth(sty draw.TextStyle, ss []string) vg.Length {
	var w vg.Length
	for _, s := range ss {
		w = max(w, sty.Width(s))
	}
	return w
}

// drawTitle draws a centred (possibly multi-line) title at the top of c and
// returns the canvas below it.
func drawTitle(c draw.Canvas, title string, size vg.Length) draw.Canvas {
	if title == "" {
		return c
	}
	sty := textStyle(size)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	pad := vg.Points(6)
	title = wrap(title, sty, c.Max.X-c.Min.X-2*pad)
	c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - pad}, title)
	c.Max.Y -= sty.Height(title) + 2*pad
	return c
}

// newPlot is a plot.Plot with this package's fonts and a title wrapped to
// the given width.
func newPlot(title string, width vg.Length) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = font.From(textFont, labelSize+1)
	p.Title.Text = wrap(title, p.Title.TextStyle, width-vg.Points(8))
	p.Legend.TextStyle.Font = font.From(textFont, noteSize)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(textFont, labelSize)
		a.Tick.Label.Font = font.From(textFont, tickSize)
		a.Tick.Marker = shortTicks{}
	}
	return p
}

// Colours used across figures: a dark blue for the data, an orange-red for
// what the reader compares against (means, the baseline).
var (
	colData      = color.NRGBA{R: 31, G: 78, B: 140, A: 255}
	colDataLight = color.NRGBA{R: 31, G: 78, B: 140, A: 80}
	colDot       = color.NRGBA{R: 31, G: 78, B: 140, A: 150}
	colAccent    = color.NRGBA{R: 200, G: 60, B: 20, A: 255}
	colGrey      = color.NRGBA{R: 120, G: 120, B: 120, A: 255}
	colFill      = color.NRGBA{R: 198, G: 215, B: 235, A: 255}
)

// diamond is a filled diamond glyph (draw has none).
type diamond struct{}

func (diamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	p := vg.Path{}
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.SetColor(sty.Color)
	c.Fill(p)
	c.SetLineStyle(draw.LineStyle{Color: color.White, Width: vg.Points(0.6)})
	c.Stroke(p)
}

// titleHeight is the height drawTitle takes for title in a figure of the
// given width.
func titleHeight(title string, width vg.Length) vg.Length {
	if title == "" {
		return 0
	}
	sty := textStyle(titleSize)
	pad := vg.Points(6)
	return sty.Height(wrap(title, sty, width-2*pad)) + 2*pad
}

// legendItem is a mark (drawn with its left end at pt, vertically centred
// on it, at most legendMarkW wide) and the text that explains it.
type legendItem struct {
	mark func(c draw.Canvas, pt vg.Point)
	text string
}

const legendMarkW = 14

// legend is a strip of legend items flowed into lines that fit a width.
type legend struct {
	lines [][]legendItem
	sty   draw.TextStyle
}

func newLegend(items []legendItem, width vg.Length) legend {
	l := legend{sty: textStyle(noteSize)}
	l.sty.YAlign = draw.YCenter
	pad := vg.Points(10)
	avail := width - 2*pad
	var line []legendItem
	var x vg.Length
	for _, it := range items {
		it.text = fit(it.text, l.sty, avail-vg.Points(legendMarkW+4))
		w := vg.Points(legendMarkW+4) + l.sty.Width(it.text)
		if len(line) > 0 && x+w > avail {
			l.lines = append(l.lines, line)
			line, x = nil, 0
		}
		line = append(line, it)
		x += w + vg.Points(14)
	}
	if len(line) > 0 {
		l.lines = append(l.lines, line)
	}
	return l
}

func (l legend) lineHeight() vg.Length { return l.sty.Height("Mg") + vg.Points(5) }

func (l legend) height() vg.Length {
	return vg.Length(len(l.lines))*l.lineHeight() + vg.Points(8)
}

// draw draws the legend into the strip c (of height l.height()).
func (l legend) draw(c draw.Canvas) {
	y := c.Max.Y - vg.Points(4) - l.lineHeight()/2
	for _, line := range l.lines {
		x := c.Min.X + vg.Points(10)
		for _, it := range line {
			it.mark(c, vg.Point{X: x, Y: y})
			x += vg.Points(legendMarkW + 4)
			c.FillText(l.sty, vg.Point{X: x, Y: y}, it.text)
			x += l.sty.Width(it.text) + vg.Points(14)
		}
		y -= l.lineHeight()
	}
}

// shortTicks are gonum's default ticks labelled with the shortest
// representation of their value ("82.5", not "82.50").
type shortTicks struct{}

func (shortTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// panelGrid is a figure of plots in rows × cols panels of height panelH
// (row by row, the last row possibly short) under title, with legend in a
// strip at the bottom: the accuracy grid and the accuracy-cost figure.
func panelGrid(title string, plots []*plot.Plot, rows, cols int, panelH, width vg.Length, legend legend) *Figure {
	legendH := legend.height()
	f := &Figure{Width: width, Height: vg.Length(rows)*panelH + legendH + titleHeight(title, width)}
	f.draw = func(c draw.Canvas) {
		c = drawTitle(c, title, titleSize)
		strip := c
		strip.Max.Y = strip.Min.Y + legendH
		c.Min.Y += legendH
		grid := make([][]*plot.Plot, rows)
		for r := range grid {
			grid[r] = make([]*plot.Plot, cols)
			for k := range cols {
				if i := r*cols + k; i < len(plots) {
					grid[r][k] = plots[i]
				}
			}
		}
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(10)}
		canvases := plot.Align(grid, tiles, draw.Crop(c, inset, -inset, 0, 0))
		for r := range grid {
			for k, p := range grid[r] {
				if p != nil {
					p.Draw(canvases[r][k])
				}
			}
		}
		legend.draw(strip)
	}
	return f
}
