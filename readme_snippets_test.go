package main

// Unlike readme_test.go (the commands of README.md and docs/, run without
// -race), these checks are pure text and run in the race pass of make test
// with the others.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docFiles are the documentation files the checks read: README.md and every
// page of docs/, in that order (TestREADME reruns their command blocks).
func docFiles(t *testing.T) []string {
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(pages)
	return append([]string{"README.md"}, pages...)
}

// The Go snippets of README.md and docs/ are taken from the packages'
// examples, whose output `go test` checks: each ```go block must appear, line
// for line (leading tabs aside), in one of the example files, so the
// documentation cannot show code that no longer compiles or prints
// something else.
func TestREADMEGoSnippetsAreExamples(t *testing.T) {
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
	total := 0
	for _, name := range docFiles(t) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(raw), "```go\n")[1:]
		total += len(blocks)
		for _, b := range blocks {
			code, _, _ := strings.Cut(b, "```")
			var norm strings.Builder
			for _, line := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
				norm.WriteString(strings.TrimLeft(line, "\t") + "\n")
			}
			if !strings.Contains(examples.String(), norm.String()) {
				t.Errorf("this Go block of %s is not in any pkg/*/example*_test.go:\n%s", name, code)
			}
		}
	}
	if total == 0 {
		t.Fatal("neither README.md nor docs/*.md has a ```go block (docs/go-api.md)")
	}
}

// readmeMaxLines is the most lines README.md may have: what a newcomer reads
// (what kerneltune is, the two commands, a tour, where to go next); the rest
// lives in docs/, one page per topic (issue 35: the README had grown to
// 2,241 lines).
const readmeMaxLines = 600

func TestREADMEIsShort(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move the details to a page of docs/ (docs/README.md lists them) and link it", n, readmeMaxLines)
	}
}

var (
	mdLinkRE  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile("^(#{1,6}) +(.*?) *#*$")
)

// slug is GitHub's anchor of a heading: lower case, punctuation other than
// hyphens and underscores dropped, spaces to hyphens.
func slug(heading string) string {
	heading = strings.ReplaceAll(heading, "`", "")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127 && !strings.ContainsRune("—–’‘“”…·×", r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of the headings of a Markdown file (fenced
// blocks skipped), a repeated heading numbered as GitHub does.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fenced = !fenced
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		s := slug(m[2])
		if n := count[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		count[s]++
	}
	return out
}

// TestDocLinks: every relative link of README.md and docs/ (the generated
// command reference included) names a file of the tree and, after a #, a
// heading of that file, so moving a section between pages cannot leave a
// link behind; and every page of docs/ is linked from the index
// (docs/README.md) and from the README's "Where to go next".
func TestDocLinks(t *testing.T) {
	files := docFiles(t)
	more, _ := filepath.Glob(filepath.Join("docs", "*", "*.md"))
	files = append(files, more...)
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(raw), "\n") {
			for _, m := range mdLinkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := name
				if file != "" {
					path = filepath.Join(filepath.Dir(name), file)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					if st, serr := os.Stat(path); serr == nil && st.IsDir() {
						continue
					}
					t.Errorf("%s:%d: link %s: no file %s", name, i+1, target, path)
					continue
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(string(b))[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", name, i+1, target, path, anchor)
				}
			}
		}
	}
	if !slices.Contains(files, filepath.Join("docs", "README.md")) {
		t.Fatal("docs/README.md, the index of the documentation pages, is missing")
	}
	// The index and the README's "Where to go next" lead to every page.
	index, _ := os.ReadFile(filepath.Join("docs", "README.md"))
	top, _ := os.ReadFile("README.md")
	for _, name := range docFiles(t)[1:] {
		page := filepath.Base(name)
		if page == "README.md" {
			continue
		}
		if !strings.Contains(string(index), "]("+page+")") {
			t.Errorf("docs/README.md does not link %s: add it to the index", name)
		}
		if !strings.Contains(string(top), "](docs/"+page+")") {
			t.Errorf("README.md does not link %s: add it to \"Where to go next\"", name)
		}
	}
}

// TestArchitectureNamesExist: docs/architecture.md and docs/design.md, which
// the next engineer trusts to find their way, name only what is in the tree:
// every path under pkg/, cmd/ or internal/ exists, every Go name in
// backquotes (`methods.Tune`, `Config.Plan`, `runJob`) and every TestX is
// declared (a package-qualified name in that package), and the table of
// "Packages and imports" is arch_test.go's allowedImports.
func TestArchitectureNamesExist(t *testing.T) {
	declared := map[string]map[string]bool{} // directory → names declared there
	all := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if declared[dir] == nil {
			declared[dir] = map[string]bool{}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var names []*ast.Ident
			switch n := n.(type) {
			case *ast.FuncDecl:
				names = append(names, n.Name)
			case *ast.TypeSpec:
				names = append(names, n.Name)
			case *ast.ValueSpec:
				names = append(names, n.Names...)
			case *ast.Field:
				names = append(names, n.Names...)
			}
			for _, id := range names {
				declared[dir][id.Name], all[id.Name] = true, true
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pkgDir := map[string]string{} // package name → directory
	for dir := range allowedImports {
		pkgDir[filepath.Base(dir)] = dir
	}
	var (
		pathRE = regexp.MustCompile(`\b(?:pkg|cmd|internal)/[A-Za-z0-9_./-]*[A-Za-z0-9_]`)
		codeRE = regexp.MustCompile("`\\*?([A-Za-z_][A-Za-z0-9_]*)(?:\\.([A-Za-z_][A-Za-z0-9_]*))?`")
		testRE = regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9]*`)
		rowRE  = regexp.MustCompile("^\\| `(pkg/[a-z/]+)` \\|.*\\| ([^|]*) \\|$")
	)
	for _, name := range []string{"docs/architecture.md", "docs/design.md"} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]bool{}
		for i, line := range strings.Split(string(raw), "\n") {
			at := fmt.Sprintf("%s:%d", name, i+1)
			for _, p := range pathRE.FindAllString(line, -1) {
				if _, err := os.Stat(p); err != nil && !strings.Contains(p, "NAME") {
					t.Errorf("%s: %s does not exist", at, p)
				}
			}
			for _, m := range codeRE.FindAllStringSubmatch(line, -1) {
				x, y := m[1], m[2]
				if y == "go" { // a file at the root: main.go, arch_test.go
					if _, err := os.Stat(x + ".go"); err != nil {
						t.Errorf("%s: %s.go does not exist", at, x)
					}
					continue
				}
				if dir, ok := pkgDir[x]; ok && y != "" {
					if !declared[dir][y] {
						t.Errorf("%s: %s.%s is not declared in %s", at, x, y, dir)
					}
					continue
				}
				// A Go name: a dot, or a capital letter; not a command word.
				if y == "" && strings.ToLower(x) == x {
					continue
				}
				for _, id := range []string{x, y} {
					if id != "" && !all[id] {
						t.Errorf("%s: %s is not declared anywhere in the tree", at, m[0])
					}
				}
			}
			for _, id := range testRE.FindAllString(line, -1) {
				if !all[id] {
					t.Errorf("%s: %s is not a test of the tree", at, id)
				}
			}
			if m := rowRE.FindStringSubmatch(line); m != nil && name == "docs/architecture.md" {
				rows[m[1]] = true
				got := regexp.MustCompile("`(pkg/[a-z/]+)`").FindAllStringSubmatch(m[2], -1)
				var imports []string
				for _, g := range got {
					imports = append(imports, g[1])
				}
				want := slices.Clone(allowedImports[m[1]])
				slices.Sort(imports)
				slices.Sort(want)
				if !slices.Equal(imports, want) {
					t.Errorf("%s: %s may import %v by the page, %v by arch_test.go's allowedImports", at, m[1], imports, want)
				}
			}
		}
		if name == "docs/architecture.md" {
			for dir := range allowedImports {
				if !rows[dir] {
					t.Errorf("%s: no row for %s in \"Packages and imports\"", name, dir)
				}
			}
		}
	}
}
