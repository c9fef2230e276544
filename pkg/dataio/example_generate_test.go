package dataio_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// Generate draws Weston's problem: 52 features, only the first two
// informative, exactly half of the rows +1.
func ExampleGenerate() {
	g, err := dataio.Generate(context.Background(), dataio.GenerateSettings{Kind: dataio.GenWeston, N: 100, NoiseStd: 20, Seed: 1})
	if err != nil {
		panic(err)
	}
	pos, neg := g.Data.ClassCounts()
	fmt.Println(g.Data.Source)
	fmt.Println(g.Data.Len(), "rows,", g.Data.Dim(), "features,", pos, "+1 and", neg, "-1")
	// Output:
	// generated:weston n=100 noise-std=20
	// 100 rows, 52 features, 50 +1 and 50 -1
}

// The chessboard comes with its transform B̃ (x = B̃x̃), which WriteMatrix
// writes in full precision, as ReadMatrix reads it.
func ExampleGenerate_chessboard() {
	g, err := dataio.Generate(context.Background(), dataio.GenerateSettings{Kind: dataio.GenChessboard, N: 500, Seed: 1})
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	if err := dataio.WriteMatrix(&b, g.Transform); err != nil {
		panic(err)
	}
	rows, err := dataio.ReadMatrix(strings.NewReader(b.String()), "B")
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Data.Len(), "rows,", g.Data.Dim(), "features")
	fmt.Println(len(rows), "×", len(rows[0]), "transform read back exactly:", rows[1][0] == g.Transform.At(1, 0))
	// Output:
	// 500 rows, 2 features
	// 2 × 2 transform read back exactly: true
}
