package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// dataOptions are the data flags every data-reading command shares
// (info, train, tune, compare, predict).
type dataOptions struct {
	InputFormat, LabelCol, Positive, Missing, Normalize string
	Header                                              string   // --header auto|yes|no
	Classes                                             []string // --classes A,B
	Categorical                                         string   // --categorical error|onehot
	Features                                            int
	Test                                                string  // --test FILE
	TestFraction                                        float64 // --test-fraction F

	// stdin is read for the path "-" (os.Stdin when nil); the commands set
	// it to globalOptions.In, so tests can feed data.
	stdin io.Reader
}

// dataHelp explains DATA in the long help of every data-reading command.
const dataHelp = `DATA is a file or an embedded data set:
  builtin:heart             UCI Statlog heart (LIBSVM heart_scale), 270×13
  builtin:breast-wisconsin  UCI Wisconsin breast cancer (breast-cancer_scale), 683×10
  builtin:diabetes          UCI Pima diabetes (diabetes_scale), 768×8
  FILE                      CSV (comma, semicolon, tab or space separated; a first
                            row without numbers, unlike the rows below it, is taken
                            for a header, --header yes|no overrides; the label is
                            the last column unless --label-col says otherwise),
                            ARFF (Weka's @relation/@attribute/@data, dense or
                            sparse rows; the class is the last attribute unless
                            --label-col names another) or LIBSVM (label idx:val ...)
  DIR/NAME                  an IDA benchmark set: NAME_data.asc, NAME_labels.asc and
                            the train/test index files (any of them may be given)
  -                         CSV, ARFF or LIBSVM on standard input
Labels may be any two values; they are mapped to +1/-1 (numbers: the larger is +1,
--positive picks it), and the mapping is printed. More than two classes (iris):
--positive X makes X against all the others (one-vs-rest), --classes A,B keeps
only two of them, e.g.
  kerneltune tune iris.arff --positive Iris-setosa --method svm
  kerneltune tune iris.arff --classes Iris-versicolor,Iris-virginica
Nominal (text) features, such as ARFF {a,b,c} attributes or CSV columns of words,
are refused unless --categorical onehot encodes them: one 0/1 feature
"column=value" per category, fitted on the training part (a category only the
test part has encodes as all zeros) and saved with the model, e.g.
  kerneltune train vote.arff --categorical onehot --missing drop -o vote.json
  kerneltune predict vote.json vote.arff --missing drop`

// oneDataArg is the Args check of a command that takes exactly one DATA.
func oneDataArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageErrorf("%s needs exactly one DATA argument, got %d", cmd.Name(), len(args))
	}
	return nil
}

// addReadFlags adds the flags that say how to read a data file.
func (o *dataOptions) addReadFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.InputFormat, "input-format", "auto", "data format: auto, csv, arff, libsvm or ida")
	fs.StringVar(&o.Header, "header", "auto", "CSV header line: auto (a first row without numbers), yes or no")
	fs.StringVar(&o.LabelCol, "label-col", "", "CSV label column or ARFF class attribute, by name or 1-based index (default the last)")
	fs.StringVar(&o.Positive, "positive", "", "original label of the +1 class (default the larger numeric label); with more than two classes, that class against all the others")
	fs.StringSliceVar(&o.Classes, "classes", nil, "keep only these two classes A,B of a multi-class file (rows of the others are dropped)")
	fs.StringVar(&o.Categorical, "categorical", "error", "nominal (text) features: error, or onehot (one 0/1 feature per category, fitted on the training part)")
	fs.IntVar(&o.Features, "features", 0, "number of features of a LIBSVM file (default the highest index present)")
	fs.StringVar(&o.Missing, "missing", "error", `rows with missing values ("?", "NA", empty): error or drop`)
}

// addSplitFlags adds the flags that choose the test part and the
// normalisation.
func (o *dataOptions) addSplitFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Test, "test", "", "test data FILE, read with the training file's options and label mapping")
	fs.Float64Var(&o.TestFraction, "test-fraction", 0, "hold out this fraction of DATA as the test part, drawn from --seed")
	fs.StringVar(&o.Normalize, "normalize", dataio.ZScore, "feature scaling fitted on the training part: zscore, minmax01, minmax11 or none")
}

// check validates the flag values (usage errors, exit code 2).
func (o *dataOptions) check() error {
	switch o.InputFormat {
	case "", "auto", "csv", "arff", "libsvm", "ida":
	default:
		return usageErrorf("--input-format: unknown format %q (want auto, csv, arff, libsvm or ida)", o.InputFormat)
	}
	switch o.Categorical {
	case "", "error", "onehot":
	default:
		return usageErrorf("--categorical: unknown setting %q (want error or onehot)", o.Categorical)
	}
	if len(o.Classes) > 0 {
		if len(o.Classes) != 2 || o.Classes[0] == o.Classes[1] {
			return usageErrorf("--classes: want two different classes A,B, got %q", strings.Join(o.Classes, ","))
		}
		if o.Positive != "" && o.Positive != o.Classes[0] && o.Positive != o.Classes[1] {
			return usageErrorf("--positive %s is not one of --classes %s", o.Positive, strings.Join(o.Classes, ","))
		}
	}
	switch o.Header {
	case "", "auto", "yes", "no":
	default:
		return usageErrorf("--header: unknown setting %q (want auto, yes or no)", o.Header)
	}
	switch o.Missing {
	case "", "error", "drop":
	default:
		return usageErrorf("--missing: unknown policy %q (want error or drop)", o.Missing)
	}
	switch o.Normalize {
	case "", dataio.ZScore, dataio.MinMax01, dataio.MinMax11, dataio.NoScale:
	default:
		return usageErrorf("--normalize: unknown kind %q (want zscore, minmax01, minmax11 or none)", o.Normalize)
	}
	if o.Features < 0 {
		return usageErrorf("--features: must be ≥ 0, got %d", o.Features)
	}
	if o.TestFraction != 0 && !(o.TestFraction > 0 && o.TestFraction < 1) {
		return usageErrorf("--test-fraction: must be in (0, 1), got %v", o.TestFraction)
	}
	if o.Test != "" && o.TestFraction != 0 {
		return usageErrorf("give --test or --test-fraction, not both")
	}
	return nil
}

func (o *dataOptions) readOptions() dataio.ReadOptions {
	f := o.InputFormat
	if f == "auto" {
		f = ""
	}
	h := o.Header
	if h == "auto" {
		h = ""
	}
	cat := ""
	if o.Categorical == "onehot" {
		cat = "codes"
	}
	return dataio.ReadOptions{
		Format: f, Header: h, LabelCol: o.LabelCol, Positive: o.Positive,
		Missing: o.Missing, Features: o.Features, Classes: o.Classes,
		Categorical: cat,
	}
}

// flagHint rewrites a data error in the words the user types: dataio names
// its options (missing=drop, categorical=onehot, positive=CLASS,
// classes=A,B), which are flags here. The error still matches dataio's
// sentinels (errors.Is) and *ParseError (errors.As).
func flagHint(err error) error {
	if err == nil {
		return nil
	}
	msg := flagWords.Replace(err.Error())
	if msg == err.Error() {
		return err
	}
	return &reworded{msg: msg, err: err}
}

var flagWords = strings.NewReplacer(
	"missing=drop", "--missing drop",
	"categorical=onehot", "--categorical onehot",
	"positive=CLASS", "--positive CLASS",
	"classes=A,B", "--classes A,B",
	"label-col=", "--label-col ",
)

type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }

// encode one-hot encodes the nominal features of train and test (--categorical
// onehot), fitted on train alone; a set without nominal features is returned
// as it is.
func encode(train, test *dataio.Dataset) (*dataio.Dataset, *dataio.Dataset, error) {
	enc, err := dataio.FitOneHot(train)
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

// load reads one data set with the read flags.
func (o *dataOptions) load(path string) (*dataio.Dataset, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if path == "-" {
		in := o.stdin
		if in == nil {
			in = os.Stdin
		}
		d, err := dataio.LoadReader(in, "stdin", o.readOptions())
		return d, flagHint(err)
	}
	d, err := dataio.Load(path, o.readOptions())
	return d, flagHint(err)
}

// loadAny reads one data set for info: nominal features as category codes
// and a file with more than two classes without a choice of two, so both
// can be described.
func (o *dataOptions) loadAny(path string) (*dataio.Dataset, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	ro := o.readOptions()
	ro.Categorical, ro.AnyClasses = "codes", true
	if path == "-" {
		in := o.stdin
		if in == nil {
			in = os.Stdin
		}
		d, err := dataio.LoadReader(in, "stdin", ro)
		return d, flagHint(err)
	}
	d, err := dataio.Load(path, ro)
	return d, flagHint(err)
}

// checkLabelCol refuses --label-col for a LIBSVM file, whose label is the
// first token of each line: ignoring it would hide that the user expected
// the label elsewhere. (info and compare, which read several files with the
// same flags, may mix CSV and LIBSVM and do not check.)
func (o *dataOptions) checkLabelCol(d *dataio.Dataset) error {
	if o.LabelCol != "" && d.Format == "libsvm" {
		return usageErrorf("--label-col %s: %s is a LIBSVM file, whose label comes first on each line; --label-col is for CSV", o.LabelCol, d.Source)
	}
	return nil
}

// loadTrainTest reads DATA and its test part: --test FILE (read with the
// training file's label mapping and, for LIBSVM, its width), or a fraction
// split off with the seed (--test-fraction), or else the first predefined
// realisation of an IDA set; test is nil when there is none. The normaliser
// (--normalize) is fitted on the training part and applied to both.
func (o *dataOptions) loadTrainTest(path string, seed uint64) (train, test *dataio.Dataset, norm *dataio.Normalizer, err error) {
	full, err := o.load(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := o.checkLabelCol(full); err != nil {
		return nil, nil, nil, err
	}
	train = full
	switch {
	case o.Test != "":
		ro := o.readOptions()
		lm := full.Labels
		ro.Labels = &lm
		ro.Positive = ""
		if full.Format == "libsvm" && ro.Features == 0 {
			ro.Features = full.Dim()
		}
		test, err = dataio.Load(o.Test, ro)
		if err != nil {
			err = flagHint(err)
			if ro.Features > 0 && o.Features == 0 {
				err = fmt.Errorf("%w (the training data has %d features; set --features for both)", err, full.Dim())
			}
			return nil, nil, nil, err
		}
		if test.Dim() != full.Dim() {
			return nil, nil, nil, fmt.Errorf("test data %s has %d features, training data %s has %d", o.Test, test.Dim(), path, full.Dim())
		}
	case o.TestFraction > 0:
		sp, perr := dataio.Partitions(full.Y, dataio.PartitionOptions{TrainFraction: 1 - o.TestFraction}, seed)
		if perr != nil {
			return nil, nil, nil, fmt.Errorf("--test-fraction %v on %s: %w", o.TestFraction, path, perr)
		}
		train, test = full.Subset(sp[0].Train), full.Subset(sp[0].Test)
		note := fmt.Sprintf("test part: %d of %d rows held out at random (--test-fraction %v, --seed %d)", test.Len(), full.Len(), o.TestFraction, seed)
		train.Notes = append(append([]string(nil), train.Notes...), note)
		test.Notes = append(append([]string(nil), test.Notes...), note)
	case len(full.Splits) > 0:
		s := full.Splits[0]
		train, test = full.Subset(s.Train), full.Subset(s.Test)
		note := fmt.Sprintf("predefined realisation 1 of %d: %d training / %d test rows", len(full.Splits), len(s.Train), len(s.Test))
		train.Notes = append(append([]string(nil), train.Notes...), note)
		test.Notes = append(append([]string(nil), test.Notes...), note)
	}
	if train, test, err = encode(train, test); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	norm, err = dataio.FitNormalizer(o.Normalize, train.X)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	train = norm.ApplyDataset(train)
	if test != nil {
		test = norm.ApplyDataset(test)
	}
	return train, test, norm, nil
}

// oneHotSource one-hot encodes the nominal features of each partition of a
// Source, fitted on that partition's training part (as the normaliser is),
// so a category only the test part has encodes as all zeros.
type oneHotSource struct{ experiment.Source }

// encodedSource wraps s when d (read with --categorical onehot) has nominal
// features.
func encodedSource(s experiment.Source, d *dataio.Dataset) experiment.Source {
	if len(d.Nominal) == 0 {
		return s
	}
	return oneHotSource{s}
}

func (s oneHotSource) Partition(k int) (train, test *dataio.Dataset, err error) {
	train, test, err = s.Source.Partition(k)
	if err != nil {
		return nil, nil, err
	}
	return encode(train, test)
}
