// Package study reads a benchmark study file: a YAML file whose keys are the
// names of compare's flags. Top-level keys apply to every dataset (the
// command line's flags override them), and each entry of "datasets" has its
// own file, display name, reading and partitions:
//
//	name: uci-eight
//	seed: 1
//	partitions: 30
//	methods: [svm, spd@diag, gi]
//	metric: balanced_accuracy   # what the tables rank by (report's --metric)
//	datasets:
//	  - path: data/bupa.data
//	    label-col: 7
//	  - path: data/wine.scale
//	    name: wine
//	    positive: "1"
//	    train-fraction: 0.5
//
// Paths are relative to the study file. Every error names the file, the
// line and the key.
package study

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// Error is a study file's error at a line and key.
type Error struct {
	File string
	Line int
	Key  string // "" when the error is not a key's
	Msg  string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

// Kind is the type of a top-level setting's value, as the caller's setting
// of that name takes it (compare's flag of the name).
type Kind int

const (
	// NoKind: the caller has no setting of the name.
	NoKind Kind = iota
	Bool
	Integer
	Number
	List
	String
)

// kindWords are the kinds as value and perDataset name them.
var kindWords = [...]string{NoKind: "", Bool: "bool", Integer: "integer", Number: "number", List: "list", String: "string"}

func (k Kind) String() string { return kindWords[k] }

// Setting is a top-level key of a study with its value checked against its
// kind: what the study sets, which its caller merges with its own settings
// (on the command line, the flags the user gave win over the file).
type Setting struct {
	Key  string
	Kind Kind
	// Value is the value in the form the command line takes it (a list's
	// items joined by commas).
	Value string
	Line  int
	// Read marks a read option (dataio.ReadKeys): it belongs in each
	// dataset's read options (dataio.ReadOptions.SetKey, before
	// Configure), not in a setting of the run.
	Read bool
}

// Study is a study file as read.
type Study struct {
	// File is the study file's path, SHA256 the hex digest of its bytes.
	File, SHA256 string
	// Name is the study's "name" ("" when it has none).
	Name string
	// Top are the top-level keys other than name and datasets, in file
	// order.
	Top []Item
	// Datasets are the entries of "datasets", their keys in file order.
	Datasets []Dataset
}

// Item is one key and its value, at its line. A list's items are joined by
// commas (the flags' form).
type Item struct {
	Key, Value string
	Line       int
	node       *yaml.Node
}

// Dataset is one entry of "datasets".
type Dataset struct {
	Line  int
	Items []Item
}

// notTop are flags that are no study setting: the study file itself, the
// display name of one file (a dataset's "name"), and the dry run.
var notTop = []string{"study", "dry-run", "help"}

// perDataset are the keys a dataset may set, with their kinds; the read
// and partition keys may also be given at the top level.
var perDataset = map[string]string{
	"path": "string", "test": "string", "name": "string",
	"label-col": "string", "positive": "string", "classes": "list",
	"categorical": "string", "missing": "string", "features": "integer",
	"header": "string", "input-format": "string", "multiclass": "string", "storage": "string",
	"partitions": "integer", "train-size": "integer", "test-size": "integer",
	"train-fraction": "number", "stratified": "bool",
}

// MaxFileBytes bounds a study file: one of a few thousand datasets is some
// hundred KiB; /dev/zero given as --study was read until the memory ran out.
var MaxFileBytes int64 = 4 << 20

// MaxDatasets bounds a study's datasets: every one is read, and its
// partitions drawn, before the first job runs (a 12 MB study of 300,000
// datasets did that for minutes before anything else). The largest
// benchmark suites tuned on (OpenML-CC18's 72, PMLB's 160 classification
// sets) fit many times.
const MaxDatasets = 1_000

// MaxPartitions bounds a study's partitions, as compare's --partitions is
// bounded: every partition's row indices are drawn up front.
const MaxPartitions = experiment.MaxPartitions

// Read reads and checks the study file's shape: its keys, their types and
// the datasets' names.
func Read(path string) (*Study, error) {
	b, err := dataio.ReadFileLimited(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	st := &Study{File: path, SHA256: hex.EncodeToString(sum[:])}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		return nil, st.yamlError(err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: max(doc.Line, 1), Msg: "a study is a mapping of keys (name, methods, datasets, ...)"}
	}
	root := doc.Content[0]
	var datasets *yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if l, dup := seen[k.Value]; dup {
			return nil, st.errorf(k, k.Value, "given twice (first at line %d)", l)
		}
		seen[k.Value] = k.Line
		switch {
		case k.Value == "datasets":
			datasets = v
		case k.Value == "name":
			if v.Kind != yaml.ScalarNode {
				return nil, st.errorf(v, "name", "want a string, got %s", kindOf(v))
			}
			st.Name = v.Value
		case slices.Contains(notTop, k.Value):
			return nil, st.errorf(k, k.Value, "is a flag of the command line, not a key of a study")
		case k.Value == "path" || k.Value == "test":
			return nil, st.errorf(k, k.Value, "is a key of one dataset: put it under datasets")
		default:
			st.Top = append(st.Top, Item{Key: k.Value, Line: k.Line, node: v})
		}
	}
	if datasets == nil || datasets.Kind != yaml.SequenceNode || len(datasets.Content) == 0 {
		at := root
		if datasets != nil {
			at = datasets
		}
		return nil, st.errorf(at, "datasets", "want a list of datasets, each with a path")
	}
	if k := len(datasets.Content); k > MaxDatasets {
		return nil, st.errorf(datasets, "datasets", "%d datasets, more than %d: a study reads every dataset and draws its partitions before the first job; split it into several studies (their records merge in report)", k, MaxDatasets)
	}
	names := map[string]int{}
	for _, dn := range datasets.Content {
		d, err := st.dataset(dn)
		if err != nil {
			return nil, err
		}
		name := d.get("name")
		if name == "" {
			name = baseName(d.get("path"))
		}
		if l, dup := names[name]; dup {
			return nil, st.errorf(dn, "name", "dataset name %q is also the name of the dataset at line %d: give one of them another name", name, l)
		}
		names[name] = dn.Line
		st.Datasets = append(st.Datasets, d)
	}
	return st, nil
}

// baseName is the name a reader gives a file (dataio's: the base name
// without a data extension); the study's duplicate check uses it before any
// file is read.
func baseName(path string) string {
	if n, ok := strings.CutPrefix(path, "builtin:"); ok {
		return n
	}
	b := filepath.Base(path)
	for _, ext := range []string{".csv", ".arff", ".data", ".dat", ".txt", ".tsv", ".libsvm", ".svm"} {
		if strings.HasSuffix(strings.ToLower(b), ext) {
			return b[:len(b)-len(ext)]
		}
	}
	return b
}

func (d Dataset) get(key string) string {
	for _, it := range d.Items {
		if it.Key == key {
			return it.Value
		}
	}
	return ""
}

func (d Dataset) has(key string) bool {
	return slices.ContainsFunc(d.Items, func(it Item) bool { return it.Key == key })
}

// dataset checks one entry of "datasets".
func (st *Study) dataset(n *yaml.Node) (Dataset, error) {
	d := Dataset{Line: n.Line}
	var read dataio.ReadOptions
	if n.Kind != yaml.MappingNode {
		return d, st.errorf(n, "datasets", "want a dataset (path: FILE, and its own keys), got %s", kindOf(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kind, ok := perDataset[k.Value]
		if !ok {
			return d, st.errorf(k, k.Value, "unknown key of a dataset (a dataset's keys: %s)", strings.Join(sortedKeys(perDataset), ", "))
		}
		if d.has(k.Value) {
			return d, st.errorf(k, k.Value, "given twice in this dataset")
		}
		val, err := st.value(k.Value, kind, v)
		if err != nil {
			return d, err
		}
		if err := st.checkValue(k.Value, val, v); err != nil {
			return d, err
		}
		if slices.Contains(dataio.ReadKeys, k.Value) {
			_ = read.SetKey(k.Value, val) // checked by checkValue
		}
		d.Items = append(d.Items, Item{Key: k.Value, Value: val, Line: k.Line, node: v})
	}
	if d.get("path") == "" {
		return d, st.errorf(n, "path", "a dataset needs a path")
	}
	if d.has("test") && (d.has("test-size") || d.has("train-fraction")) {
		return d, st.errorf(n, "test", "a given test file is the whole test part of every partition: test-size and train-fraction do not apply (train-size subsamples the training file)")
	}
	if ke := (*dataio.ReadKeyError)(nil); errors.As(read.CheckKeys(), &ke) {
		return d, st.errorf(n, ke.Key, "%s", ke.Reason)
	}
	return d, nil
}

// checkValue refuses a value outside a key's choices; a read option's
// (dataio.ReadKeys) is parsed by dataio's parser, the command line's too.
func (st *Study) checkValue(key, val string, n *yaml.Node) error {
	var ke *dataio.ReadKeyError
	switch {
	case slices.Contains(dataio.ReadKeys, key):
		if errors.As(new(dataio.ReadOptions).SetKey(key, val), &ke) {
			return st.errorf(n, key, "%s", ke.Reason)
		}
	case key == "metric" && !slices.Contains(metrics.Names(), val):
		return st.errorf(n, key, "want one of %s, got %q", strings.Join(metrics.Names(), ", "), val)
	case key == "train-fraction":
		var f float64
		if _, err := fmt.Sscan(val, &f); err != nil || f <= 0 || f >= 1 {
			return st.errorf(n, key, "want a fraction in (0, 1), got %s", val)
		}
	case key == "partitions":
		// As compare's --partitions: 0 is refused, not read as the default
		// 30, and a huge number is refused before memory is spent on it.
		if k, err := strconv.Atoi(val); err != nil || k < 1 || k > MaxPartitions {
			return st.errorf(n, key, "want a number of partitions between 1 and %d, got %s", MaxPartitions, val)
		}
	case (key == "train-size" || key == "test-size") && strings.HasPrefix(val, "-"):
		return st.errorf(n, key, "want a number ≥ 0, got %s", val)
	case key == "train-size" || key == "test-size":
		if _, err := strconv.Atoi(val); err != nil {
			return st.errorf(n, key, "want a number of rows ≥ 0 that fits in an int, got %s", val)
		}
	}
	return nil
}

// value checks a value's YAML type against kind and returns it in the
// flags' form.
func (st *Study) value(key, kind string, v *yaml.Node) (string, error) {
	want := map[string]string{"string": "a string", "list": "a list", "integer": "an integer", "number": "a number", "bool": "true or false"}[kind]
	switch {
	case kind == "list" && v.Kind == yaml.SequenceNode:
		var items []string
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return "", st.errorf(it, key, "want a list of strings, got an item that is %s", kindOf(it))
			}
			items = append(items, it.Value)
		}
		return strings.Join(items, ","), nil
	case v.Kind != yaml.ScalarNode:
		return "", st.errorf(v, key, "want %s, got %s", want, kindOf(v))
	case kind == "integer" && v.Tag != "!!int",
		kind == "number" && v.Tag != "!!int" && v.Tag != "!!float",
		kind == "bool" && v.Tag != "!!bool":
		return "", st.errorf(v, key, "want %s, got %q", want, v.Value)
	}
	return v.Value, nil
}

func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return fmt.Sprintf("%q", n.Value)
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (st *Study) errorf(n *yaml.Node, key, format string, a ...any) error {
	return &Error{File: st.File, Line: n.Line, Key: key, Msg: fmt.Sprintf(format, a...)}
}

// yamlError words the YAML parser's error with the file's name: it says
// "yaml: line N: ...".
func (st *Study) yamlError(err error) error {
	msg := err.Error()
	line := 1
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if _, e := fmt.Sscanf(rest, "%d:", &line); e == nil {
			msg = strings.TrimSpace(rest[strings.Index(rest, ":")+1:])
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	return &Error{File: st.File, Line: line, Msg: "not valid YAML: " + msg}
}

// TopSettings are the study's top-level settings, typed, in file order:
// each key's value checked against its kind (kind: the caller's setting of
// that name; a read option, dataio.ReadKeys, has its own and is marked
// Read). A key kind does not know, or a value of the wrong type, is an
// *Error. The caller merges them with its own settings (cmd: the flags the
// user did not give take the study's values).
func (st *Study) TopSettings(kind func(key string) Kind) ([]Setting, error) {
	var out []Setting
	for i, it := range st.Top {
		k, read := kind(it.Key).String(), slices.Contains(dataio.ReadKeys, it.Key)
		if slices.Contains(notTop, it.Key) {
			k = ""
		}
		if read {
			k = perDataset[it.Key]
		}
		if k == "" {
			return nil, st.errorf(it.node, it.Key, "unknown key: a study's keys are compare's flag names (see kerneltune compare --help), name and datasets")
		}
		if it.Key == "methods" || it.Key == "log2c" || it.Key == "log2g" {
			k = "list" // methods: [svm, gi] as the list svm,gi; log2c: [-5, 15, 2] or "-5,15,2"
		}
		val, err := st.value(it.Key, k, it.node)
		if err == nil {
			err = st.checkValue(it.Key, val, it.node)
		}
		if err != nil {
			return nil, err
		}
		st.Top[i].Value = val
		out = append(out, Setting{Key: it.Key, Kind: Kind(slices.Index(kindWords[:], k)), Value: val, Line: it.Line, Read: read})
	}
	return out, nil
}

// SettingError is the *Error of the setting s whose value its caller
// refused with err (a flag's parser names the value).
func (st *Study) SettingError(s Setting, err error) error {
	return &Error{File: st.File, Line: s.Line, Key: s.Key, Msg: err.Error()}
}

// Settings returns the study's datasets with their settings: base (the
// top level's and the command line's) overridden by each dataset's keys,
// paths made relative to the study file. Provenance gets the study file.
func (st *Study) Settings(base experiment.DatasetSettings) []experiment.DatasetSettings {
	dir := filepath.Dir(st.File)
	var out []experiment.DatasetSettings
	for _, d := range st.Datasets {
		ds := base
		ds.Read.Classes = slices.Clone(base.Read.Classes)
		ds.Where = fmt.Sprintf("%s:%d", st.File, d.Line)
		sized := false
		for _, it := range d.Items {
			v := it.Value // checked by Read
			switch it.Key {
			case "path":
				ds.Path = resolve(dir, v)
			case "test":
				ds.Test = resolve(dir, v)
			case "name":
				ds.Name = v
			case "partitions":
				fmt.Sscan(v, &ds.Partitions)
				ds.PartitionsGiven = true
			case "train-size":
				fmt.Sscan(v, &ds.TrainSize)
				ds.TrainSizeGiven, sized = true, true
			case "test-size":
				fmt.Sscan(v, &ds.TestSize)
				sized = true
			case "train-fraction":
				fmt.Sscan(v, &ds.TrainFraction)
			case "stratified":
				ds.Stratified = v == "true"
			default:
				_ = ds.Read.SetKey(it.Key, v) // a read option (dataio.ReadKeys), checked by Read
			}
		}
		if sized && !d.has("train-fraction") {
			ds.TrainFraction = 0 // the dataset's sizes replace the top level's fraction
		}
		if ds.Test != "" {
			ds.TrainFraction = 0
		}
		out = append(out, ds)
	}
	return out
}

func resolve(dir, path string) string {
	if path == "-" || strings.HasPrefix(path, "builtin:") || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// Load reads the study file at path (Read); it returns nil and no error
// for the path "" (no study).
func Load(path string) (*Study, error) {
	if path == "" {
		return nil, nil
	}
	return Read(path)
}

// Configure sets the datasets of s (CompareSettings.Datasets) from the
// study st (nil: none, s stays as it is). Each dataset starts from each,
// the reading and partition settings of the flags and the study's top
// level (its caller merged them: TopSettings); the study file, its SHA-256
// and its name go into s.Provenance.
func Configure(s *experiment.CompareSettings, st *Study, each experiment.DatasetSettings) {
	if st == nil {
		return
	}
	each.Path, each.Test, each.Name, each.Where = "", "", "", ""
	s.Datasets = st.Settings(each)
	s.Provenance.Study, s.Provenance.StudySHA256, s.Provenance.StudyName = st.File, st.SHA256, st.Name
}
