package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// dataOptions are the data flags every data-reading command shares
// (info, train, tune, compare, predict).
type dataOptions struct {
	InputFormat, LabelCol, Positive, Missing, Normalize, Multiclass string
	Header                                                          string   // --header auto|yes|no
	Classes                                                         []string // --classes A,B
	Categorical                                                     string   // --categorical error|onehot
	Storage                                                         string   // --storage auto|dense|sparse
	Features                                                        int
	Test                                                            string  // --test FILE
	TestFraction                                                    float64 // --test-fraction F

	// stdin is read for the path "-" (os.Stdin when nil); the commands set
	// it to globalOptions.In, so tests can feed data.
	stdin io.Reader
}

// dataHelp explains DATA in the long help of every data-reading command.
var dataHelp = help("data")

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
	fs.StringVar(&o.Storage, "storage", "auto", "how a LIBSVM file's features are held: auto (compressed rows when it has at least 1,000 features and under a quarter of its values non-zero), dense or sparse")
	fs.StringVar(&o.Multiclass, "multiclass", "ovo", "more than two classes: ovo (one-vs-one, LIBSVM's vote) or ovr (each class against the rest, the largest decision value)")
}

// addSplitFlags adds the flags that choose the test part and the
// normalisation.
func (o *dataOptions) addSplitFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Test, "test", "", "test data FILE, read with the training file's options and label mapping")
	fs.Float64Var(&o.TestFraction, "test-fraction", 0, "hold out this fraction of DATA as the test part, drawn from --seed")
	fs.StringVar(&o.Normalize, "normalize", dataio.Auto, "feature scaling fitted on the training part: auto (maxabs on sparse data, at least half the entries 0; zscore otherwise), zscore, minmax01, minmax11, maxabs or none")
}

// check validates the flag values (usage errors, exit code 2).
func (o *dataOptions) check() error {
	_, err := o.parseRead()
	return cmp.Or(err,
		usageIf(o.Normalize != "" && !slices.Contains(dataio.NormalizerKinds, o.Normalize), "--normalize: unknown kind %q (want auto, zscore, minmax01, minmax11, maxabs or none)", o.Normalize),
		usageIf(o.TestFraction != 0 && !(o.TestFraction > 0 && o.TestFraction < 1), "--test-fraction: must be in (0, 1), got %v", o.TestFraction),
		usageIf(o.Test != "" && o.TestFraction != 0, "give --test or --test-fraction, not both"))
}

// parseRead reads the read flags with dataio's parser of read options (a
// study file's too), its refusal worded as the flag's.
func (o *dataOptions) parseRead() (r dataio.ReadOptions, err error) {
	err = cmp.Or(r.SetKey("input-format", o.InputFormat), r.SetKey("header", o.Header), r.SetKey("label-col", o.LabelCol),
		r.SetKey("positive", o.Positive), r.SetKey("classes", strings.Join(o.Classes, ",")), r.SetKey("categorical", o.Categorical),
		r.SetKey("features", strconv.Itoa(o.Features)), r.SetKey("missing", o.Missing), r.SetKey("multiclass", o.Multiclass), r.SetKey("storage", o.Storage), r.CheckKeys())
	if ke := (*dataio.ReadKeyError)(nil); errors.As(err, &ke) {
		err = usageErrorf("--%s: %s", ke.Key, ke.Reason)
	}
	return r, err
}

// readOptions are the read flags' options (check reports a bad value).
func (o *dataOptions) readOptions() dataio.ReadOptions {
	r, _ := o.parseRead()
	return r
}

// flagHint words a data error as the user types it: the read options
// dataio's messages suggest (hint.Settings: missing=drop, categorical=onehot,
// label-col=N, ...) are flags here (spellFlags); a *dataio.LabelColError
// becomes a usage error. The error still matches dataio's sentinels
// (errors.Is) and *ParseError (errors.As).
func flagHint(err error) error {
	if lce := (*dataio.LabelColError)(nil); errors.As(err, &lce) {
		return usageErrorf("--label-col %s: %s is a LIBSVM file, whose label comes first on each line; --label-col is for CSV", lce.LabelCol, lce.Source)
	}
	return spellFlags(err)
}

// stdinReader is the reader of the path "-".
func (o *dataOptions) stdinReader() io.Reader {
	if o.stdin == nil {
		return os.Stdin
	}
	return o.stdin
}

// split are the data flags' settings of dataio.LoadSplit, with seed.
func (o *dataOptions) split(seed uint64) dataio.SplitSettings {
	return dataio.SplitSettings{Read: o.readOptions(), Stdin: o.stdinReader(),
		Test: o.Test, TestFraction: o.TestFraction, Seed: seed, Normalize: o.Normalize}
}

// loadSplit opens DATA for one fit (dataio.OpenDataset, stopped by ctx)
// and returns its training and test part (Test is nil when there is
// none), normalised, its errors in the flags' words.
func loadSplit(ctx context.Context, errOut io.Writer, path string, s dataio.SplitSettings) (*dataio.TrainTest, error) {
	p, err := dataio.OpenDataset(ctx, s.Spec(path), s.Seed, s.Stdin)
	if err != nil {
		return nil, flagHint(err)
	}
	tt, err := p.TrainTest(s.Normalize)
	if err != nil {
		return nil, flagHint(err)
	}
	if slices.ContainsFunc(p.Notes, func(n dataio.PartitionNote) bool { return n.Kind == dataio.NoteTestIsTraining }) {
		// -q or not: the numbers are not what they say
		fmt.Fprintf(errOut, "kerneltune: warning: --test %s holds the training data itself (the same SHA-256 as %s): the test accuracy is the training accuracy\n", s.Test, path)
	}
	return tt, nil
}
