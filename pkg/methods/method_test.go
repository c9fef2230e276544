package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestStatusText: every status writes its name and reads back (results
// files store them), an unknown name is an error, and Err marks the unusable
// ones.
func TestStatusText(t *testing.T) {
	for s := NotTerminated; s <= Failure; s++ {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"` + statusNames[s] + `"`; string(b) != want {
			t.Errorf("%d marshals to %s, want %s", int(s), b, want)
		}
		var back Status
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s reads back as %v, %v", b, back, err)
		}
		if unusable := s == Canceled || s == Failure; (s.Err() != nil) != unusable {
			t.Errorf("%v.Err() = %v", s, s.Err())
		}
	}
	if !errors.Is(Canceled.Err(), context.Canceled) {
		t.Error("Canceled.Err() is not context.Canceled")
	}
	var s Status
	if err := s.UnmarshalText([]byte("done")); err == nil {
		t.Error(`status "done" accepted`)
	}
	for _, bad := range []Status{9, -1} {
		if got, want := bad.String(), fmt.Sprintf("Status(%d)", int(bad)); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int(bad), got, want)
		}
	}
}

func TestBreakdownError(t *testing.T) {
	var err error = &BreakdownError{Method: "gi", Iter: 4, Err: io.ErrUnexpectedEOF}
	// The "methods: " package prefix is on its way out (issue 20): not asserted.
	if got, want := strings.TrimPrefix(err.Error(), "methods: "), "gi: iteration 4: unexpected EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("BreakdownError does not unwrap to its cause")
	}
}
