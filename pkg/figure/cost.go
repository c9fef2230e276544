package figure

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CostPoint is one method on one dataset: its mean test accuracy (%) and
// the accuracy's standard deviation over the partitions, and its cost: the
// mean number of SVM solves and the fewest and most of any partition.
type CostPoint struct {
	Name                   string
	Acc, AccSD             float64
	Cost, CostMin, CostMax float64
	Reference              bool // the baseline: drawn in the accent colour
}

// CostPanel is one dataset's points.
type CostPanel struct {
	Dataset string
	Points  []CostPoint
	// Unit names the cost on the axis and in the legend ("SVM solves",
	// "seconds"); "" is SVM solves.
	Unit string
	// Metric names the score of the points (Acc) in the axis label and
	// the legend ("balanced accuracy"); "" is accuracy.
	Metric string
}

// AccuracyCost draws mean test accuracy against mean cost (SVM solves, or
// the panels' Unit), one panel
// per dataset (at most three to a row): each method a point labelled with
// its name, a vertical bar of ± one standard deviation of the accuracy
// and a horizontal bar from its fewest to its most solves; the cost axis
// is logarithmic (the methods' costs differ by orders of magnitude). A
// legend under the panels says so.
func AccuracyCost(title string, panels []CostPanel) (*Figure, error) {
	if len(panels) == 0 {
		return nil, errors.New("draw accuracy-cost figure: no datasets")
	}
	cols := min(len(panels), 3)
	rows := (len(panels) + cols - 1) / cols
	panelW := max(4.8*vg.Inch/vg.Length(cols), 3.6*vg.Inch)
	panelH := 3.6 * vg.Inch
	var plots []*plot.Plot
	for _, pn := range panels {
		p, err := costPanel(pn, panelW)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	width := vg.Length(cols) * panelW
	legend := newLegend(costLegend(metricName(panels[0].Metric), costUnit(panels[0].Unit)), width)
	return panelGrid(title, plots, rows, cols, panelH, width, legend), nil
}

// costXYs are points with error bars: XError and YError return the
// distances below and above the point.
type costXYs struct {
	xy          plotter.XYs
	xLow, xHigh []float64
	yLow, yHigh []float64
}

func (c costXYs) Len() int                        { return len(c.xy) }
func (c costXYs) XY(i int) (float64, float64)     { return c.xy[i].X, c.xy[i].Y }
func (c costXYs) XError(i int) (float64, float64) { return c.xLow[i], c.xHigh[i] }
func (c costXYs) YError(i int) (float64, float64) { return c.yLow[i], c.yHigh[i] }
func (c *costXYs) add(x, xlo, xhi, y, ylo, yhi float64) {
	c.xy = append(c.xy, plotter.XY{X: x, Y: y})
	c.xLow, c.xHigh = append(c.xLow, x-xlo), append(c.xHigh, xhi-x)
	c.yLow, c.yHigh = append(c.yLow, y-ylo), append(c.yHigh, yhi-y)
}

// costPanel is one dataset's plot.
func costPanel(pn CostPanel, width vg.Length) (*plot.Plot, error) {
	p := newPlot(pn.Dataset, width)
	p.Y.Label.Text = "mean test " + metricName(pn.Metric) + " (%)"
	p.X.Label.Text = "mean " + costUnit(pn.Unit) + " (log scale)"
	var pts, ref costXYs
	var labels plotter.XYLabels
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range pn.Points {
		if !(q.Cost > 0) || math.IsNaN(q.Acc) {
			continue
		}
		sd := q.AccSD
		if math.IsNaN(sd) {
			sd = 0
		}
		cmin, cmax := q.CostMin, q.CostMax
		if !(cmin > 0) {
			cmin = q.Cost
		}
		if !(cmax >= q.Cost) {
			cmax = q.Cost
		}
		into := &pts
		if q.Reference {
			into = &ref
		}
		into.add(q.Cost, cmin, cmax, q.Acc, q.Acc-sd, q.Acc+sd)
		labels.XYs = append(labels.XYs, plotter.XY{X: q.Cost, Y: q.Acc})
		labels.Labels = append(labels.Labels, q.Name)
		lo, hi = min(lo, cmin), max(hi, cmax)
	}
	if len(labels.XYs) == 0 {
		return nil, fmt.Errorf("draw accuracy-cost figure: %s has no method with a cost", pn.Dataset)
	}
	for k, set := range []costXYs{pts, ref} {
		if set.Len() == 0 {
			continue
		}
		col := colData
		if k == 1 {
			col = colAccent
		}
		xe, err := plotter.NewXErrorBars(set)
		if err != nil {
			return nil, fmt.Errorf("draw accuracy-cost figure: %w", err)
		}
		ye, err := plotter.NewYErrorBars(set)
		if err != nil {
			return nil, fmt.Errorf("draw accuracy-cost figure: %w", err)
		}
		xe.LineStyle.Color, ye.LineStyle.Color = col, col
		xe.CapWidth, ye.CapWidth = vg.Points(4), vg.Points(4)
		s, err := plotter.NewScatter(set)
		if err != nil {
			return nil, fmt.Errorf("draw accuracy-cost figure: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		p.Add(xe, ye, s)
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	// Room for the labels to the right of the costliest point and above.
	p.X.Min, p.X.Max = lo/1.6, hi*2.5
	p.Y.Max += 0.08 * (p.Y.Max - p.Y.Min + 1)
	if err := placeLabels(p, labels, width, 3.6*vg.Inch, false); err != nil {
		return nil, fmt.Errorf("draw accuracy-cost figure: %w", err)
	}
	return p, nil
}

// placeLabels adds each point's label beside it: above right if that
// space is free, else below right, above left, below left, then further
// up or down on the right. Free means clear of the labels placed before
// (the points in order of decreasing y) and of every point's mark: methods
// of about equal cost and accuracy otherwise print their names over each
// other. The plot's area is estimated from the panel's size, which is
// close enough for labels a line high.
func placeLabels(p *plot.Plot, labels plotter.XYLabels, width, height vg.Length, invertY bool) error {
	sty := textStyle(tickSize)
	xSc := float64(width-vg.Points(70)) / (math.Log10(p.X.Max) - math.Log10(p.X.Min))
	ySc := float64(height-vg.Points(75)) / (p.Y.Max - p.Y.Min)
	if invertY { // a rank axis, best at the top
		ySc = -ySc
	}
	line := float64(sty.Height("Mg"))
	at := func(xy plotter.XY) (float64, float64) { return math.Log10(xy.X) * xSc, xy.Y * ySc }
	type box struct{ x0, y0, x1, y1 float64 }
	var taken []box
	for _, xy := range labels.XYs { // the marks
		x, y := at(xy)
		taken = append(taken, box{x - 3.5, y - 3.5, x + 3.5, y + 3.5})
	}
	free := func(b box) bool {
		for _, q := range taken {
			if b.x0 < q.x1 && q.x0 < b.x1 && b.y0 < q.y1 && q.y0 < b.y1 {
				return false
			}
		}
		return true
	}
	order := make([]int, len(labels.XYs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(labels.XYs[b].Y, labels.XYs[a].Y) })
	for _, i := range order {
		x, y := at(labels.XYs[i])
		w := float64(sty.Width(labels.Labels[i]))
		// Offsets of the label's lower left corner from the point.
		// (A label starts 5 points right or left of its point: clear of
		// its own mark.)
		tries := [][2]float64{{5, 1}, {5, -line - 1}, {-w - 5, 1}, {-w - 5, -line - 1}}
		for k := 1; k <= 4; k++ {
			tries = append(tries, [2]float64{5, 1 + float64(k)*line}, [2]float64{5, -line - 1 - float64(k)*line})
		}
		off := tries[0]
		for _, t := range tries {
			if free(box{x + t[0], y + t[1], x + t[0] + w, y + t[1] + line}) {
				off = t
				break
			}
		}
		taken = append(taken, box{x + off[0], y + off[1], x + off[0] + w, y + off[1] + line})
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{labels.XYs[i]}, Labels: []string{labels.Labels[i]}})
		if err != nil {
			return err
		}
		lab.TextStyle[0] = sty // the figures' one family (textStyle), not plotter's default
		lab.TextStyle[0].YAlign = draw.YBottom
		lab.Offset = vg.Point{X: vg.Length(off[0]), Y: vg.Length(off[1])}
		p.Add(lab)
	}
	return nil
}

// costLegend explains the marks of AccuracyCost.
// costUnit is a panel's cost unit, SVM solves by default.
func costUnit(u string) string {
	if u == "" {
		return "SVM solves"
	}
	return u
}

func costLegend(metric, unit string) []legendItem {
	spread := "fewest to most " + unit
	if unit == "seconds" {
		spread = "shortest to longest partition"
	}
	return []legendItem{
		{func(c draw.Canvas, pt vg.Point) {
			c.DrawGlyph(draw.GlyphStyle{Color: colData, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}, vg.Point{X: pt.X + vg.Points(6), Y: pt.Y})
		}, "a method: mean over the partitions"},
		{func(c draw.Canvas, pt vg.Point) {
			c.DrawGlyph(draw.GlyphStyle{Color: colAccent, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}, vg.Point{X: pt.X + vg.Points(6), Y: pt.Y})
		}, "the baseline"},
		{func(c draw.Canvas, pt vg.Point) {
			c.StrokeLine2(draw.LineStyle{Color: colData, Width: vg.Points(1)}, pt.X+vg.Points(6), pt.Y-vg.Points(5), pt.X+vg.Points(6), pt.Y+vg.Points(5))
		}, metric + " ± 1 s.d."},
		{func(c draw.Canvas, pt vg.Point) {
			c.StrokeLine2(draw.LineStyle{Color: colData, Width: vg.Points(1)}, pt.X, pt.Y, pt.X+vg.Points(12), pt.Y)
		}, spread},
	}
}

// RankCostPoint is one method across datasets: its average rank of mean
// test accuracy (1 = best) and its cost, the mean over the datasets of
// its mean SVM solves.
type RankCostPoint struct {
	Name       string
	Rank, Cost float64
	Reference  bool
}

// RankCost draws the average rank against the cost across datasets, best
// rank at the top, the cost axis logarithmic; note (e.g. the Friedman test
// and the Nemenyi critical difference) is written under the plot.
func RankCost(title, note string, pts []RankCostPoint) (*Figure, error) {
	if len(pts) == 0 {
		return nil, errors.New("draw rank-cost figure: no methods")
	}
	width := 5.6 * vg.Inch
	p := newPlot("", width)
	p.Y.Label.Text = "average rank (1 = best)"
	p.X.Label.Text = "mean SVM solves over the datasets (log scale)"
	var labels plotter.XYLabels
	lo, hi := math.Inf(1), math.Inf(-1)
	for k := range 2 {
		var xy plotter.XYs
		for _, q := range pts {
			if q.Reference != (k == 1) || !(q.Cost > 0) {
				continue
			}
			xy = append(xy, plotter.XY{X: q.Cost, Y: q.Rank})
			labels.XYs = append(labels.XYs, plotter.XY{X: q.Cost, Y: q.Rank})
			labels.Labels = append(labels.Labels, q.Name)
			lo, hi = min(lo, q.Cost), max(hi, q.Cost)
		}
		if len(xy) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("draw rank-cost figure: %w", err)
		}
		col := colData
		if k == 1 {
			col = colAccent
		}
		s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(s)
	}
	if len(labels.XYs) == 0 {
		return nil, errors.New("draw rank-cost figure: no method with a cost")
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max = lo/1.6, hi*4
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	p.Y.Min, p.Y.Max = 1, float64(len(pts))
	p.Y.Min -= 0.3
	p.Y.Max += 0.3
	plotH := 3.8 * vg.Inch
	// Labels beside their points without overlaps, as in AccuracyCost
	// (methods of equal rank and close cost share a row).
	if err := placeLabels(p, labels, width, plotH, true); err != nil {
		return nil, fmt.Errorf("draw rank-cost figure: %w", err)
	}
	sty := textStyle(noteSize)
	sty.XAlign = draw.XLeft
	note = wrap(note, sty, width-vg.Points(20))
	noteH := sty.Height(note) + vg.Points(10)
	if note == "" {
		noteH = 0
	}
	f := &Figure{Width: width, Height: plotH + noteH + titleHeight(title, width)}
	f.draw = func(c draw.Canvas) {
		c = drawTitle(c, title, titleSize)
		if note != "" {
			sty := sty
			sty.YAlign = draw.YTop
			c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(10), Y: c.Min.Y + noteH - vg.Points(4)}, note)
			c.Min.Y += noteH
		}
		p.Draw(draw.Crop(c, inset, -inset, 0, 0))
	}
	return f, nil
}
