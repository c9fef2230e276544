package figure

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// cdLegendText explains the thick bars of a critical-difference diagram.
const cdLegendText = "joins methods whose average ranks differ by less than the CD: not significantly different"

// CD is the input of a critical-difference diagram (Demšar 2006, §3.2.2 and
// Fig. 1): the methods' average ranks over the datasets (1 = best) and the
// critical difference of the post-hoc test (Nemenyi: CD = q_α √(k(k+1)/6N),
// Demšar eq. 5), both computed elsewhere.
type CD struct {
	Title string    // "" = "Critical difference diagram"
	Names []string  // method names
	Ranks []float64 // average ranks, in [1, k]
	CD    float64   // critical difference, > 0
	// CDLabel is written above the CD bar; "" = "CD = <CD>".
	CDLabel string
	// Cliques are the groups joined by a bar, each a list of indices into
	// Names; nil = Cliques(Ranks, CD).
	Cliques [][]int
}

// Cliques returns the groups of methods the diagram joins: the maximal runs
// of methods, in rank order, whose average ranks differ pairwise by less
// than cd — the methods the Nemenyi test does not tell apart (Demšar 2006,
// Fig. 1: "groups of classifiers that are not significantly different are
// connected"). A run of a single method is no group. Each group lists
// indices into ranks, best rank first.
func Cliques(ranks []float64, cd float64) [][]int {
	order := rankOrder(ranks)
	var out [][]int
	last := -1 // index in order of the end of the last group
	for i := range order {
		j := i
		for j+1 < len(order) && ranks[order[j+1]]-ranks[order[i]] < cd {
			j++
		}
		if j > i && j > last {
			out = append(out, slices.Clone(order[i:j+1]))
			last = j
		}
	}
	return out
}

// rankOrder returns the indices of ranks sorted by rank (ties by index).
func rankOrder(ranks []float64) []int {
	order := make([]int, len(ranks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ranks[a] < ranks[b]:
			return -1
		case ranks[a] > ranks[b]:
			return 1
		}
		return 0
	})
	return order
}

// CriticalDifference draws Demšar's diagram: a rank axis from 1 (best, on
// the left) to k on top, the CD bar above it, each method hanging from its
// average rank on a line that leads to its name (the better half on the
// left, the worse on the right), and thick bars under the axis joining the
// methods of each clique.
func CriticalDifference(d CD) (*Figure, error) {
	cliques, err := d.check()
	if err != nil {
		return nil, fmt.Errorf("draw critical-difference diagram: %w", err)
	}
	title := d.Title
	if title == "" {
		title = "Critical difference diagram"
	}
	l := newCDLayout(d, cliques)
	legend := newLegend([]legendItem{{func(c draw.Canvas, pt vg.Point) {
		c.StrokeLine2(draw.LineStyle{Color: colAccent, Width: vg.Points(4)}, pt.X, pt.Y, pt.X+vg.Points(legendMarkW), pt.Y)
	}, cdLegendText}}, l.width)
	f := &Figure{Width: l.width}
	f.Height = titleHeight(title, l.width) + l.cdH + l.tickH + l.cliqueSpace + l.methodsH + l.axisLabelH + legend.height()
	f.draw = func(c draw.Canvas) {
		c = drawTitle(c, title, titleSize)
		l.ax0 = c.Min.X + l.margin + l.leftW
		l.ax1 = l.ax0 + l.axisW
		yCD := c.Max.Y - vg.Points(24)
		l.drawCDBar(c, yCD)
		yAx := yCD - l.cdH + vg.Points(24) - l.tickH
		l.drawAxis(c, yAx)
		l.drawCliques(c, yAx)
		y0 := yAx - l.cliqueSpace
		l.drawMethods(c, yAx, y0)
		labSty := textStyle(labelSize)
		labSty.XAlign, labSty.YAlign = draw.XCenter, draw.YTop
		yLab := y0 - l.methodsH - vg.Points(4)
		c.FillText(labSty, vg.Point{X: (l.ax0 + l.ax1) / 2, Y: yLab}, cdAxisLabel)
		strip := c
		strip.Max.Y = strip.Min.Y + legend.height()
		legend.draw(strip)
	}
	return f, nil
}

// check refuses a diagram it cannot draw and returns its cliques (d's, or
// Cliques of its ranks).
func (d CD) check() ([][]int, error) {
	k := len(d.Names)
	if k != len(d.Ranks) {
		return nil, fmt.Errorf("%d names but %d ranks", k, len(d.Ranks))
	}
	if k < 2 {
		return nil, errors.New("needs at least two methods")
	}
	for i, r := range d.Ranks {
		if math.IsNaN(r) || r < 1 || r > float64(k) {
			return nil, fmt.Errorf("rank of %s is %v, not in [1, %d]", d.Names[i], r, k)
		}
	}
	if !(d.CD > 0) || math.IsInf(d.CD, 0) {
		return nil, fmt.Errorf("CD = %v, want a positive number", d.CD)
	}
	cliques := d.Cliques
	if cliques == nil {
		cliques = Cliques(d.Ranks, d.CD)
	}
	for _, g := range cliques {
		for _, i := range g {
			if i < 0 || i >= k {
				return nil, fmt.Errorf("clique member %d is not a method index (0..%d)", i, k-1)
			}
		}
	}
	return cliques, nil
}

// cdAxisLabel names the diagram's axis.
const cdAxisLabel = "average rank (1 = best)"

// The rows of a critical-difference diagram, in points.
const (
	cdRowH    = 17 // between method rows
	cdCliqueH = 6  // between clique bars
)

// cdLayout is a critical-difference diagram's geometry: the methods in
// rank order (the first nLeft lead left), the axis's last rank hi, the
// widths and heights of its parts, and, once drawing, the axis's ends.
type cdLayout struct {
	d                           CD
	cliques                     [][]int
	k, nLeft                    int
	order                       []int
	hi                          float64
	margin, gap, lead           vg.Length
	leftW, rightW, axisW, width vg.Length
	cdH, tickH, cliqueSpace     vg.Length
	methodsH, axisLabelH        vg.Length
	nameSty                     draw.TextStyle
	ax0, ax1                    vg.Length
}

func newCDLayout(d CD, cliques [][]int) *cdLayout {
	k := len(d.Names)
	l := &cdLayout{d: d, cliques: cliques, k: k, order: rankOrder(d.Ranks), nLeft: (k + 1) / 2}
	var left, right []string
	for j, i := range l.order {
		if j < l.nLeft {
			left = append(left, l.label(i))
		} else {
			right = append(right, l.label(i))
		}
	}
	l.nameSty = textStyle(labelSize)
	l.nameSty.YAlign = draw.YCenter
	l.hi = float64(k)
	if 1+d.CD > l.hi {
		l.hi = math.Ceil(1 + d.CD)
	}
	l.margin = vg.Points(12)
	l.gap = vg.Points(8) // between a name and its line's end
	l.lead = vg.Points(14)
	l.leftW = maxWidth(l.nameSty, left) + l.gap + l.lead
	l.rightW = maxWidth(l.nameSty, right) + l.gap + l.lead
	l.axisW = max(3*vg.Inch, vg.Length(l.hi-1)*0.7*vg.Inch)
	l.width = l.margin + l.leftW + l.axisW + l.rightW + l.margin
	// Wide enough for the legend's one line, which is never cut short.
	l.width = max(l.width, textStyle(noteSize).Width(cdLegendText)+vg.Points(legendMarkW+4+20))
	l.cdH = vg.Points(34)   // CD bar and its label
	l.tickH = vg.Points(22) // tick numbers and ticks
	l.cliqueSpace = vg.Points(10 + cdCliqueH*float64(len(cliques)))
	l.methodsH = vg.Points(cdRowH * float64(max(l.nLeft, k-l.nLeft)+1))
	l.axisLabelH = textStyle(labelSize).Height(cdAxisLabel) + vg.Points(12)
	return l
}

// label is method i's name and its average rank.
func (l *cdLayout) label(i int) string { return fmt.Sprintf("%s (%.2f)", l.d.Names[i], l.d.Ranks[i]) }

// x is the axis position of rank r.
func (l *cdLayout) x(r float64) vg.Length { return l.ax0 + vg.Length((r-1)/(l.hi-1))*l.axisW }

// drawCDBar draws the CD bar at height y, left-aligned at rank 1, and its
// label.
func (l *cdLayout) drawCDBar(c draw.Canvas, y vg.Length) {
	cd, x := l.d.CD, l.x
	dark := draw.LineStyle{Color: colData, Width: vg.Points(1)}
	c.StrokeLine2(draw.LineStyle{Color: colData, Width: vg.Points(1.5)}, x(1), y, x(1+cd), y)
	for _, r := range []float64{1, 1 + cd} {
		c.StrokeLine2(dark, x(r), y-vg.Points(3), x(r), y+vg.Points(3))
	}
	cdLabel := l.d.CDLabel
	if cdLabel == "" {
		cdLabel = fmt.Sprintf("CD = %.3g", cd)
	}
	cdSty := textStyle(labelSize)
	cdSty.XAlign, cdSty.YAlign = draw.XCenter, draw.YBottom
	c.FillText(cdSty, vg.Point{X: (x(1) + x(1+cd)) / 2, Y: y + vg.Points(5)}, cdLabel)
}

// drawAxis draws the rank axis at height y, with ticks at every integer
// and half rank.
func (l *cdLayout) drawAxis(c draw.Canvas, y vg.Length) {
	dark := draw.LineStyle{Color: colData, Width: vg.Points(1)}
	tickSty := textStyle(tickSize)
	tickSty.XAlign, tickSty.YAlign = draw.XCenter, draw.YBottom
	c.StrokeLine2(dark, l.ax0, y, l.ax1, y)
	for r := 1.0; r <= l.hi+1e-9; r += 0.5 {
		h := vg.Points(3)
		if r == math.Trunc(r) {
			h = vg.Points(6)
			c.FillText(tickSty, vg.Point{X: l.x(r), Y: y + h + vg.Points(2)}, fmt.Sprint(r))
		}
		c.StrokeLine2(dark, l.x(r), y, l.x(r), y+h)
	}
}

// drawCliques draws the clique bars under the axis at height yAx.
func (l *cdLayout) drawCliques(c draw.Canvas, yAx vg.Length) {
	for j, g := range l.cliques {
		lo, up := math.Inf(1), math.Inf(-1)
		for _, i := range g {
			lo, up = math.Min(lo, l.d.Ranks[i]), math.Max(up, l.d.Ranks[i])
		}
		y := yAx - vg.Points(10+cdCliqueH*float64(j))
		c.StrokeLine2(draw.LineStyle{Color: colAccent, Width: vg.Points(4)}, l.x(lo)-vg.Points(3), y, l.x(up)+vg.Points(3), y)
	}
}

// drawMethods draws each method's line from the axis (at yAx) down to its
// row below y0 and its name: the better half leads left, the best on the
// top row; the worse half leads right, the worst on the top row, so that
// no two lines cross.
func (l *cdLayout) drawMethods(c draw.Canvas, yAx, y0 vg.Length) {
	line := draw.LineStyle{Color: colGrey, Width: vg.Points(1)}
	rightSty := l.nameSty
	rightSty.XAlign = draw.XLeft
	leftSty := l.nameSty
	leftSty.XAlign = draw.XRight
	for j, i := range l.order {
		var row int
		if j < l.nLeft {
			row = j
		} else {
			row = l.k - 1 - j
		}
		y := y0 - vg.Points(cdRowH*float64(row+1))
		xr := l.x(l.d.Ranks[i])
		if j < l.nLeft {
			end := l.ax0 - l.lead
			c.StrokeLines(line, []vg.Point{{X: xr, Y: yAx}, {X: xr, Y: y}, {X: end, Y: y}})
			c.FillText(leftSty, vg.Point{X: end - l.gap, Y: y}, l.label(i))
		} else {
			end := l.ax1 + l.lead
			c.StrokeLines(line, []vg.Point{{X: xr, Y: yAx}, {X: xr, Y: y}, {X: end, Y: y}})
			c.FillText(rightSty, vg.Point{X: end + l.gap, Y: y}, l.label(i))
		}
	}
}
