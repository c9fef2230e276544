// Command kerneltune runs SVM kernel-tuning experiments: five published methods
// for choosing Gaussian-kernel hyperparameters and the grid-search baseline,
// under one experimental protocol.
//
// For profiling a whole run as a user runs it (bench/large.sh's pprof
// breakdowns), KERNELTUNE_CPUPROFILE=FILE writes a CPU profile of the
// command to FILE (go tool pprof -top kerneltune FILE), and
// KERNELTUNE_MEMPROFILE=FILE its allocations (go tool pprof -sample_index
// alloc_space -top kerneltune FILE): where the collector's work comes from.
package main

import (
	"fmt"
	"os"
	"runtime"
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
	if path := os.Getenv("KERNELTUNE_MEMPROFILE"); path != "" {
		code := cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		f, err := os.Create(path)
		if err == nil {
			runtime.GC() // the live heap's figures up to date
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kerneltune: KERNELTUNE_MEMPROFILE: %v\n", err)
			code = max(code, 1)
		}
		os.Exit(code)
	}
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
