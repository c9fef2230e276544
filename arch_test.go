package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/kerneltune/kerneltune/"

// allowedImports is the import graph of docs/architecture.md "Packages and
// imports": which packages of this module each package may import. It keeps the
// graph acyclic and the packages' purposes apart (manifold knows nothing of
// SVMs, dataio nothing of kernels, the solver nothing of tuning).
var allowedImports = map[string][]string{
	"pkg/hint":        {},
	"pkg/sparse":      {},
	"pkg/dataio":      {"pkg/sparse", "pkg/outfile", "pkg/hint"},
	"pkg/kernel":      {"pkg/sparse"},
	"pkg/manifold":    {},
	"pkg/status":      {},
	"pkg/solver/sqp":  {"pkg/status"},
	"pkg/stats":       {},
	"pkg/metrics":     {},
	"pkg/probability": {},
	"pkg/outfile":     {},
	"pkg/figure":      {"pkg/outfile"},
	"pkg/sysmem":      {},
	"pkg/solver":      {"pkg/kernel", "pkg/status"},
	"pkg/model":       {"pkg/sparse", "pkg/hint", "pkg/outfile", "pkg/dataio", "pkg/kernel", "pkg/solver", "pkg/status", "pkg/metrics", "pkg/probability"},
	"pkg/methods":     {"pkg/sparse", "pkg/hint", "pkg/dataio", "pkg/kernel", "pkg/solver", "pkg/solver/sqp", "pkg/manifold", "pkg/status"},
	"pkg/experiment":  {"pkg/sparse", "pkg/hint", "pkg/outfile", "pkg/dataio", "pkg/kernel", "pkg/solver", "pkg/methods", "pkg/model", "pkg/status", "pkg/metrics", "pkg/probability"},
	"pkg/htmlreport":  {},
	"pkg/study":       {"pkg/hint", "pkg/dataio", "pkg/experiment", "pkg/metrics"},
	"pkg/report":      {"pkg/sparse", "pkg/hint", "pkg/dataio", "pkg/experiment", "pkg/stats", "pkg/htmlreport", "pkg/figure", "pkg/model", "pkg/methods", "pkg/kernel", "pkg/metrics", "pkg/probability"},
}

// forbidden reports whether pkg.name is something a library package must not
// use: nothing under pkg/ prints, exits or reads flags (the command line does).
func forbidden(pkg, name string) bool {
	switch pkg {
	case "fmt":
		return strings.HasPrefix(name, "Print")
	case "os":
		return name == "Exit" || name == "Stdout" || name == "Stderr" || name == "Args"
	case "log":
		return true
	case "flag":
		return true
	}
	return false
}

func TestImportGraph(t *testing.T) {
	seen := map[string]bool{}
	err := filepath.WalkDir("pkg", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		allowed, ok := allowedImports[dir]
		if !ok {
			t.Errorf("%s: package %s is not in the import graph of arch_test.go: add it with its allowed imports", path, dir)
			return nil
		}
		seen[dir] = true
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			if rel := strings.TrimPrefix(p, module); !slices.Contains(allowed, rel) {
				t.Errorf("%s imports %s: %s may import only %v", path, rel, dir, allowed)
			}
		}
		// Selectors on the standard packages, by the name they are imported as.
		std := map[string]string{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := p
			if imp.Name != nil {
				local = imp.Name.Name
			}
			std[local] = p
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && forbidden(std[id.Name], sel.Sel.Name) {
				t.Errorf("%s uses %s.%s: library code must not print, exit or read flags", path, id.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range allowedImports {
		if !seen[dir] {
			t.Errorf("import graph lists %s, which has no Go files", dir)
		}
	}
}

// `make fuzz` runs every fuzz target of the tree (FuzzLoad of pkg/model was
// missing from it).
func TestMakeFuzzRunsEveryTarget(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir("pkg", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(filepath.Dir(path))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") {
				continue
			}
			n++
			if want := pkg + " -run '^$$' -fuzz '^" + fn.Name.Name + "$$'"; !strings.Contains(string(mk), want) {
				t.Errorf("%s: %s is not in the Makefile's fuzz target (want a line with %q)", path, fn.Name.Name, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 4 {
		t.Errorf("found %d fuzz targets, want at least 4", n)
	}
}

// cmdForbidden are the packages of this module the commands must not import:
// the numerics sit behind the entry points of pkg/model, pkg/experiment and
// pkg/methods, so a command only parses flags, calls one function and renders
// (issue 13).
var cmdForbidden = []string{"pkg/solver", "pkg/solver/sqp", "pkg/kernel", "pkg/manifold"}

// TestCmdIsThin holds the commands away from the numerics by their imports.
// A line budget used to stand beside it; it recorded a history of bumps that
// pushed wording into pkg/ and was removed with issue 43: cmd words the
// library's typed errors and notes, and that wording belongs in cmd.
func TestCmdIsThin(t *testing.T) {
	files, err := filepath.Glob("cmd/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rel := strings.TrimPrefix(p, module); rel != p && slices.Contains(cmdForbidden, rel) {
				t.Errorf("%s imports %s: commands reach the numerics through pkg/model, pkg/experiment and pkg/methods", path, rel)
			}
		}
	}
}
