//go:build !race

// The README check runs without the race detector (make test runs it on its
// own): it exercises no concurrency the race tests do not, and under -race
// its commands take ten times as long.

package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/cmd"
	"github.com/kerneltune/kerneltune/internal/readme"
)

var (
	readmeUpdate = flag.Bool("readme-update", false, "paste the output of README.md's run blocks anew (make readme)")
	readmeAll    = flag.Bool("readme-all", false, "with -readme-update: rerun the measured blocks too and date them today (make readme-all)")
	readmeOnly   = flag.String("readme-only", "", "with -readme-all: rerun only the measured blocks with a command written exactly so (\"kerneltune compare\")")
)

// TestREADME reruns every command of README.md's <!-- readme: run --> blocks
// and fails when its output, wall times masked, is not the pasted one; the
// measured blocks (expensive) and the prose's "(measured DATE with `cmd`)"
// must carry a valid date. `make readme` pastes the run blocks anew, `make
// readme-all` the measured ones too (see internal/readme).
func TestREADME(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := readme.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if *readmeOnly != "" {
		keep := doc.Blocks[:0]
		for _, b := range doc.Blocks {
			if b.Kind != readme.Measured || slices.ContainsFunc(b.Commands, func(c *readme.Command) bool { return c.Text == *readmeOnly }) {
				keep = append(keep, b)
			}
		}
		doc.Blocks = keep
	}
	if _, err := readme.DatedClaims(string(raw), time.Now()); err != nil {
		t.Fatal(err)
	}
	// The commands run in a scratch directory that sees the repository's
	// testdata, in README order (a block may read a file an earlier one
	// wrote).
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	run := func(args []string) (string, int) {
		var out bytes.Buffer
		// One writer for both streams: the output as a terminal shows it.
		code := cmd.Main(args, strings.NewReader(""), &out, &out)
		return out.String(), code
	}
	results := doc.Rerun(run, *readmeUpdate && *readmeAll)
	for _, r := range results {
		switch {
		case r.Code != r.Cmd.Exit:
			t.Errorf("README.md:%d: `%s` exits with %d, want %d (a trailing \"# exit N\" says N):\n%s", r.Cmd.Line+1, r.Cmd.Text, r.Code, r.Cmd.Exit, r.Output)
		case r.Changed && !*readmeUpdate:
			t.Errorf("README.md:%d: `%s` now prints (wall times masked) something else than README.md shows; run `make readme` and read the diff.\n%s",
				r.Cmd.Line+1, r.Cmd.Text, firstDifference(strings.Join(r.Cmd.Output, "\n"), r.Output))
		}
	}
	if !*readmeUpdate || t.Failed() {
		return
	}
	n := doc.Update(results, time.Now().UTC().Format(time.DateOnly))
	if err := os.WriteFile(path, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("pasted the output of %d of %d commands anew in %s", n, len(results), path)
}

// firstDifference shows the first line where want and got differ, wall
// times masked.
func firstDifference(want, got string) string {
	w := strings.Split(readme.Normalize(want), "\n")
	g := strings.Split(readme.Normalize(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("output line %d:\n  README: %q\n  now:    %q", i+1, a, b)
		}
	}
	return ""
}
