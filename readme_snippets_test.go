package main

// Unlike readme_test.go (the README's commands, run without -race), this
// check is pure text and runs in the race pass of make test with the others.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's Go snippets are taken from the packages' examples, whose output
// `go test` checks: each ```go block must appear, line for line (leading tabs
// aside), in one of the example files, so the README cannot show code that
// no longer compiles or prints something else.
func TestREADMEGoSnippetsAreExamples(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var examples strings.Builder
	files, _ := filepath.Glob("pkg/*/example*_test.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			examples.WriteString(strings.TrimLeft(line, "\t") + "\n")
		}
	}
	blocks := strings.Split(string(raw), "```go\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block (section Using kerneltune from Go)")
	}
	for _, b := range blocks {
		code, _, _ := strings.Cut(b, "```")
		var norm strings.Builder
		for _, line := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
			norm.WriteString(strings.TrimLeft(line, "\t") + "\n")
		}
		if !strings.Contains(examples.String(), norm.String()) {
			t.Errorf("this README Go block is not in any pkg/*/example*_test.go:\n%s", code)
		}
	}
}
