package experiment_test

import (
	"fmt"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// A preset builds the paper's sources and method entries; each partition
// draws a fresh sample.
func ExampleLookupPreset() {
	p, ok := experiment.LookupPreset("laanaya-weston")
	if !ok {
		panic("no preset")
	}
	sources, entries, err := p.Build(experiment.PresetSettings{Partitions: 2, TrainSize: 50, Seed: 1})
	if err != nil {
		panic(err)
	}
	src := sources[0]
	train, test, _ := src.Partition(0)
	fmt.Println(src.Name(), src.Len(), "partitions, methods", entries)
	fmt.Println("partition 1:", train.Len(), "training and", test.Len(), "test rows of", train.Dim(), "features")
	// Output:
	// weston 2 partitions, methods [svm spd:diag]
	// partition 1: 50 training and 100 test rows of 52 features
}
