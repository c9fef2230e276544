package figure

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Weights is one weight per feature for each of several runs: a diagonal
// metric Q (q_k), per-feature γ, or the 1/θ_k of an L1 kernel.
type Weights struct {
	Title    string
	Quantity string      // the x-axis label, e.g. "q_k (diagonal of Q)"
	Names    []string    // feature names, one per weight
	Runs     [][]float64 // one slice of len(Names) weights per run
	// Sorted lists the features by mean weight, largest first; otherwise
	// in their order in the data, first at the top.
	Sorted bool
}

// FeatureWeights draws a horizontal bar per feature, its mean weight over
// the runs, with each run's weight as a dot on it, feature names on the
// y axis.
func FeatureWeights(w Weights) (*Figure, error) {
	d := len(w.Names)
	if d == 0 {
		return nil, errors.New("draw feature weights: no features")
	}
	if len(w.Runs) == 0 {
		return nil, errors.New("draw feature weights: no runs")
	}
	for i, r := range w.Runs {
		if len(r) != d {
			return nil, fmt.Errorf("draw feature weights: run %d has %d weights for %d features", i+1, len(r), d)
		}
	}
	mean := make([]float64, d)
	for k := range d {
		n := 0
		for _, r := range w.Runs {
			if v := r[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				mean[k] += v
				n++
			}
		}
		mean[k] /= float64(n) // NaN when no run has a finite weight: no bar
	}
	order := make([]int, d) // display order, top first
	for k := range order {
		order[k] = k
	}
	if w.Sorted {
		slices.SortStableFunc(order, func(a, b int) int {
			ma, mb := mean[a], mean[b]
			switch {
			case ma > mb || (!math.IsNaN(ma) && math.IsNaN(mb)):
				return -1
			case ma < mb || (math.IsNaN(ma) && !math.IsNaN(mb)):
				return 1
			}
			return 0
		})
	}
	rowH, fontSize := rowLayout(d)
	width := 6.4 * vg.Inch
	p := newPlot("", width) // the title is the figure's, above the plot
	title := w.Title
	p.X.Label.Text = w.Quantity
	if w.Sorted {
		p.Y.Label.Text = "feature (largest mean first)"
	} else {
		p.Y.Label.Text = "feature"
	}
	p.Y.Tick.Label.Font.Size = fontSize
	// At least as tall as the rotated y label: a shorter data area makes
	// gonum/plot's padding invert it and drop every tick label.
	dataH := max(vg.Length(d)*rowH, p.Y.Label.TextStyle.Width(p.Y.Label.Text)+vg.Points(12))
	rowH = dataH / vg.Length(d)
	// Feature order[i] sits at y = d - i, so the first is on top.
	vals := make(plotter.Values, d)
	labels := make([]string, d)
	for i, k := range order {
		vals[d-1-i] = finiteOr0(mean[k])
		labels[d-1-i] = w.Names[k]
	}
	bars, err := plotter.NewBarChart(vals, rowH*0.7)
	if err != nil {
		return nil, fmt.Errorf("draw feature weights: %w", err)
	}
	bars.Horizontal, bars.XMin = true, 1
	bars.Color, bars.LineStyle.Color = colFill, colData
	bars.LineStyle.Width = vg.Points(0.6)
	p.Add(bars)
	var dots plotter.XYs
	for i, k := range order {
		for _, r := range w.Runs {
			if v := r[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				dots = append(dots, plotter.XY{X: v, Y: float64(d - i)})
			}
		}
	}
	if len(dots) > 0 {
		s, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, fmt.Errorf("draw feature weights: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: colDot, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
		p.Add(s)
	}
	p.Y.Min, p.Y.Max = 0.5, float64(d)+0.5
	p.Y.Tick.Marker = rowTicks{labels: labels, step: labelStep(d, rowH, fontSize)}
	p.Y.Padding, p.X.Padding = 0, vg.Points(2)
	p.X.Min = math.Min(0, p.X.Min)
	p.X.Max += 0.04 * (p.X.Max - p.X.Min) // the largest dot keeps off the frame

	legend := newLegend([]legendItem{
		{func(c draw.Canvas, pt vg.Point) {
			r := vg.Rectangle{Min: vg.Point{X: pt.X, Y: pt.Y - 4}, Max: vg.Point{X: pt.X + vg.Points(legendMarkW), Y: pt.Y + 4}}
			c.SetColor(colFill)
			c.Fill(r.Path())
			c.SetLineStyle(draw.LineStyle{Color: colData, Width: vg.Points(0.6)})
			c.Stroke(r.Path())
		}, fmt.Sprintf("mean over %d runs (partitions)", len(w.Runs))},
		{func(c draw.Canvas, pt vg.Point) {
			c.DrawGlyph(draw.GlyphStyle{Color: colDot, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}, vg.Point{X: pt.X + 7, Y: pt.Y})
		}, "one run"},
	}, width)
	th := titleHeight(title, width)
	f := &Figure{Width: width}
	f.Height = th + legend.height() + dataH + axisExtra(p, width)
	f.draw = func(c draw.Canvas) {
		c = drawTitle(c, title, titleSize)
		strip := c
		strip.Max.Y = strip.Min.Y + legend.height()
		c.Min.Y += legend.height()
		p.Draw(draw.Crop(c, inset, -inset, 0, 0))
		legend.draw(strip)
	}
	return f, nil
}

// rowLayout is the height of one feature's row and the font size of its
// name: rows tall enough for every name up to 80 features (9 pt names
// up to 40, 8 pt beyond); over 80, 7 pt names in rows that keep the figure
// under ~13 in, with every few names left out (labelStep).
func rowLayout(d int) (vg.Length, vg.Length) {
	fit := func(size vg.Length) vg.Length { return textStyle(size).Height("Mg") + vg.Points(1.5) }
	switch {
	case d <= 40:
		return max(0.16*vg.Inch, fit(tickSize)), tickSize
	case d <= 80:
		return fit(9), 9
	default:
		// Every labelStep-th row labelled, at a size that still prints.
		return max(0.06*vg.Inch, 12*vg.Inch/vg.Length(d)), 8
	}
}

// labelStep is the label spacing (every step-th row labelled) that keeps
// names of the given font size from overlapping in rows of height rowH.
func labelStep(d int, rowH, fontSize vg.Length) int {
	need := textStyle(fontSize).Height("Mg") + vg.Points(1)
	return max(1, int(math.Ceil(float64(need/rowH))))
}

// axisExtra is the height a plot p takes besides its data area: title,
// x axis and padding, measured on a trial canvas.
func axisExtra(p *plot.Plot, width vg.Length) vg.Length {
	const h = 1000
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: width, Y: h}}}
	dc := p.DataCanvas(c)
	return h - (dc.Max.Y - dc.Min.Y)
}

func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// rowTicks labels positions 1..len(labels) (labels[i] at i+1), every
// step-th label shown counting from the top.
type rowTicks struct {
	labels []string
	step   int
}

func (r rowTicks) Ticks(_, _ float64) []plot.Tick {
	n := len(r.labels)
	ts := make([]plot.Tick, n)
	for i := range ts {
		ts[i].Value = float64(i + 1)
		if (n-1-i)%r.step == 0 {
			ts[i].Label = r.labels[i]
		}
	}
	return ts
}

// Matrix is a full metric Q over named features, e.g. the mean of the
// learned Q over the partitions.
type Matrix struct {
	Title string
	Names []string
	Q     [][]float64 // d×d, symmetric
}

// offDiag is Q as a heat-map grid with NaN on the diagonal; row 0 (feature
// 1) at the top.
type offDiag struct{ q [][]float64 }

func (g offDiag) Dims() (c, r int) { return len(g.q), len(g.q) }
func (g offDiag) Z(c, r int) float64 {
	i := len(g.q) - 1 - r
	if i == c {
		return math.NaN()
	}
	return g.q[i][c]
}
func (g offDiag) X(c int) float64 { return float64(c + 1) }
func (g offDiag) Y(r int) float64 { return float64(r + 1) }

// Metric draws a full Q in two aligned panels: the off-diagonal entries as
// a heat map in a diverging blue–white–red palette centred at 0 (limits
// ±max|Q_ij|, i ≠ j; the diagonal cells grey) with a colour bar under it,
// and the diagonal Q_kk as bars on the right, one per heat-map row. The
// diagonal gets its own panel because it is positive and usually much
// larger than the off-diagonal entries: on one colour scale it saturates and
// leaves the off-diagonal structure invisible.
func Metric(m Matrix) (*Figure, error) {
	d := len(m.Names)
	if d < 2 {
		return nil, errors.New("draw metric: needs at least two features")
	}
	if len(m.Q) != d {
		return nil, fmt.Errorf("draw metric: Q has %d rows for %d features", len(m.Q), d)
	}
	lim := 0.0
	for i, row := range m.Q {
		if len(row) != d {
			return nil, fmt.Errorf("draw metric: Q row %d has %d entries, want %d", i+1, len(row), d)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("draw metric: Q[%d][%d] = %v is not finite", i+1, j+1, v)
			}
			if i != j {
				lim = math.Max(lim, math.Abs(v))
			}
		}
	}
	if lim == 0 {
		lim = 1 // a diagonal Q given as full: an all-white map
	}
	rowH, fontSize := rowLayout(d)
	rowH = max(rowH, 2.8*vg.Inch/vg.Length(d))
	side := vg.Length(d) * rowH
	step := labelStep(d, rowH, fontSize)
	labels := make([]string, d) // labels[i] at y = i+1: feature d-1-i
	for i := range labels {
		labels[i] = m.Names[d-1-i]
	}

	// Heat map of the off-diagonal entries.
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(-lim)
	cmap.SetMax(lim)
	heat := newPlot("", side)
	heat.Title.Text = "off-diagonal Q_ij (diagonal dark grey)"
	hm := plotter.NewHeatMap(offDiag{m.Q}, cmap.Palette(255))
	hm.Min, hm.Max = -lim, lim
	hm.NaN = color.NRGBA{R: 90, G: 90, B: 90, A: 255}
	heat.Add(hm)
	heat.X.Min, heat.X.Max = 0.5, float64(d)+0.5
	heat.Y.Min, heat.Y.Max = 0.5, float64(d)+0.5
	heat.X.Padding, heat.Y.Padding = 0, 0
	heat.X.Label.Text, heat.Y.Label.Text = "feature j", "feature i"
	heat.X.Tick.Label.Font.Size, heat.Y.Tick.Label.Font.Size = fontSize, fontSize
	heat.X.Tick.Label.Rotation = math.Pi / 2
	heat.X.Tick.Label.XAlign, heat.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	heat.Y.Tick.Marker = rowTicks{labels: labels, step: step}
	xlabels := make([]string, d)
	for i := range xlabels {
		xlabels[i] = m.Names[i]
	}
	heat.X.Tick.Marker = colTicks{labels: xlabels, step: step}

	// Colour bar under the heat map.
	cb := newPlot("", side)
	cb.Add(colorStrip{cmap: cmap, n: 101})
	cb.HideY()
	cb.X.Label.Text = "off-diagonal Q_ij"
	cb.X.Padding = 0

	// Diagonal bars, one per heat-map row.
	diag := make(plotter.Values, d)
	for i := range diag {
		diag[i] = m.Q[d-1-i][d-1-i]
	}
	bars, err := plotter.NewBarChart(diag, rowH*0.7)
	if err != nil {
		return nil, fmt.Errorf("draw metric: diagonal: %w", err)
	}
	bars.Horizontal, bars.XMin = true, 1
	bars.Color, bars.LineStyle.Color, bars.LineStyle.Width = colFill, colData, vg.Points(0.6)
	barW := 2.2 * vg.Inch
	bp := newPlot("", barW)
	bp.Title.Text = "diagonal Q_kk"
	bp.Add(bars)
	bp.Y.Min, bp.Y.Max = 0.5, float64(d)+0.5
	bp.Y.Padding, bp.X.Padding = 0, vg.Points(2)
	bp.Y.Tick.Marker = rowTicks{labels: make([]string, d), step: 1}
	bp.X.Label.Text = "Q_kk"
	bp.X.Min = math.Min(0, bp.X.Min)
	bp.X.Max += 0.05 * (bp.X.Max - bp.X.Min) // the longest bar keeps off the frame

	// Layout: [heat map | bars] above [colour bar | empty], with the data
	// areas of heat map and bars on the same rows, and of heat map and
	// colour bar in the same columns.
	hl, hr, hb, ht := margins(heat)
	bl, br, bb, bt := margins(bp)
	cl, cr, cbb, cbt := margins(cb)
	top := max(ht, bt)
	bottom := max(hb, bb)
	left := max(hl, cl)
	// cbGap keeps the colour bar clear of the heat map's "feature j", which
	// would otherwise sit on the bar and read as its title.
	cbGap := vg.Points(22)
	cbH := cbGap + 0.25*vg.Inch + cbb + cbt
	pad := vg.Points(10)
	gap := vg.Points(14)
	title := m.Title
	width := pad + left + side + max(hr, cr) + gap + bl + barW + br + pad
	width = max(width, 5*vg.Inch)
	th := titleHeight(title, width)
	f := &Figure{Width: width, Height: th + top + side + bottom + cbH + pad}
	f.draw = func(c draw.Canvas) {
		c = drawTitle(c, title, titleSize)
		// Data area of the heat map.
		x0 := c.Min.X + pad + left
		y1 := c.Max.Y - top
		y0 := y1 - side
		place := func(p *plot.Plot, dx0, dy0, dx1, dy1 vg.Length) {
			l, r, b, t := margins(p)
			p.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: dx0 - l, Y: dy0 - b},
				Max: vg.Point{X: dx1 + r, Y: dy1 + t},
			}})
		}
		place(heat, x0, y0, x0+side, y1)
		bx0 := x0 + side + max(hr, cr) + gap + bl
		place(bp, bx0, y0, bx0+barW, y1)
		cy1 := y0 - bottom - cbGap - cbt
		place(cb, x0, cy1-0.25*vg.Inch, x0+side, cy1)
	}
	return f, nil
}

// margins are the widths of the parts of p's canvas around its data area:
// left (y axis), right, bottom (x axis) and top (title), measured on a
// trial canvas (gonum/plot's padding does not depend on the canvas size).
func margins(p *plot.Plot) (l, r, b, t vg.Length) {
	const s = 2000
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: s, Y: s}}}
	dc := p.DataCanvas(c)
	return dc.Min.X, s - dc.Max.X, dc.Min.Y, s - dc.Max.Y
}

// colTicks labels positions 1..len(labels) (labels[i] at i+1), every
// step-th label shown counting from the left.
type colTicks struct {
	labels []string
	step   int
}

func (r colTicks) Ticks(_, _ float64) []plot.Tick {
	ts := make([]plot.Tick, len(r.labels))
	for i := range ts {
		ts[i].Value = float64(i + 1)
		if i%r.step == 0 {
			ts[i].Label = r.labels[i]
		}
	}
	return ts
}

// colorStrip is a horizontal colour bar drawn as n filled rectangles
// (vector, unlike plotter.ColorBar's embedded raster image, which some SVG
// renderers do not show).
type colorStrip struct {
	cmap palette.ColorMap
	n    int
}

func (s colorStrip) Plot(c draw.Canvas, p *plot.Plot) {
	lo, hi := s.cmap.Min(), s.cmap.Max()
	trX, _ := p.Transforms(&c)
	for i := range s.n {
		a := lo + (hi-lo)*float64(i)/float64(s.n)
		b := lo + (hi-lo)*float64(i+1)/float64(s.n)
		col, err := s.cmap.At((a + b) / 2)
		if err != nil {
			continue
		}
		r := vg.Rectangle{Min: vg.Point{X: trX(a), Y: c.Min.Y}, Max: vg.Point{X: trX(b) + vg.Points(0.3), Y: c.Max.Y}}
		c.SetColor(col)
		c.Fill(r.Path())
	}
}

func (s colorStrip) DataRange() (xmin, xmax, ymin, ymax float64) {
	return s.cmap.Min(), s.cmap.Max(), 0, 1
}
