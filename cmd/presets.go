package cmd

import (
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// presetSettings are compare's flags for a preset (experiment.Presets):
// --partitions counts only when given (a preset's own default yields), the
// sizes always.
func (o *compareOptions) presetSettings() experiment.PresetSettings {
	s := experiment.PresetSettings{TrainSize: o.TrainSize, TestSize: o.TestSize, Seed: o.Seed}
	if o.partitionsSet {
		s.Partitions = o.Partitions
	}
	return s
}

// presetHelp lists the presets for compare's --help, one "name  about"
// paragraph each.
func presetHelp() string {
	var b strings.Builder
	for _, p := range experiment.Presets() {
		fmt.Fprintf(&b, "  %s\n      %s\n", p.Name, strings.ReplaceAll(p.About, "\n", "\n      "))
	}
	return b.String()
}
