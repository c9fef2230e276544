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
