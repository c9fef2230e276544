package model

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// TestKernelSettingsSpec: train's kernel flags as a spec for d features
// (moved with cmd's kernelSpec and metricSpec); what does not fit d is a
// *ParamError naming the parameter.
func TestKernelSettingsSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    KernelSettings
		want kernel.Spec
	}{
		{"default γ = 1/d", KernelSettings{}, kernel.Spec{Kind: kernel.KindGaussian, Gamma: 0.25}},
		{"gamma", KernelSettings{Gamma: 2}, kernel.Spec{Kind: kernel.KindGaussian, Gamma: 2}},
		{"sigma before gamma", KernelSettings{Sigma: 0.5, Gamma: 7}, kernel.Spec{Kind: kernel.KindGaussian, Gamma: 2}},
		{"isotropic Q", KernelSettings{Q: [][]float64{{2, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 2, 0}, {0, 0, 0, 2}}}, kernel.Spec{Kind: kernel.KindGaussian, Gamma: 1}},
		{"l1 default θ", KernelSettings{Kind: KernelL1}, kernel.Spec{Kind: kernel.KindL1, Theta: []float64{1, 1, 1, 1}}},
		{"l1 one θ", KernelSettings{Kind: KernelL1, Theta: []float64{3}}, kernel.Spec{Kind: kernel.KindL1, Theta: []float64{3, 3, 3, 3}}},
		{"linear", KernelSettings{Kind: KernelLinear}, kernel.Spec{Kind: kernel.KindLinear}},
	} {
		got, err := tc.k.Spec(4)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name, param, msg string
		k                KernelSettings
	}{
		{"θ count", "theta", "2 values for 4 features (give one or 4)", KernelSettings{Kind: KernelL1, Theta: []float64{1, 2}}},
		{"Q rows", "Q", "2 rows, but the data has 4 features", KernelSettings{Q: [][]float64{{1, 0}, {0, 1}}}},
		{"Q not symmetric", "Q", "not symmetric: Q[1][2] = 0.5 but Q[2][1] = 0", KernelSettings{Q: [][]float64{{1, 0.5, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}}},
		{"Q not PD", "Q", "not positive definite", KernelSettings{Q: [][]float64{{1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}}},
	} {
		_, err := tc.k.Spec(4)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != tc.param || !strings.Contains(pe.Err.Error(), tc.msg) {
			t.Errorf("%s: %v; want a %s error with %q", tc.name, err, tc.param, tc.msg)
		}
	}
}
