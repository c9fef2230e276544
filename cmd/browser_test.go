package cmd

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromiumFlags are the probe's flags for a closed network (no background
// connections, no first-run, a fresh profile) plus what a root container
// needs (--no-sandbox).
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--hide-scrollbars", "--enable-logging=stderr", "--v=0",
}

// consoleLine is how Chromium logs a page's console messages and uncaught
// errors with --enable-logging=stderr.
var consoleLine = regexp.MustCompile(`:CONSOLE[:(]\d*\)?\]? "(.*)", source: (.*)`)

// shotInChromium opens the HTML file in headless Chromium, takes a
// screenshot of a width×height window and returns it with the page's
// console messages. It skips the test, with a message, when no browser is
// installed (scripts/ensure-tools.sh installs one on Debian; make test
// runs it).
func shotInChromium(t *testing.T, htmlPath string, width, height int) (image.Image, []string) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil && os.Getenv("KERNELTUNE_REQUIRE_BROWSER") != "" {
		t.Fatal("chromium is not installed and KERNELTUNE_REQUIRE_BROWSER is set (make report-check): run scripts/ensure-tools.sh as root, or apt-get install chromium")
	}
	if err != nil {
		t.Skip("chromium is not installed: the HTML report is not checked in a browser (scripts/ensure-tools.sh installs it; make test runs that script)")
	}
	dir := t.TempDir()
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(append([]string{}, chromiumFlags...),
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height),
		"--screenshot="+shot,
		"file://"+abs)
	// A browser that crashes (killed by a signal: seen as SIGSEGV on a
	// machine loaded with other test runs) says nothing of the page, so it
	// is tried again, up to three times; an error exit, a timeout, console
	// messages and a blank screenshot are the page's and fail at once.
	var logs bytes.Buffer
	for attempt := 1; ; attempt++ {
		logs.Reset()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdout, cmd.Stderr = &logs, &logs
		err := cmd.Run()
		if err == nil {
			break
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ctx.Err() == nil && attempt < 3 {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Logf("chromium crashed (%v, attempt %d of 3); trying again", err, attempt)
				continue
			}
		}
		t.Fatalf("chromium %s: %v\n%s", htmlPath, err, logs.String())
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v\n%s", err, logs.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("reading the screenshot: %v", err)
	}
	var console []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if m := consoleLine.FindStringSubmatch(line); m != nil {
			console = append(console, m[1]+" ("+m[2]+")")
		}
	}
	return img, console
}

// inkFraction is the fraction of the image's pixels that are not (nearly)
// white: a blank page has none.
func inkFraction(img image.Image) float64 {
	b := img.Bounds()
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
		}
	}
	return float64(ink) / float64(b.Dx()*b.Dy())
}
