package figure

import (
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// Test data: shaped like real runs, with long names where names appear.

func sampleAccuracy(long bool) []AccuracyPanel {
	names := []string{"svm", "spd", "gi", "lccp", "rcsc", "twolevel"}
	if long {
		names = append(names, "spd:diag@lbfgs", "twolevel:diag@paper", "a-method-with-a-very-long-name:param@mode")
	}
	var ps []AccuracyPanel
	for di, ds := range []string{"breast-wisconsin", "heart", "a-dataset-with-a-rather-long-name.csv"} {
		p := AccuracyPanel{Dataset: ds, ReferenceName: "svm"}
		for mi, n := range names {
			b := Box{Name: n}
			for k := range 30 {
				b.Values = append(b.Values, 70+float64(di*8+mi)+6*math.Sin(float64(k*(mi+3))))
			}
			p.Boxes = append(p.Boxes, b)
		}
		p.Reference = 75
		ps = append(ps, p)
	}
	return ps
}

// demsar is Demšar (2006), Table 6 / §3.2.4: four variants of C4.5 on 14
// datasets.
var demsar = CD{
	Names: []string{"C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"},
	Ranks: []float64{3.143, 2.000, 2.893, 1.964},
	CD:    1.25, // Nemenyi, α = 0.05: 2.569 √(4·5/(6·14))
}

func sampleTraces(scale float64) TraceSet {
	var ts [][]float64
	for k := range 8 {
		var t []float64
		for i := range 20 + 5*k {
			t = append(t, scale*(1+float64(k)/10)*(1+50*math.Exp(-float64(i)/3)))
		}
		ts = append(ts, t)
	}
	return TraceSet{Title: "heart, spd: criterion per iteration",
		Criterion: "w(Q) = 2e'a - a'YKYa + rho*||K - K'||_F^2 (Laanaya eq. 12), a criterion with a long explanation that has to wrap",
		Traces:    ts}
}

func featureNames(d int, long bool) []string {
	ns := make([]string, d)
	for i := range ns {
		ns[i] = fmt.Sprintf("x%d", i+1)
		if long && i%7 == 3 {
			ns[i] = fmt.Sprintf("serum_cholestoral_in_mg_per_dl_%d", i+1)
		}
	}
	return ns
}

func sampleWeights(d int, long, sorted bool) Weights {
	var runs [][]float64
	for k := range 10 {
		r := make([]float64, d)
		for j := range r {
			r[j] = 0.01 + 0.02*math.Abs(math.Sin(float64(j*k+1)))
		}
		r[0], r[1] = 0.9+0.01*float64(k), 0.35
		runs = append(runs, r)
	}
	return Weights{Title: "weston, spd:diag: learned diag(Q), mean over 10 partitions",
		Quantity: "q_k (diagonal of Q)", Names: featureNames(d, long), Runs: runs, Sorted: sorted}
}

func sampleMatrix(d int, long bool) Matrix {
	q := make([][]float64, d)
	for i := range q {
		q[i] = make([]float64, d)
		for j := range q[i] {
			q[i][j] = 0.02 * math.Sin(float64(3*i+5*j)) * math.Cos(float64(i*j))
		}
	}
	for i := range q {
		for j := range i {
			q[i][j] = q[j][i]
		}
		q[i][i] = 0.05
	}
	q[0][0], q[1][1], q[0][1], q[1][0] = 0.9, 0.4, -0.12, -0.12
	return Matrix{Title: "weston, spd:full: mean learned Q over 5 partitions", Names: featureNames(d, long), Q: q}
}

// allFigures is one figure of every kind, at the sizes the tool writes
// (few and many methods, features and datasets), with long names.
func allFigures(t *testing.T) map[string]*Figure {
	t.Helper()
	figs := map[string]*Figure{}
	add := func(name string, f *Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		figs[name] = f
	}
	acc := sampleAccuracy(false)
	f, err := Accuracy("test accuracy per partition", acc[1:2])
	add("accuracy-1", f, err)
	f, err = Accuracy("test accuracy per partition", acc)
	add("accuracy-3", f, err)
	f, err = Accuracy("test accuracy per partition, long names", sampleAccuracy(true))
	add("accuracy-long", f, err)
	two := acc[1:2]
	two[0].Boxes = two[0].Boxes[:2]
	f, err = Accuracy("test accuracy per partition", two)
	add("accuracy-2methods", f, err)
	// One partition, all equal, an entry with no finished run, no baseline.
	f, err = Accuracy("test accuracy per partition", []AccuracyPanel{{Dataset: "heart", Reference: math.NaN(), Boxes: []Box{
		{Name: "svm", Values: []float64{80}}, {Name: "spd", Values: []float64{100, 100, 100}}, {Name: "gi"}}}})
	add("accuracy-degenerate", f, err)
	f, err = CriticalDifference(demsar)
	add("cd-demsar", f, err)
	f, err = CriticalDifference(CD{Names: []string{"svm", "spd:diag@lbfgs", "a-method-with-a-very-long-name:param@mode", "gi", "lccp", "rcsc", "twolevel"},
		Ranks: []float64{2.1, 3.5, 1.4, 6.2, 4.4, 5.0, 5.4}, CD: 3.4, CDLabel: "CD = 3.40 (Nemenyi, α = 0.05)"})
	add("cd-long", f, err)
	f, err = Traces(sampleTraces(1))
	add("trace-log", f, err)
	lin := sampleTraces(1)
	for _, tr := range lin.Traces {
		for i := range tr {
			tr[i] = 100 - tr[i]/10
		}
	}
	f, err = Traces(lin)
	add("trace-linear", f, err)
	flat := TraceSet{Title: "heart, rcsc: criterion per iteration", Criterion: "J", Traces: [][]float64{{2, 2, 2}, {2, math.NaN(), 2}, {1}}}
	f, err = Traces(flat)
	add("trace-flat", f, err)
	f, err = FeatureWeights(Weights{Title: "zero weights", Quantity: "q_k (diagonal of Q)", Names: []string{"x1", "x2", "x3"},
		Runs: [][]float64{{0, 0, 0}, {0, math.NaN(), 0}}})
	add("weights-zero", f, err)
	f, err = FeatureWeights(sampleWeights(13, false, false))
	add("weights-13", f, err)
	f, err = FeatureWeights(sampleWeights(2, false, true))
	add("weights-2", f, err)
	f, err = FeatureWeights(sampleWeights(52, true, true))
	add("weights-52-sorted-long", f, err)
	f, err = FeatureWeights(sampleWeights(123, false, false))
	add("weights-123", f, err)
	f, err = Metric(sampleMatrix(13, false))
	add("metric-13", f, err)
	f, err = Metric(sampleMatrix(52, true))
	add("metric-52-long", f, err)
	f, err = Metric(sampleMatrix(2, false))
	add("metric-2", f, err)
	// The accuracy-against-cost figures (issue 24): labels beside points
	// are texts too, in the one family.
	f, err = AccuracyCost("mean test accuracy against cost", []CostPanel{
		{Dataset: "heart", Points: []CostPoint{
			{Name: "svm", Acc: 81.9, AccSD: 3.6, Cost: 383, CostMin: 350, CostMax: 420, Reference: true},
			{Name: "random", Acc: 82.2, AccSD: 4.3, Cost: 301, CostMin: 301, CostMax: 301},
			{Name: "spd", Acc: 81.3, AccSD: 3.5, Cost: 17, CostMin: 12, CostMax: 25}}},
		{Dataset: "diabetes", Points: []CostPoint{
			{Name: "svm", Acc: 74.0, AccSD: 5.5, Cost: 421, CostMin: 400, CostMax: 450, Reference: true},
			{Name: "lccp", Acc: 75.2, AccSD: 4.4, Cost: 792, CostMin: 500, CostMax: 1200}}}})
	add("cost-accuracy", f, err)
	f, err = RankCost("average rank against cost", "Friedman p = 0.01; Nemenyi CD = 1.2",
		[]RankCostPoint{{Name: "svm", Rank: 1.5, Cost: 400, Reference: true}, {Name: "spd", Rank: 2.5, Cost: 20}, {Name: "lccp", Rank: 2, Cost: 900}})
	add("cost-rank", f, err)
	return figs
}

// TestTextInsideCanvas renders every figure kind as SVG and checks that
// every text element lies inside the canvas: its box (advance width from the
// font's metrics, ascent above and descent below the baseline) is mapped
// through every enclosing transform, and all four corners must be within
// [0, width] × [0, height]. With KERNELTUNE_FIGDIR set the SVGs are also
// written there (to look at them).
func TestTextInsideCanvas(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("KERNELTUNE_FIGDIR")
	for name, f := range allFigures(t) {
		t.Run(name, func(t *testing.T) {
			b, err := f.SVG()
			if err != nil {
				t.Fatal(err)
			}
			if dir != "" {
				if err := os.WriteFile(filepath.Join(dir, name+".svg"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			texts, w, h := svgTexts(t, b)
			if len(texts) < 5 {
				t.Fatalf("only %d text elements: %v", len(texts), texts)
			}
			if math.Abs(w-f.Width.Points()) > 0.05 || math.Abs(h-f.Height.Points()) > 0.05 {
				t.Errorf("svg is %g×%g pt, figure says %g×%g", w, h, f.Width.Points(), f.Height.Points())
			}
			// The labels a reader needs are there (gonum/plot drops tick
			// labels silently when a data area comes out empty).
			must := map[string][]string{
				"accuracy": {"heart", "test accuracy (%)", "method", "svm", "mean"},
				"cd":       {"Critical difference diagram", "average rank (1 = best)", "1", "CD = "},
				"trace":    {"heart, ", "iteration"},
				"weights":  {"x1", "x2", "feature", "q_k (diagonal of Q)"},
				"metric":   {"x1", "x2", "feature i", "feature j", "off-diagonal Q_ij", "Q_kk"},
			}[strings.Split(name, "-")[0]]
			for _, m := range must {
				found := false
				for _, tx := range texts {
					found = found || strings.HasPrefix(tx.s, m)
				}
				if !found {
					t.Errorf("no text %q", m)
				}
			}
			const tol = 0.5 // points
			for _, tx := range texts {
				if tx.minX < -tol || tx.minY < -tol || tx.maxX > w+tol || tx.maxY > h+tol {
					t.Errorf("text %q spans x %.1f…%.1f, y %.1f…%.1f: outside the %g×%g canvas", tx.s, tx.minX, tx.maxX, tx.minY, tx.maxY, w, h)
				}
			}
		})
	}
}

// placed is a text element's string and its bounding box on the canvas (in
// SVG user units, y down).
type placed struct {
	s                      string
	minX, minY, maxX, maxY float64
}

// affine is an SVG transform matrix (a b c d e f): x' = a x + c y + e,
// y' = b x + d y + f.
type affine [6]float64

var identity = affine{1, 0, 0, 1, 0, 0}

func (m affine) mul(n affine) affine { // m · n: apply n first
	return affine{
		m[0]*n[0] + m[2]*n[1], m[1]*n[0] + m[3]*n[1],
		m[0]*n[2] + m[2]*n[3], m[1]*n[2] + m[3]*n[3],
		m[0]*n[4] + m[2]*n[5] + m[4], m[1]*n[4] + m[3]*n[5] + m[5],
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

var transformRE = regexp.MustCompile(`(translate|scale|rotate|matrix)\(([^)]*)\)`)

func parseTransform(t *testing.T, s string) affine {
	m := identity
	for _, g := range transformRE.FindAllStringSubmatch(s, -1) {
		var a []float64
		for _, f := range strings.FieldsFunc(g[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("transform %q: %v", s, err)
			}
			a = append(a, v)
		}
		var n affine
		switch {
		case g[1] == "translate" && len(a) == 2:
			n = affine{1, 0, 0, 1, a[0], a[1]}
		case g[1] == "translate" && len(a) == 1:
			n = affine{1, 0, 0, 1, a[0], 0}
		case g[1] == "scale" && len(a) == 2:
			n = affine{a[0], 0, 0, a[1], 0, 0}
		case g[1] == "scale" && len(a) == 1:
			n = affine{a[0], 0, 0, a[0], 0, 0}
		case g[1] == "rotate" && len(a) == 1:
			r := a[0] * math.Pi / 180
			n = affine{math.Cos(r), math.Sin(r), -math.Sin(r), math.Cos(r), 0, 0}
		case g[1] == "matrix" && len(a) == 6:
			copy(n[:], a)
		default:
			t.Fatalf("transform %q: cannot read %s", s, g[0])
		}
		m = m.mul(n)
	}
	return m
}

var fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)

// svgTexts parses an SVG written by gonum/plot's vgsvg and returns every
// text element with its box, and the canvas size. gonum positions text
// itself (no text-anchor): x, y is the left end of the baseline in the
// text's own coordinates, so the box is [x, x+advance] × [y-ascent,
// y+descent] there.
func svgTexts(t *testing.T, b []byte) ([]placed, float64, float64) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	stack := []affine{identity}
	var out []placed
	var w, h float64
	face := func(size float64) font.Face {
		fnt := textFont
		fnt.Size = vg.Points(size)
		return plot.DefaultTextHandler.Cache().Lookup(fnt, fnt.Size)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg does not parse: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			m := stack[len(stack)-1].mul(parseTransform(t, attr["transform"]))
			stack = append(stack, m)
			switch e.Name.Local {
			case "svg":
				vb := strings.Fields(attr["viewBox"])
				if len(vb) != 4 {
					t.Fatalf("svg viewBox %q", attr["viewBox"])
				}
				w, _ = strconv.ParseFloat(vb[2], 64)
				h, _ = strconv.ParseFloat(vb[3], 64)
			case "text":
				var s string
				if err := dec.DecodeElement(&s, &e); err != nil {
					t.Fatal(err)
				}
				stack = stack[:len(stack)-1]
				s = html.UnescapeString(s)
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				fs := fontSizeRE.FindStringSubmatch(attr["style"])
				if fs == nil {
					t.Fatalf("text %q has no font size: %q", s, attr["style"])
				}
				size, _ := strconv.ParseFloat(fs[1], 64)
				fc := face(size)
				ext := fc.Extents()
				adv := fc.Width(s).Points()
				p := placed{s: s, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
				for _, c := range [][2]float64{{x, y - ext.Ascent.Points()}, {x + adv, y - ext.Ascent.Points()}, {x, y + ext.Descent.Points()}, {x + adv, y + ext.Descent.Points()}} {
					cx, cy := m.apply(c[0], c[1])
					p.minX, p.maxX = math.Min(p.minX, cx), math.Max(p.maxX, cx)
					p.minY, p.maxY = math.Min(p.minY, cy), math.Max(p.maxY, cy)
				}
				out = append(out, p)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	return out, w, h
}
