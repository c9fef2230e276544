package experiment

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// A class weight of 1 is no weight: --weight-pos 1 is the same run as no
// flag (the same settings, so the same run id and records that merge),
// while any other weight is another run.
func TestRunSettingsWeightOneIsNone(t *testing.T) {
	t.Parallel()
	settings := func(pos, neg float64) RunSettings {
		c := &Config{Base: methods.Common{WeightPos: pos, WeightNeg: neg}}
		return c.RunSettings(nil, nil)
	}
	none := settings(0, 0)
	if got := settings(1, 1); !reflect.DeepEqual(got, none) || got.ID() != none.ID() {
		t.Errorf("weights 1, 1: %+v, want the settings without weights %+v", got, none)
	}
	if got := settings(2, 1); got.ID() == none.ID() {
		t.Errorf("weight 2 gave the run id of the settings without weights")
	}
}

// The run's settings are a schema, not Go's field names: their JSON (which
// the run id hashes) is pinned here, defaults left out (the default svm
// entry is its name alone; grid.py's grid given is no grid given), and
// DiffSettings names what differs by the schema's JSON paths.
func TestRunSettingsJSON(t *testing.T) {
	t.Parallel()
	c := Config{Seed: 1, Base: methods.Common{Folds: 5, Eps: 1e-3, CacheMB: 200}}
	entries := mustEntries(t, "svm,spd:full")
	s := c.RunSettings(entries, []Source{heartSource(t, 2, 1)})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"seed":1,"select":"cv","common":{"folds":5,"eps":0.001,"cache_mb":200},` +
		`"datasets":[{"name":"heart","partitions":2,"identity":{"sha256":"5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9",` +
		`"read":{"format":"libsvm","features":13,"labels":{"positive":"1","negative":"-1"}},"seed":1,"normalize":"zscore"}}],` +
		`"entries":[{"entry":"svm"},{"entry":"spd:full","param":"full"}]}`
	if string(b) != want {
		t.Fatalf("RunSettings JSON\n%s\nwant\n%s", b, want)
	}
	grid := slices.Clone(entries)
	g, err := methods.ApplyLoop(grid[0].Spec, methods.Loop{Space: gridPy(t)})
	if err != nil {
		t.Fatal(err)
	}
	grid[0].Spec = g
	if got := c.RunSettings(grid, []Source{heartSource(t, 2, 1)}); got.ID() != s.ID() {
		t.Errorf("grid.py's grid given: run %s, without %s", got.ID(), s.ID())
	}
	other := c
	other.Base.Folds = 3
	rho := slices.Clone(entries)
	spd := rho[1].Spec.(methods.SPDSettings)
	spd.Rho = 0.5
	rho[1].Spec = spd
	d := DiffSettings(s, other.RunSettings(rho, []Source{heartSource(t, 2, 1)}))
	if w := []string{"common.folds: 5 → 3", "entry spd:full: rho: (default) → 0.5"}; !slices.Equal(d, w) {
		t.Errorf("DiffSettings = %q, want %q", d, w)
	}
}

// gridPy is grid.py's grid, given.
func gridPy(t *testing.T) methods.Space {
	t.Helper()
	var sp methods.Space
	if err := sp.Log2C.Set("-5,15,2"); err != nil {
		t.Fatal(err)
	}
	if err := sp.Log2Gamma.Set("3,-15,-2"); err != nil {
		t.Fatal(err)
	}
	return sp
}

// Every setting of every method's settings type is in its entry's
// settings (entrySettings), so that each is part of the run: a field
// added to a settings type without its place in EntrySettings fails here.
// And every field of methods.Common that changes results is in
// CommonSettings.
func TestEntrySettingsOfEveryMethod(t *testing.T) {
	t.Parallel()
	for _, in := range methods.All {
		spec, err := methods.New(in.Name, "", "")
		if err != nil {
			t.Fatal(err)
		}
		e := Entry{Entry: methods.Entry{Method: in.Name}, Spec: spec}
		base := entrySettings(e)
		v := reflect.ValueOf(spec)
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Name == "Common" || !f.IsExported() { // unexported: a test's knob (gi's path), no setting
				continue
			}
			for _, leaf := range leaves(v.Field(i), f.Name) {
				w := reflect.New(v.Type()).Elem()
				w.Set(v)
				leaf.set(w)
				e.Spec = w.Interface().(methods.Spec)
				if entrySettings(e) == base {
					t.Errorf("%s: %s set, but its entry settings are those of the default", in.Name, leaf.name)
				}
			}
		}
	}
	skip := map[string]bool{"Seed": true, "Workers": true, "Recorder": true, "Progress": true, "Grids": true, "Checkpoint": true}
	v := reflect.ValueOf(methods.Common{})
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || skip[f.Name] {
			continue
		}
		w := reflect.New(v.Type()).Elem()
		setLeaf(w.Field(i))
		if commonSettings(w.Interface().(methods.Common)) == (CommonSettings{}) {
			t.Errorf("methods.Common.%s set, but the run's common settings are the default's", f.Name)
		}
	}
}

type leaf struct {
	name string
	set  func(v reflect.Value)
}

// leaves are the settings of the field f (named name) of a settings type:
// itself, or each field of a struct that is not a grid (a Space's Log2C
// and Log2Gamma).
func leaves(f reflect.Value, name string) []leaf {
	if f.Kind() != reflect.Struct || f.Type() == reflect.TypeOf(methods.Log2Grid{}) {
		return []leaf{{name, func(v reflect.Value) { setLeaf(v.FieldByName(name)) }}}
	}
	var out []leaf
	for i := range f.NumField() {
		inner := f.Type().Field(i).Name
		out = append(out, leaf{name + "." + inner, func(v reflect.Value) { setLeaf(v.FieldByName(name).Field(i)) }})
	}
	return out
}

// setLeaf sets v to a value no default has.
func setLeaf(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(0.25)
	case reflect.Struct: // a Log2Grid
		v.Set(reflect.ValueOf(methods.Log2Grid{Begin: -1, End: 3, Step: 2}))
	}
}
