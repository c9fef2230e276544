package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A line on a writer that is not a terminal prints nothing; an enabled one
// draws label, counts and detail, and clears itself at the end.
func TestLine(t *testing.T) {
	var b bytes.Buffer
	off := New(&b, "compare", false)
	off.Update(1, 2, "x")
	off.Finish()
	var nilLine *Line
	nilLine.Update(1, 2, "x")
	if b.Len() != 0 {
		t.Fatalf("a line off a terminal printed %q", b.String())
	}
	on := &Line{w: &b, label: "tune spd", enabled: true}
	on.Update(2, 2, "objective 1.5")
	on.Finish()
	if got := b.String(); !strings.Contains(got, "tune spd 2/2  ETA 0s  objective 1.5") || !strings.HasSuffix(got, "\r\033[K") {
		t.Fatalf("drawn %q", got)
	}
}

// Stage restarts the ETA when the stage changes and prints the stage.
func TestStage(t *testing.T) {
	var b bytes.Buffer
	on := &Line{w: &b, label: "tune svm", enabled: true, start: time.Now().Add(-time.Hour)}
	on.Stage("grid on 5000 rows", 1, 2)
	if got := b.String(); !strings.Contains(got, "tune svm 1/2  ETA 0s  grid on 5000 rows") {
		t.Fatalf("drawn %q: the hour before the stage counted", got)
	}
}
