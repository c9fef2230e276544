package cmd

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressLine draws "label done/total ETA" on one stderr line, only when
// stderr is a terminal and --quiet is off; elsewhere it prints nothing, so
// logs and redirected output stay clean.
type progressLine struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	start   time.Time
	enabled bool
	last    time.Time
}

func newProgress(g *globalOptions, label string) *progressLine {
	p := &progressLine{w: g.ErrOut, label: label, start: time.Now()}
	if f, ok := g.ErrOut.(*os.File); ok && !g.Quiet && term.IsTerminal(int(f.Fd())) {
		p.enabled = true
	}
	return p
}

// update redraws the line (at most ten times a second, and always at the end).
func (p *progressLine) update(done, total int, detail string) {
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

// finish ends the progress line.
func (p *progressLine) finish() {
	if p == nil || !p.enabled {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
