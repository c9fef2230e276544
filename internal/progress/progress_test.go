package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// clock is a fake clock: now returns t, and tests move it.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// line returns a line of mode m on b whose clock is c, started at c's time.
func line(b *bytes.Buffer, m mode, c *clock) *Line {
	return &Line{w: b, label: "tune svm", mode: m, Interval: DefaultInterval, now: c.now, start: c.t}
}

// The ETA is the elapsed time × the work left / the work done: 25 % done
// in 1 minute leaves 3 minutes; then, at half way in 3 minutes, 3 minutes
// again (the pace slowed), whatever the stage's own parts say.
func TestETAArithmetic(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var b bytes.Buffer
	p := line(&b, terminal, c)
	p.Set(State{Fraction: 0, Stage: "grid search", StageIndex: 1, Stages: 3, Done: 0, Total: 50})
	if got := b.String(); !strings.Contains(got, "tune svm   0%  stage 1/3  0/50  ETA ?  grid search") {
		t.Fatalf("start: %q", got)
	}
	for _, tc := range []struct {
		after    time.Duration
		fraction float64
		want     string
	}{
		{time.Minute, 0.25, "  25%  stage 1/3  50/50  ETA 3m0s"},
		{3 * time.Minute, 0.5, "  50%  stage 1/3  50/50  ETA 3m0s"},
		{9 * time.Minute, 0.9, "  90%  stage 1/3  50/50  ETA 1m0s"},
		{10 * time.Minute, 1, " 100%  stage 1/3  50/50  ETA 0s"},
	} {
		b.Reset()
		c.t = p.start.Add(tc.after)
		p.Set(State{Fraction: tc.fraction, Stage: "grid search", StageIndex: 1, Stages: 3, Done: 50, Total: 50})
		if got := b.String(); !strings.Contains(got, "tune svm"+tc.want) {
			t.Errorf("after %v at %v: drawn %q, want %q", tc.after, tc.fraction, got, tc.want)
		}
	}
	p.Finish()
	if !strings.HasSuffix(b.String(), "\r\033[K") {
		t.Fatalf("Finish did not clear the line: %q", b.String())
	}
}

// Work done before the first report (a resumed compare's jobs) is not
// this run's pace: 4 of 10 jobs resumed, 1 more in a minute leaves 5
// minutes, not 1m12s.
func TestETAFromFirstReport(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var b bytes.Buffer
	p := line(&b, terminal, c)
	p.Update(4, 10, "jobs")
	c.t = c.t.Add(time.Minute)
	b.Reset()
	p.Update(5, 10, "jobs")
	if got := b.String(); !strings.Contains(got, "  50%  5/10  ETA 5m0s  jobs") {
		t.Fatalf("drawn %q", got)
	}
}

// Off a terminal the lines are plain (no \r, no escape codes): one at the
// start, then at most one per Interval, and an end line when it printed a
// periodic one. Quiet prints nothing.
func TestPlainLines(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var b bytes.Buffer
	p := line(&b, plain, c)
	p.Interval = 0 // no ticker: the clock is fake
	p.Set(State{Fraction: 0, Stage: "grid search: 10×11 points", StageIndex: 1, Stages: 2, Total: 50})
	p.Interval = 30 * time.Second
	for s := 1; s <= 100; s++ { // one report a second for 100 s
		c.t = c.t.Add(time.Second)
		p.Set(State{Fraction: float64(s) / 200, Stage: "grid search: 10×11 points", StageIndex: 1, Stages: 2, Done: s / 2, Total: 50})
	}
	c.t = c.t.Add(5 * time.Second)
	p.Finish()
	got := b.String()
	if strings.ContainsAny(got, "\r\033") {
		t.Fatalf("plain lines with terminal codes: %q", got)
	}
	want := []string{
		"tune svm:   0%  stage 1/2  0/50  elapsed 0s  ETA ?  grid search: 10×11 points",
		"tune svm:  15%  stage 1/2  15/50  elapsed 30s  ETA 2m50s  grid search: 10×11 points",
		"tune svm:  30%  stage 1/2  30/50  elapsed 1m0s  ETA 2m20s  grid search: 10×11 points",
		"tune svm:  45%  stage 1/2  45/50  elapsed 1m30s  ETA 1m50s  grid search: 10×11 points",
		"tune svm: ended after 1m45s",
	}
	if lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n"); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("plain lines:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	// A short run prints its start line only.
	b.Reset()
	p = line(&b, plain, c)
	p.Set(State{Fraction: 0, Stage: "a"})
	c.t = c.t.Add(2 * time.Second)
	p.Set(State{Fraction: 1, Stage: "b"})
	p.Finish()
	if got := b.String(); got != "tune svm:   0%  elapsed 0s  ETA ?  a\n" {
		t.Fatalf("short run: %q", got)
	}

	b.Reset()
	q := New(&b, "compare", true)
	q.Update(1, 2, "x")
	q.Finish()
	var nilLine *Line
	nilLine.Update(1, 2, "x")
	nilLine.Finish()
	if b.Len() != 0 {
		t.Fatalf("quiet printed %q", b.String())
	}
}

// The ticker prints the last state when no report comes for an Interval
// (the final fit's one part), and stops at Finish.
func TestTicker(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, "tune rcsc", false) // a buffer is no terminal: plain
	p.Interval = 20 * time.Millisecond
	p.Set(State{Fraction: 0.5, Stage: "final SVM on all 30000 rows", StageIndex: 3, Stages: 3, Total: 1})
	time.Sleep(150 * time.Millisecond)
	p.Finish()
	got := b.String()
	n := strings.Count(got, "final SVM on all 30000 rows")
	if n < 2 || !strings.HasSuffix(got, "\n") || !strings.Contains(got, "tune rcsc: ended after") {
		t.Fatalf("ticker printed %d lines:\n%s", n, got)
	}
	after := b.Len()
	time.Sleep(60 * time.Millisecond)
	if b.Len() != after {
		t.Fatalf("the ticker printed after Finish")
	}
}

// An invalid interval in the environment is said, and the default kept.
func TestIntervalEnv(t *testing.T) {
	var b bytes.Buffer
	t.Setenv(IntervalEnv, "5m")
	if p := New(&b, "tune svm", false); p.Interval != 5*time.Minute {
		t.Fatalf("Interval %v, want 5m", p.Interval)
	}
	t.Setenv(IntervalEnv, "soon")
	if p := New(&b, "tune svm", false); p.Interval != DefaultInterval || !strings.Contains(b.String(), `KERNELTUNE_PROGRESS_INTERVAL="soon" is not a duration`) {
		t.Fatalf("Interval %v, said %q", p.Interval, b.String())
	}
	b.Reset()
	t.Setenv(IntervalEnv, "0")
	p := New(&b, "tune svm", false)
	p.Set(State{Fraction: 0.5})
	p.Finish()
	if b.Len() != 0 {
		t.Fatalf("%s=0 printed %q", IntervalEnv, b.String())
	}
}
