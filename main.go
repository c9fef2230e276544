// Command kerneltune runs SVM kernel-tuning experiments: five published methods
// for choosing Gaussian-kernel hyperparameters and the grid-search baseline,
// under one experimental protocol.
package main

import (
	"os"

	"github.com/kerneltune/kerneltune/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
