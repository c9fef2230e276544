package methods

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// TestCheckSize: twolevel refuses to learn on more than TwoLevelMaxRows
// training rows unless an iteration limit is given, before any work; by
// default it learns on a subset of KernelRows rows, so only KernelRows -1
// (all rows) or above the limit makes it refuse. No other method has a size
// limit.
func TestCheckSize(t *testing.T) {
	all := Common{KernelRows: -1}
	if err := CheckSize(TwoLevelSettings{Common: all}, TwoLevelMaxRows); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if err := CheckSize(TwoLevelSettings{}, 20_000); err != nil {
		t.Errorf("20,000 rows, learning on the default 5,000: %v", err)
	}
	err := CheckSize(TwoLevelSettings{Common: all}, 20_000)
	var se *SizeError
	if !errors.As(err, &se) || se.N != 20_000 || se.Max != 10_000 || !strings.Contains(err.Error(), "(13333 of them here)") {
		t.Fatalf("20,000 rows: %v", err)
	}
	if err := CheckSize(TwoLevelSettings{Common: all, MaxIter: 2}, 20_000); err != nil {
		t.Errorf("with MaxIter: %v", err)
	}
	for _, s := range []Spec{SVMSettings{}, SPDSettings{}, GISettings{}, LCCPSettings{}, RCSCSettings{}} {
		if err := CheckSize(s, 1_000_000); err != nil {
			t.Errorf("%s: %v", s.Name(), err)
		}
	}
	// The method itself refuses, at once (the data are 10,001 rows of
	// Weston's set: tuning them would take minutes).
	d := dataio.Weston(TwoLevelMaxRows+1, 20, rand.New(rand.NewPCG(1, 2)))
	_, err = TwoLevelSettings{}.tune(context.Background(), d)
	if !errors.As(err, &se) || se.N != TwoLevelMaxRows+1 {
		t.Errorf("TwoLevelSettings.Tune on 10,001 rows: %v, want a *SizeError", err)
	}
}
