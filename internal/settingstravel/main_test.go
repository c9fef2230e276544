package main

import (
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// program type-checks a module of three packages, each given as file
// name → source, low below mid below top.
func program(t *testing.T, pkgs ...[2]any) *Program {
	t.Helper()
	prog := &Program{Fset: token.NewFileSet()}
	for _, p := range pkgs {
		if _, err := prog.check(p[0].(string), p[1].(map[string]string), nil); err != nil {
			t.Fatal(err)
		}
	}
	return prog
}

// The module of the tests: mid.Run takes the settings (mid.Settings) that
// top.Main makes; the comments say what the definition makes of each line.
var (
	low = [2]any{"m/low", map[string]string{
		"low/opts.go": `package low
type Opts struct{ Format string; Labels *Map }
type Map struct{ Names []string }
type Data struct{ Rows int; Labels *Map }
type Source struct{ Opts Opts; N int }
// Load reads with o (entered) and returns the data: a stop type, so the
// Labels it holds do not climb.
func Load(o Opts) Data { return Data{Rows: len(o.Format), Labels: o.Labels} }
// Describe returns a struct that holds o: the settings climb back up.
func Describe(o Opts) Source { return Source{Opts: o} }
`,
		"low/name.go": `package low
// Upper gets a string copied out of the settings: not entered.
func Upper(s string) string { return s + "!" }
`,
		"low/other.go": `package low
// Count is called, but with nothing of the settings.
func Count(d Data) int { return d.Rows + len(d.Labels.Names) }
`,
	}}
	mid = [2]any{"m/mid", map[string]string{
		"mid/settings.go": `package mid
import "m/low"
type Settings struct {
	Read   low.Opts
	Name   string
	Notify func(string)
	Check  func(low.Opts) error
}
`,
		"mid/run.go": `package mid
import "m/low"
func Run(s Settings) int {
	d := low.Load(s.Read)
	src := low.Describe(s.Read)
	s.Notify(low.Upper(s.Name))
	_ = s.Check(src.Opts)
	return low.Count(d) + helper(s.Read)
}
`,
		"mid/helper.go": `package mid
import "m/low"
// helper gets the read options: entered.
func helper(o low.Opts) int { return len(o.Format) }
`,
		"mid/unrelated.go": `package mid
func Unrelated() int { return 1 }
`,
	}}
	top = [2]any{"m/top", map[string]string{
		"top/main.go": `package top
import ("m/low"; "m/mid")
func Main() int {
	s := mid.Settings{Name: "x", Notify: func(string) {}, Check: check}
	s.Read.Format = "csv"
	return mid.Run(s) + mid.Unrelated()
}
func check(o low.Opts) error { return nil }
`,
	}}
)

func TestMeasure(t *testing.T) {
	t.Parallel()
	tr, err := Measure(program(t, low, mid, top), "m/mid.Settings", "m/mid.Run", "m/low.Data")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"low/opts.go", "mid/helper.go", "mid/run.go", "top/main.go"}; !slices.Equal(tr.Files, want) {
		t.Errorf("files %v, want %v (evidence %v)", tr.Files, want, tr.Evidence)
	}
	want := []Climb{
		{Kind: "return", Caller: "mid.Run", Callee: "low.Describe", From: "m/low", To: "m/mid"},
		{Kind: "call", Caller: "mid.Run", Callee: "top.Main.func1", From: "m/mid", To: "m/top"},
		{Kind: "call", Caller: "mid.Run", Callee: "top.check", From: "m/mid", To: "m/top"},
	}
	if !slices.Equal(tr.Climbs, want) {
		t.Errorf("climbs %+v\nwant   %+v", tr.Climbs, want)
	}

	// Without the stop type, the data that Load returns holds the settings'
	// label map: one more climb, and other.go reads it.
	tr, err = Measure(program(t, low, mid, top), "m/mid.Settings", "m/mid.Run")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tr.Files, "low/other.go") || len(tr.Climbs) != 4 {
		t.Errorf("without a stop type: files %v, climbs %+v", tr.Files, tr.Climbs)
	}
}

func TestMeasureErrors(t *testing.T) {
	t.Parallel()
	prog := program(t, low, mid, top)
	for _, args := range [][2]string{
		{"m/mid.Nope", "m/mid.Run"},
		{"m/mid.Run", "m/mid.Run"},
		{"m/mid.Settings", "m/mid.Settings"},
		{"Settings", "m/mid.Run"},
	} {
		if _, err := Measure(prog, args[0], args[1]); err == nil {
			t.Errorf("Measure %v: no error", args)
		}
	}
}

// TestModule measures the module itself as `go run ./internal/settingstravel`
// does: the command builds the settings and experiment calls back into it.
func TestModule(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	prog, err := Load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Measure(prog, "github.com/kerneltune/kerneltune/pkg/experiment.CompareSettings",
		"github.com/kerneltune/kerneltune/pkg/experiment.Compare", "github.com/kerneltune/kerneltune/pkg/dataio.Dataset")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tr.Write(&b, true)
	t.Log(b.String())
	for _, f := range []string{"cmd/compare.go", "pkg/experiment/compare.go"} {
		if !slices.Contains(tr.Files, f) {
			t.Errorf("%s not among the files entered", f)
		}
	}
	if len(tr.Climbs) == 0 {
		t.Error("no climb found")
	}
}
