package experiment

// Datasets each read and partitioned its own way (a study), what every
// record says about where its data came from (Provenance), and the plan a
// dry run shows.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// DatasetSettings are one dataset of CompareSettings.Datasets (a study's
// entry): its file, display name, reading and partitions, each as the
// compare flag of the same name means for a run of that one file. Compare
// opens each with dataio.OpenDataset.
type DatasetSettings = dataio.DatasetSpec

// FileSpecs returns the datasets at paths (nil: DefaultData), each read and
// partitioned with the settings of each (its Path is not used; its Name
// only for one path), as the command line gives them. Datasets that share
// a name (a/heart.dat and b/heart.dat) are named by their paths; the same
// path given twice is a *DuplicateDataError. Each is marked FileList, so
// that Compare names them so (a study's datasets that share a name are
// refused, a *DuplicateNameError).
func FileSpecs(paths []string, each DatasetSettings) []DatasetSettings {
	if len(paths) == 0 {
		paths = DefaultData
	}
	if len(paths) != 1 {
		each.Name = ""
	}
	out := make([]DatasetSettings, len(paths))
	for i, p := range paths {
		out[i] = each
		out[i].Path, out[i].FileList = p, true
	}
	return out
}

// PresetRun is a preset as Compare runs it (CompareSettings.Preset): its
// name (LookupPreset) and the choices it leaves to the caller, as
// PresetSettings (Compare's Seed draws the samples).
type PresetRun struct {
	Name                            string
	Partitions, TrainSize, TestSize int
}

// DuplicateNameError is a display name that two datasets share.
type DuplicateNameError struct {
	Name         string
	Where, First string // where each was given ("" when not known)
}

func (e *DuplicateNameError) Error() string {
	return fmt.Sprintf("%s: dataset name %q is also the name of the dataset at %s: give one of them another name", e.Where, e.Name, e.First)
}

// datasetSources opens the datasets specs (dataio.OpenDataset), each
// with its own settings, and returns what opening each found to tell the
// user (notices). FileSpecs' datasets (FileList) that share a name are
// named by their paths; a study's are refused.
func (s *CompareSettings) datasetSources(ctx context.Context, specs []DatasetSettings) (_ []Source, notices []Notice, _ error) {
	files := specs[0].FileList
	var (
		parts []*dataio.Partitioned
		seen  = map[string]string{} // a study's display names: where each was given
	)
	for _, ds := range specs {
		ds.Read.MemBytes = s.MemBytes // reading within the run's bound (not in any identity)
		p, err := dataio.OpenDataset(ctx, ds, s.Seed, s.Stdin)
		if err != nil && !files {
			err = studyError(ds, err)
		}
		if err != nil {
			return nil, nil, err
		}
		notices = append(notices, noticesOf(p.Notes)...)
		if !files {
			if err := uniqueStudyName(p, seen); err != nil {
				return nil, nil, err
			}
		}
		parts = append(parts, p)
	}
	if files {
		if err := uniqueNames(parts); err != nil {
			return nil, nil, err
		}
	}
	if err := s.oneIdentityEach(specs, parts); err != nil {
		return nil, nil, err
	}
	sources := make([]Source, len(parts))
	for i, p := range parts {
		sources[i] = p
	}
	return sources, notices, nil
}

// SameDatasetError is two datasets of a run that are one dataset: one
// identity (DatasetIdentity: the same data, read, partitioned and
// normalised the same way), given under two spellings (x.libsvm and
// ./x.libsvm, a symlink, builtin:heart and a copy of its file). Compare
// refuses them (issue 42, item 9): the tests across datasets (Friedman,
// Nemenyi, Holm, the signed-rank test over datasets) would count one
// dataset twice.
type SameDatasetError struct {
	First, Second string // the datasets as given (path, and where a study gives it)
	SHA256        string // their data's
}

func (e *SameDatasetError) Error() string {
	return fmt.Sprintf("%s and %s are one dataset (the same data, SHA-256 %s, read, partitioned and normalised the same way): give it once, since the tests across datasets (Friedman, Nemenyi, Holm, the signed-rank test over datasets) would count it twice",
		e.First, e.Second, e.SHA256)
}

// oneIdentityEach refuses two of the opened datasets parts (of specs)
// that have one identity (a *SameDatasetError).
func (s *CompareSettings) oneIdentityEach(specs []DatasetSettings, parts []*dataio.Partitioned) error {
	seen := map[Identity]int{}
	where := func(i int) string {
		if specs[i].Where != "" {
			return fmt.Sprintf("%s (%s)", specs[i].Path, specs[i].Where)
		}
		return specs[i].Path
	}
	for i, p := range parts {
		id := identify(p, s.Seed, normalizeKind(s.Normalize), "").ID()
		if j, ok := seen[id]; ok {
			return &SameDatasetError{First: where(j), Second: where(i), SHA256: p.Data.SHA256}
		}
		seen[id] = i
	}
	return nil
}

// studyError is the error of opening a study's dataset ds: a *SourceError
// naming its path and where the study gives it, whatever the error.
func studyError(ds DatasetSettings, err error) error {
	at := ds.Path
	if ds.Where != "" {
		at = fmt.Sprintf("%s (%s)", ds.Path, ds.Where)
	}
	var se *SourceError
	if errors.As(err, &se) {
		err = se.Err
	}
	return &SourceError{Path: at, Err: err}
}

// noticesOf returns the notices of a dataset's partition notes.
func noticesOf(notes []dataio.PartitionNote) []Notice {
	var out []Notice
	for _, n := range notes {
		kind := NoticeDefaultTrainSize
		switch n.Kind {
		case dataio.NoteSmallTrainPart:
			kind = NoticeSmallTrainPart
		}
		out = append(out, Notice{Kind: kind, Dataset: n.Path, Rows: n.Rows, TrainSize: n.TrainSize, TestSize: n.TestSize, Partitions: n.Partitions})
	}
	return out
}

// uniqueStudyName refuses a study's dataset p whose display name an
// earlier one has (seen: where each was given).
func uniqueStudyName(p *dataio.Partitioned, seen map[string]string) error {
	ds, name := p.Spec, p.Name()
	if first, dup := seen[name]; dup {
		return &DuplicateNameError{Name: name, Where: cmp.Or(ds.Where, ds.Path), First: first}
	}
	seen[name] = cmp.Or(ds.Where, ds.Path)
	return nil
}

// Provenance says where a record's data came from and what made it: the
// kerneltune version, the command line or study file, and the dataset as
// read.
type Provenance struct {
	Version string `json:"version,omitempty"`
	Command string `json:"command,omitempty"`
	// Study is the study file, StudySHA256 the SHA-256 of its bytes.
	Study       string          `json:"study,omitempty"`
	StudySHA256 string          `json:"study_sha256,omitempty"`
	StudyName   string          `json:"study_name,omitempty"`
	Data        *DataProvenance `json:"data,omitempty"`
}

// DataProvenance is one dataset as the run read and partitioned it
// (dataio.Partitioned.Provenance).
type DataProvenance = dataio.DataProvenance

// Plan is what a run would do (Prepared.Plan; a dry run prints it): its datasets as
// read and partitioned, its entries and its jobs.
type Plan struct {
	Datasets []*DataProvenance `json:"datasets"`
	Entries  []string          `json:"methods"`
	// Jobs are the whole run's; ShardJobs those of this shard (Shard of
	// Shards, 0 of 0 for the whole run).
	Jobs, ShardJobs int
	Shard, Shards   int
	Run             string `json:"run"`
	// Notes are what the plan shows will limit the run's results (too
	// few partitions for a paired test to reach p < 0.05).
	Notes []string `json:"notes,omitempty"`
}

// planNotes are a dry run's warnings about the plan: a dataset whose
// partitions are too few for any two-sided Wilcoxon signed-rank p to reach
// 0.05 (the smallest, all n differences of one sign, is 2/2ⁿ: 0.25 for 3).
func planNotes(sources []Source, entries int) []string {
	var notes []string
	if entries < 2 {
		return nil
	}
	byCount := map[int][]string{} // the datasets of each count below 6
	for _, s := range sources {
		if n := s.Len(); n < 6 {
			byCount[n] = append(byCount[n], s.Name())
		}
	}
	for n := range 6 {
		if names := byCount[n]; len(names) > 0 {
			notes = append(notes, fmt.Sprintf("%s: with %d partitions no paired Wilcoxon test against the reference can reach p < 0.05 (the smallest possible p is %g): give --partitions 6 or more",
				strings.Join(names, ", "), n, 2/math.Pow(2, float64(n))))
		}
	}
	return notes
}

// provenance describes every source of the run opened from a spec, by
// name: s.Provenance with the dataset's DataProvenance.
func (s *CompareSettings) provenance(sources []Source) map[string]*Provenance {
	out := map[string]*Provenance{}
	for _, src := range sources {
		p := s.Provenance
		if part, ok := src.(*dataio.Partitioned); ok {
			p.Data = part.Provenance()
		}
		if p != (Provenance{}) {
			out[src.Name()] = &p
		}
	}
	return out
}
