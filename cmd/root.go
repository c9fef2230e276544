// Package cmd holds the kerneltune command line: one file per subcommand, each
// an options struct, a cobra command that validates flags, and a plain run
// function that loads data, calls into pkg/ and renders the result.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/internal/ctxio"
	"github.com/kerneltune/kerneltune/internal/suggest"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/spf13/cobra"
)

// Exit codes (house rule: 0 ok, 1 error, 2 bad usage, 130 interrupted).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130
	// ExitHangup is the exit code after SIGHUP (128 + 1).
	ExitHangup = 129
)

// globalOptions are the flags every subcommand shares.
type globalOptions struct {
	Seed  uint64
	Quiet bool

	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// flagError marks a usage error: it prints the usage and exits with code 2.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// runError marks an error returned by a command's RunE: the command line was
// understood and the work failed (exit code 1), unless it is a flagError. Every
// other error comes from cobra's own parsing of the command line (unknown
// command, wrong number of arguments), which is a usage error.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// markRunErrors wraps the RunE of c and of its subcommands so that their
// errors are runErrors, the settings they name spelled as flags (spellFlags); run tells usage errors from failures by that, never by
// the message's words (a data value "invalid argument" quoted in a parse error
// is not a usage error).
func markRunErrors(c *cobra.Command) {
	if runE := c.RunE; runE != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := spellFlags(runE(cmd, args)) // the library's settings, as flags
			var fe *flagError
			if err == nil || errors.As(err, &fe) {
				return err
			}
			return &runError{err}
		}
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}

// usageErrorf returns a usage error (exit code 2).
func usageErrorf(format string, a ...any) error {
	return &flagError{fmt.Errorf(format, a...)}
}

// newRootCmd builds the command tree. Each subcommand registers itself here.
func newRootCmd(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:           "kerneltune",
		Short:         "Tune Gaussian-kernel SVM hyperparameters with five published methods",
		Long:          help("root"),
		Example:       help("root-examples"),
		Version:       buildinfo.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(buildinfo.VersionTemplate())
	root.PersistentFlags().Uint64Var(&g.Seed, "seed", 1, "seed of every random choice (partitions, start points, generated data)")
	root.PersistentFlags().BoolVarP(&g.Quiet, "quiet", "q", false, "print no progress or notes on stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &flagError{suggest.Hint(c.Flags(), err)} })
	root.SetIn(g.In)
	root.SetOut(g.Out)
	root.SetErr(g.ErrOut)
	for _, add := range subcommands {
		root.AddCommand(add(g))
	}
	markRunErrors(root)
	return root
}

// NewRootCmd is the command tree, printing to out: internal/gendocs makes the command reference of docs/ from it.
func NewRootCmd(out io.Writer) *cobra.Command {
	return newRootCmd(&globalOptions{Out: out, ErrOut: out})
}

// subcommands lists the constructors of the registered subcommands; each
// subcommand file appends to it in an init function of its own file, so adding
// a command touches only its file. The order of the list is the order of init,
// i.e. file name order, and cobra sorts the help output anyway.
var subcommands []func(*globalOptions) *cobra.Command

// Main runs kerneltune with args and returns the process exit code.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	// The first Ctrl-C (SIGTERM, SIGHUP, SIGQUIT) cancels ctx and the
	// command winds down (exit 130; 129 for SIGHUP), saying which signal,
	// and a blocked write to stdout gives up (ctxio.Writer); a second
	// signal, or a command still running ctxio.ForceGrace after the first
	// (blocked where no signal reaches), is ended at once.
	var finished atomic.Bool
	ctx, stop := ctxio.Notify(context.Background(), ctxio.ForceGrace, func(line string, hangup bool) {
		if !finished.Load() {
			outfile.RemoveTemps()
			fmt.Fprintf(errOut, "kerneltune: stopped at once; %s\n", line)
			os.Exit(interrupted(hangup))
		}
	})
	defer stop()
	defer finished.Store(true)
	return run(ctx, args, in, out, errOut)
}

func run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	stdout := &ctxio.Writer{Ctx: ctx, W: out}
	g := &globalOptions{In: &ctxio.Reader{Ctx: ctx, R: in}, Out: stdout, ErrOut: errOut}
	root := newRootCmd(g)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil && stdout.Err() != nil { // --help, --version: cobra drops the error
		err = &runError{stdout.Err()}
	}
	if err == nil {
		return ExitOK
	}
	var (
		fe *flagError
		re *runError
		ie *ctxio.Interrupted
	)
	switch {
	case errors.As(err, &ie) || errors.Is(err, context.Canceled) || ctx.Err() != nil:
		// The command's own word on the interruption (ie), once, and the
		// signal that did it.
		line, hangup := ctxio.Line(ctx, err)
		fmt.Fprintf(errOut, "kerneltune: %s\n", line)
		return interrupted(hangup)
	case errors.As(err, &fe) || !errors.As(err, &re) && (stdout.Err() == nil || !errors.Is(err, stdout.Err())):
		// A flagError, or cobra's own: unknown command or flag, wrong
		// number of arguments.
		fmt.Fprintf(errOut, "kerneltune: %v\n", err)
		fmt.Fprintf(errOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return ExitUsage
	default:
		fmt.Fprintf(errOut, "kerneltune: %v\n", err)
		return ExitError
	}
}

// interrupted is the exit code of an interrupted command: 129 after SIGHUP.
func interrupted(hangup bool) int {
	if hangup {
		return ExitHangup
	}
	return ExitInterrupted
}
