package figure

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Box is one method's test accuracies (or the panel's Metric, in %), one
// per partition.
type Box struct {
	Name   string
	Values []float64
}

// AccuracyPanel is one dataset's boxes.
type AccuracyPanel struct {
	Dataset string
	Boxes   []Box
	// Reference is drawn as a dashed horizontal line labelled
	// ReferenceName, e.g. the baseline's median accuracy; NaN for none.
	Reference     float64
	ReferenceName string
	// Metric names the score of the boxes in the axis label ("balanced
	// accuracy"); "" is accuracy.
	Metric string
}

// metricName is metric, or "accuracy" when it is "".
func metricName(metric string) string {
	if metric == "" {
		return "accuracy"
	}
	return metric
}

// Accuracy draws one box plot per method and panel (dataset), panels side by
// side (at most three to a row). A box spans the quartiles with the median
// inside; whiskers reach the furthest values within 1.5 IQR of the box
// (Tukey; gonum's BoxPlot), values beyond are circles; a diamond marks the
// mean; the dashed line is the panel's Reference. A legend under the panels
// says so.
func Accuracy(title string, panels []AccuracyPanel) (*Figure, error) {
	if len(panels) == 0 {
		return nil, errors.New("draw accuracy figure: no datasets")
	}
	cols := min(len(panels), 3)
	rows := (len(panels) + cols - 1) / cols
	nmax := 0
	for _, p := range panels {
		nmax = max(nmax, len(p.Boxes))
	}
	// At least 4.8 in wide, so that the legend fits on two lines.
	panelW := max(4.8*vg.Inch/vg.Length(cols), vg.Length(nmax)*0.62*vg.Inch+0.9*vg.Inch)
	panelH := 3.4 * vg.Inch
	var plots []*plot.Plot
	var extra vg.Length // room for rotated method names
	for _, pn := range panels {
		p, err := accuracyPanel(pn, panelW)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
		if p.X.Tick.Label.Rotation != 0 {
			var names []string
			for _, b := range pn.Boxes {
				names = append(names, b.Name)
			}
			extra = max(extra, maxWidth(p.X.Tick.Label, names)*vg.Length(math.Sin(p.X.Tick.Label.Rotation)))
		}
	}
	panelH += extra
	refNames := []string{}
	for _, p := range panels {
		if !math.IsNaN(p.Reference) && p.ReferenceName != "" && !slices.Contains(refNames, p.ReferenceName) {
			refNames = append(refNames, p.ReferenceName)
		}
	}
	width := vg.Length(cols) * panelW
	legend := newLegend(accuracyLegend(refNames), width)
	return panelGrid(title, plots, rows, cols, panelH, width, legend), nil
}

func accuracyPanel(pn AccuracyPanel, width vg.Length) (*plot.Plot, error) {
	p := newPlot(pn.Dataset, width)
	p.Y.Label.Text = "test " + metricName(pn.Metric) + " (%)"
	p.X.Label.Text = "method"
	var names []string
	var means plotter.XYs
	for i, b := range pn.Boxes {
		names = append(names, b.Name)
		var v plotter.Values
		for _, x := range b.Values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			continue
		}
		bp, err := plotter.NewBoxPlot(vg.Points(22), float64(i), v)
		if err != nil {
			return nil, fmt.Errorf("draw accuracy figure: box of %s: %w", b.Name, err)
		}
		bp.FillColor = colFill
		bp.BoxStyle.Color, bp.WhiskerStyle.Color = colData, colData
		bp.MedianStyle.Color, bp.MedianStyle.Width = colData, vg.Points(1.8)
		bp.GlyphStyle.Color, bp.GlyphStyle.Radius = colData, vg.Points(2)
		p.Add(bp)
		mean := 0.0
		for _, x := range v {
			mean += x
		}
		means = append(means, plotter.XY{X: float64(i), Y: mean / float64(len(v))})
	}
	if len(pn.Boxes) > 0 && !math.IsNaN(pn.Reference) {
		ref, _ := plotter.NewLine(plotter.XYs{{X: -0.5, Y: pn.Reference}, {X: float64(len(pn.Boxes)) - 0.5, Y: pn.Reference}})
		ref.Color, ref.Width, ref.Dashes = colAccent, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ref)
	}
	if len(means) > 0 {
		s, err := plotter.NewScatter(means)
		if err != nil {
			return nil, fmt.Errorf("draw accuracy figure: means of %s: %w", pn.Dataset, err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: colAccent, Radius: vg.Points(4), Shape: diamond{}}
		p.Add(s)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(pn.Boxes))-0.5
	// Headroom: whisker caps, box edges and outliers keep off the frame, and
	// the top tick label stays inside the panel (where it would push the
	// panel's title up into the figure's).
	headroom(&p.Y, 0.06)
	// Rotate the method names when the widest does not fit its slot.
	slot := (width - 0.9*vg.Inch) / vg.Length(max(1, len(names)))
	if maxWidth(p.X.Tick.Label, names) > 0.92*slot {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	return p, nil
}

// headroom widens the axis range by frac of its span on both sides (by
// frac of the value, or 1, when the span is 0).
func headroom(a *plot.Axis, frac float64) {
	span := a.Max - a.Min
	if span <= 0 {
		span = math.Max(math.Abs(a.Max), 1)
	}
	a.Min -= frac * span
	a.Max += frac * span
}

// accuracyLegend lists the marks of the box plots.
func accuracyLegend(refNames []string) []legendItem {
	items := []legendItem{
		{func(c draw.Canvas, pt vg.Point) {
			bw, bh := vg.Points(10), vg.Points(9)
			box := vg.Rectangle{Min: vg.Point{X: pt.X, Y: pt.Y - bh/2}, Max: vg.Point{X: pt.X + bw, Y: pt.Y + bh/2}}
			c.SetColor(colFill)
			c.Fill(box.Path())
			c.SetLineStyle(draw.LineStyle{Color: colData, Width: vg.Points(1)})
			c.Stroke(box.Path())
			c.StrokeLine2(draw.LineStyle{Color: colData, Width: vg.Points(1.8)}, pt.X, pt.Y, pt.X+bw, pt.Y)
		}, "box: quartiles and median; whiskers: within 1.5 IQR; circles: beyond"},
		{func(c draw.Canvas, pt vg.Point) {
			c.DrawGlyph(draw.GlyphStyle{Color: colAccent, Radius: vg.Points(4), Shape: diamond{}}, vg.Point{X: pt.X + vg.Points(6), Y: pt.Y})
		}, "mean"},
	}
	if len(refNames) > 0 {
		items = append(items, legendItem{func(c draw.Canvas, pt vg.Point) {
			c.StrokeLine2(draw.LineStyle{Color: colAccent, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, pt.X, pt.Y, pt.X+vg.Points(14), pt.Y)
		}, "median of " + strings.Join(refNames, ", ")})
	}
	return items
}
