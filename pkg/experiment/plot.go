package experiment

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// WritePlots writes figures of records into dir, in format "svg" (the
// default), "png" or "pdf":
//
//	DATASET-accuracy.svg       box plots of test accuracy per method entry
//	DATASET-ENTRY-trace.svg    the criterion per iteration, one line per partition
//	DATASET-ENTRY-Q.svg        the mean learned metric Q as a heat map
//
// and returns the files written. order gives the entries' order.
func WritePlots(dir, format string, records []Record, order []string) ([]string, error) {
	switch format {
	case "":
		format = "svg"
	case "svg", "png", "pdf":
	default:
		return nil, fmt.Errorf("experiment: plots: unknown format %q (want svg, png or pdf)", format)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("experiment: plots: %w", err)
	}
	var files []string
	save := func(p *plot.Plot, name string, w, h vg.Length) error {
		path := filepath.Join(dir, safeName(name)+"."+format)
		if err := p.Save(w, h, path); err != nil {
			return fmt.Errorf("experiment: plot %s: %w", path, err)
		}
		files = append(files, path)
		return nil
	}
	for _, t := range Summarize(records, order, "") {
		byEntry := map[string][]Record{}
		for _, r := range records {
			if r.Dataset == t.Dataset && !r.Failed() {
				byEntry[r.Entry] = append(byEntry[r.Entry], r)
			}
		}
		p, err := accuracyBoxes(t, byEntry)
		if err != nil {
			return files, err
		}
		if err := save(p, t.Dataset+"-accuracy", vg.Length(max(4, len(t.Rows)))*1.4*vg.Inch, 4*vg.Inch); err != nil {
			return files, err
		}
		for _, row := range t.Rows {
			rs := byEntry[row.Entry]
			if p := traces(t.Dataset, row.Entry, rs); p != nil {
				if err := save(p, t.Dataset+"-"+row.Entry+"-trace", 6*vg.Inch, 4*vg.Inch); err != nil {
					return files, err
				}
			}
			if p := meanQ(t.Dataset, row.Entry, rs); p != nil {
				if err := save(p, t.Dataset+"-"+row.Entry+"-Q", 5*vg.Inch, 4.5*vg.Inch); err != nil {
					return files, err
				}
			}
		}
	}
	return files, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safeName(s string) string { return unsafeChars.ReplaceAllString(s, "_") }

func accuracyBoxes(t Table, byEntry map[string][]Record) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = t.Dataset + ": test accuracy per partition"
	p.Y.Label.Text = "test accuracy (%)"
	var names []string
	for i, row := range t.Rows {
		var v plotter.Values
		for _, r := range byEntry[row.Entry] {
			v = append(v, 100*r.TestAccuracy)
		}
		names = append(names, row.Entry)
		if len(v) == 0 {
			continue
		}
		b, err := plotter.NewBoxPlot(vg.Points(20), float64(i), v)
		if err != nil {
			return nil, fmt.Errorf("experiment: box plot %s: %w", row.Entry, err)
		}
		p.Add(b)
	}
	p.NominalX(names...)
	return p, nil
}

func traces(dataset, entry string, rs []Record) *plot.Plot {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: criterion per iteration", dataset, entry)
	p.X.Label.Text = "iteration"
	drawn := false
	for _, r := range rs {
		if len(r.Trace) < 2 {
			continue
		}
		if p.Y.Label.Text == "" {
			p.Y.Label.Text = r.Criterion
		}
		pts := make(plotter.XYs, len(r.Trace))
		for i, v := range r.Trace {
			pts[i].X, pts[i].Y = float64(i), v
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			continue // a non-finite value: leave the partition out of the figure
		}
		l.Color = color.NRGBA{R: 30, G: 90, B: 180, A: 140}
		p.Add(l)
		drawn = true
	}
	if !drawn {
		return nil
	}
	return p
}

// qGrid is a d×d matrix as a heat-map grid (row 0 at the top).
type qGrid struct {
	d int
	q []float64
}

func (g qGrid) Dims() (c, r int)   { return g.d, g.d }
func (g qGrid) Z(c, r int) float64 { return g.q[(g.d-1-r)*g.d+c] }
func (g qGrid) X(c int) float64    { return float64(c + 1) }
func (g qGrid) Y(r int) float64    { return float64(g.d - r) }

func meanQ(dataset, entry string, rs []Record) *plot.Plot {
	var sum []float64
	d, n := 0, 0
	for _, r := range rs {
		q := fullQ(r)
		if q == nil || (d != 0 && len(q) != d*d) {
			continue
		}
		if d == 0 {
			d = isqrt(len(q))
			sum = make([]float64, len(q))
		}
		for i, v := range q {
			sum[i] += v
		}
		n++
	}
	if n == 0 || d < 2 {
		return nil
	}
	for i := range sum {
		sum[i] /= float64(n)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: mean learned Q over %d partitions\n(colour from %.3g to %.3g)",
		dataset, entry, n, slices.Min(sum), slices.Max(sum))
	p.X.Label.Text, p.Y.Label.Text = "feature", "feature"
	p.X.Tick.Marker, p.Y.Tick.Marker = featureTicks{d}, featureTicks{d}
	pal := palette.Heat(64, 1)
	if slices.Min(sum) < 0 { // a full Q has negative off-diagonal entries
		pal = palette.Radial(64, palette.Hue(0.6), palette.Hue(0.05), 1)
	}
	p.Add(plotter.NewHeatMap(qGrid{d, sum}, pal))
	return p
}

// featureTicks labels the integer feature numbers 1..d (at most ~12 labels).
type featureTicks struct{ d int }

func (f featureTicks) Ticks(_, _ float64) []plot.Tick {
	step := max(1, (f.d+11)/12)
	var ts []plot.Tick
	for i := 1; i <= f.d; i++ {
		t := plot.Tick{Value: float64(i)}
		if (i-1)%step == 0 {
			t.Label = fmt.Sprint(i)
		}
		ts = append(ts, t)
	}
	return ts
}

// fullQ returns the record's metric Q as a row-major d×d slice, or nil when
// the kernel is not a Gaussian with a per-feature or full metric.
func fullQ(r Record) []float64 {
	k := r.Kernel
	switch {
	case len(k.Q) > 0:
		d := len(k.Q)
		q := make([]float64, 0, d*d)
		for _, row := range k.Q {
			if len(row) != d {
				return nil
			}
			q = append(q, row...)
		}
		return q
	case len(k.Diag) > 0:
		d := len(k.Diag)
		q := make([]float64, d*d)
		for i, v := range k.Diag {
			q[i*d+i] = v
		}
		return q
	}
	return nil
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}
