package dataio

// A dataset as an experiment runs on it: read (with its test file), its
// partitions drawn, its nominal features one-hot encoded per partition,
// described (DataProvenance), by one function, OpenDataset.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// DefaultPartitions is the number of partitions of a dataset whose
// DatasetSpec.Partitions is 0 (Laanaya et al. 2011, §3).
const DefaultPartitions = 30

// ErrNoRealisations is OpenDataset's error (in a *DatasetError) for
// DatasetSpec.Predefined on a dataset that defines no realisations.
var ErrNoRealisations = errors.New("the dataset defines no train/test realisations")

// DatasetSpec is one dataset of an experiment (compare's DATA with its
// flags, or a study's entry): its file, display name, reading and
// partitions, each as the compare flag of the same name means for a run of
// that one file. OpenDataset opens it.
type DatasetSpec struct {
	// Path is the data file (or "builtin:NAME", or "-" for stdin); Test,
	// when set, is its test file (--test): one partition trains on the
	// whole training file; with PartitionsGiven (Partitions of them) or
	// TrainSizeGiven, each trains on TrainSize random rows of it (all rows
	// when it has no more).
	Path, Test string
	// Name is the display name in tables, figures and records; "" keeps
	// the name the reader gives (the file's base name).
	Name string
	// Where says where the dataset was given (a study file's "FILE:LINE"),
	// for errors; "" for none.
	Where string
	// Read says how to read Path and Test. A dataset with nominal features
	// (read as category codes) is one-hot encoded on each partition's
	// training part (Partitioned.OneHot).
	Read ReadOptions
	// Partitions is the number of random train/test partitions, or with
	// Predefined the most of the dataset's own realisations (IDA) used; 0
	// means DefaultPartitions. TrainSize and TestSize are the points per
	// partition (PartitionOptions); TrainFraction, when set, replaces them
	// (the rest is test). Stratified keeps the class proportions in every
	// partition.
	Partitions, TrainSize, TestSize int
	TrainFraction                   float64
	Predefined, Stratified          bool
	PartitionsGiven, TrainSizeGiven bool

	// FileList marks a dataset of a list of files given with one set of
	// settings (experiment.FileSpecs: the command line's DATA), as against
	// a dataset given with its own settings (a study's entry): a run names
	// datasets of a list that share a name by their paths, and refuses a
	// study's. OpenDataset does not read it.
	FileList bool

	// Single opens the dataset for one fit (tune, train, predict), not an
	// experiment: one partition, whose parts TrainTest normalises. It
	// trains on the Test file's training file, or on all rows but a
	// TestFraction of them drawn from the seed, or on the dataset's first
	// realisation (an IDA set), or else on all rows with no test part.
	// Partitions, the sizes, TrainFraction, Predefined and Stratified are
	// not read; a Test file with the training data's contents is a
	// NoteTestIsTraining, not an error (the fit's numbers say so).
	Single bool
	// TestFraction, in (0, 1), with Single, holds out this fraction of
	// the rows as the test part. It excludes Test.
	TestFraction float64
}

// DatasetError is a dataset whose partitions cannot be drawn, or (a
// study's dataset, experiment.Compare) that cannot be opened: Path names
// it, with where it was given.
type DatasetError struct {
	Path string
	Err  error
}

func (e *DatasetError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

func (e *DatasetError) Unwrap() error { return e.Err }

// NoteKind says what a PartitionNote reports.
type NoteKind int

const (
	// NoteDefaultTrainSize: with a given test file and PartitionsGiven but
	// not TrainSizeGiven, each partition trains on the default TrainSize
	// rows of the Rows of the training file, which a user who meant the
	// whole file would not guess from the table.
	NoteDefaultTrainSize NoteKind = iota + 2
	// NoteSmallTrainPart: without a test file, each of the Partitions
	// random partitions trains on the default TrainSize rows (and tests on
	// TestSize), under a tenth of the file's Rows: Laanaya's 100/100
	// protocol, which on a large file answers another question than one on
	// all of it. Not for sizes the spec gives (TrainSizeGiven,
	// TrainFraction) nor predefined realisations.
	NoteSmallTrainPart
	// NoteTestIsTraining: a Single dataset's Test file holds the bytes of
	// its training file (TestIsTraining), so its test accuracy is the
	// training accuracy.
	NoteTestIsTraining
)

// SmallTrainPart is the share of a file's rows under which a default
// training size is noted (NoteSmallTrainPart): a tenth.
const SmallTrainPart = 0.1

// SamePartitionsError is OpenDataset's refusal (in a *DatasetError) of
// Partitions > 1 partitions of a training file with a given test file whose
// Rows are not more than TrainSize: every partition would train on the
// whole file and test on the same test file, so they would differ only in
// the methods' random choices, and the paired tests across datasets and
// partitions would count those copies as independent samples (five gave
// p = 0.037 and P(worse) = 1.00 where nothing had been sampled).
type SamePartitionsError struct {
	Rows, TrainSize, Partitions int
}

func (e *SamePartitionsError) Error() string { return e.Words().String() }

// Words is the message of e, naming the training size setting.
func (e *SamePartitionsError) Words() hint.Text {
	return hint.T(fmt.Sprintf("%d partitions of a training file of %d rows, not more than the training size %d: each would train on the whole file and test on the same test file, so they would be one partition %d times over, and the paired tests would count the copies as independent samples; give a training size below %d (",
		e.Partitions, e.Rows, e.TrainSize, e.Partitions, e.Rows), hint.S("train-size", ""), ", train-size in a study) or one partition")
}

// PartitionNote is what OpenDataset found about the partitions of a
// dataset with a given test file that its caller should tell the user.
type PartitionNote struct {
	Kind NoteKind
	// Path is the training file; Rows its rows; TrainSize, TestSize and
	// Partitions the spec's (Partitions as drawn).
	Path                                  string
	Rows, TrainSize, TestSize, Partitions int
}

// Partitioned is a dataset opened by OpenDataset: its data, its partitions
// and what opening it found. It is an experiment's source of partitions
// (Name, Len and Partition: experiment.Source).
type Partitioned struct {
	// Spec is the spec it was opened from, Seed the seed that drew its
	// partitions.
	Spec DatasetSpec
	Seed uint64
	// Data is the training data as read (nominal features as category
	// codes unless a Test file was given: then encoded on the whole
	// training file), named by Spec.Name when set; Test is the given test
	// file (nil for none), read with Data's labels and encoding.
	Data, Test *Dataset
	// Splits are the partitions' rows of Data; with a Test file their Test
	// rows are empty and every partition tests on Test.
	Splits []Split
	// OneHot says that Partition one-hot encodes each partition's nominal
	// features, fitted on its training part as the normaliser is (so a
	// category only the test part has encodes as all zeros): Data has
	// nominal features and no Test file was given.
	OneHot bool
	// Notes are what the caller should tell the user about the partitions
	// (a given test file's training size); nil for none.
	Notes []PartitionNote

	// note, when set, is added to the notes of both parts of every
	// partition (a Single dataset's held-out rows or realisation).
	note hint.Text
}

// Name returns the dataset's display name.
func (p *Partitioned) Name() string { return p.Data.Name }

// Len returns the number of partitions.
func (p *Partitioned) Len() int { return len(p.Splits) }

// Partition returns partition k's training and test parts, un-normalised
// and, with OneHot, encoded; the same data on every call. Partitions
// hold their own copies of the rows, but for a Single dataset: its part
// of all rows (no test part, or a Test file) is Data itself, and with no
// test part test is nil.
func (p *Partitioned) Partition(k int) (train, test *Dataset, err error) {
	sp := p.Splits[k]
	switch {
	case p.Spec.Single && sp.Train == nil:
		train, test = p.Data, p.Test
	case p.Test != nil:
		return p.Data.Subset(sp.Train), p.Test, nil
	default:
		train, test = p.Data.Subset(sp.Train), p.Data.Subset(sp.Test)
	}
	if len(p.note) > 0 {
		train, test = withNote(train, test, p.note)
	}
	if !p.OneHot {
		return train, test, nil
	}
	return EncodeOneHot(train, test)
}

// Rename gives the dataset the display name name ("" keeps its own): Data
// becomes a copy of that name, which every partition carries.
func (p *Partitioned) Rename(name string) {
	if name != "" {
		d := *p.Data
		d.Name = name
		p.Data = &d
	}
}

// OpenDataset reads the dataset of spec (the path "-" from stdin) and
// draws its partitions from seed: the dataset's own realisations
// (Predefined), Partitions random ones (Partitions), or with a Test file
// the whole training file once, or with PartitionsGiven or TrainSizeGiven,
// Partitions random subsamples of TrainSize rows (one partition of all rows
// when the file is smaller; more are a *SamePartitionsError), each tested on
// the whole test file. The dataset is named spec.Name when that is set. A file that cannot
// be read is the reader's error (naming the file and line); partitions that
// cannot be drawn are a *DatasetError naming spec.Path. A ctx cancelled
// before the reading, or before a test file, ends it with ctx's error.
func OpenDataset(ctx context.Context, spec DatasetSpec, seed uint64, stdin io.Reader) (*Partitioned, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &Partitioned{Spec: spec, Seed: seed}
	k := cmp.Or(spec.Partitions, DefaultPartitions)
	var err error
	switch {
	case spec.Single:
		err = p.openSingle(ctx, stdin)
	case spec.Test != "":
		err = p.openTrainTest(ctx, k, stdin)
	default:
		err = p.open(ctx, k, stdin)
	}
	if err != nil {
		return nil, err
	}
	p.Rename(spec.Name)
	if err := CheckName(p.Name()); err != nil && !spec.Single {
		return nil, &DatasetError{Path: spec.Path, Err: err}
	}
	return p, nil
}

// NameError is a dataset's display name that no table, record or figure
// can carry: one with a control character (a newline, a tab, an escape),
// which made malformed SVG and broke the tables' lines (issue 42, item 18).
type NameError struct {
	Name string
	Rune rune // the first control character
}

func (e *NameError) Error() string {
	return fmt.Sprintf("dataset name %q holds the control character %U: a dataset's name is printed in tables, records and figures, so give one of printable characters", e.Name, e.Rune)
}

// CheckName returns a *NameError for a display name with a control
// character, nil otherwise.
func CheckName(name string) error {
	for _, r := range name {
		if unicode.IsControl(r) {
			return &NameError{Name: name, Rune: r}
		}
	}
	return nil
}

// open reads spec.Path and draws k partitions of it (or its first k
// realisations).
func (p *Partitioned) open(ctx context.Context, k int, stdin io.Reader) error {
	d := p.Spec
	data, err := loadArg(ctx, d.Path, stdin, d.Read)
	if err != nil {
		return err
	}
	p.Data, p.OneHot = data, len(data.Nominal) > 0
	if d.Predefined {
		if len(data.Splits) == 0 {
			return &DatasetError{Path: d.Path, Err: ErrNoRealisations}
		}
		p.Splits = data.Splits[:min(k, len(data.Splits))]
		return nil
	}
	po := PartitionOptions{K: k, TrainSize: d.TrainSize, TestSize: d.TestSize, Stratified: d.Stratified}
	if d.TrainFraction > 0 {
		po.TrainSize, po.TestSize = 0, 0
		po.TrainFraction = d.TrainFraction
	}
	p.Splits, err = Partitions(data.Strata(), po, p.Seed)
	if err != nil && d.TrainFraction == 0 && (d.TrainSize > data.Len() || d.TestSize > data.Len()-d.TrainSize) {
		// Small data (iris, wine): say which settings fit it (a study's
		// keys; a command line spells them as its flags).
		err = hint.Errorf(err, err, fmt.Sprintf("; %s has %d rows: give a training fraction (", data.Name, data.Len()), hint.S("train-fraction", "0.5"),
			", train-fraction in a study: half of the rows train, the rest test) or a ", hint.S("train-size", ""), " and ", hint.S("test-size", ""), " that fit")
	}
	if err != nil {
		return &DatasetError{Path: d.Path, Err: err}
	}
	if d.TrainFraction == 0 && !d.TrainSizeGiven && float64(d.TrainSize) < SmallTrainPart*float64(data.Len()) {
		p.Notes = append(p.Notes, PartitionNote{Kind: NoteSmallTrainPart, Path: d.Path, Rows: data.Len(),
			TrainSize: d.TrainSize, TestSize: d.TestSize, Partitions: len(p.Splits)})
	}
	return nil
}

// readTrainTest reads the training data and its test file, un-normalised
// (each partition fits its own normaliser), the test file with the
// training file's label mapping, and one-hot encodes the nominal features
// of both, fitted on the whole training file. A LIBSVM training file with
// a label column given is a *LabelColError, a test file of another width
// a *TestWidthError.
func (p *Partitioned) readTrainTest(ctx context.Context, stdin io.Reader) error {
	d := p.Spec
	train, err := p.readTraining(ctx, stdin)
	if err != nil {
		return err
	}
	ro := d.Read
	lm := train.Labels
	ro.Labels, ro.Positive = &lm, ""
	ro.ClassLabels = train.ClassLabels
	// A LIBSVM test file is read at its own width unless Read.Features
	// states one for both: a narrower file read at the training file's
	// width would be taken silently, as predict refuses it. A sparse
	// training file's test file is read at its width (text data's test
	// files seldom use the last words of a vocabulary), the values of
	// higher indices left out with a note, as svm-scale -r leaves out the
	// features its range file lacks; and it is held as the training file
	// is, so that both parts are of one storage.
	ro.Storage = StorageDense
	if train.IsSparse() {
		ro.Storage, ro.atWidth = StorageSparse, train.Dim()
	}
	test, err := loadContext(ctx, d.Test, ro)
	if err != nil {
		return err
	}
	if test.Dim() != train.Dim() {
		return &TestWidthError{Train: d.Path, Test: d.Test, TrainFeatures: train.Dim(), TestFeatures: test.Dim(),
			LIBSVM: train.Format == "libsvm" || test.Format == "libsvm"}
	}
	if p.Data, p.Test, err = EncodeOneHot(train, test); err != nil {
		return fmt.Errorf("%s: %w", d.Path, err)
	}
	return nil
}

// readTraining reads spec.Path for a dataset with a test file or a single
// fit, which refuse a label column given for a LIBSVM file (CheckLabelCol).
func (p *Partitioned) readTraining(ctx context.Context, stdin io.Reader) (*Dataset, error) {
	d := p.Spec
	data, err := loadArg(ctx, d.Path, stdin, d.Read)
	if err != nil {
		return nil, err
	}
	if err := CheckLabelCol(data, d.Read.LabelCol); err != nil {
		return nil, err
	}
	return data, ctx.Err()
}

// openTrainTest reads the training data and its test file (readTrainTest)
// and draws the partitions: the whole training file once, or with
// PartitionsGiven or TrainSizeGiven, k random subsamples of TrainSize rows
// (all rows once when the file is smaller), each tested on the whole test
// file.
func (p *Partitioned) openTrainTest(ctx context.Context, k int, stdin io.Reader) error {
	d := p.Spec
	if err := p.readTrainTest(ctx, stdin); err != nil {
		return err
	}
	if TestIsTraining(p.Data, p.Test) {
		return &DatasetError{Path: d.Path, Err: fmt.Errorf("test file %s: %w", d.Test, ErrTestIsTraining)}
	}
	n := p.Data.Len()
	if !d.PartitionsGiven {
		k = 1
	}
	note := PartitionNote{Path: d.Path, Rows: n, TrainSize: d.TrainSize, Partitions: k}
	if (d.PartitionsGiven || d.TrainSizeGiven) && d.TrainSize < n {
		if !d.TrainSizeGiven {
			note.Kind = NoteDefaultTrainSize
			p.Notes = append(p.Notes, note)
		}
		po := PartitionOptions{K: k, TrainSize: d.TrainSize, Stratified: d.Stratified}
		var err error
		if p.Splits, err = Partitions(p.Data.Strata(), po, p.Seed); err != nil {
			return &DatasetError{Path: d.Path, Err: err}
		}
		return nil
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for range k {
		p.Splits = append(p.Splits, Split{Train: all})
	}
	if k > 1 {
		return &DatasetError{Path: d.Path, Err: &SamePartitionsError{Rows: n, TrainSize: d.TrainSize, Partitions: k}}
	}
	return nil
}

// openSingle opens a Single dataset: one partition, of the Test file,
// of a TestFraction of the rows held out, of the first realisation, or of
// all rows with no test part. Its one-hot encoding is fitted on the
// training part: the whole training file with a Test file (readTrainTest),
// else the partition's (Partition, with OneHot).
func (p *Partitioned) openSingle(ctx context.Context, stdin io.Reader) error {
	d := p.Spec
	switch {
	case d.Test != "" && d.TestFraction != 0:
		return errors.New("give a test file or a test fraction, not both")
	case d.TestFraction != 0 && !(d.TestFraction > 0 && d.TestFraction < 1):
		return fmt.Errorf("test fraction %v is not in (0, 1)", d.TestFraction)
	case d.Test != "":
		if err := p.readTrainTest(ctx, stdin); err != nil {
			return err
		}
		if TestIsTraining(p.Data, p.Test) {
			p.Notes = append(p.Notes, PartitionNote{Kind: NoteTestIsTraining, Path: d.Path, Rows: p.Data.Len(), Partitions: 1})
		}
		p.Splits = []Split{{}}
		return nil
	}
	full, err := p.readTraining(ctx, stdin)
	if err != nil {
		return err
	}
	p.Data, p.OneHot = full, len(full.Nominal) > 0
	switch {
	case d.TestFraction > 0:
		sp, err := Partitions(full.Strata(), PartitionOptions{TrainFraction: 1 - d.TestFraction}, p.Seed)
		if err != nil {
			return hint.Errorf(err, hint.S("test-fraction", fmt.Sprint(d.TestFraction)), " on "+d.Path+": ", err)
		}
		p.Splits = sp[:1]
		p.note = hint.T(fmt.Sprintf("test part: %d of %d rows held out at random (", len(sp[0].Test), full.Len()),
			hint.S("test-fraction", fmt.Sprint(d.TestFraction)), ", ", hint.S("seed", strconv.FormatUint(p.Seed, 10)), ")")
	case len(full.Splits) > 0:
		sp := full.Splits[0]
		p.Splits = []Split{sp}
		p.note = hint.T(fmt.Sprintf("predefined realisation 1 of %d: %d training / %d test rows", len(full.Splits), len(sp.Train), len(sp.Test)))
	default:
		p.Splits = []Split{{}}
	}
	return nil
}

// TrainTest returns the one partition of a Single dataset (Partition 0),
// its nominal features one-hot encoded, normalised by the normaliser of
// kind normalize fitted on its training part (Normalize). The parts are
// normalised in place: p is opened for this one fit, and its data is not
// to be used after.
func (p *Partitioned) TrainTest(normalize string) (*TrainTest, error) {
	if !p.Spec.Single {
		return nil, errors.New("TrainTest: the dataset was not opened for a single fit (DatasetSpec.Single)")
	}
	train, test, err := p.Partition(0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Spec.Path, err)
	}
	unit := WithinUnitRange(train.Features())
	bound := DenseBound{MaxCells: p.Spec.Read.MaxCells, MemBytes: p.Spec.Read.MemBytes}
	train, test, norm, err := NormalizeWithin(normalize, train, test, true, bound)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Spec.Path, err)
	}
	return &TrainTest{Train: train, Test: test, Norm: norm, UnitRange: unit}, nil
}
