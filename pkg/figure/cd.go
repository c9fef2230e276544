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
	k := len(d.Names)
	if k != len(d.Ranks) {
		return nil, fmt.Errorf("draw critical-difference diagram: %d names but %d ranks", k, len(d.Ranks))
	}
	if k < 2 {
		return nil, errors.New("draw critical-difference diagram: needs at least two methods")
	}
	for i, r := range d.Ranks {
		if math.IsNaN(r) || r < 1 || r > float64(k) {
			return nil, fmt.Errorf("draw critical-difference diagram: rank of %s is %v, not in [1, %d]", d.Names[i], r, k)
		}
	}
	if !(d.CD > 0) || math.IsInf(d.CD, 0) {
		return nil, fmt.Errorf("draw critical-difference diagram: CD = %v, want a positive number", d.CD)
	}
	cliques := d.Cliques
	if cliques == nil {
		cliques = Cliques(d.Ranks, d.CD)
	}
	for _, g := range cliques {
		for _, i := range g {
			if i < 0 || i >= k {
				return nil, fmt.Errorf("draw critical-difference diagram: clique member %d is not a method index (0..%d)", i, k-1)
			}
		}
	}
	title := d.Title
	if title == "" {
		title = "Critical difference diagram"
	}
	cdLabel := d.CDLabel
	if cdLabel == "" {
		cdLabel = fmt.Sprintf("CD = %.3g", d.CD)
	}

	order := rankOrder(d.Ranks)
	nLeft := (k + 1) / 2
	label := func(i int) string { return fmt.Sprintf("%s (%.2f)", d.Names[i], d.Ranks[i]) }
	var left, right []string
	for j, i := range order {
		if j < nLeft {
			left = append(left, label(i))
		} else {
			right = append(right, label(i))
		}
	}
	nameSty := textStyle(labelSize)
	nameSty.YAlign = draw.YCenter
	tickSty := textStyle(tickSize)
	tickSty.XAlign, tickSty.YAlign = draw.XCenter, draw.YBottom

	hi := float64(k)
	if 1+d.CD > hi {
		hi = math.Ceil(1 + d.CD)
	}
	margin := vg.Points(12)
	gap := vg.Points(8) // between a name and its line's end
	lead := vg.Points(14)
	leftW := maxWidth(nameSty, left) + gap + lead
	rightW := maxWidth(nameSty, right) + gap + lead
	axisW := max(3*vg.Inch, vg.Length(hi-1)*0.7*vg.Inch)
	width := margin + leftW + axisW + rightW + margin
	// Wide enough for the legend's one line, which is never cut short.
	width = max(width, textStyle(noteSize).Width(cdLegendText)+vg.Points(legendMarkW+4+20))

	const (
		rowH    = 17 // points between method rows
		cliqueH = 6  // points between clique bars
	)
	cdH := vg.Points(34)   // CD bar and its label
	tickH := vg.Points(22) // tick numbers and ticks
	cliqueSpace := vg.Points(10 + cliqueH*float64(len(cliques)))
	methodsH := vg.Points(rowH * float64(max(nLeft, k-nLeft)+1))
	axisLabel := "average rank (1 = best)"
	axisLabelH := textStyle(labelSize).Height(axisLabel) + vg.Points(12)
	legend := newLegend([]legendItem{{func(c draw.Canvas, pt vg.Point) {
		c.StrokeLine2(draw.LineStyle{Color: colAccent, Width: vg.Points(4)}, pt.X, pt.Y, pt.X+vg.Points(legendMarkW), pt.Y)
	}, cdLegendText}}, width)
	f := &Figure{Width: width}
	f.Height = titleHeight(title, width) + cdH + tickH + cliqueSpace + methodsH + axisLabelH + legend.height()

	f.draw = func(c draw.Canvas) {
		c = drawTitle(c, title, titleSize)
		ax0 := c.Min.X + margin + leftW
		ax1 := ax0 + axisW
		x := func(r float64) vg.Length { return ax0 + vg.Length((r-1)/(hi-1))*axisW }
		line := draw.LineStyle{Color: colGrey, Width: vg.Points(1)}
		dark := draw.LineStyle{Color: colData, Width: vg.Points(1)}

		// CD bar, left-aligned at rank 1.
		yCD := c.Max.Y - vg.Points(24)
		c.StrokeLine2(draw.LineStyle{Color: colData, Width: vg.Points(1.5)}, x(1), yCD, x(1+d.CD), yCD)
		for _, r := range []float64{1, 1 + d.CD} {
			c.StrokeLine2(dark, x(r), yCD-vg.Points(3), x(r), yCD+vg.Points(3))
		}
		cdSty := textStyle(labelSize)
		cdSty.XAlign, cdSty.YAlign = draw.XCenter, draw.YBottom
		c.FillText(cdSty, vg.Point{X: (x(1) + x(1+d.CD)) / 2, Y: yCD + vg.Points(5)}, cdLabel)

		// Axis with ticks at every integer and half rank.
		yAx := yCD - cdH + vg.Points(24) - tickH
		c.StrokeLine2(dark, ax0, yAx, ax1, yAx)
		for r := 1.0; r <= hi+1e-9; r += 0.5 {
			h := vg.Points(3)
			if r == math.Trunc(r) {
				h = vg.Points(6)
				c.FillText(tickSty, vg.Point{X: x(r), Y: yAx + h + vg.Points(2)}, fmt.Sprint(r))
			}
			c.StrokeLine2(dark, x(r), yAx, x(r), yAx+h)
		}

		// Clique bars under the axis.
		for j, g := range cliques {
			lo, up := math.Inf(1), math.Inf(-1)
			for _, i := range g {
				lo, up = math.Min(lo, d.Ranks[i]), math.Max(up, d.Ranks[i])
			}
			y := yAx - vg.Points(10+cliqueH*float64(j))
			c.StrokeLine2(draw.LineStyle{Color: colAccent, Width: vg.Points(4)}, x(lo)-vg.Points(3), y, x(up)+vg.Points(3), y)
		}

		// Methods: the better half leads left, the best on the top row; the
		// worse half leads right, the worst on the top row, so that no two
		// lines cross.
		y0 := yAx - cliqueSpace
		rightSty := nameSty
		rightSty.XAlign = draw.XLeft
		leftSty := nameSty
		leftSty.XAlign = draw.XRight
		for j, i := range order {
			var row int
			if j < nLeft {
				row = j
			} else {
				row = k - 1 - j
			}
			y := y0 - vg.Points(rowH*float64(row+1))
			xr := x(d.Ranks[i])
			if j < nLeft {
				end := ax0 - lead
				c.StrokeLines(line, []vg.Point{{X: xr, Y: yAx}, {X: xr, Y: y}, {X: end, Y: y}})
				c.FillText(leftSty, vg.Point{X: end - gap, Y: y}, label(i))
			} else {
				end := ax1 + lead
				c.StrokeLines(line, []vg.Point{{X: xr, Y: yAx}, {X: xr, Y: y}, {X: end, Y: y}})
				c.FillText(rightSty, vg.Point{X: end + gap, Y: y}, label(i))
			}
		}
		labSty := textStyle(labelSize)
		labSty.XAlign, labSty.YAlign = draw.XCenter, draw.YTop
		yLab := y0 - methodsH - vg.Points(4)
		c.FillText(labSty, vg.Point{X: (ax0 + ax1) / 2, Y: yLab}, axisLabel)
		strip := c
		strip.Max.Y = strip.Min.Y + legend.height()
		legend.draw(strip)
	}
	return f, nil
}
