// Command kerneltune runs SVM kernel-tuning experiments: five published methods
// for choosing Gaussian-kernel hyperparameters and the grid-search baseline,
// under one experimental protocol.
//
// For profiling a whole run as a user runs it (bench/large.sh's pprof
// breakdowns), KERNELTUNE_CPUPROFILE=FILE writes a CPU profile of the
// command to FILE (go tool pprof -top kerneltune FILE).
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/kerneltune/kerneltune/cmd"
)

func main() {
	if path := os.Getenv("KERNELTUNE_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kerneltune: KERNELTUNE_CPUPROFILE: %v\n", err)
			os.Exit(1)
		}
		code := cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "kerneltune: KERNELTUNE_CPUPROFILE: %v\n", err)
		}
		os.Exit(code)
	}
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
