package report

import (
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

func TestInfoSplitSummary(t *testing.T) {
	for _, tc := range []struct {
		sp   []dataio.SplitSize
		want string
	}{
		{[]dataio.SplitSize{{Train: 2, Test: 2}}, "1 realisation of 2 train / 2 test"},
		{[]dataio.SplitSize{{Train: 400, Test: 4900}, {Train: 400, Test: 4900}}, "2 realisations of 400 train / 4900 test"},
		{[]dataio.SplitSize{{Train: 4, Test: 2}, {Train: 3, Test: 3}}, "2 realisations (first: 4 train / 2 test)"},
	} {
		if got := infoSplitSummary(tc.sp); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.sp, got, tc.want)
		}
	}
}
