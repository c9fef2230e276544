package cmd

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/outfile"
)

type generateOptions struct {
	*globalOptions
	Kind           string // "weston", "chessboard" or "sparse"
	N              int
	NoiseStd       float64
	Dim, Classes   int
	Stretch        float64
	Format         string
	Output         string
	PrintTransform bool
	NNZ            int    // text: distinct words a row
	TestN          int    // test rows of the same distribution (dataio.GenerateSettings)
	TestOutput     string // their file
}

func init() { subcommands = append(subcommands, newGenerateCmd) }

func newGenerateCmd(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "generate weston|chessboard|sparse|blobs|text",
		Short: "Write the toy data sets of the papers (Weston et al. 2000, chessboard) and an a1a-like benchmark set",
		Long:  help("generate"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("generate needs a data set: weston, chessboard, sparse, blobs or text")
		},
	}
	c.AddCommand(
		newGenerateKindCmd(g, dataio.GenWeston, &cobra.Command{
			Short:   "Weston et al. 2000 nonlinear problem: 52 features, 2 informative",
			Long:    help("weston"),
			Example: help("weston-examples"),
		}, func(f *pflag.FlagSet, o *generateOptions) {
			f.IntVar(&o.N, "n", 200, "number of points")
			f.Float64Var(&o.NoiseStd, "noise-std", 20, "standard deviation of the 50 noise features")
		}),
		newGenerateKindCmd(g, dataio.GenChessboard, &cobra.Command{
			Short:   "Glasmachers & Igel 2005 stretched, rotated chessboard",
			Long:    help("chessboard"),
			Example: help("chessboard-examples"),
		}, func(f *pflag.FlagSet, o *generateOptions) {
			f.IntVar(&o.N, "n", 500, "number of points")
			f.IntVar(&o.Dim, "dim", 2, "dimension of the board (≥ 2)")
			f.Float64Var(&o.Stretch, "stretch", 3, "stretch s of B̃ = Dᵀdiag(s, 1/s, 1, …)D")
			f.BoolVar(&o.PrintTransform, "print-transform", false, "print B̃ on stderr")
		}),
		newGenerateKindCmd(g, dataio.GenSparse, &cobra.Command{
			Short:   "a1a-like benchmark data: 123 sparse binary features, about 25% +1",
			Long:    help("sparse"),
			Example: help("sparse-examples"),
		}, func(f *pflag.FlagSet, o *generateOptions) {
			f.IntVar(&o.N, "n", 5000, "number of points")
		}),
		newGenerateKindCmd(g, dataio.GenBlobs, &cobra.Command{Short: "k Gaussian classes (multi-class): labels 1..k, overlapping blobs"},
			func(f *pflag.FlagSet, o *generateOptions) {
				f.IntVar(&o.N, "n", 600, "number of points (row i is of class i mod k)")
				f.IntVar(&o.Classes, "classes", 4, "number of classes k (2 to 100)")
				f.IntVar(&o.Dim, "dim", 4, "dimension (1 to 1000)")
			}),
		newGenerateKindCmd(g, dataio.GenText, &cobra.Command{
			Short:   "rcv1-shaped text data: tf-idf rows over a Zipf vocabulary, sparse (LIBSVM)",
			Long:    help("text"),
			Example: help("text-examples"),
		}, func(f *pflag.FlagSet, o *generateOptions) {
			f.IntVar(&o.N, "n", 5000, "number of documents (rows)")
			f.IntVar(&o.Dim, "features", dataio.TextFeatures, "vocabulary size (features; rcv1: 47236, news20: 1355191)")
			f.IntVar(&o.NNZ, "nnz", dataio.TextNonZeros, "average number of distinct words (non-zeros) a row")
		}))
	return c
}

// newGenerateKindCmd completes c, the help of generate's subcommand for one
// kind of data, with its flags, the output flags and the run.
func newGenerateKindCmd(g *globalOptions, kind string, c *cobra.Command, flags func(*pflag.FlagSet, *generateOptions)) *cobra.Command {
	o := &generateOptions{globalOptions: g, Kind: kind}
	c.Use, c.Args = kind, cobra.NoArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := o.check(); err != nil {
			return err
		}
		return runGenerate(cmd.Context(), o)
	}
	f := c.Flags()
	flags(f, o)
	f.StringVar(&o.Format, "format", "", "output format: csv or libsvm (default from the -o extension .libsvm/.svm, else csv)")
	f.StringVarP(&o.Output, "output", "o", "", "write to FILE instead of stdout (\"-\" or /dev/stdout: stdout)")
	f.IntVar(&o.TestN, "test-n", 0, "also draw this many test rows from the same distribution (after the --n rows of one draw: the training rows stay as without it) into --test-output")
	f.StringVar(&o.TestOutput, "test-output", "", "file for the --test-n test rows (same format)")
	return c
}

// maxGenerateValues bounds --n × features (compare's preset sizes too).
const maxGenerateValues = dataio.MaxGenerateValues

// check validates the flags (usage errors), in the order of the kind's
// flags, then --format.
func (o *generateOptions) check() error {
	chess, limit := o.Kind == dataio.GenChessboard, maxGenerateValues
	blobs := o.Kind == dataio.GenBlobs
	text := o.Kind == dataio.GenText
	if err := cmp.Or(usageIf(chess && (o.Dim < 2 || o.Dim > 1000), "--dim must be between 2 and 1000, got %d", o.Dim),
		usageIf(text && (o.Dim < 2 || o.Dim > 1<<26), "--features must be between 2 and %d, got %d", 1<<26, o.Dim),
		usageIf(text && (o.NNZ < 1 || o.NNZ > o.Dim), "--nnz must be between 1 and --features (%d), got %d", o.Dim, o.NNZ),
		usageIf(blobs && (o.Dim < 1 || o.Dim > 1000 || o.Classes < 2 || o.Classes > 100 || o.N < o.Classes), "--classes must be 2 to 100, --dim 1 to 1000 and --n at least --classes, got %d, %d, %d", o.Classes, o.Dim, o.N)); err != nil {
		return err
	}
	d, err := o.settings().Features()
	maxRows := o.settings().MaxRows(d)
	held := fmt.Sprintf("%d features", d)
	if text {
		held = fmt.Sprintf("%d non-zeros a row", o.NNZ)
	}
	return cmp.Or(err,
		usageIf(o.N < 1, "--n must be at least 1, got %d", o.N),
		usageIf(o.TestN < 0 || (o.TestN > 0) != (o.TestOutput != ""), "--test-n and --test-output go together (--test-n ≥ 1), got %d and %q", o.TestN, o.TestOutput),
		usageIf(o.N > maxRows, "--n %d × %s is more than %d values: at most --n %d (write larger sets in parts with different --seed)", o.N, held, limit, maxRows),
		usageIf(o.Kind == dataio.GenWeston && (!(o.NoiseStd >= 0) || o.NoiseStd > 1e150), "--noise-std must be a finite number ≥ 0, got %v", o.NoiseStd),
		usageIf(chess && (!(o.Stretch > 0) || o.Stretch > 1e150), "--stretch must be a finite number > 0, got %v", o.Stretch),
		o.checkFormat(), o.checkTextCSV(d))
}

// checkTextCSV refuses (after checkFormat) CSV text data of more than
// maxGenerateValues values: CSV writes every zero, and is read back dense.
func (o *generateOptions) checkTextCSV(d int) error {
	rows := int64(o.N + o.TestN)
	return usageIf(o.Kind == dataio.GenText && o.Format == "csv" && rows*int64(d) > maxGenerateValues,
		"--format csv writes every one of the %d × %d values of text data, nearly all 0, and is read back dense: at most %d values; write LIBSVM (--format libsvm, the default for text), which keeps the non-zeros", rows, d, maxGenerateValues)
}

func (o *generateOptions) settings() dataio.GenerateSettings {
	return dataio.GenerateSettings{Kind: o.Kind, N: o.N, TestN: o.TestN, NoiseStd: o.NoiseStd, Dim: o.Dim, Stretch: o.Stretch, Classes: o.Classes, NonZeros: o.NNZ, Seed: o.Seed}
}

// checkFormat validates --format; without it the format follows the -o
// extension (.libsvm, .svm), else CSV; for text data (sparse) it is LIBSVM
// unless -o ends in .csv.
func (o *generateOptions) checkFormat() error {
	ext := strings.ToLower(filepath.Ext(o.Output))
	if o.Format == "" && (ext == ".libsvm" || ext == ".svm" || (o.Kind == dataio.GenText && ext != ".csv")) {
		o.Format = "libsvm"
	}
	o.Format = cmp.Or(o.Format, "csv")
	return usageIf(o.Format != "csv" && o.Format != "libsvm", "--format: want csv or libsvm, got %q", o.Format)
}

// runGenerate draws the data (dataio.Generate) and writes them.
func runGenerate(ctx context.Context, o *generateOptions) error {
	if o.Output == "/dev/stdout" {
		o.Output = "-"
	}
	if err := checkFiles(new(outfile.Plan).Output("-o", o.Output).Output("--test-output", o.TestOutput)); err != nil {
		return err
	}
	g, err := dataio.Generate(ctx, o.settings())
	if err != nil {
		return err
	}
	if g.Test != nil {
		if err := dataio.WriteFile(o.TestOutput, o.Format, g.Test); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	if g.Transform != nil && o.PrintTransform {
		fmt.Fprintf(o.ErrOut, "# chessboard transform B̃ = Dᵀ diag(%g, 1/%g, 1, …) D, seed %d; x = B̃ x̃\n", o.Stretch, o.Stretch, o.Seed)
		if err := dataio.WriteMatrix(o.ErrOut, g.Transform); err != nil {
			return err
		}
	}
	if o.Output == "" || o.Output == "-" { // "-": standard output, as for DATA
		return dataio.Write(o.Out, o.Format, g.Data)
	}
	if err := dataio.WriteFile(o.Output, o.Format, g.Data); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	if !o.Quiet {
		fmt.Fprintf(o.ErrOut, "wrote %d rows × %d features (%s, seed %d) to %s\n", g.Data.Len(), g.Data.Dim(), o.Kind, o.Seed, o.Output)
		if g.Test != nil {
			fmt.Fprintf(o.ErrOut, "wrote %d test rows of the same distribution to %s\n", g.Test.Len(), o.TestOutput)
		}
	}
	return nil
}
