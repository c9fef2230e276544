package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// Preset is a paper's own experiment on generated data (compare --preset):
// its sources and method entries. Each partition draws a fresh sample
// (docs/design.md "Protocols"), from the stream (seed, partition).
type Preset struct {
	// Name is the preset's ID, e.g. "laanaya-weston".
	Name string
	// About describes the experiment and its paper, in lines of at most 72
	// characters.
	About string
	// Margins are the margins of methods as the paper ran them, set on
	// every entry of those methods (withMargins); nil for none.
	Margins map[string]string

	build func(s PresetSettings) ([]Source, []Entry)
}

// PresetSettings are the choices a preset leaves to the caller. The zero
// value of a field means the preset's own default.
type PresetSettings struct {
	// Partitions is the number of partitions; 0 means the paper's (30 for
	// laanaya-weston, 20 for gi-chessboard).
	Partitions int
	// TrainSize and TestSize are laanaya-weston's training and test points
	// per partition; 0 means 100. gi-chessboard always has the paper's 500
	// and 10,000.
	TrainSize, TestSize int
	// Seed draws the partitions' samples.
	Seed uint64
}

// Build returns the preset's sources (one) and method entries.
func (p Preset) Build(s PresetSettings) ([]Source, []Entry, error) {
	if p.build == nil {
		return nil, nil, fmt.Errorf("preset %q has no experiment", p.Name)
	}
	if s.Partitions < 0 || s.TrainSize < 0 || s.TestSize < 0 {
		return nil, nil, fmt.Errorf("preset %s: negative partitions or sizes %+v", p.Name, s)
	}
	src, entries := p.build(s)
	return src, entries, nil
}

// orZero returns v, or def when v is 0.
func orZero(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// presetEntries returns the entries of "method[:param]" names with their
// methods' default settings (the presets' names are known to the
// registry).
func presetEntries(names ...string) []Entry {
	out := make([]Entry, len(names))
	for i, n := range names {
		me, err := methods.ParseEntry(n)
		if err == nil {
			out[i], err = NewEntry(me)
		}
		if err != nil {
			panic("experiment: preset entry " + n + ": " + err.Error())
		}
	}
	return out
}

// withMargins returns entries with the margin of margins[method] set on
// the methods that offer a choice of margin (gi, lccp); the others keep
// theirs (the svm baseline of gi-chessboard stays a C-SVC).
func withMargins(entries []Entry, margins map[string]string) []Entry {
	if len(margins) == 0 {
		return entries
	}
	out := slices.Clone(entries)
	for i, e := range out {
		mg, ok := margins[e.Method]
		if !ok {
			continue
		}
		switch s := e.Spec.(type) {
		case methods.GISettings:
			s.Margin = mg
			out[i].Spec = s
		case methods.LCCPSettings:
			s.Margin = mg
			out[i].Spec = s
		}
	}
	return out
}

var presets = []Preset{
	{
		Name: "gi-chessboard",
		About: "Glasmachers & Igel 2005 §3: the chessboard with d = 2, 20 trials of\n" +
			"500 training points, gi with a hard margin in parameterisations A–E\n" +
			"against svm, each tested on 10,000 fresh points",
		Margins: map[string]string{"gi": "hard"}, // as the paper; the svm baseline stays a C-SVC
		build: func(s PresetSettings) ([]Source, []Entry) {
			src := &GeneratedSource{
				DataName: "chessboard", K: orZero(s.Partitions, 20), Seed: s.Seed,
				Generate: func(rng *rand.Rand) (*dataio.Dataset, *dataio.Dataset, error) {
					const train, test = 500, 10000
					d, _ := dataio.Chessboard(train+test, 2, 3, rng)
					tr, te := d.SplitAt(train) // drawn i.i.d.: the first rows are a random training part
					return tr, te, nil
				},
			}
			return []Source{src}, presetEntries("svm", "gi:A", "gi:B", "gi:C", "gi:D", "gi:E")
		},
	},
	{
		Name: "laanaya-weston",
		About: "Laanaya et al. 2011 §3.1: Weston's nonlinear problem (52 features,\n" +
			"2 relevant), 30 partitions of 100 training / 100 test rows,\n" +
			"svm against spd with a diagonal Q",
		build: func(s PresetSettings) ([]Source, []Entry) {
			ntr, nte := orZero(s.TrainSize, 100), orZero(s.TestSize, 100)
			src := &GeneratedSource{
				DataName: "weston", K: orZero(s.Partitions, 30), Seed: s.Seed,
				Generate: func(rng *rand.Rand) (*dataio.Dataset, *dataio.Dataset, error) {
					train, test := dataio.Weston(ntr+nte, 20, rng).SplitAt(ntr)
					return train, test, nil
				},
			}
			return []Source{src}, presetEntries("svm", "spd:diag")
		},
	},
}

// Presets returns the presets, sorted by name.
func Presets() []Preset { return slices.Clone(presets) }

// PresetNames returns the presets' names, sorted.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return names
}

// LookupPreset returns the preset called name, and false when there is none.
func LookupPreset(name string) (Preset, bool) {
	i := slices.IndexFunc(presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return Preset{}, false
	}
	return presets[i], true
}
