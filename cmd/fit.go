package cmd

// What the commands share: the command line and the check of their files.

import (
	"errors"
	"math"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// commandLine rebuilds the command line from the arguments and the flags
// that were set, for a model's provenance (os.Args would be the test binary
// in tests).
func commandLine(cmd *cobra.Command, args []string) string {
	parts := []string{cmd.CommandPath()}
	parts = append(parts, args...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		parts = append(parts, "--"+f.Name+"="+f.Value.String())
	})
	return strings.Join(parts, " ")
}

// checkFiles refuses, before any work, an output that cannot be written (a
// FIFO, a socket, a device, a missing directory: exit 1) or that is an
// input or another output of the command (exit 2), by file identity.
func checkFiles(p *outfile.Plan) error {
	err := p.Check()
	if errors.As(err, new(*outfile.ConflictError)) {
		return usageErrorf("%v", err)
	}
	return err
}

// usageIf returns a usage error (exit code 2) when bad, nil otherwise: one
// line per flag check, in cmp.Or chains that report the first failure.
func usageIf(bad bool, format string, a ...any) error {
	if bad {
		return usageErrorf(format, a...)
	}
	return nil
}

// positive reports whether v is a positive finite number.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
