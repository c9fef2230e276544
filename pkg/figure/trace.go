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

// TraceSet is a criterion per iteration of several runs (partitions) of one
// method on one dataset.
type TraceSet struct {
	Title     string      // e.g. "heart, spd: criterion per iteration"
	Criterion string      // the criterion, as long as it needs (wrapped under the title)
	Traces    [][]float64 // one per run; value i is after iteration i (0 = the start)
}

// logRatio is the max/min ratio of the values from which Traces uses a
// logarithmic y axis: a decade or more, where a linear axis squeezes
// everything after the first steep drop into a tenth of the height.
const logRatio = 10

// UseLog reports whether Traces draws values on a logarithmic axis: every
// finite value positive and the largest at least logRatio times the
// smallest. Non-positive values keep the axis linear (a log axis cannot
// show them, and shifting them would change the numbers a reader sees).
func UseLog(values [][]float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, tr := range values {
		for _, v := range tr {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if v <= 0 {
				return false
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo < hi && hi >= logRatio*lo
}

// MedianTrace is the median over runs at each iteration. A run that
// stopped earlier counts with its last value (it converged there), so the
// median is defined up to the longest run; non-finite values are left out.
func MedianTrace(traces [][]float64) []float64 {
	n := 0
	for _, t := range traces {
		n = max(n, len(t))
	}
	out := make([]float64, 0, n)
	var col []float64
	for i := range n {
		col = col[:0]
		for _, t := range traces {
			if len(t) == 0 {
				continue
			}
			v := t[min(i, len(t)-1)]
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				col = append(col, v)
			}
		}
		if len(col) == 0 {
			out = append(out, math.NaN())
			continue
		}
		slices.Sort(col)
		m := len(col) / 2
		if len(col)%2 == 1 {
			out = append(out, col[m])
		} else {
			out = append(out, (col[m-1]+col[m])/2)
		}
	}
	return out
}

// ShortLabel is the y-axis label for a criterion: its name before " = ",
// ": " or " (" (e.g. "w(Q)" of "w(Q) = 2e'a - … (Laanaya eq. 12)"), or
// "criterion" when that is still longer than 28 characters.
func ShortLabel(criterion string) string {
	s := criterion
	for _, sep := range []string{" = ", ": ", " ("} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	s = strings.TrimSpace(s)
	if s == "" || len([]rune(s)) > 28 {
		return "criterion"
	}
	return s
}

// Traces draws every run's trace thin and light and their median
// (MedianTrace) bold, on a log axis when UseLog says so. The criterion is
// written in full under the title; the y axis carries ShortLabel.
func Traces(ts TraceSet) (*Figure, error) {
	var runs [][]float64
	for _, t := range ts.Traces {
		if len(t) >= 2 {
			runs = append(runs, t)
		}
	}
	if len(runs) == 0 {
		return nil, errors.New("draw traces: no run with two or more iterations")
	}
	width, height := 6.4*vg.Inch, 4.2*vg.Inch
	title := ts.Title
	if ts.Criterion != "" {
		title += "\ncriterion: " + ts.Criterion
	}
	logY := UseLog(runs)
	// The title is the figure's (drawTitle, as the other figures): a
	// two-line title of gonum/plot's own sits on the data area.
	p := newPlot("", width)
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = ShortLabel(ts.Criterion)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Label.Text += " (log scale)"
	}
	for _, t := range runs {
		if l := traceLine(t, logY); l != nil {
			l.Color, l.Width = colDataLight, vg.Points(0.8)
			p.Add(l)
		}
	}
	med := MedianTrace(runs)
	ml := traceLine(med, logY)
	if ml == nil {
		return nil, fmt.Errorf("draw traces: %s: no finite median", ts.Title)
	}
	ml.Color, ml.Width = colData, vg.Points(2.4)
	p.Add(ml)
	p.X.Min = 0
	p.X.Tick.Marker = intTicks{}
	if !logY {
		headroom(&p.Y, 0.04)
	}
	legend := newLegend([]legendItem{
		{func(c draw.Canvas, pt vg.Point) {
			c.StrokeLine2(draw.LineStyle{Color: colDataLight, Width: vg.Points(0.8)}, pt.X, pt.Y, pt.X+vg.Points(legendMarkW), pt.Y)
		}, fmt.Sprintf("each of %d runs (partitions)", len(runs))},
		{func(c draw.Canvas, pt vg.Point) {
			c.StrokeLine2(draw.LineStyle{Color: colData, Width: vg.Points(2.4)}, pt.X, pt.Y, pt.X+vg.Points(legendMarkW), pt.Y)
		}, "median over runs (a finished run counts with its last value)"},
	}, width)
	th := titleHeight(title, width)
	f := &Figure{Width: width, Height: th + height + legend.height()}
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

// traceLine is the line through the finite (and, on a log axis, positive)
// values of t; nil when fewer than two remain.
func traceLine(t []float64, logY bool) *plotter.Line {
	var pts plotter.XYs
	for i, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) || (logY && v <= 0) {
			continue
		}
		pts = append(pts, plotter.XY{X: float64(i), Y: v})
	}
	if len(pts) < 2 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil
	}
	return l
}

// logTicks labels a log axis at 1, 2, 5 × 10^k when it spans less than
// three decades and at powers of ten otherwise (gonum's LogTicks labels
// only powers of ten, which leaves a one-decade axis with one label).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	steps := []float64{1, 2, 5}
	if math.Log10(hi/lo) >= 3 {
		steps = []float64{1}
	}
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains(steps, float64(m)) {
				t.Label = fmt.Sprintf("%g", v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// intTicks puts labelled ticks on whole numbers only (iterations), about
// six of them at 1, 2 or 5 × 10^k steps.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	step := 1.0
	for _, m := range []float64{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000} {
		step = m
		if span/m <= 6 {
			break
		}
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return ts
}
