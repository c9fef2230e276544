package dataio

// What an opened dataset says of itself: where it came from and how it
// was read and partitioned (DataProvenance, in every record), its
// settings as a run's fingerprint holds them (DatasetSpec.Key), and what
// it is, as against its display name (Identity).

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// DataProvenance is one dataset as a run read and partitioned it
// (Partitioned.Provenance).
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
	RowsRead int           `json:"rows_read"`
	Dropped  []DroppedRows `json:"dropped,omitempty"`
	RowsUsed int           `json:"rows_used"`
	// FeaturesRead are the file's feature columns; Features those the
	// methods see (after one-hot encoding nominal columns, fitted on all
	// rows: a training part may lack a category).
	FeaturesRead int          `json:"features_read"`
	Features     int          `json:"features"`
	Classes      []ClassCount `json:"classes,omitempty"`
	Labels       LabelMap     `json:"labels"`
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

// Provenance describes the dataset as read from Spec.Path with Spec.Read
// and partitioned, under its display name (Name, after any Rename).
func (p *Partitioned) Provenance() *DataProvenance {
	d := p.Data
	pv := &DataProvenance{
		Name: p.Name(), Path: p.Spec.Path, SHA256: d.SHA256, Format: d.Format, Read: ReadFlags(p.Spec.Read),
		RowsUsed: d.Len(), Dropped: d.Dropped, FeaturesRead: d.Dim(), Features: d.Dim(),
		Classes: d.Classes, Labels: d.Labels, OneVsOne: d.ClassLabels, Partitions: p.Len(),
	}
	if d.Multiclass == OneVsRest {
		pv.OneVsOne, pv.OneVsRest = nil, d.ClassLabels
	}
	if len(pv.Read) == 0 {
		pv.Read = nil
	}
	pv.RowsRead = pv.RowsUsed
	for _, r := range d.Dropped {
		pv.RowsRead += r.Rows
	}
	if enc, err := FitOneHot(d); err == nil && enc != nil {
		pv.Features = enc.Dim()
	}
	if p.Test != nil {
		pv.Test, pv.TestSHA256, pv.TestRows = p.Test.Source, p.Test.SHA256, p.Test.Len()
	}
	if len(p.Splits) > 0 {
		pv.TrainSize, pv.TestSize = len(p.Splits[0].Train), len(p.Splits[0].Test)
		if p.Test != nil {
			pv.TestSize = p.Test.Len()
		}
	}
	return pv
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

// ReadFlags returns the read options that differ from the defaults, by the
// name of the compare flag (and study key) that sets them: "label-col",
// "positive", "classes", "categorical" ("onehot"), "missing", "features",
// "header", "input-format", "multiclass" ("ovr" only).
func ReadFlags(o ReadOptions) map[string]string {
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
	if o.Multiclass == OneVsRest { // one-vs-one, the default, keeps its runs' ids
		kv["multiclass"] = o.Multiclass
	}
	return kv
}

// ReadKey is read options by flag name (ReadFlags) as one line, "k=v k=v"
// sorted by key, or "(defaults)" for none: as an identity (IDRead) and a
// record's pair settings name them.
func ReadKey(read map[string]string) string {
	if s := joinKV(read); s != "" {
		return s
	}
	return "(defaults)"
}

func joinKV(kv map[string]string) string {
	keys := slices.Sorted(maps.Keys(kv))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + kv[k]
	}
	return strings.Join(parts, " ")
}

// Key is the spec's settings as a run's fingerprint holds them (a study's
// "dataset.N"): KeyWith its read options.
func (s DatasetSpec) Key() string { return s.KeyWith(ReadFlags(s.Read)) }

// KeyWith is the spec's settings with the read options read (ReadFlags)
// as one line, "k=v k=v" sorted by key: the read options, the partitions
// (as given: a run names DefaultPartitions for 0), the sizes or the
// training fraction, stratified and a given test file's rules; not its
// path or name, since a dataset is identified by its content (its SHA-256)
// and how it was read, not by where the file lies.
func (s DatasetSpec) KeyWith(read map[string]string) string {
	kv := maps.Clone(read)
	if kv == nil {
		kv = map[string]string{}
	}
	maps.Copy(kv, s.partitionKV())
	kv["partitions"] = strconv.Itoa(s.Partitions)
	return joinKV(kv)
}

// partitionKV is how the spec draws its partitions, but not how many (the
// partitions keys of KeyWith but "partitions"): partition k is drawn from
// the seed and k alone.
func (s DatasetSpec) partitionKV() map[string]string {
	kv := map[string]string{}
	if s.TrainFraction > 0 {
		kv["train-fraction"] = fmt.Sprint(s.TrainFraction)
	} else {
		kv["train-size"], kv["test-size"] = strconv.Itoa(s.TrainSize), strconv.Itoa(s.TestSize)
	}
	if s.Stratified {
		kv["stratified"] = "true"
	}
	if s.Test != "" {
		kv["test"] = fmt.Sprintf("given/%v/%v", s.PartitionsGiven, s.TrainSizeGiven)
	}
	if s.Predefined {
		// The dataset's own realisations: without it a study run with
		// them had the id and identity of the same study with random
		// partitions, and the two runs' records resumed and merged as one.
		kv["splits"] = "predefined"
	}
	return kv
}

// Identity keys, as a user knows them (Partitioned.Identity; a record's,
// experiment.DatasetIdentity).
const (
	IDData       = "data sha256"
	IDTest       = "test file sha256"
	IDEncoding   = "encoding"
	IDRead       = "read options"
	IDPartitions = "partitions"
	IDSeed       = "seed"
	IDNormalize  = "normalize"
	IDSource     = "source"
	IDMulticlass = "multiclass"
	IDPreset     = "preset"
)

// Identity returns what the dataset is, as against its display name, by
// the names of what makes it (IDData, IDRead, IDPartitions, ...): the
// SHA-256 of its data and test file, its one-hot encoding, how it was
// read, how its partitions were drawn (sizes or fraction, stratified, a
// given test file; not how many, since partition k is drawn from the seed
// and k alone), the seed and normalize, the normaliser as the run names
// it. It is the map experiment.DatasetIdentity derives from the settings
// and provenance of a record of this dataset, so that the records written
// before identities were recorded get the same one.
func (p *Partitioned) Identity(normalize string) map[string]string {
	id := map[string]string{
		IDSeed:      strconv.FormatUint(p.Seed, 10),
		IDNormalize: normalize,
		IDData:      p.Data.SHA256,
		IDRead:      ReadKey(ReadFlags(p.Spec.Read)),
	}
	if p.Test != nil {
		id[IDTest] = p.Test.SHA256
	}
	if p.OneHot {
		id[IDEncoding] = "one-hot"
	}
	s := p.Spec
	switch {
	case s.FileList && s.Predefined:
		// A list of files describes its partitions as
		// "predefined/K/TRAIN/TEST/FRACTION/STRATIFIED" (all but K here)
		// and a test file's rules apart.
		id[IDPartitions] = fmt.Sprintf("predefined/%d/%d/%g/%v", s.TrainSize, s.TestSize, s.TrainFraction, s.Stratified)
		if s.Test != "" {
			id[IDPartitions] += fmt.Sprintf(" test=given/%v/%v", s.PartitionsGiven, s.TrainSizeGiven)
		}
	default:
		if s.FileList && s.Test != "" {
			s.TrainFraction = 0 // a list's test file replaces its fraction
		}
		id[IDPartitions] = joinKV(s.partitionKV())
	}
	return id
}
