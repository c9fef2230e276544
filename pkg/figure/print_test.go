package figure

import (
	"bytes"
	"image/png"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

var styleRE = regexp.MustCompile(`font-family:([^;]*);[^"]*font-size:([0-9.]+)px`)

// TestOneSansFamilyReadableSizes: every text of every figure kind is in one
// sans-serif family, with metric-compatible fallbacks and the generic
// family last (a browser without Liberation Sans would otherwise use its
// default serif), and no smaller than 10 pt (13.3 px at the natural size,
// the HTML page's small text) — 8 pt only for the row labels of figures of
// more than 40 features.
func TestOneSansFamilyReadableSizes(t *testing.T) {
	t.Parallel()
	for name, f := range allFigures(t) {
		b, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		ms := styleRE.FindAllStringSubmatch(string(b), -1)
		if len(ms) < 5 {
			t.Fatalf("%s: %d styled texts", name, len(ms))
		}
		many := strings.HasSuffix(name, "-52-long") || strings.HasSuffix(name, "-52-sorted-long") || name == "weights-123"
		for _, m := range ms {
			if "font-family:"+m[1]+";" != svgFontFamily {
				t.Errorf("%s: font-family %q", name, m[1])
			}
			size, _ := strconv.ParseFloat(m[2], 64)
			if min := map[bool]float64{false: 10, true: 8}[many]; size < min {
				t.Errorf("%s: a %g pt text, want ≥ %g pt", name, size, min)
			}
		}
		if strings.Contains(string(b), "Serif") {
			t.Errorf("%s: a serif face in the SVG", name)
		}
	}
}

// TestTextsDoNotOverlap: no two texts of a figure overlap (the grid of box
// plots had its overall title on the second panel's title), in the kinds
// with free text placement.
func TestTextsDoNotOverlap(t *testing.T) {
	t.Parallel()
	for name, f := range allFigures(t) {
		if strings.HasPrefix(name, "metric-52") || strings.HasPrefix(name, "weights-123") || strings.HasPrefix(name, "weights-52") {
			continue // label steps are tested by the row layout
		}
		if name == "accuracy-long" {
			continue // rotated names: their boxes here are the upright hulls
		}
		b, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		texts, _, _ := svgTexts(t, b)
		// The lines of one wrapped text are closer than ascent + descent
		// (the font's line gap): 2 pt of vertical overlap is allowed.
		const tolX, tolY = 0.5, 2
		for i, a := range texts {
			for _, c := range texts[i+1:] {
				if a.minX < c.maxX-tolX && c.minX < a.maxX-tolX && a.minY < c.maxY-tolY && c.minY < a.maxY-tolY {
					t.Errorf("%s: %q and %q overlap", name, a.s, c.s)
				}
			}
		}
	}
}

// TestBoxPlotHeadroom: the y range of a box-plot panel reaches 6% of the
// data's span beyond its extremes, so caps, box edges and outliers keep off
// the frame.
func TestBoxPlotHeadroom(t *testing.T) {
	pn := AccuracyPanel{Dataset: "heart", Reference: 96, Boxes: []Box{
		{Name: "svm", Values: []float64{93, 95, 96, 98, 99}}, {Name: "spd", Values: []float64{94, 96, 99}}}}
	p, err := accuracyPanel(pn, 3*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	// Data 93…99: span 6, headroom 0.36 each side.
	if math.Abs(p.Y.Min-92.64) > 1e-9 || math.Abs(p.Y.Max-99.36) > 1e-9 {
		t.Errorf("y range %v…%v, want 92.64…99.36", p.Y.Min, p.Y.Max)
	}
}

// TestMetricColourBarApart: the heat map's "feature j" sits closer to the
// heat map than to the colour bar under it: between it and the colour
// bar's own label lie the 22 pt gap, the 18 pt bar and its tick labels.
func TestMetricColourBarApart(t *testing.T) {
	f, err := Metric(sampleMatrix(13, false))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.SVG()
	texts, _, _ := svgTexts(t, b)
	var fj, cb *placed
	for i := range texts {
		switch texts[i].s {
		case "feature j":
			fj = &texts[i]
		case "off-diagonal Q_ij":
			cb = &texts[i]
		}
	}
	if fj == nil || cb == nil {
		t.Fatal("no feature j or colour-bar label")
	}
	if gap := cb.minY - fj.maxY; gap < 22+18+10 {
		t.Errorf("feature j ends %.1f pt above the colour bar's label, want ≥ 50", gap)
	}
}

// TestPNGResolution: a PNG is the figure's size in inches times the
// resolution, 300 dpi unless given.
func TestPNGResolution(t *testing.T) {
	t.Parallel()
	f, err := FeatureWeights(sampleWeights(13, false, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, dpi := range []int{0, 96, 600} {
		var b bytes.Buffer
		if err := f.EncodeDPI(&b, "png", dpi); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(map[int]int{0: 300}[dpi] + dpi)
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		if ww := float64(f.Width/vg.Inch) * want; math.Abs(float64(w)-ww) > 1 {
			t.Errorf("dpi %d: %d px wide, want %.0f", dpi, w, ww)
		}
		if hh := float64(f.Height/vg.Inch) * want; math.Abs(float64(h)-hh) > 1 {
			t.Errorf("dpi %d: %d px high, want %.0f", dpi, h, hh)
		}
	}
	if err := f.EncodeDPI(io.Discard, "png", -1); err == nil {
		t.Error("a negative resolution is accepted")
	}
}
