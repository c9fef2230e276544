// Package progress draws the one-line progress display of kerneltune's long
// commands (tune, compare). It is a package of its own, not a part of cmd,
// because it is terminal plumbing that knows nothing of the commands: cmd
// only decides when to show it (stderr a terminal, --quiet off) and what to
// say.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Line draws "label done/total ETA detail" on one line of w, only when
// enabled; otherwise it prints nothing, so logs and redirected output stay
// clean. A nil *Line is a disabled one.
type Line struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	start   time.Time
	enabled bool
	last    time.Time
	stage   string
}

// New returns a line on w, enabled when w is a terminal and quiet is off.
func New(w io.Writer, label string, quiet bool) *Line {
	p := &Line{w: w, label: label, start: time.Now()}
	if f, ok := w.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
		p.enabled = true
	}
	return p
}

// Update redraws the line (at most ten times a second, and always at the
// end).
func (p *Line) Update(done, total int, detail string) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	eta := "?"
	if done > 0 {
		elapsed := now.Sub(p.start)
		rem := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
		eta = rem.Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d  ETA %s  %s", p.label, done, total, eta, detail)
}

// Stage is Update for a long step of work counted in parts (the grid
// search's jobs): the stage's name is the detail, and the ETA counts from
// the stage's first update, so that a second stage (the refinement on all
// rows) is not estimated from the first one's pace.
func (p *Line) Stage(stage string, done, total int) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	if stage != p.stage {
		p.stage, p.start, p.last = stage, time.Now(), time.Time{}
	}
	p.mu.Unlock()
	p.Update(done, total, stage)
}

// Finish clears the line.
func (p *Line) Finish() {
	if p == nil || !p.enabled {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
