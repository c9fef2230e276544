package experiment

import (
	"maps"
	"slices"
	"sort"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// Record is the outcome of one (dataset, method entry, partition) job: one line
// of a results file.
type Record struct {
	// SchemaVersion is the version of the record's schema (SchemaVersion;
	// docs/output.md): ReadRecords refuses a record of another version, or
	// of none (a pre-release kerneltune's).
	SchemaVersion int `json:"schema_version"`
	// Dataset is the dataset's display name; Identity what it is, the
	// hash of DatasetIdentity (its data, how it was read, partitioned and
	// normalised): a job is keyed by both (Key).
	Dataset         string           `json:"dataset"`
	Identity        Identity         `json:"identity,omitempty"`
	DatasetIdentity *DatasetIdentity `json:"dataset_identity,omitempty"`
	Entry           string           `json:"entry"` // "method[:param][@mode]"
	Method          string           `json:"method"`
	Param           string           `json:"param,omitempty"`
	Mode            string           `json:"mode,omitempty"`
	Partition       int              `json:"partition"` // 0-based

	// Run is the run id, the hash of Settings (RunSettings.ID); a results
	// file resumes only with records of the same run.
	Run  string `json:"run"`
	Seed uint64 `json:"seed"`

	Status string `json:"status"` // the method's status, or "failure"
	Error  string `json:"error,omitempty"`

	TestAccuracy  float64 `json:"test_accuracy"`
	TrainAccuracy float64 `json:"train_accuracy"`
	NSV           int     `json:"nsv"`
	TrainSize     int     `json:"train_size"`
	TestSize      int     `json:"test_size"`
	// TestConfusion is the test part's confusion matrix (rows the true
	// class, columns the predicted, with the class labels), from which
	// report recomputes any metric (pkg/metrics); TestAUC is the test
	// part's AUC of the decision values, for a binary problem whose test
	// part holds both classes. Records written before they were kept have
	// neither: report gives their accuracy only.
	TestConfusion *metrics.Confusion `json:"test_confusion,omitempty"`
	TestAUC       *float64           `json:"test_auc,omitempty"`

	Kernel kernel.Spec `json:"kernel"`
	// GammaSpace names the features the kernel's γ (and Q, θ) act on: the
	// kind of the normaliser fitted on the partition's training part
	// (dataio.SpaceWords says it in words; "none": the data's features as
	// given, where γ is svm-train's -g). Absent in records written before
	// it was recorded and in failed jobs'.
	GammaSpace string `json:"gamma_space,omitempty"`
	// Features names the kernel's features (the figures label per-feature
	// weights with them); set only when the data names them (a CSV header),
	// not for the f1, …, fd that readers make up.
	Features []string `json:"features,omitempty"`
	// Constant lists the 1-based features with one value on the partition's
	// training part: their kernel weights were not learned, and the figures
	// do not show them as relevance.
	Constant []int   `json:"constant_features,omitempty"`
	Margin   string  `json:"margin,omitempty"`
	C        float64 `json:"C,omitempty"`

	// Degenerate classifies the learned kernel and the final SVM on the
	// training part (methods.ClassifyDegenerate): "diagonal", "constant",
	// "one-class", or "" (not degenerate, or a failed job); DegenerateReason
	// says what was measured.
	Degenerate       string `json:"degenerate,omitempty"`
	DegenerateReason string `json:"degenerate_reason,omitempty"`
	// SVShare, HeldOut, HeldOutAccuracy and Memorising are the memorising
	// check of the final model (RecordMemorisation, CheckMemorisation): the
	// share of the training rows that are support vectors, where the
	// held-out accuracy it compares train_accuracy with comes from ("cv",
	// "validation", "test") and that accuracy, and whether the model is
	// flagged. Records written before the check have none of them; report
	// computes them from the record's other fields.
	SVShare         float64 `json:"sv_share,omitempty"`
	HeldOut         string  `json:"held_out,omitempty"`
	HeldOutAccuracy float64 `json:"held_out_accuracy,omitempty"`
	Memorising      bool    `json:"memorising,omitempty"`
	// Pairs, for multi-class data, are the final model's binary SVMs in
	// LIBSVM's order (the pairs of classes one-vs-one, each class against
	// the rest one-vs-rest): each one's kernel, margin, C and degenerate
	// check (Kernel, Margin and C above are the first one's, Degenerate
	// the first degenerate one's). DegeneratePairs counts the degenerate
	// ones, which the tables show ("3 of 15 pairs"). Records written
	// before issue 35 have neither; report then counts degenerate runs.
	Pairs           []RecordPair `json:"pairs,omitempty"`
	DegeneratePairs int          `json:"degenerate_pairs,omitempty"`

	Criterion      string  `json:"criterion,omitempty"`
	CriterionStart float64 `json:"criterion_start,omitempty"`
	CriterionEnd   float64 `json:"criterion_end,omitempty"`
	// Trace holds the criterion per iteration (for the trace plots).
	Trace   []float64        `json:"trace,omitempty"`
	Figures []methods.Figure `json:"figures,omitempty"`
	// LearnedOn is the training rows the kernel and C were learned on when
	// fewer than TrainSize (large data: a stratified subset of
	// --kernel-rows rows, the final SVM on all); absent when all.
	LearnedOn int     `json:"learned_on_rows,omitempty"`
	Iter      int     `json:"iterations"`
	Solves    int     `json:"svm_solves"`
	Seconds   float64 `json:"seconds"` // tuning + final training wall time
	// SharedSeconds is the part of Seconds that another job of the run
	// spent for this one: a grid search read from the run's memo
	// (methods.GridMemo), charged to every method that uses it. The job's
	// own wall time is Seconds - SharedSeconds.
	SharedSeconds float64           `json:"shared_seconds,omitempty"`
	Notes         []string          `json:"notes,omitempty"`
	Extra         map[string]string `json:"extra,omitempty"`

	// Grid is what the whole run planned (every dataset with its partition
	// count, every entry), the same in every record of a run, so that any
	// subset of its records (one shard, a run stopped early) knows how many
	// jobs are missing. Records written before the grid was recorded have
	// none; report then infers the grid from the records and says so.
	Grid *Grid `json:"grid,omitempty"`
	// Settings are the run's settings, which its id (Run) hashes
	// (Config.RunSettings), so that a resume with other settings can say
	// which differ and report can merge runs that agree on every
	// (dataset, method) pair they share.
	Settings *RunSettings `json:"settings,omitempty"`
	// Provenance says where the record's data came from and what made the
	// run (version, command line or study file); records written before
	// it was recorded have none.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// RecordPair is one binary SVM of a multi-class record: class Positive
// (+1) against class Negative, or, with Rest, against every other class
// (Negative is then "not Positive").
type RecordPair struct {
	Positive         string      `json:"class_pos"`
	Negative         string      `json:"class_neg"`
	Rest             bool        `json:"rest,omitempty"`
	Kernel           kernel.Spec `json:"kernel"`
	Margin           string      `json:"margin,omitempty"`
	C                float64     `json:"C,omitempty"`
	Degenerate       string      `json:"degenerate,omitempty"`
	DegenerateReason string      `json:"degenerate_reason,omitempty"`
}

// countDegenerate returns the number of degenerate pairs.
func countDegenerate(pairs []RecordPair) int {
	n := 0
	for _, p := range pairs {
		if p.Degenerate != "" {
			n++
		}
	}
	return n
}

// Grid is the (dataset × partition × entry) grid a run planned, in the order
// the user gave: datasets as on the command line, entries as in --methods.
type Grid struct {
	Datasets []GridDataset `json:"datasets"`
	Entries  []string      `json:"entries"`
}

// GridDataset is one planned dataset and its number of partitions.
type GridDataset struct {
	Name       string `json:"name"`
	Partitions int    `json:"partitions"`
}

// MaxPartitions bounds a run's partitions: compare's --partitions, a
// study's partitions, and what a record read says (CheckRecord: a grid of
// 2⁶³−1 partitions would have report count its missing jobs for ever,
// issue 42, item 14).
const MaxPartitions = 100_000

// NewGrid returns the grid of a run over sources and entries.
func NewGrid(sources []Source, entries []Entry) *Grid {
	g := &Grid{}
	for _, s := range sources {
		g.Datasets = append(g.Datasets, GridDataset{Name: s.Name(), Partitions: s.Len()})
	}
	for _, e := range entries {
		g.Entries = append(g.Entries, e.String())
	}
	return g
}

// Jobs returns the number of jobs the grid plans.
func (g *Grid) Jobs() int {
	n := 0
	for _, d := range g.Datasets {
		n += d.Partitions * len(g.Entries)
	}
	return n
}

// Key identifies a job: its dataset (display name and identity), entry and
// partition. Two datasets of one name but different identities are two
// datasets: their jobs are never one job.
type Key struct {
	Dataset   string
	Identity  Identity
	Entry     string
	Partition int
}

// Key returns the job key of the record.
func (r *Record) Key() Key { return Key{r.Dataset, r.Identity, r.Entry, r.Partition} }

// Failed reports whether the job failed.
func (r *Record) Failed() bool { return r.Status == StatusFailure }

// StatusFailure is the status of a job whose method or final training failed.
const StatusFailure = "failure"

// SortRecords orders records by dataset, entry and partition, so that output
// never depends on the order in which workers finished.
func SortRecords(rs []Record) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		if a.Entry != b.Entry {
			return a.Entry < b.Entry
		}
		return a.Partition < b.Partition
	})
}

// keysOfBoth returns the keys of a and b, each once, sorted.
func keysOfBoth[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
