package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Package is one package of the module, parsed (non-test files) and
// type-checked.
type Package struct {
	Path  string
	Files []*ast.File
	Types *types.Package
	Info  *types.Info
}

// Program is the module's packages, each after those it imports.
type Program struct {
	Fset     *token.FileSet
	Packages []*Package
}

// listed is what `go list -json` says of a package.
type listed struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	Module                  *struct{ Main bool }
}

// Load type-checks the packages of the main module in dir from source
// (the files a build uses, without tests); the packages they import from
// outside the module come from their export data, as `go list -export`
// builds it.
func Load(dir string) (*Program, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Dir,Export,GoFiles,Module", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var (
		exports = map[string]string{}
		own     []listed
	)
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.Module != nil && p.Module.Main {
			own = append(own, p) // -deps lists a package after its imports
		} else {
			exports[p.ImportPath] = p.Export
		}
	}
	prog := &Program{Fset: token.NewFileSet()}
	sources := make(map[string]map[string]string, len(own))
	for _, p := range own {
		files := map[string]string{}
		for _, name := range p.GoFiles {
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				return nil, err
			}
			rel, err := filepath.Rel(dir, filepath.Join(p.Dir, name))
			if err != nil {
				return nil, err
			}
			files[filepath.ToSlash(rel)] = string(src)
		}
		sources[p.ImportPath] = files
	}
	gc := importer.ForCompiler(prog.Fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(exports[path])
	})
	for _, p := range own {
		if _, err := prog.check(p.ImportPath, sources[p.ImportPath], gc); err != nil {
			return nil, err
		}
	}
	return prog, nil
}

// check parses and type-checks the package path from its files (name →
// source), importing the module's packages checked before it and others
// with ext, and adds it to prog.
func (prog *Program) check(path string, files map[string]string, ext types.Importer) (*Package, error) {
	p := &Package{Path: path, Info: &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Implicits:  map[ast.Node]types.Object{},
	}}
	for _, name := range sortedKeys(files) {
		f, err := parser.ParseFile(prog.Fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, f)
	}
	conf := types.Config{Importer: importerFunc(func(ip string) (*types.Package, error) {
		for _, q := range prog.Packages {
			if q.Path == ip {
				return q.Types, nil
			}
		}
		if ext == nil {
			return nil, errors.New("cannot import " + ip)
		}
		return ext.Import(ip)
	})}
	var err error
	if p.Types, err = conf.Check(path, prog.Fset, p.Files, p.Info); err != nil {
		return nil, err
	}
	prog.Packages = append(prog.Packages, p)
	return p, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// below returns, for each package of prog, the packages of prog it
// imports, directly or not.
func (prog *Program) below() map[string]map[string]bool {
	own := map[string]bool{}
	for _, p := range prog.Packages {
		own[p.Path] = true
	}
	out := map[string]map[string]bool{}
	for _, p := range prog.Packages { // each after its imports
		set := map[string]bool{}
		for _, q := range p.Types.Imports() {
			if own[q.Path()] {
				set[q.Path()] = true
				for r := range out[q.Path()] {
					set[r] = true
				}
			}
		}
		out[p.Path] = set
	}
	return out
}
