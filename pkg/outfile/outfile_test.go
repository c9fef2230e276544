package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// files lists the names in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A write that fails half-way leaves the old file byte for byte and no
// temporary file; one that succeeds replaces it, keeping its permissions,
// and writes through a symbolic link onto the file it names.
func TestWriteFileIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	if err := os.WriteFile(path, []byte("the good model\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err := WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("torn ", 40000)) // past the buffer: on disk
		return full
	})
	if !errors.Is(err, full) {
		t.Fatalf("failed write: err = %v, want the writer's", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "the good model\n" {
		t.Errorf("after a failed write the file holds %.40q, want the old content", b)
	}
	if names := files(t, dir); len(names) != 1 {
		t.Errorf("after a failed write the directory holds %v, want m.json alone", names)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("m.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("write through the link: m.json holds %q, want %q", b, "new\n")
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", st.Mode(), err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v after the write, want the old 0600", st.Mode().Perm())
	}
	if err := WriteFile(filepath.Join(dir, "new.txt"), func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "new.txt")); st.Mode().Perm() != 0o644 {
		t.Errorf("a new file has permissions %v, want 0644", st.Mode().Perm())
	}
}

// An error of the file system names the path, not the temporary file.
func TestWriteFileErrorNamesThePath(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "none", "m.json"), func(io.Writer) error { return nil })
	var de *DirError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "none/m.json: stat ") {
		t.Errorf("missing directory: %v", err)
	}
}

// A plan refuses an output that is an input or another output however the
// path is spelt (./, a symbolic link, a hard link, a file not yet made
// through a linked directory) and a directory output that would write an
// input; distinct files pass.
func TestPlanComparesFilesNotSpellings(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("real", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"data.libsvm", "r.jsonl", "real/a.svg", "real/r.jsonl"} {
		if err := os.WriteFile(name, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("r.jsonl", "link.jsonl"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("data.libsvm", "hard.libsvm"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", "alias"); err != nil {
		t.Fatal(err)
	}
	figures := func(rel string) bool { return !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".svg") }
	for _, tc := range []struct {
		name string
		plan func(p *Plan)
		want string // "" for no conflict
	}{
		{"./", func(p *Plan) { p.Output("--out", "r.jsonl"); p.Output("--html", "./r.jsonl") }, "--out r.jsonl is --html ./r.jsonl (the same file): writing one would destroy the other; give another file"},
		{"symlink", func(p *Plan) { p.Input("FILE", "r.jsonl"); p.Output("--html", "link.jsonl") }, "--html link.jsonl is FILE r.jsonl (the same file): writing it would destroy that input; give another file"},
		{"hard link", func(p *Plan) { p.Input("DATA", "data.libsvm"); p.Output("-o", "hard.libsvm") }, "-o hard.libsvm is DATA data.libsvm (the same file)"},
		{"absolute", func(p *Plan) { p.Input("DATA", filepath.Join(dir, "data.libsvm")); p.Output("-o", "data.libsvm") }, "is DATA"},
		{"new file, linked dir", func(p *Plan) { p.Output("-o", "real/g.csv"); p.Output("--test-output", "alias/../alias/g.csv") }, "-o real/g.csv is --test-output alias/../alias/g.csv"},
		{"dir holds", func(p *Plan) { p.Input("FILE", "real/a.svg"); p.OutputDir("--plot", "alias", figures) }, "--plot alias would write over FILE real/a.svg, an input of the same command: give another directory"},
		{"dir is a file", func(p *Plan) { p.Output("--out", "new.jsonl"); p.OutputDir("--plot", "./new.jsonl", figures) }, "--out new.jsonl is --plot ./new.jsonl (the same file)"},
		{"dir, other names", func(p *Plan) { p.Input("FILE", "real/r.jsonl"); p.OutputDir("--plot", "real", figures) }, ""},
		{"distinct", func(p *Plan) { p.Input("DATA", "data.libsvm"); p.Output("-o", "m.json"); p.Output("--trace", "t.csv") }, ""},
		{"/dev/null twice", func(p *Plan) { p.Output("-o", os.DevNull); p.Output("--trace", os.DevNull) }, ""},
		{"stdin and stdout", func(p *Plan) { p.Input("DATA", "-"); p.Output("-o", "-") }, ""},
		{"no such input", func(p *Plan) { p.Input("DATA", "builtin:heart"); p.Output("-o", "builtin:heart") }, ""},
	} {
		var p Plan
		tc.plan(&p)
		err := p.Check()
		var ce *ConflictError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want no conflict", tc.name, err)
		case tc.want != "" && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a conflict saying %q", tc.name, err, tc.want)
		}
	}
}
