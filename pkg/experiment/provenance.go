package experiment

// Datasets each read and partitioned its own way (a study), what every
// record says about where its data came from (Provenance), and the plan a
// dry run shows.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// DatasetSettings are one dataset of CompareSettings.Datasets (a study's
// entry): its file, display name, reading and partitions, each as the
// compare flag of the same name means for a run of that one file.
type DatasetSettings struct {
	// Path is the data file (or "builtin:NAME"); Test, when set, is its
	// test file (--test): one partition trains on the whole training file;
	// with PartitionsGiven (Partitions of them) or TrainSizeGiven, each
	// trains on TrainSize random rows of it (all rows when it has no more).
	Path, Test string
	// Name is the display name in tables, figures and records; "" keeps
	// the name the reader gives (the file's base name).
	Name string
	// Where says where the dataset was given (a study file's "FILE:LINE"),
	// for errors; "" for none.
	Where string
	// Read says how to read Path and Test. A dataset with nominal features
	// (read as category codes) is one-hot encoded on each partition's
	// training part (EncodeNominal).
	Read dataio.ReadOptions
	// Partitions is the number of random train/test partitions, or with
	// Predefined the most of the dataset's own realisations (IDA) used; 0
	// means DefaultPartitions. TrainSize and TestSize are the points per
	// partition (dataio.PartitionOptions); TrainFraction, when set,
	// replaces them (the rest is test). Stratified keeps the class
	// proportions in every partition.
	Partitions, TrainSize, TestSize int
	TrainFraction                   float64
	Predefined, Stratified          bool
	PartitionsGiven, TrainSizeGiven bool

	// files marks the datasets of FileSpecs: the run describes them, in its
	// fingerprint, as a list of files with shared settings.
	files bool
}

// FileSpecs returns the datasets at paths (nil: DefaultData), each read and
// partitioned with the settings of each (its Path is not used; its Name
// only for one path), as the command line gives them. Datasets that share
// a name (a/heart.dat and b/heart.dat) are named by their paths; the same
// path given twice is a *DuplicateDataError.
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
		out[i].Path, out[i].files = p, true
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

// key is the dataset's settings as the run fingerprint holds them: all
// but its path, since a dataset is identified by its content (the source's
// SHA-256) and how it was read, not by where the file lies.
func (d DatasetSettings) key() string { return d.keyWith(ReadFlags(d.Read)) }

// keyWith is key with the read options kv (ReadFlags).
func (d DatasetSettings) keyWith(read map[string]string) string {
	kv := maps.Clone(read)
	if kv == nil {
		kv = map[string]string{}
	}
	kv["partitions"] = strconv.Itoa(d.Partitions)
	if d.TrainFraction > 0 {
		kv["train-fraction"] = fmt.Sprint(d.TrainFraction)
	} else {
		kv["train-size"], kv["test-size"] = strconv.Itoa(d.TrainSize), strconv.Itoa(d.TestSize)
	}
	if d.Stratified {
		kv["stratified"] = "true"
	}
	if d.Test != "" {
		kv["test"] = fmt.Sprintf("given/%v/%v", d.PartitionsGiven, d.TrainSizeGiven)
	}
	return joinKV(kv)
}

func joinKV(kv map[string]string) string {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + kv[k]
	}
	return strings.Join(parts, " ")
}

// ReadFlags returns the read options that differ from the defaults, by the
// name of the compare flag (and study key) that sets them: "label-col",
// "positive", "classes", "categorical" ("onehot"), "missing", "features",
// "header", "input-format", "multiclass" ("ovr" only).
func ReadFlags(o dataio.ReadOptions) map[string]string {
	kv := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			kv[k] = v
		}
	}
	set("input-format", o.Format)
	set("header", o.Header)
	set("label-col", o.LabelCol)
	set("positive", o.Positive)
	set("classes", strings.Join(o.Classes, ","))
	if o.Categorical == "codes" {
		kv["categorical"] = "onehot"
	}
	if o.Missing != "" && o.Missing != "error" {
		kv["missing"] = o.Missing
	}
	if o.Delimiter != "" {
		kv["delimiter"] = o.Delimiter
	}
	if o.Features > 0 {
		kv["features"] = strconv.Itoa(o.Features)
	}
	if o.Multiclass == dataio.OneVsRest { // one-vs-one, the default, keeps its runs' ids
		kv["multiclass"] = o.Multiclass
	}
	return kv
}

// DuplicateNameError is a display name that two datasets share.
type DuplicateNameError struct {
	Name         string
	Where, First string // where each was given ("" when not known)
}

func (e *DuplicateNameError) Error() string {
	return fmt.Sprintf("%s: dataset name %q is also the name of the dataset at %s: give one of them another name", e.Where, e.Name, e.First)
}

// datasetSources reads the datasets specs, each with its own settings,
// and draws their partitions; it describes them for the fingerprint, as
// the run's fingerprint always described them: FileSpecs' datasets as one
// list of files, a study's each by its settings.
func (s *CompareSettings) datasetSources(specs []DatasetSettings, describe map[string]string, notify func(Notice)) ([]Source, error) {
	if specs[0].files {
		return s.fileSources(specs, describe, notify)
	}
	var (
		sources []Source
		seen    = map[string]string{}
	)
	for i, ds := range specs {
		if ds.Partitions == 0 {
			ds.Partitions = DefaultPartitions
		}
		src, err := ds.source(ds.Partitions, s.Seed, s.Stdin, notify)
		if err != nil {
			at := ds.Path
			if ds.Where != "" {
				at = fmt.Sprintf("%s (%s)", ds.Path, ds.Where)
			}
			var se *SourceError
			if errors.As(err, &se) {
				err = se.Err
			}
			return nil, &SourceError{Path: at, Err: err}
		}
		named(src, ds.Name)
		name := src.Name()
		if first, dup := seen[name]; dup {
			return nil, &DuplicateNameError{Name: name, Where: cmp.Or(ds.Where, ds.Path), First: first}
		}
		seen[name] = cmp.Or(ds.Where, ds.Path)
		describe[fmt.Sprintf("dataset.%d", i)] = ds.key()
		sources = append(sources, src)
	}
	return sources, nil
}

// fileSources reads the datasets of FileSpecs and draws their partitions,
// and describes them for the fingerprint.
func (s *CompareSettings) fileSources(specs []DatasetSettings, describe map[string]string, notify func(Notice)) ([]Source, error) {
	d := specs[0] // the settings every one shares
	k := cmp.Or(d.Partitions, DefaultPartitions)
	var (
		sources []Source
		paths   []string
	)
	for _, ds := range specs {
		src, err := ds.source(k, s.Seed, s.Stdin, notify)
		if err != nil {
			return nil, err
		}
		sources, paths = append(sources, src), append(paths, ds.Path)
	}
	if err := uniqueNames(sources, paths); err != nil {
		return nil, err
	}
	if _, ok := splitSource(sources[0]); ok && d.Name != "" && len(sources) == 1 {
		named(sources[0], d.Name)
		describe["name"] = d.Name
	}
	splits := "random"
	if d.Predefined {
		splits = "predefined"
	}
	describe["data"] = strings.Join(paths, ",")
	if d.Read.Multiclass == dataio.OneVsRest { // one-vs-one runs keep their ids
		describe["multiclass"] = dataio.OneVsRest
	}
	describe["partitions"] = fmt.Sprintf("%s/%d/%d/%d/%g/%v", splits, k, d.TrainSize, d.TestSize, d.TrainFraction, d.Stratified)
	if d.Test != "" {
		describe["test"] = fmt.Sprintf("%s/%v/%v", d.Test, d.PartitionsGiven, d.TrainSizeGiven)
	}
	return sources, nil
}

// named gives the dataset of src the display name name ("": it keeps its
// own).
func named(src Source, name string) {
	if ss, ok := splitSource(src); ok && name != "" {
		d := *ss.Data
		d.Name = name
		ss.Data = &d
	}
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

// DataProvenance is one dataset as the run read and partitioned it.
type DataProvenance struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Format string `json:"format"`
	// Read are the read options other than the defaults, by flag name
	// (ReadFlags).
	Read map[string]string `json:"read,omitempty"`
	// Test and TestSHA256 are the given test file (--test), TestRows its
	// rows.
	Test       string `json:"test,omitempty"`
	TestSHA256 string `json:"test_sha256,omitempty"`
	TestRows   int    `json:"test_rows,omitempty"`
	// RowsRead = RowsUsed + the rows of Dropped.
	RowsRead int                  `json:"rows_read"`
	Dropped  []dataio.DroppedRows `json:"dropped,omitempty"`
	RowsUsed int                  `json:"rows_used"`
	// FeaturesRead are the file's feature columns; Features those the
	// methods see (after one-hot encoding nominal columns, fitted on all
	// rows: a training part may lack a category).
	FeaturesRead int                 `json:"features_read"`
	Features     int                 `json:"features"`
	Classes      []dataio.ClassCount `json:"classes,omitempty"`
	Labels       dataio.LabelMap     `json:"labels"`
	// OneVsOne are multi-class data's classes in LIBSVM's order, learnt
	// one-vs-one (nil for binary data).
	OneVsOne []string `json:"one_vs_one,omitempty"`
	// OneVsRest are the classes, in the same order, of multi-class data
	// learnt one-vs-rest (--multiclass ovr; OneVsOne is then nil).
	OneVsRest []string `json:"one_vs_rest,omitempty"`
	// Partitions, TrainSize and TestSize are the partitions drawn and the
	// sizes of the first.
	Partitions int `json:"partitions"`
	TrainSize  int `json:"train_size"`
	TestSize   int `json:"test_size"`
}

// Description is the provenance as one line per item, for reports.
func (p *DataProvenance) Description() [][2]string {
	var kv [][2]string
	add := func(k, v string) { kv = append(kv, [2]string{k, v}) }
	add("path", p.Path)
	add("sha256", p.SHA256)
	add("format", p.Format)
	if len(p.Read) > 0 {
		add("read options", joinKV(p.Read))
	} else {
		add("read options", "(defaults)")
	}
	if p.Test != "" {
		add("test file", fmt.Sprintf("%s (%d rows, sha256 %s)", p.Test, p.TestRows, p.TestSHA256))
	}
	rows := fmt.Sprintf("%d read, %d used", p.RowsRead, p.RowsUsed)
	for _, d := range p.Dropped {
		rows += fmt.Sprintf(", %d dropped (%s)", d.Rows, d.Why)
	}
	add("rows", rows)
	feat := strconv.Itoa(p.Features)
	if p.Features != p.FeaturesRead {
		feat = fmt.Sprintf("%d (%d columns read, nominal ones one-hot encoded)", p.Features, p.FeaturesRead)
	}
	add("features", feat)
	var cl []string
	for _, c := range p.Classes {
		cl = append(cl, fmt.Sprintf("%s: %d", c.Label, c.Rows))
	}
	if len(cl) > 0 {
		add("classes", strings.Join(cl, ", "))
	}
	if p.OneVsRest != nil {
		add("labels", fmt.Sprintf("%d classes, one-vs-rest (the largest decision value) in the order %s", len(p.OneVsRest), strings.Join(p.OneVsRest, ", ")))
	} else if p.OneVsOne != nil {
		add("labels", fmt.Sprintf("%d classes, one-vs-one (LIBSVM's vote) in the order %s", len(p.OneVsOne), strings.Join(p.OneVsOne, ", ")))
	} else {
		add("labels", fmt.Sprintf("+1 = %s, -1 = %s", p.Labels.Positive, p.Labels.Negative))
	}
	add("partitions", fmt.Sprintf("%d × %d training + %d test rows", p.Partitions, p.TrainSize, p.TestSize))
	return kv
}

// dataProvenance describes a source read from path with read.
func dataProvenance(src Source, path string, read dataio.ReadOptions) *DataProvenance {
	ss, ok := splitSource(src)
	if !ok {
		return nil
	}
	d := ss.Data
	p := &DataProvenance{
		Name: src.Name(), Path: path, SHA256: d.SHA256, Format: d.Format, Read: ReadFlags(read),
		RowsUsed: d.Len(), Dropped: d.Dropped, FeaturesRead: d.Dim(), Features: d.Dim(),
		Classes: d.Classes, Labels: d.Labels, OneVsOne: d.ClassLabels, Partitions: src.Len(),
	}
	if d.Multiclass == dataio.OneVsRest {
		p.OneVsOne, p.OneVsRest = nil, d.ClassLabels
	}
	if len(p.Read) == 0 {
		p.Read = nil
	}
	p.RowsRead = p.RowsUsed
	for _, r := range d.Dropped {
		p.RowsRead += r.Rows
	}
	if enc, err := dataio.FitOneHot(d); err == nil && enc != nil {
		p.Features = enc.Dim()
	}
	if ss.Test != nil {
		p.Test, p.TestSHA256, p.TestRows = ss.Test.Source, ss.Test.SHA256, ss.Test.Len()
	}
	if len(ss.Splits) > 0 {
		p.TrainSize, p.TestSize = len(ss.Splits[0].Train), len(ss.Splits[0].Test)
		if ss.Test != nil {
			p.TestSize = ss.Test.Len()
		}
	}
	return p
}

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

// provenance describes every source of the run read from a file (specs),
// by name: s.Provenance with the dataset's DataProvenance.
func (s *CompareSettings) provenance(sources []Source, specs []DatasetSettings) map[string]*Provenance {
	out := map[string]*Provenance{}
	for i, src := range sources {
		p := s.Provenance
		if i < len(specs) {
			p.Data = dataProvenance(src, specs[i].Path, specs[i].Read)
		}
		if p != (Provenance{}) {
			out[src.Name()] = &p
		}
	}
	return out
}
