package dataio

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// SplitSettings say how LoadSplit reads a data set and chooses its test
// part. The zero value reads the file with ReadOptions' defaults, takes no
// test part (unless an IDA set predefines one) and z-scores the features.
type SplitSettings struct {
	// Read says how to read the data set and the Test file. With
	// Read.Categorical "codes", nominal features are one-hot encoded,
	// fitted on the training part (EncodeOneHot).
	Read ReadOptions
	// Stdin is read for the path "-" (a command's standard input).
	Stdin io.Reader
	// Test is a file with the test part, read with Read, the data set's
	// label mapping and, for a LIBSVM data set, its number of features.
	Test string
	// TestFraction, in (0, 1), holds out this fraction of the rows as the
	// test part, drawn from Seed (Partitions). It excludes Test.
	TestFraction float64
	// Seed draws the TestFraction split.
	Seed uint64
	// Normalize is the kind of the normaliser fitted on the training part
	// and applied to both parts: ZScore (also ""), MinMax01, MinMax11 or
	// NoScale.
	Normalize string
}

// TrainTest is a data set cut into a training and a test part, both
// normalised with Norm (fitted on Train).
type TrainTest struct {
	// Train is the training part: all rows without a test part.
	Train *Dataset
	// Test is the test part, nil when there is none.
	Test *Dataset
	// Norm is the normaliser fitted on Train and applied to both parts.
	Norm *Normalizer
	// UnitRange says that every feature of Train lay within [-1, 1] as
	// read, before Norm (WithinUnitRange): a file scaled as svm-scale
	// scales, on which LIBSVM's users train without scaling again.
	UnitRange bool
}

// LoadArg reads a data set named as on a command line: "-" reads stdin
// (named "stdin"), anything else is a path for Load.
func LoadArg(path string, stdin io.Reader, opts ReadOptions) (*Dataset, error) {
	return loadArg(context.Background(), path, stdin, opts)
}

// loadArg is LoadArg stopped by ctx (loadContext).
func loadArg(ctx context.Context, path string, stdin io.Reader, opts ReadOptions) (*Dataset, error) {
	if path != "-" {
		return loadContext(ctx, path, opts)
	}
	if stdin == nil {
		return nil, errors.New("read stdin: no standard input given")
	}
	return loadReader(ctx, stdin, "stdin", opts)
}

// LabelColError is LoadSplit's and CheckLabelCol's error for a label column
// (ReadOptions.LabelCol) given for a LIBSVM file, whose label comes first on
// each line: ignoring it would hide that the label was expected elsewhere.
type LabelColError struct {
	LabelCol string // the label column given
	Source   string // the LIBSVM file
}

// Error names the label column and the file.
func (e *LabelColError) Error() string {
	return fmt.Sprintf("label-col=%s: %s is a LIBSVM file, whose label comes first on each line", e.LabelCol, e.Source)
}

// CheckLabelCol returns a *LabelColError when labelCol is set and d was read
// from a LIBSVM file.
func CheckLabelCol(d *Dataset, labelCol string) error {
	if labelCol != "" && d.Format == "libsvm" {
		return &LabelColError{LabelCol: labelCol, Source: d.Source}
	}
	return nil
}

// TestWidthError is LoadSplit's error for a test file (SplitSettings.Test)
// whose number of features is not the training file's: its rows would be
// read at another width than the model's, and a LIBSVM file's missing
// last features taken as 0 without a word. ReadOptions.Features, when
// set, reads both LIBSVM files at that width.
type TestWidthError struct {
	Train, Test                 string // the files
	TrainFeatures, TestFeatures int
	// LIBSVM is true when a file is LIBSVM's sparse format, whose width is
	// its highest index unless features=N states it.
	LIBSVM bool
}

// Error names both files and both counts, and the option that reads two
// LIBSVM files at one width.
func (e *TestWidthError) Error() string {
	msg := fmt.Sprintf("test file %s has %d features, training file %s has %d: a model of one cannot score the other",
		e.Test, e.TestFeatures, e.Train, e.TrainFeatures)
	if e.LIBSVM {
		w := max(e.TrainFeatures, e.TestFeatures)
		msg += fmt.Sprintf(" (a LIBSVM file need not mention its last features: if features %d-%d are 0 in every row of the narrower file, read both as %d features with features=%d)",
			min(e.TrainFeatures, e.TestFeatures)+1, w, w, w)
	}
	return msg
}

// LoadSplit reads the data set at path (LoadArg) and its test part: the
// Test file, or a TestFraction of the rows drawn from Seed, or else the
// first predefined realisation of an IDA set; without any, Test is nil. It
// one-hot encodes nominal features and fits the normaliser on the training
// part and applies both to the two parts. A LIBSVM data set with
// Read.LabelCol set is a *LabelColError. It is OpenDataset for a single
// fit (DatasetSpec.Single) and its TrainTest: the commands that fit one
// model (tune, train) open their data so.
func LoadSplit(ctx context.Context, path string, s SplitSettings) (*TrainTest, error) {
	p, err := OpenDataset(ctx, s.Spec(path), s.Seed, s.Stdin)
	if err != nil {
		return nil, err
	}
	return p.TrainTest(s.Normalize)
}

// Spec is the DatasetSpec of a single fit of the data set at path with s
// (OpenDataset; its Normalize is TrainTest's).
func (s SplitSettings) Spec(path string) DatasetSpec {
	return DatasetSpec{Path: path, Test: s.Test, Read: s.Read, Single: true, TestFraction: s.TestFraction}
}

// ErrTestIsTraining is a test file with the training data's contents (the
// same SHA-256): its accuracy would be the training accuracy, reported as
// a test accuracy. OpenDataset refuses it (in a *DatasetError): an
// experiment has no held-out estimate without a held-out part.
var ErrTestIsTraining = errors.New("the test file has the training data's contents (the same SHA-256): its accuracy would be the training accuracy, and no held-out estimate is possible; give a test file of other rows, or no test file (the partitions then hold rows out)")

// TestIsTraining reports whether test, read from a test file, holds the
// bytes train was read from (the same SHA-256): the training file given
// again, under its name or another. A test part split off the training
// data shares its hash too: ask only of a test file.
func TestIsTraining(train, test *Dataset) bool {
	return train != nil && test != nil && train.SHA256 != "" && test.SHA256 == train.SHA256
}

// withNote appends note to the notes of both parts (each its own copy).
func withNote(train, test *Dataset, note string) (*Dataset, *Dataset) {
	train.Notes = append(append([]string(nil), train.Notes...), note)
	test.Notes = append(append([]string(nil), test.Notes...), note)
	return train, test
}

// EncodeOneHot one-hot encodes the nominal features of train and test (test
// may be nil), fitted on train alone (FitOneHot), so a category only test has
// encodes as all zeros; train gets a note describing the encoding. A train
// without nominal features is returned as it is, with test.
func EncodeOneHot(train, test *Dataset) (*Dataset, *Dataset, error) {
	enc, err := FitOneHot(train)
	if err != nil || enc == nil {
		return train, test, err
	}
	note := enc.Describe() + ", fitted on the training part"
	tr, err := enc.Apply(train)
	if err != nil {
		return nil, nil, err
	}
	tr.Notes = append(append([]string(nil), tr.Notes...), note)
	if test != nil {
		if test, err = enc.Apply(test); err != nil {
			return nil, nil, err
		}
	}
	return tr, test, nil
}
