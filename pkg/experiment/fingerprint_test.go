package experiment

import (
	"maps"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// A class weight of 1 is no weight: --weight-pos 1 is the same run as no
// flag (the same settings, so the same run id and records that merge),
// while any other weight is another run.
func TestRunSettingsWeightOneIsNone(t *testing.T) {
	t.Parallel()
	settings := func(pos, neg float64) map[string]string {
		c := &Config{Base: methods.Common{WeightPos: pos, WeightNeg: neg}}
		return c.RunSettings(nil, nil)
	}
	none := settings(0, 0)
	if got := settings(1, 1); !maps.Equal(got, none) {
		t.Errorf("weights 1, 1: %v, want the settings without weights %v", got, none)
	}
	if got := settings(2, 1); maps.Equal(got, none) {
		t.Errorf("weight 2 gave the settings without weights")
	}
}
