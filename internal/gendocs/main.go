// Command gendocs writes kerneltune's command reference from the commands
// themselves (spf13/cobra/doc): one Markdown page per command in docs/cli
// and one man page per command in docs/man. `make docs` runs it; its test
// fails when the committed pages are not what it writes now.
//
//	go run ./internal/gendocs [-dir docs]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/kerneltune/kerneltune/cmd"
)

// manDate is the date of the man pages' header. It is fixed, so that the
// pages do not change with the day they are generated; raise it when the
// commands change much.
var manDate = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

func main() {
	dir := flag.String("dir", "docs", "the folder that receives cli/ (Markdown) and man/ (man pages)")
	flag.Parse()
	if err := generate(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// Generated folders under the -dir folder, with the extension of their
// files: generate replaces every such file, so a command removed leaves no
// page behind.
var generated = map[string]string{"cli": ".md", "man": ".1"}

// generate writes dir/cli/*.md and dir/man/*.1 anew.
func generate(dir string) error {
	for sub, ext := range generated {
		old, err := filepath.Glob(filepath.Join(dir, sub, "*"+ext))
		if err != nil {
			return err
		}
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	root := tree()
	if err := doc.GenMarkdownTree(root, filepath.Join(dir, "cli")); err != nil {
		return err
	}
	header := &doc.GenManHeader{Section: "1", Date: &manDate, Source: "kerneltune", Manual: "kerneltune manual"}
	return doc.GenManTree(root, header, filepath.Join(dir, "man"))
}

// tree is kerneltune's command tree as `kerneltune --help` shows it: with
// the help and completion commands and the --version flag that cobra adds
// when it runs, and without the "Auto generated … on DATE" lines.
func tree() *cobra.Command {
	root := cmd.NewRootCmd(io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return root
}
