package cmd

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportPlotDPI: --plot-format png writes print resolution (300 dpi) by
// default and --dpi's otherwise; a resolution out of range is a usage error
// (exit 2) before anything is written.
func TestReportPlotDPI(t *testing.T) {
	t.Parallel()
	run := pairedRun(t, []int{80, 80, 80, 80, 80}, []int{81, 82, 83, 84, 85})
	width := func(dir string) int {
		t.Helper()
		f, err := os.Open(filepath.Join(dir, "accuracy.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		return img.Bounds().Dx()
	}
	base := t.TempDir()
	d300, d96 := filepath.Join(base, "a"), filepath.Join(base, "b")
	mustRun(t, "report", run, "--plot", d300, "--plot-format", "png")
	mustRun(t, "report", run, "--plot", d96, "--plot-format", "png", "--dpi", "96")
	w300, w96 := width(d300), width(d96)
	if r := float64(w300) / float64(w96); r < 3.10 || r > 3.15 {
		t.Errorf("widths %d px at 300 dpi and %d px at 96 dpi: ratio %.3f, want 300/96 = 3.125", w300, w96, r)
	}
	if w96 < 300 {
		t.Errorf("%d px at 96 dpi: too small for a figure", w96)
	}
	_, errOut, code := runCLI(t, "report", run, "--plot", filepath.Join(base, "c"), "--plot-format", "png", "--dpi", "0")
	if code != 2 || !strings.Contains(errOut, "--dpi: want 10 to 2400 dots per inch, got 0") {
		t.Errorf("--dpi 0: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(base, "c")); err == nil {
		t.Error("--dpi 0 wrote the plot directory")
	}
}
