package cmd

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// preset is a paper's own experiment on generated data: each partition draws
// a fresh sample (DESIGN.md, Protocols), from the stream (seed, partition).
type preset struct {
	about   string
	margins map[string]string // Options.Margin per method
	build   func(o *compareOptions) ([]experiment.Source, []experiment.Entry, error)
}

var presets = map[string]preset{
	"laanaya-weston": {
		about: "Laanaya et al. 2011 §3.1: Weston's nonlinear problem (52 features,\n" +
			"2 relevant), 30 partitions of --train-size 100 / --test-size 100,\n" +
			"svm against spd with a diagonal Q",
		build: func(o *compareOptions) ([]experiment.Source, []experiment.Entry, error) {
			src := &experiment.GeneratedSource{
				DataName: "weston", K: o.Partitions, Seed: o.Seed,
				Generate: func(rng *rand.Rand) (*dataio.Dataset, *dataio.Dataset, error) {
					train, test := dataio.Weston(o.TrainSize+o.TestSize, 20, rng).SplitAt(o.TrainSize)
					return train, test, nil
				},
			}
			return []experiment.Source{src}, []experiment.Entry{{Method: "svm"}, {Method: "spd", Param: "diag"}}, nil
		},
	},
	"gi-chessboard": {
		about: "Glasmachers & Igel 2005 §3: the chessboard with d = 2, 20 trials of\n" +
			"500 training points, gi with a hard margin in parameterisations A–E\n" +
			"against svm, each tested on 10,000 fresh points",
		margins: map[string]string{"gi": "hard"}, // as the paper; the svm baseline stays a C-SVC
		build: func(o *compareOptions) ([]experiment.Source, []experiment.Entry, error) {
			k := o.Partitions
			if !o.partitionsSet { // the paper ran 20 trials
				k = 20
			}
			src := &experiment.GeneratedSource{
				DataName: "chessboard", K: k, Seed: o.Seed,
				Generate: func(rng *rand.Rand) (*dataio.Dataset, *dataio.Dataset, error) {
					const train, test = 500, 10000
					d, _ := dataio.Chessboard(train+test, 2, 3, rng)
					tr, te := d.SplitAt(train) // drawn i.i.d.: the first rows are a random training part
					return tr, te, nil
				},
			}
			entries := []experiment.Entry{{Method: "svm"}}
			for _, p := range []string{"A", "B", "C", "D", "E"} {
				entries = append(entries, experiment.Entry{Method: "gi", Param: p})
			}
			return []experiment.Source{src}, entries, nil
		},
	},
}

// presetHelp lists the presets for compare's --help, one "name  about"
// paragraph each.
func presetHelp() string {
	var b strings.Builder
	for _, name := range presetNames() {
		fmt.Fprintf(&b, "  %s\n      %s\n", name, strings.ReplaceAll(presets[name].about, "\n", "\n      "))
	}
	return b.String()
}

func presetNames() []string {
	var out []string
	for k := range presets {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
