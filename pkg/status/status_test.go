package status

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestText: every status writes its name and reads back (results files store
// them), an unknown name is an error, a value outside the table prints as a
// number, and Err marks the unusable ones. The names are those the three
// enums of solver, sqp and methods wrote before they became this one.
func TestText(t *testing.T) {
	want := []string{"not-terminated", "converged", "iteration-limit", "canceled", "failure", "line-search-failure", "infeasible"}
	if len(want) != len(statuses) {
		t.Fatalf("%d statuses, want %d", len(statuses), len(want))
	}
	for s := NotTerminated; s <= Infeasible; s++ {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if w := `"` + want[s] + `"`; string(b) != w {
			t.Errorf("%d marshals to %s, want %s", int(s), b, w)
		}
		var back Status
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s reads back as %v, %v", b, back, err)
		}
		if unusable := s == Canceled || s == Failure || s == Infeasible; (s.Err() != nil) != unusable {
			t.Errorf("%v.Err() = %v", s, s.Err())
		}
		if early := s != NotTerminated && s != Converged; s.Early() != early {
			t.Errorf("%v.Early() = %v", s, s.Early())
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
		if bad.Err() != nil || bad.Early() {
			t.Errorf("Status(%d): Err %v, Early %v", int(bad), bad.Err(), bad.Early())
		}
	}
}
