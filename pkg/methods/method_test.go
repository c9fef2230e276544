package methods

import (
	"errors"
	"io"
	"testing"
)

func TestBreakdownError(t *testing.T) {
	var err error = &BreakdownError{Method: "gi", Iter: 4, Err: io.ErrUnexpectedEOF}
	if got, want := err.Error(), "gi: iteration 4: unexpected EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("BreakdownError does not unwrap to its cause")
	}
}

// TestStepSummary: a progress line names #SV only for a step with an SVM.
func TestStepSummary(t *testing.T) {
	for _, c := range []struct {
		s    Step
		want string
	}{
		{Step{Objective: 0.857875}, "objective 0.857875"},
		{Step{Objective: 12.5, NSV: 31}, "objective 12.5  #SV 31"},
	} {
		if got := c.s.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
