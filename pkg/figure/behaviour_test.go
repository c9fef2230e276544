package figure

import (
	"image/color"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/palette/moreland"
)

// Demšar (2006), §3.2.4: with CD = 1.25 (α = 0.05) the Nemenyi test finds
// no difference among the four C4.5 variants (the largest rank difference,
// 3.143 − 1.964 = 1.179, is below it): one group. With CD = 1.12 (α = 0.10,
// q = 2.291) C4.5+m+cf and C4.5+m are better than C4.5: two groups.
func TestCliquesDemsar(t *testing.T) {
	for _, c := range []struct {
		cd   float64
		want [][]int
	}{
		{1.25, [][]int{{3, 1, 2, 0}}},
		{2.291 * math.Sqrt(4*5/(6*14.0)), [][]int{{3, 1, 2}, {2, 0}}},
		{0.5, [][]int{{3, 1}, {2, 0}}},
		{0.01, nil},
	} {
		if got := Cliques(demsar.Ranks, c.cd); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CD %.4f: cliques %v, want %v", c.cd, got, c.want)
		}
	}
}

var pathRE = regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)" style="[^"]*stroke-width:4"`)

// The diagram's thick bars are where the cliques say: each spans the
// x positions of its best and worst rank (read off the axis's tick labels)
// plus 3 pt either side.
func TestCriticalDifferenceBars(t *testing.T) {
	for _, cd := range []float64{1.25, 1.118} {
		d := demsar
		d.CD = cd
		f, err := CriticalDifference(d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		texts, _, _ := svgTexts(t, b)
		tick := map[string]float64{}
		for _, tx := range texts {
			if len(tx.s) == 1 {
				tick[tx.s] = (tx.minX + tx.maxX) / 2
			}
		}
		x1, x4 := tick["1"], tick["4"]
		if x4 <= x1 {
			t.Fatalf("CD %v: tick labels 1 at %v, 4 at %v", cd, x1, x4)
		}
		x := func(r float64) float64 { return x1 + (r-1)/3*(x4-x1) }
		var bars [][2]float64
		for _, m := range pathRE.FindAllStringSubmatch(string(b), -1) {
			a, _ := strconv.ParseFloat(m[1], 64)
			e, _ := strconv.ParseFloat(m[3], 64)
			if a >= x1-4 { // not the legend's sample bar, left of the axis
				bars = append(bars, [2]float64{a, e})
			}
		}
		cl := Cliques(d.Ranks, cd)
		if len(bars) != len(cl) {
			t.Fatalf("CD %v: %d bars, want %d (%v)", cd, len(bars), len(cl), cl)
		}
		for i, g := range cl {
			lo, hi := d.Ranks[g[0]], d.Ranks[g[len(g)-1]]
			if math.Abs(bars[i][0]-(x(lo)-3)) > 0.6 || math.Abs(bars[i][1]-(x(hi)+3)) > 0.6 {
				t.Errorf("CD %v: bar %d spans %.1f…%.1f, want ranks %.3f…%.3f at %.1f…%.1f", cd, i, bars[i][0], bars[i][1], lo, hi, x(lo)-3, x(hi)+3)
			}
		}
		for _, n := range d.Names {
			if !strings.Contains(string(b), ">"+n+" (") {
				t.Errorf("CD %v: no label for %s", cd, n)
			}
		}
	}
	if _, err := CriticalDifference(CD{Names: []string{"a", "b"}, Ranks: []float64{1, 2.5}, CD: 1}); err == nil || !strings.Contains(err.Error(), "rank of b is 2.5") {
		t.Errorf("rank beyond k: %v", err)
	}
	if _, err := CriticalDifference(CD{Names: []string{"a", "b"}, Ranks: []float64{1, 2}, CD: 0}); err == nil {
		t.Error("CD = 0 accepted")
	}
}

func TestUseLogMedianShortLabel(t *testing.T) {
	for _, c := range []struct {
		v    [][]float64
		want bool
	}{
		{[][]float64{{100, 20}, {12, 10}}, true},
		{[][]float64{{100, 20}, {12, 11}}, false},      // 9.1×: less than a decade
		{[][]float64{{1000, 1}, {-1, 5}}, false},       // a negative value
		{[][]float64{{1000, 0, 1}}, false},             // zero
		{[][]float64{{1000, math.NaN(), 1}}, true},     // NaN left out
		{[][]float64{{math.Inf(1), 20, 2, 1.9}}, true}, // Inf left out
	} {
		if got := UseLog(c.v); got != c.want {
			t.Errorf("UseLog(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	got := MedianTrace([][]float64{{3, 2, 1}, {5, 4}, {10}, {}})
	if want := []float64{5, 4, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("MedianTrace = %v, want %v (a finished run counts with its last value)", got, want)
	}
	got = MedianTrace([][]float64{{1, 2}, {3, 4}})
	if want := []float64{2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("MedianTrace of two = %v, want %v", got, want)
	}
	for in, want := range map[string]string{
		"w(Q) = 2e'a - a'YKYa + rho*||K - K'||_F^2 (Laanaya eq. 12)": "w(Q)",
		"5-fold CV accuracy": "5-fold CV accuracy",
		"Σ max(0, -f_i): L1 violation of the validation margins (Schittkowski eq. 11–12)": "Σ max(0, -f_i)",
		"radius-margin bound R²‖w‖² (Boughorbel et al., minimised by LCCP)":               "radius-margin bound R²‖w‖²",
		"an unusually long criterion name without any separator in it at all":             "criterion",
	} {
		if got := ShortLabel(in); got != want {
			t.Errorf("ShortLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// The y axis of a weights chart lists the features top to bottom in data
// order, or by mean weight with Sorted.
func TestFeatureWeightsOrder(t *testing.T) {
	w := Weights{Title: "t", Quantity: "q_k", Names: []string{"age", "sex", "chol", "bp"},
		Runs: [][]float64{{0.1, 0.4, 0.2, 0.9}, {0.3, 0.6, 0.2, 0.7}}} // means 0.2 0.5 0.2 0.8
	for _, c := range []struct {
		sorted bool
		want   []string
	}{{false, []string{"age", "sex", "chol", "bp"}}, {true, []string{"bp", "sex", "age", "chol"}}} {
		w.Sorted = c.sorted
		f, err := FeatureWeights(w)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := f.SVG()
		texts, _, _ := svgTexts(t, b)
		var names []placed
		for _, tx := range texts {
			if slices.Contains(w.Names, tx.s) {
				names = append(names, tx)
			}
		}
		slices.SortFunc(names, func(a, b placed) int { return int(a.minY - b.minY) }) // top first
		var got []string
		for _, n := range names {
			got = append(got, n.s)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("sorted %v: names top to bottom %v, want %v", c.sorted, got, c.want)
		}
	}
	if _, err := FeatureWeights(Weights{Names: []string{"a", "b"}, Runs: [][]float64{{1}}}); err == nil || !strings.Contains(err.Error(), "run 1 has 1 weights for 2 features") {
		t.Errorf("short run: %v", err)
	}
}

// near counts the fills within 1 of c in every channel (gonum's SVG
// writer truncates where color.RGBA rounds).
func near(fills map[[3]int]int, c color.Color) int {
	r, g, b, _ := c.RGBA()
	n := 0
	for f, k := range fills {
		if abs(f[0]-int(r>>8)) <= 1 && abs(f[1]-int(g>>8)) <= 1 && abs(f[2]-int(b>>8)) <= 1 {
			n += k
		}
	}
	return n
}

func abs(x int) int { return max(x, -x) }

// The heat map's colour scale is set by the off-diagonal entries only and
// centred at 0: with a diagonal 100 times larger, +0.5 and −0.5 still get
// the palette's two ends and 0 its middle; the diagonal is dark grey.
func TestMetricPaletteCentred(t *testing.T) {
	m := Matrix{Title: "t", Names: []string{"a", "b", "c"}, Q: [][]float64{
		{50, 0.5, -0.5},
		{0.5, 60, 0},
		{-0.5, 0, 70},
	}}
	f, err := Metric(m)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.SVG()
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-0.5)
	cm.SetMax(0.5)
	pal := cm.Palette(255).Colors()
	fills := map[[3]int]int{}
	for _, m := range regexp.MustCompile(`fill:#([0-9A-F]{2})([0-9A-F]{2})([0-9A-F]{2})`).FindAllStringSubmatch(string(b), -1) {
		var f [3]int
		for i := range f {
			v, _ := strconv.ParseInt(m[i+1], 16, 0)
			f[i] = int(v)
		}
		fills[f]++
	}
	for _, c := range []struct {
		what string
		col  color.Color
		n    int // heat-map cells of this colour (the colour bar adds one strip)
	}{
		{"-0.5 (palette start)", pal[0], 2},
		{"+0.5 (palette end)", pal[254], 2},
		{"0 (palette middle)", pal[127], 2},
		{"diagonal", color.NRGBA{R: 90, G: 90, B: 90, A: 255}, 3},
	} {
		if n := near(fills, c.col); n < c.n {
			t.Errorf("%s: colour %v fills %d shapes, want ≥ %d", c.what, c.col, n, c.n)
		}
	}
	if _, err := Metric(Matrix{Names: []string{"a", "b"}, Q: [][]float64{{1, 2}, {2}}}); err == nil || !strings.Contains(err.Error(), "Q row 2 has 1 entries, want 2") {
		t.Errorf("ragged Q: %v", err)
	}
}

func TestSave(t *testing.T) {
	t.Parallel()
	f, err := CriticalDifference(demsar)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, ext := range []string{"svg", "png", "pdf"} {
		p := dir + "/cd." + ext
		if err := f.Save(p); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		magic := map[string]string{"svg": "<?xml", "png": "\x89PNG", "pdf": "%PDF"}[ext]
		if !strings.HasPrefix(string(b), magic) {
			t.Errorf("%s starts %q, want %q", p, b[:min(8, len(b))], magic)
		}
	}
	if err := f.Save(dir + "/cd.gif"); err == nil || !strings.Contains(err.Error(), `unknown format "gif"`) {
		t.Errorf("gif: %v", err)
	}
}
