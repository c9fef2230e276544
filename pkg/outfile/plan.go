package outfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Plan is what a command reads and writes, each file under a label (the
// flag or argument that names it, for the error): Check refuses, before
// any work, an output that is an input or another output, or that cannot
// be written (Check, CheckDir).
type Plan struct {
	files []planned
}

type planned struct {
	label, path string
	output      bool
	appended    bool // an output its writer checks (Append)
	// dir: an output directory; writes says which paths relative to it
	// the command may write (nil: any).
	dir    bool
	writes func(rel string) bool
}

// Input adds input files. "", "-" (standard input) and a path that does
// not exist (builtin:NAME, or a typo that fails when it is read) are no
// files that an output could destroy.
func (p *Plan) Input(label string, paths ...string) *Plan {
	for _, path := range paths {
		if _, err := os.Stat(path); err == nil && path != "-" {
			p.files = append(p.files, planned{label: label, path: path})
		}
	}
	return p
}

// Output adds an output file; "" (none) and "-" (standard output) are not
// files.
func (p *Plan) Output(label, path string) *Plan {
	if path != "" && path != "-" {
		p.files = append(p.files, planned{label: label, path: path, output: true})
	}
	return p
}

// Append adds a file the command appends to and reads back (compare's
// results file): an output whose writer refuses, where it opens it, what
// is not a regular file, so Check compares it with the others only.
func (p *Plan) Append(label, path string) *Plan {
	if path != "" {
		p.files = append(p.files, planned{label: label, path: path, output: true, appended: true})
	}
	return p
}

// OutputDir adds a directory the command writes files into; writes says
// whether a path relative to it (slash-separated) may be one of them (nil:
// any). An input or output within it that it may write is a conflict.
func (p *Plan) OutputDir(label, dir string, writes func(rel string) bool) *Plan {
	if dir != "" {
		p.files = append(p.files, planned{label: label, path: dir, output: true, dir: true, writes: writes})
	}
	return p
}

// ConflictError is an output that is also an input or another output:
// writing it would destroy the other. Within says that Path lies within
// the output directory Output names.
type ConflictError struct {
	Output, OutputPath string // the output's label and path
	Other, OtherPath   string // the input's or other output's
	Input              bool   // the other is an input
	Within             bool   // OtherPath is a file the directory OutputPath would hold
}

func (e *ConflictError) Error() string {
	what, destroy := "an output", "writing one would destroy the other"
	if e.Input {
		what, destroy = "an input", "writing it would destroy that input"
	}
	if e.Within {
		return fmt.Sprintf("%s %s would write over %s %s, %s of the same command: give another directory", e.Output, e.OutputPath, e.Other, e.OtherPath, what)
	}
	return fmt.Sprintf("%s %s is %s %s (the same file): %s; give another file", e.Output, e.OutputPath, e.Other, e.OtherPath, destroy)
}

// Check checks each output (Check, or CheckDir for a directory; the error
// is wrapped with its label) and then every pair of an output and another
// file: the first that are the same file (os.SameFile when both exist,
// else the absolute path with the symbolic links of its directory
// resolved) or where a directory output would write the other file is a
// *ConflictError.
func (p *Plan) Check() error {
	ids := make([]identity, len(p.files))
	for i, f := range p.files {
		if f.output && !f.appended {
			check := Check
			if f.dir {
				check = CheckDir
			}
			if err := check(f.path); err != nil {
				return &LabelError{Label: f.label, Err: err}
			}
		}
		ids[i] = identify(f.path)
	}
	for i, o := range p.files {
		if !o.output || o.path == os.DevNull {
			continue
		}
		for j, f := range p.files {
			if i == j || f.path == os.DevNull || f.output && j < i && !f.dir && !o.dir {
				continue // each pair of files once; /dev/null loses nothing
			}
			c := &ConflictError{Output: o.label, OutputPath: o.path, Other: f.label, OtherPath: f.path, Input: !f.output}
			switch {
			case ids[i].same(ids[j]):
				return c
			case o.dir && ids[i].holds(ids[j], o.writes):
				c.Within = true
				return c
			}
		}
	}
	return nil
}

// LabelError is an output that cannot be written, under its label.
type LabelError struct {
	Label string
	Err   error
}

func (e *LabelError) Error() string { return e.Label + " " + e.Err.Error() }
func (e *LabelError) Unwrap() error { return e.Err }

// identity is what a path names: the file's FileInfo when it exists, and
// its absolute path with the symbolic links resolved (those of its
// directory only, when it does not exist).
type identity struct {
	st  os.FileInfo
	abs string
}

func identify(path string) identity {
	var id identity
	id.st, _ = os.Stat(path)
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		id.abs = r
		return id
	}
	dir, base := filepath.Split(abs)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	id.abs = filepath.Join(dir, base)
	return id
}

func (a identity) same(b identity) bool {
	if a.st != nil && b.st != nil {
		return os.SameFile(a.st, b.st)
	}
	return a.abs == b.abs
}

// holds reports whether the directory a would hold b: b is the directory,
// or a path within it that writes accepts.
func (a identity) holds(b identity, writes func(string) bool) bool {
	rel, err := filepath.Rel(a.abs, b.abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return rel == "." || writes == nil || writes(filepath.ToSlash(rel))
}
