package methods_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// ExampleTune_spd learns a diagonal metric Q on Weston's toy problem
// (two informative features among 52) and reads diag(Q) as a feature ranking.
func ExampleTune_spd() {
	raw := dataio.Weston(100, 20, rand.New(rand.NewPCG(1, 0x77)))
	nz, err := dataio.FitNormalizer(dataio.ZScore, raw.X)
	if err != nil {
		panic(err)
	}
	train := nz.ApplyDataset(raw)

	s := methods.SPDSettings{Common: methods.Common{Seed: 1}, Param: "diag"}
	res, err := methods.Tune(context.Background(), s, train)
	if err != nil {
		panic(err)
	}
	q := res.Kernel.Diag
	top := slices.Index(q, slices.Max(q)) + 1
	fmt.Printf("C = %g, criterion decreased: %v\n", res.C, res.CriterionEnd < res.CriterionStart)
	fmt.Printf("largest diag(Q): feature %d of %d\n", top, len(q))
	// Output:
	// C = 1, criterion decreased: true
	// largest diag(Q): feature 1 of 52
}

// ExampleNew runs a method by name with the command line's param and mode,
// as `tune --method rcsc --param iso --schedule paper -C 1` does (compare's
// entry rcsc:iso@paper gives the same param and mode), setting the shared
// settings the command line's other flags give.
func ExampleNew() {
	heart, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	nz, err := dataio.FitNormalizer(dataio.ZScore, heart.X)
	if err != nil {
		panic(err)
	}
	s, err := methods.New("rcsc", "iso", "paper")
	if err != nil {
		panic(err)
	}
	s = s.WithBase(methods.Common{Seed: 1, C: 1})
	if err := s.Check(); err != nil {
		panic(err)
	}
	res, err := methods.Tune(context.Background(), s, nz.ApplyDataset(heart))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %s: %s kernel, gamma = %.2g, C = %g, %s after %d steps\n",
		res.Method, res.Param, res.Kernel.Kind, res.Kernel.Gamma, res.C, res.Status, res.Iter)
	// Output:
	// rcsc iso: gaussian kernel, gamma = 0.35, C = 1, iteration-limit after 100 steps
}
