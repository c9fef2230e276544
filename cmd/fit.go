package cmd

// What train and tune share: the command line and the output files' check.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// checkOutputDirs returns an error naming the flag when the directory of an
// output file does not exist, so that train and tune fail before the work
// and not when they save its result. Flags given "" are skipped.
func checkOutputDirs(files ...[2]string) error {
	for _, f := range files {
		flag, path := f[0], f[1]
		if path == "" {
			continue
		}
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil {
			return fmt.Errorf("%s %s: %w", flag, path, err)
		} else if !st.IsDir() {
			return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
		}
	}
	return nil
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
