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
	"github.com/kerneltune/kerneltune/internal/progress"
	"github.com/kerneltune/kerneltune/internal/readme"
)

var (
	readmeUpdate = flag.Bool("readme-update", false, "paste the output of the run blocks of README.md and docs/*.md anew (make readme)")
	readmeAll    = flag.Bool("readme-all", false, "with -readme-update: rerun the measured blocks too and date them today (make readme-all)")
	readmeOnly   = flag.String("readme-only", "", "with -readme-all: rerun only the measured blocks with a command written exactly so (\"kerneltune compare\")")
)

// TestREADME reruns every command of the <!-- readme: run --> blocks of
// README.md and of each page of docs/, and fails when its output, wall times
// masked, is not the pasted one; the measured blocks (expensive) and the
// prose's "(measured DATE with `cmd`)" must carry a valid date. `make
// readme` pastes the run blocks anew, `make readme-all` the measured ones
// too (see internal/readme). Each file's commands run in a scratch
// directory of their own, as a reader of that page alone would type them.
func TestREADME(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// The pages show what a terminal shows once a command is done: its
	// progress line erased. The commands here write to a buffer, where
	// progress would be plain lines (a batch job's log): none.
	t.Setenv(progress.IntervalEnv, "0")
	for _, name := range docFiles(t) {
		t.Run(name, func(t *testing.T) { checkDoc(t, root, name) })
	}
}

// checkDoc checks (or with -readme-update rewrites) the blocks of the file
// name, relative to the repository root.
func checkDoc(t *testing.T, root, name string) {
	name = filepath.ToSlash(name)
	path := filepath.Join(root, name)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := readme.ParseFile(name, string(raw))
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
	if _, err := readme.DatedClaimsIn(name, string(raw), time.Now()); err != nil {
		t.Fatal(err)
	}
	if len(doc.Blocks) == 0 {
		return
	}
	// The commands run in a scratch directory that sees the repository's
	// testdata, in the file's order (a block may read a file an earlier one
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
			t.Errorf("%s:%d: `%s` exits with %d, want %d (a trailing \"# exit N\" says N):\n%s", name, r.Cmd.Line+1, r.Cmd.Text, r.Code, r.Cmd.Exit, r.Output)
		case r.Changed && !*readmeUpdate:
			t.Errorf("%s:%d: `%s` now prints (wall times masked) something else than %s shows; run `make readme` and read the diff.\n%s",
				name, r.Cmd.Line+1, r.Cmd.Text, name, firstDifference(strings.Join(r.Cmd.Output, "\n"), r.Output))
		}
	}
	if !*readmeUpdate || t.Failed() {
		return
	}
	n := doc.Update(results, time.Now().UTC().Format(time.DateOnly))
	if err := os.WriteFile(path, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("pasted the output of %d of %d commands anew in %s", n, len(results), name)
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
			return fmt.Sprintf("output line %d:\n  pasted: %q\n  now:    %q", i+1, a, b)
		}
	}
	return ""
}
