package dataio

// What an opened dataset says of itself: where it came from and how it
// was read and partitioned (DataProvenance, in every record; what it is,
// as against its display name, is experiment's DatasetIdentity).

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
// "header", "input-format", "multiclass" ("ovr" only), "storage" ("dense"
// or "sparse").
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
	if o.Storage != "" && o.Storage != StorageAuto {
		kv["storage"] = o.Storage
	}
	return kv
}

func joinKV(kv map[string]string) string {
	keys := slices.Sorted(maps.Keys(kv))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + kv[k]
	}
	return strings.Join(parts, " ")
}
