package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docsDir is the repository's docs/, seen from this package's folder.
const docsDir = "../../docs"

// TestCommandReferenceIsCurrent regenerates the command reference into a
// temporary folder and fails, naming each stale, missing or extra file of
// docs/cli and docs/man, when the committed pages are not what the
// commands generate now (a flag, a help text or a command changed without
// `make docs`).
func TestCommandReferenceIsCurrent(t *testing.T) {
	tmp := t.TempDir()
	if err := generate(tmp); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"cli", "man"} {
		want := files(t, filepath.Join(tmp, sub), generated[sub])
		have := files(t, filepath.Join(docsDir, sub), generated[sub])
		if len(want) == 0 {
			t.Fatalf("gendocs wrote no %s page", sub)
		}
		for name, w := range want {
			h, ok := have[name]
			switch {
			case !ok:
				t.Errorf("docs/%s/%s is missing: run `make docs` and commit it", sub, name)
			case !bytes.Equal(h, w):
				t.Errorf("docs/%s/%s is stale (%s): run `make docs` and commit the result", sub, name, firstDiff(h, w))
			}
		}
		for name := range have {
			if _, ok := want[name]; !ok {
				t.Errorf("docs/%s/%s is no longer generated (its command is gone): run `make docs`, which removes it", sub, name)
			}
		}
	}
}

// TestGenerateIsDeterministic: two runs write the same bytes, with no date
// of the day and no "Auto generated" line, so the staleness check cannot
// fail on a clean tree.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := generate(a); err != nil {
		t.Fatal(err)
	}
	if err := generate(b); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"cli", "man"} {
		fa, fb := files(t, filepath.Join(a, sub), generated[sub]), files(t, filepath.Join(b, sub), generated[sub])
		if len(fa) != len(fb) {
			t.Fatalf("%s: %d files, then %d", sub, len(fa), len(fb))
		}
		for name, x := range fa {
			if !bytes.Equal(x, fb[name]) {
				t.Errorf("%s/%s differs between two runs", sub, name)
			}
			if bytes.Contains(x, []byte("Auto generated")) {
				t.Errorf("%s/%s carries cobra's \"Auto generated\" line", sub, name)
			}
		}
	}
	// The generator replaces what it wrote before, a removed command's page too.
	stale := filepath.Join(a, "cli", "kerneltune_gone.md")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := generate(a); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("generate left the page of a command that no longer exists")
	}
}

// files reads the files of dir ending in ext, by name.
func files(t *testing.T, dir, ext string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

// firstDiff describes the first line where the committed page (have)
// differs from the generated one (want).
func firstDiff(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(h), len(w)) {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: committed %.100q, generated %.100q", i+1, a, b)
		}
	}
	return "same lines, other bytes"
}
