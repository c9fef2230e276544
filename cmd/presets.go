package cmd

import (
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// preset is experiment's preset as compare reads it from its flags.
type preset struct {
	about   string
	margins map[string]string
	build   func(o *compareOptions) ([]experiment.Source, []experiment.Entry, error)
}

// presets are experiment.Presets by name: --partitions counts only when
// given (a preset's own default yields), the sizes always.
var presets = func() map[string]preset {
	m := map[string]preset{}
	for _, p := range experiment.Presets() {
		m[p.Name] = preset{about: p.About, margins: p.Margins, build: func(o *compareOptions) ([]experiment.Source, []experiment.Entry, error) {
			s := experiment.PresetSettings{TrainSize: o.TrainSize, TestSize: o.TestSize, Seed: o.Seed}
			if o.partitionsSet {
				s.Partitions = o.Partitions
			}
			return p.Build(s)
		}}
	}
	return m
}()

// presetHelp lists the presets for compare's --help, one "name  about"
// paragraph each.
func presetHelp() string {
	var b strings.Builder
	for _, p := range experiment.Presets() {
		fmt.Fprintf(&b, "  %s\n      %s\n", p.Name, strings.ReplaceAll(p.About, "\n", "\n      "))
	}
	return b.String()
}

func presetNames() []string {
	var out []string
	for _, p := range experiment.Presets() {
		out = append(out, p.Name)
	}
	return out
}
