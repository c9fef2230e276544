package report

// The HTML page's drawing of the Bayesian comparisons: for each method
// against the baseline, a bar per dataset (the correlated t-test) and one
// across datasets (the signed-rank test), split into P(worse),
// P(equivalent) and P(better).

import (
	"bytes"
	"fmt"
	"html"

	"github.com/kerneltune/kerneltune/pkg/stats"
)

// bayesBar is one bar of the figure.
type bayesBar struct {
	label string
	p     stats.BayesProbs
	bold  bool // the test across datasets
}

// bayesGroup is a method's bars.
type bayesGroup struct {
	title string
	bars  []bayesBar
}

// bayesGroups collects the bars of sum's tables and of cross (nil for
// none): one group per method other than the baseline, its datasets in
// table order, then the test across datasets. Bars without probabilities
// (fewer than two pairs) are left out, and so is a group without bars.
func bayesGroups(sum Summary, cross *CrossData) []bayesGroup {
	var groups []bayesGroup
	index := map[string]int{}
	for _, t := range sum.Tables {
		for _, r := range t.Rows {
			if r.Entry == t.Baseline || !r.Bayes.Valid() {
				continue
			}
			i, ok := index[r.Entry]
			if !ok {
				i = len(groups)
				index[r.Entry] = i
				groups = append(groups, bayesGroup{title: r.Entry + " against " + t.Baseline})
			}
			groups[i].bars = append(groups[i].bars, bayesBar{label: t.Dataset, p: r.Bayes})
		}
	}
	if cross != nil {
		for j, m := range cross.Methods {
			if j >= len(cross.BayesSignedRank) || cross.BayesSignedRank[j] == nil {
				continue
			}
			i, ok := index[m]
			if !ok {
				continue
			}
			groups[i].bars = append(groups[i].bars, bayesBar{label: fmt.Sprintf("all %d datasets", cross.Datasets), p: *cross.BayesSignedRank[j], bold: true})
		}
	}
	return groups
}

// Colours of the three regions (Okabe–Ito: readable with colour-blindness).
const (
	bayesWorseColour  = "#e69f00"
	bayesEquivColour  = "#c8c8c8"
	bayesBetterColour = "#0072b2"
)

// bayesSVG draws the groups as horizontal stacked bars, one row each, with
// the probabilities written in the segments wide enough for them; nil when
// there is nothing to draw.
func bayesSVG(groups []bayesGroup) []byte {
	if len(groups) == 0 {
		return nil
	}
	const (
		width, left, barW, rowH, barH, top = 760.0, 210.0, 500.0, 20.0, 14.0, 34.0
	)
	rows := 0
	for _, g := range groups {
		rows += 1 + len(g.bars)
	}
	height := top + float64(rows)*rowH + 28
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="DejaVu Sans, sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="#ffffff"/>`+"\n", width, height)
	// The legend.
	x := left
	for _, l := range []struct{ colour, text string }{{bayesWorseColour, "P(worse)"}, {bayesEquivColour, "P(equivalent)"}, {bayesBetterColour, "P(better)"}} {
		fmt.Fprintf(&b, `<rect x="%g" y="8" width="12" height="12" fill="%s"/><text x="%g" y="18">%s</text>`+"\n", x, l.colour, x+16, l.text)
		x += 130
	}
	y := top
	for _, g := range groups {
		fmt.Fprintf(&b, `<text x="4" y="%g" font-weight="bold">%s</text>`+"\n", y+barH-2, html.EscapeString(g.title))
		y += rowH
		for _, bar := range g.bars {
			weight := ""
			if bar.bold {
				weight = ` font-weight="bold"`
			}
			fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="end"%s>%s</text>`+"\n", left-8, y+barH-2, weight, html.EscapeString(bar.label))
			x := left
			for k, p := range []float64{float64(bar.p.Worse), float64(bar.p.Equivalent), float64(bar.p.Better)} {
				w := p * barW
				colour := []string{bayesWorseColour, bayesEquivColour, bayesBetterColour}[k]
				if w > 0 {
					fmt.Fprintf(&b, `<rect x="%.2f" y="%g" width="%.2f" height="%g" fill="%s"/>`+"\n", x, y, w, barH, colour)
				}
				if w >= 34 {
					fill := "#000000"
					if k == 2 {
						fill = "#ffffff"
					}
					fmt.Fprintf(&b, `<text x="%.2f" y="%g" text-anchor="middle" font-size="10" fill="%s">%.2f</text>`+"\n", x+w/2, y+barH-3, fill, p)
				}
				x += w
			}
			if bar.bold {
				fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#000000" stroke-width="1"/>`+"\n", left, y, barW, barH)
			}
			y += rowH
		}
	}
	// The axis: 0, ½, 1.
	for _, t := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#57606a"/><text x="%g" y="%g" text-anchor="middle" font-size="10">%g</text>`+"\n",
			left+t*barW, y+2, left+t*barW, y+6, left+t*barW, y+18, t)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// bayesCaption says what bayesSVG draws for sum.
func bayesCaption(sum Summary, cross *CrossData) string {
	c := fmt.Sprintf("Bayesian comparisons against the baseline (Benavoli et al. 2017), with a region of practical equivalence of ±%s: per dataset, the correlated t-test's posterior probabilities over the partitions (ρ = n_test/(n_test+n_train))", ropeText(sum.Rope, sum.Metric))
	if cross != nil && len(cross.BayesSignedRank) > 0 {
		c += fmt.Sprintf("; framed, across the datasets, the signed-rank test's (the share of %d Monte Carlo draws in which each region is the most probable)", stats.SignedRankSamples)
	}
	return c + "."
}
