package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/cmd"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliFlagNames are the long names of every flag of every command, read
// from the cobra command tree, so that the list cannot go stale.
func cliFlagNames() map[string]bool {
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(cmd.NewRootCmd(io.Discard))
	return names
}

// flagMentions are the flags a string names as "--NAME": the longest run
// of letters, digits and '-' after each "--" that is a flag of names.
func flagMentions(s string, names map[string]bool) []string {
	var found []string
	for i := 0; ; {
		j := strings.Index(s[i:], "--")
		if j < 0 {
			return found
		}
		start := i + j + 2
		end := start
		for end < len(s) && (s[end] == '-' || s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= '0' && s[end] <= '9') {
			end++
		}
		if name := strings.TrimRight(s[start:end], "-"); names[name] {
			found = append(found, "--"+name)
		}
		i = max(end, start)
	}
}

// TestLibraryNamesNoFlags holds the command line's words out of pkg/
// (issue 43): no string literal of a library file names a flag of the
// CLI. The library returns typed errors and notes with the numbers; cmd
// words them, naming the flags.
func TestLibraryNamesNoFlags(t *testing.T) {
	names := cliFlagNames()
	if len(names) < 50 || !names["kernel-rows"] || !names["mem-mb"] || !names["seed"] {
		t.Fatalf("read %d flag names from the commands, want the CLI's (kernel-rows, mem-mb, seed, ...)", len(names))
	}
	err := filepath.WalkDir("pkg", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(nd ast.Node) bool {
			lit, ok := nd.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				s = lit.Value
			}
			for _, m := range flagMentions(s, names) {
				t.Errorf("%s: a string names the flag %s: name the setting as a hint.Setting, or return a typed error or note, and let cmd word it", fset.Position(lit.Pos()), m)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFlagMentions(t *testing.T) {
	names := map[string]bool{"test": true, "test-fraction": true, "n": true}
	for s, want := range map[string]string{
		"--test-fraction 0.3":     "--test-fraction",
		"(--test FILE)":           "--test",
		"--testing":               "",
		"--n=3 and --test-size 2": "--n",
		"a -- b":                  "",
		"--test-":                 "--test",
	} {
		if got := strings.Join(flagMentions(s, names), " "); got != want {
			t.Errorf("flagMentions(%q) = %q, want %q", s, got, want)
		}
	}
}
