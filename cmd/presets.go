package cmd

import (
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// presetHelp lists the presets for compare's --help, one "name  about"
// paragraph each.
func presetHelp() string {
	var b strings.Builder
	for _, p := range experiment.Presets() {
		fmt.Fprintf(&b, "  %s\n      %s\n", p.Name, strings.ReplaceAll(p.About, "\n", "\n      "))
	}
	return b.String()
}
