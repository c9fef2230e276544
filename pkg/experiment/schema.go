package experiment

// The results schema: what a record says of its run and of its dataset, as
// typed values with JSON names of their own (docs/output.md, and
// docs/records.schema.json, against which the tests validate the records
// compare writes). A run's id is the hash of its RunSettings' JSON, a
// dataset's identity the hash of its DatasetIdentity's: renaming a Go field
// changes neither, and a setting spelled otherwise that resolves to the same
// (grid.py's grid given, --features 13 on 13 features, --normalize maxabs
// where auto meant maxabs) changes neither.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// SchemaVersion is the version of the records this kerneltune writes
// (Record.SchemaVersion) and the only one it reads.
const SchemaVersion = 1

// Identity is a dataset's identity as one comparable value: the hash of
// its DatasetIdentity (DatasetIdentity.ID), 12 hex digits. Records, resume
// and merge key a job by it with the dataset's name (Key); the name is for
// display. "" is the identity of a record that carries no DatasetIdentity
// (assembled by hand or by another tool): such a record is keyed by its
// name alone.
type Identity string

// DatasetIdentity is what a dataset is, as against its display name: its
// data, how it was read (as the read options resolved for it), how its
// partitions were drawn (not how many: partition k is drawn from the seed
// and k alone), the seed and the normalisation (as it resolved for it).
// identify is the one function that makes it.
type DatasetIdentity struct {
	// SHA256 and TestSHA256 are the SHA-256 of the data file's bytes and
	// of its given test file's ("" for none).
	SHA256     string `json:"sha256,omitempty"`
	TestSHA256 string `json:"test_sha256,omitempty"`
	// Source names a dataset given in Go without a file (a preset's
	// generated data, a caller's Source): its name is all that identifies
	// it; Preset is the preset that generated it.
	Source string `json:"source,omitempty"`
	Preset string `json:"preset,omitempty"`
	// Read is how the file was read (nil for a Source).
	Read *ReadIdentity `json:"read,omitempty"`
	// Partitions is how the partitions were drawn (nil for a Source).
	Partitions *PartitionScheme `json:"partitions,omitempty"`
	Seed       uint64           `json:"seed"`
	// Normalize is the normaliser fitted on each training part, as it
	// resolved for the dataset: the default, auto, is "zscore" on dense
	// data and "maxabs" on sparse data.
	Normalize string `json:"normalize"`
}

// ReadIdentity is how a dataset was read: the read options as they
// resolved for its file where the data says what they resolved to (the
// format, the features, the label mapping, the one-hot encoding), the
// others as given. Options that cannot change what a successful read
// gives are left out: missing (rows with a missing value fail a read
// without "drop", so a run that read the file without it had none to
// drop), and categorical (a nominal column fails a read without it; an
// encoding that happened is Encoding).
type ReadIdentity struct {
	Format    string `json:"format"`
	Features  int    `json:"features"` // the feature columns read
	LabelCol  string `json:"label_col,omitempty"`
	Header    string `json:"header,omitempty"`
	Delimiter string `json:"delimiter,omitempty"`
	// Labels is the label mapping of binary data (its classes, --classes,
	// --positive as they resolved); zero for multi-class data.
	Labels dataio.LabelMap `json:"labels"`
	// Multiclass is "ovr" for multi-class data learnt one-vs-rest; ""
	// (one-vs-one, LIBSVM's) otherwise and for binary data.
	Multiclass string `json:"multiclass,omitempty"`
	// Encoding is "one-hot" when nominal features were one-hot encoded.
	Encoding string `json:"encoding,omitempty"`
	// Storage is "sparse" for data held in compressed rows (the storage
	// rule of a LIBSVM file, or the storage option), "" for dense data:
	// the kernels sum a sparse row's products in another order than a
	// dense row's, so a sparse run's numbers may differ from a dense run's
	// in the last bits, and the two are not one run; dense identities
	// (every identity before sparse storage) are unchanged.
	Storage string `json:"storage,omitempty"`
}

// PartitionScheme is how a dataset's partitions were drawn, as it
// resolved: Kind "random" (TrainSize and TestSize rows, or a TrainFraction
// of them and the rest to test, Stratified or not), "predefined" (the
// dataset's own realisations) or "test-file" (a given test file: the whole
// training file, or with TrainSize set, TrainSize random rows of it,
// Stratified or not).
type PartitionScheme struct {
	Kind          string  `json:"kind"`
	TrainSize     int     `json:"train_size,omitempty"`
	TestSize      int     `json:"test_size,omitempty"`
	TrainFraction float64 `json:"train_fraction,omitempty"`
	Stratified    bool    `json:"stratified,omitempty"`
}

// The partition schemes' kinds.
const (
	PartitionsRandom     = "random"
	PartitionsPredefined = "predefined"
	PartitionsTestFile   = "test-file"
)

// ID returns the identity: the hash of the identity's JSON.
func (d DatasetIdentity) ID() Identity { return Identity(hashJSON(d)) }

// identify is the one function that makes a dataset's identity: of a
// dataset Compare opened (a *dataio.Partitioned), from what its options
// resolved to; of a caller's Source, its data's hash where it has one,
// else its name (and the preset that made it). normalize is the run's
// normaliser, resolved on the dataset's data.
func identify(src Source, seed uint64, normalize, preset string) DatasetIdentity {
	id := DatasetIdentity{Seed: seed, Normalize: normalize, Preset: preset}
	f, fixed := fixedOf(src)
	if fixed {
		id.Normalize = dataio.ResolveNormalizer(normalize, f.data.Features())
		id.SHA256 = f.data.SHA256
		if f.test != nil {
			id.TestSHA256 = f.test.SHA256
		}
	} else if normalize == dataio.Auto {
		id.Normalize = dataio.ZScore // generated data is dense
	}
	if id.SHA256 == "" {
		id.Source = src.Name()
		return id
	}
	d := f.data
	id.Read = &ReadIdentity{Format: d.Format, Features: d.Dim(), Labels: d.Labels}
	if d.Multiclass == dataio.OneVsRest {
		id.Read.Multiclass = dataio.OneVsRest
	}
	if f.onehot || d.Encoder != nil {
		id.Read.Encoding = "one-hot"
	}
	if d.IsSparse() {
		id.Read.Storage = dataio.StorageSparse
	}
	p, ok := src.(*dataio.Partitioned)
	if !ok || p.Spec.Path == "" {
		return id // a caller's partitions (not from OpenDataset): its own
	}
	o, s := p.Spec.Read, p.Spec
	id.Read.LabelCol, id.Read.Header, id.Read.Delimiter = o.LabelCol, o.Header, o.Delimiter
	ps := &PartitionScheme{Kind: PartitionsRandom, Stratified: s.Stratified}
	switch {
	case s.Predefined:
		ps = &PartitionScheme{Kind: PartitionsPredefined}
	case p.Test != nil:
		ps.Kind = PartitionsTestFile
		if !(s.PartitionsGiven || s.TrainSizeGiven) || s.TrainSize >= d.Len() {
			ps.Stratified = false // the whole training file
		} else {
			ps.TrainSize = s.TrainSize
		}
	case s.TrainFraction > 0:
		ps.TrainFraction = s.TrainFraction
	default:
		ps.TrainSize, ps.TestSize = s.TrainSize, s.TestSize
	}
	id.Partitions = ps
	return id
}

// RunSettings are the settings that make a run, as its records carry them
// (Record.Settings) and its id hashes them (RunSettings.ID): what a
// setting resolved to, defaults left out (a setting added later keeps
// every earlier run's id). The workers, the shard and the results file are
// not among them: the records do not depend on them.
type RunSettings struct {
	Seed uint64 `json:"seed"`
	// Select is how the svm baseline's (C, γ) is chosen: "cv" or
	// "laanaya" (Laanaya's selection, which looks at test data).
	Select string `json:"select"`
	// Common are the settings every method shares.
	Common CommonSettings `json:"common"`
	// Datasets are the run's datasets in its order.
	Datasets []RunDataset `json:"datasets"`
	// Entries are the run's method entries in its order.
	Entries []EntrySettings `json:"entries"`
}

// RunDataset is one dataset of a run: its display name, its number of
// partitions, its identity, and the svm baseline's (C, γ) when Laanaya's
// selection fixed it.
type RunDataset struct {
	Name       string          `json:"name"`
	Partitions int             `json:"partitions"`
	Identity   DatasetIdentity `json:"identity"`
	Baseline   *Baseline       `json:"baseline,omitempty"`
}

// Baseline is the svm baseline's (C, γ) that Laanaya's selection chose.
type Baseline struct {
	C     float64 `json:"C"`
	Gamma float64 `json:"gamma"`
}

// CommonSettings are the settings every method shares (methods.Common),
// zero for the default: C fixed, the cross-validation folds, the solver's
// tolerance and cache, the rows of the grid search and of kernel
// learning, the class weights (a weight of 1 is none).
type CommonSettings struct {
	C           float64 `json:"C,omitempty"`
	Folds       int     `json:"folds,omitempty"`
	Eps         float64 `json:"eps,omitempty"`
	CacheMB     int     `json:"cache_mb,omitempty"`
	GridRows    int     `json:"grid_rows,omitempty"`
	KernelRows  int     `json:"kernel_rows,omitempty"`
	WeightPos   float64 `json:"weight_pos,omitempty"`
	WeightNeg   float64 `json:"weight_neg,omitempty"`
	ClassWeight string  `json:"class_weight,omitempty"`
}

// commonSettings returns the run's settings of c.
func commonSettings(c methods.Common) CommonSettings {
	one := func(w float64) float64 { // C × 1 is no weight
		if w == 1 {
			return 0
		}
		return w
	}
	return CommonSettings{C: c.C, Folds: c.Folds, Eps: c.Eps, CacheMB: c.CacheMB, GridRows: c.GridRows,
		KernelRows: c.KernelRows, WeightPos: one(c.WeightPos), WeightNeg: one(c.WeightNeg), ClassWeight: c.ClassWeight}
}

// EntrySettings are a method entry's own settings, zero for the method's
// default: its name in the tables ("method[:param][@mode]"), the param and
// mode its settings hold, and its loop's settings (methods.Loop).
type EntrySettings struct {
	Entry   string  `json:"entry"`
	Param   string  `json:"param,omitempty"`
	Mode    string  `json:"mode,omitempty"`
	Margin  string  `json:"margin,omitempty"`
	MaxIter int     `json:"max_iter,omitempty"` // gi: its iRprop+ steps
	Tol     float64 `json:"tol,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
	Init    string  `json:"init,omitempty"`
	Budget  int     `json:"budget,omitempty"`
	// Log2C and Log2Gamma are the user's grid or box, "begin,end,step";
	// "" for the method's own (grid.py's grid given is "").
	Log2C     string `json:"log2c,omitempty"`
	Log2Gamma string `json:"log2g,omitempty"`
}

// entrySettings returns the settings of e: each method's settings type
// field by field (a method added to the registry adds its case;
// TestEntrySettingsOfEveryMethod fails without it).
func entrySettings(e Entry) EntrySettings {
	out := EntrySettings{Entry: e.String()}
	space := func(s methods.Space) {
		if g := s.Log2C.String(); !methods.DefaultGrid(g, false) {
			out.Log2C = g
		}
		if g := s.Log2Gamma.String(); !methods.DefaultGrid(g, true) {
			out.Log2Gamma = g
		}
	}
	switch s := e.Spec.(type) {
	case methods.SVMSettings:
		space(s.Space)
	case methods.HalvingSettings:
		space(s.Space)
	case methods.RandomSettings:
		space(s.Space)
		out.Budget = s.Budget
	case methods.BOSettings:
		space(s.Space)
		out.Param, out.Budget = s.Param, s.Budget
	case methods.SPDSettings:
		out.Param, out.Mode, out.Rho, out.Init, out.MaxIter, out.Tol = s.Param, s.Mode, s.Rho, s.Init, s.MaxIter, s.Tol
	case methods.GISettings:
		out.Param, out.Margin, out.MaxIter, out.Tol = s.Param, s.Margin, s.Steps, s.Tol
	case methods.LCCPSettings:
		out.Param, out.Margin, out.MaxIter, out.Tol = s.Param, s.Margin, s.MaxIter, s.Tol
	case methods.RCSCSettings:
		out.Param, out.Mode, out.MaxIter, out.Tol = s.Param, s.Schedule, s.MaxIter, s.Tol
	case methods.TwoLevelSettings:
		out.Param, out.Mode, out.MaxIter, out.Tol = s.Param, s.Mode, s.MaxIter, s.Tol
	}
	return out
}

// ID returns the run id: the hash of the settings' JSON.
func (s RunSettings) ID() string { return hashJSON(s) }

// dataset returns the run's dataset of that name.
func (s *RunSettings) dataset(name string) (RunDataset, bool) {
	for _, d := range s.Datasets {
		if d.Name == name {
			return d, true
		}
	}
	return RunDataset{}, false
}

// hashJSON hashes v's JSON (a struct's fields in their order, a map's
// keys sorted): 12 hex digits. The schema's types always encode: their
// numbers are settings each Check refuses unless finite (NaN included),
// and data's hashes and counts; were one not to, the encoding's error is
// hashed (and no record of it could be written either).
func hashJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("unencodable: " + err.Error())
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// PairSettings are the settings of a run that bear on one (dataset,
// entry) pair besides its dataset's identity: how the baseline is chosen
// (and its (C, γ) for the dataset), the shared settings and the entry's
// own. report merges records of different runs when no pair they share
// was run with other ones (MergeFiles).
type PairSettings struct {
	Select   string         `json:"select"`
	Baseline *Baseline      `json:"baseline,omitempty"`
	Common   CommonSettings `json:"common"`
	Entry    EntrySettings  `json:"entry"`
}

// pairSettings returns the pair settings of r (false for a record that
// carries no settings, or whose settings do not list its dataset and
// entry).
func pairSettings(r *Record) (PairSettings, bool) {
	s := r.Settings
	if s == nil {
		return PairSettings{}, false
	}
	d, ok := s.dataset(r.Dataset)
	i := slices.IndexFunc(s.Entries, func(e EntrySettings) bool { return e.Entry == r.Entry })
	if !ok || i < 0 {
		return PairSettings{}, false
	}
	return PairSettings{Select: s.Select, Baseline: d.Baseline, Common: s.Common, Entry: s.Entries[i]}, true
}

// flatGroups returns the fields of groups (each a value of a schema
// type), each field by its group's name followed by its JSON path
// (flatJSON): "common." and "folds" make "common.folds".
func flatGroups(groups map[string]any) map[string]string {
	out := map[string]string{}
	for g, v := range groups {
		for k, x := range flatJSON(v) {
			out[g+k] = x
		}
	}
	return out
}

// diffFlat lists the fields that differ between a and b (flatGroups), one
// line(name, a's value, b's value) each, sorted; "(default)" for a field
// one of them leaves out, "(none)" for an empty one.
func diffFlat(a, b map[string]string, line func(k, va, vb string) string) []string {
	var out []string
	for _, k := range keysOfBoth(a, b) {
		va, oka := a[k]
		vb, okb := b[k]
		if oka && okb && va == vb {
			continue
		}
		out = append(out, line(k, orDefault(va, oka), orDefault(vb, okb)))
	}
	slices.Sort(out)
	return out
}

// flatJSON returns v's JSON as "path" → value, objects' fields joined by
// "." and arrays' elements by "[i]"; a string is its value unquoted.
func flatJSON(v any) map[string]string {
	out := map[string]string{}
	b, err := json.Marshal(v)
	var x any
	if err == nil {
		err = json.Unmarshal(b, &x)
	}
	if err != nil {
		return out
	}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, v := range t {
				if prefix != "" {
					k = prefix + "." + k
				}
				walk(k, v)
			}
		case []any:
			for i, v := range t {
				walk(fmt.Sprintf("%s[%d]", prefix, i), v)
			}
		case string:
			out[prefix] = t
		case nil:
		default:
			s, _ := json.Marshal(t)
			out[prefix] = string(s)
		}
	}
	walk("", x)
	return out
}

func orDefault(v string, ok bool) string {
	if !ok {
		return "(default)"
	}
	if v == "" {
		return "(none)"
	}
	return v
}
