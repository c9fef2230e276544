package dataio

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Generate draws from (Seed, GenerateStream) what the package functions
// draw, with the defaults of the zero Dim and Stretch.
func TestGenerateStream(t *testing.T) {
	ctx := context.Background()
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(3, GenerateStream)) }
	g, err := Generate(ctx, GenerateSettings{Kind: GenWeston, N: 40, NoiseStd: 20, Seed: 3})
	if err != nil || !mat.Equal(g.Data.X, Weston(40, 20, rng()).X) || g.Transform != nil {
		t.Errorf("weston: %v", err)
	}
	g, err = Generate(ctx, GenerateSettings{Kind: GenChessboard, N: 30, Seed: 3})
	want, B := Chessboard(30, 2, 3, rng())
	if err != nil || !mat.Equal(g.Data.X, want.X) || !mat.Equal(g.Transform, B) {
		t.Errorf("chessboard: %v", err)
	}
	g, err = Generate(ctx, GenerateSettings{Kind: GenSparse, N: 30, Seed: 3})
	if err != nil || !mat.Equal(g.Data.X, SparseBinary(30, rng()).X) {
		t.Errorf("sparse: %v", err)
	}
}

func TestGenerateRefuses(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx context.Context
		s   GenerateSettings
	}{
		{context.Background(), GenerateSettings{Kind: "moons", N: 10}},
		{context.Background(), GenerateSettings{Kind: GenWeston}},
		{context.Background(), GenerateSettings{Kind: GenWeston, N: MaxGenerateValues / 53 * 2}},
		{context.Background(), GenerateSettings{Kind: GenWeston, N: 10, NoiseStd: math.NaN()}},
		{context.Background(), GenerateSettings{Kind: GenChessboard, N: 10, Dim: 1001}},
		{context.Background(), GenerateSettings{Kind: GenChessboard, N: 10, Stretch: -1}},
		{canceled, GenerateSettings{Kind: GenSparse, N: 10}},
	} {
		if _, err := Generate(tc.ctx, tc.s); err == nil {
			t.Errorf("%+v: no error", tc.s)
		}
	}
}
