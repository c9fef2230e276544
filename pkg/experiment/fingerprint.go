package experiment

// The run id: the identifier every record of a run carries, so that
// --resume and report never mix the records of runs with other settings.

import (
	"cmp"
	"fmt"
	"strings"
)

// RunSettings returns the settings of the run of entries on sources
// (RunSettings, the schema's): the seed, how the baseline is chosen, the
// shared method settings, each dataset with its identity (identify) and
// each entry's own settings. The workers, the shard and the progress
// recorder are left out, since the records do not depend on them, and so
// is the base seed (each job's is drawn from the run's).
func (c *Config) RunSettings(entries []Entry, sources []Source) RunSettings {
	s := RunSettings{Seed: c.Seed, Select: cmp.Or(c.Select, SelectCV), Common: commonSettings(c.Base)}
	for _, src := range sources {
		d := RunDataset{Name: src.Name(), Partitions: src.Len(), Identity: identify(src, c.Seed, c.normalize(), c.Preset)}
		if f, ok := c.Baseline[src.Name()]; ok {
			d.Baseline = &Baseline{C: f.C, Gamma: f.Gamma}
		}
		s.Datasets = append(s.Datasets, d)
	}
	for _, e := range entries {
		s.Entries = append(s.Entries, entrySettings(e))
	}
	return s
}

// How the svm baseline's (C, γ) is chosen (RunSettings.Select).
const (
	SelectCV      = "cv"
	SelectLaanaya = "laanaya"
)

// Fingerprint returns the run identifier written into every record: the
// hash of RunSettings (RunSettings.ID).
func (c *Config) Fingerprint(entries []Entry, sources []Source) string {
	return c.RunSettings(entries, sources).ID()
}

// DiffSettings lists the settings that differ between two runs' settings,
// one "what: a → b" each, sorted: a field by its JSON path in the schema
// ("common.folds", "seed"), a dataset's and an entry's fields after its
// name ("dataset heart: read.labels.positive", "entry spd: max_iter"),
// "(default)" for a setting left out.
func DiffSettings(a, b RunSettings) []string {
	return diffFlat(runFields(a), runFields(b), func(k, va, vb string) string {
		return fmt.Sprintf("%s: %s → %s", k, va, vb)
	})
}

// runFields are a run's settings as DiffSettings compares them: its
// datasets by name and its entries by entry, so that what differs is
// named by them, not by their place in the run.
func runFields(s RunSettings) map[string]string {
	g := map[string]any{"seed": s.Seed, "select": s.Select, "common.": s.Common}
	var names []string
	for _, d := range s.Datasets {
		names = append(names, d.Name)
		g["dataset "+d.Name+": "] = datasetFields(d)
	}
	g["datasets"] = strings.Join(names, ",")
	names = names[:0]
	for _, e := range s.Entries {
		names = append(names, e.Entry)
		e.Entry = ""
		g["entry "+names[len(names)-1]+": "] = e
	}
	g["entries"] = strings.Join(names, ",")
	return flatGroups(g)
}

// datasetFields are a run's dataset as DiffSettings compares it: its
// partitions, baseline and identity's fields but the seed (the run's).
func datasetFields(d RunDataset) any {
	d.Identity.Seed = 0 // the run's seed, said once
	return struct {
		Partitions int       `json:"partitions"`
		Baseline   *Baseline `json:"baseline,omitempty"`
		DatasetIdentity
	}{d.Partitions, d.Baseline, d.Identity}
}
