package cmd

import (
	"embed"
	"strings"
)

// The commands' long help and examples are text files in help/, one per
// command (NAME.txt, NAME-examples.txt) plus the shared paragraphs (data.txt:
// what DATA may be; summary-format.txt: compare's and report's formats), so
// that the prose can be read and edited as prose and the .go files hold only
// what the commands do. Each file ends in one newline, which help drops.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help returns the text of help/NAME.txt without its final newline. A
// missing file is a programming error caught by every test that builds the
// command tree, so it panics.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("cmd: no help text " + name + ": " + err.Error())
	}
	return strings.TrimSuffix(string(b), "\n")
}
