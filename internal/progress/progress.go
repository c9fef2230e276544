// Package progress draws the progress of kerneltune's long commands (tune,
// compare) on stderr. It is a package of its own, not a part of cmd,
// because it is terminal plumbing that knows nothing of the commands: cmd
// only decides what to say.
//
// On a terminal it redraws one line (\r and an erase), at most ten times a
// second. Elsewhere (a batch job, nohup, a Slurm log) it prints plain lines,
// as pip or rsync do: one when the work starts, then at most one every
// Interval (30 s) while it runs, and, if it printed one of those, one when
// it ends. --quiet turns it off.
//
// The ETA is the elapsed time × the work still to do / the work done since
// the first report (State.Fraction): one estimate for the whole run, from
// its measured pace.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// DefaultInterval is the least time between two plain lines; the
// environment variable IntervalEnv (a Go duration: 10s, 5m) sets another,
// and 0 turns the plain lines off (a terminal's line stays).
const DefaultInterval = 30 * time.Second

// IntervalEnv names the environment variable that sets Interval.
const IntervalEnv = "KERNELTUNE_PROGRESS_INTERVAL"

type mode int

const (
	off mode = iota
	terminal
	plain
)

// State is what a line shows: the share of the whole work done, the
// current stage (its name, its index among the run's stages, its parts
// done) and a detail.
type State struct {
	// Fraction is the share of the whole run's work done, in [0, 1].
	Fraction float64
	// Stage names the work in progress; StageIndex (1-based) of Stages
	// says where it stands in the run (0: not shown).
	Stage              string
	StageIndex, Stages int
	// Done of Total parts of the stage (or jobs of the run) are done.
	Done, Total int
	// Detail is the last step's summary, or "".
	Detail string
}

// Line draws a run's progress on w. A nil *Line is a disabled one.
type Line struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	mode  mode
	// Interval is the least time between two plain lines (DefaultInterval);
	// set it before the first report.
	Interval time.Duration
	now      func() time.Time

	start, last time.Time
	f0          float64 // the fraction at the first report: work done before this run (resumed)
	started     bool
	periodic    bool // a plain line besides the start line was printed
	st          State
	stop        chan struct{}
	stopped     chan struct{}
}

// New returns a line on w labelled label: a redrawn line when w is a
// terminal, plain lines otherwise, nothing when quiet.
func New(w io.Writer, label string, quiet bool) *Line {
	p := &Line{w: w, label: label, Interval: DefaultInterval, now: time.Now}
	switch {
	case quiet:
		p.mode = off
	case isTerminal(w):
		p.mode = terminal
	default:
		p.mode = plain
	}
	if v := os.Getenv(IntervalEnv); v != "" && p.mode == plain {
		d, err := time.ParseDuration(v)
		switch {
		case err == nil && d == 0:
			p.mode = off
		case err != nil || d < 0:
			fmt.Fprintf(w, "%s: %s=%q is not a duration (as 10s or 5m, or 0 for no progress lines); printing every %s\n", label, IntervalEnv, v, DefaultInterval)
		default:
			p.Interval = d
		}
	}
	p.start = p.now()
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Update reports done of total equal parts (compare's jobs): the fraction
// is done/total.
func (p *Line) Update(done, total int, detail string) {
	f := 0.0
	if total > 0 {
		f = float64(done) / float64(total)
	}
	p.Set(State{Fraction: f, Done: done, Total: total, Detail: detail})
}

// Set reports the state s.
func (p *Line) Set(s State) {
	if p == nil || p.mode == off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	s.Fraction = min(max(s.Fraction, 0), 1)
	first := !p.started
	if first {
		p.started, p.f0 = true, s.Fraction
	}
	p.st = s
	switch p.mode {
	case terminal:
		if !first && s.Fraction < 1 && now.Sub(p.last) < 100*time.Millisecond {
			return
		}
		p.last = now
		fmt.Fprintf(p.w, "\r\033[K%s", p.text(now, false))
	case plain:
		if first {
			p.last = now
			fmt.Fprintln(p.w, p.text(now, true))
			if p.Interval > 0 && p.stop == nil {
				p.tick()
			}
			return
		}
		p.printDue(now)
	}
}

// printDue prints a plain line if Interval has passed since the last one
// (p.mu held).
func (p *Line) printDue(now time.Time) {
	if now.Sub(p.last) < p.Interval {
		return
	}
	p.last, p.periodic = now, true
	fmt.Fprintln(p.w, p.text(now, true))
}

// tick prints the last state once an Interval has passed without a line
// (a long stage of few parts: the final fit), until Finish. It looks four
// times an Interval, so that lines come between one and 1.25 Intervals
// apart however the reports fall.
func (p *Line) tick() {
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	t := time.NewTicker(max(p.Interval/4, time.Millisecond))
	go func() {
		defer close(p.stopped)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.printDue(p.now())
				p.mu.Unlock()
			}
		}
	}()
}

// text is the line: label, percent, stage and its parts, elapsed (plain
// lines only), ETA, detail.
func (p *Line) text(now time.Time, long bool) string {
	s := p.st
	var b strings.Builder
	b.WriteString(p.label)
	if long {
		b.WriteString(":")
	}
	fmt.Fprintf(&b, " %3.0f%%", math.Floor(100*s.Fraction))
	if s.Stages > 1 {
		fmt.Fprintf(&b, "  stage %d/%d", s.StageIndex, s.Stages)
	}
	if s.Total > 0 {
		fmt.Fprintf(&b, "  %d/%d", s.Done, s.Total)
	}
	elapsed := now.Sub(p.start)
	if long {
		fmt.Fprintf(&b, "  elapsed %s", round(elapsed))
	}
	fmt.Fprintf(&b, "  ETA %s", p.eta(elapsed, s.Fraction))
	for _, t := range []string{s.Stage, s.Detail} {
		if t != "" {
			b.WriteString("  ")
			b.WriteString(t)
		}
	}
	return b.String()
}

// eta is the time left: elapsed × (1 - f) / (f - f0), the pace of the work
// done since the first report; "?" before any is done.
func (p *Line) eta(elapsed time.Duration, f float64) string {
	if f >= 1 {
		return "0s"
	}
	done := f - p.f0
	if done <= 0 || elapsed <= 0 {
		return "?"
	}
	return round(time.Duration(float64(elapsed) * (1 - f) / done)).String()
}

// round rounds d to the second.
func round(d time.Duration) time.Duration { return d.Round(time.Second) }

// Finish ends the line: a terminal's is cleared; plain lines end with one
// saying the run is done and its time, when the run printed more than its
// start line.
func (p *Line) Finish() {
	if p == nil || p.mode == off {
		return
	}
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.mode {
	case terminal:
		fmt.Fprint(p.w, "\r\033[K")
	case plain:
		if p.periodic {
			fmt.Fprintf(p.w, "%s: ended after %s\n", p.label, round(p.now().Sub(p.start)))
		}
	}
}
