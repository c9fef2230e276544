package experiment

import (
	"errors"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// lazyAfter is how long a compare's job runs before its checkpoint file is
// created: the steps of a shorter job are kept in memory only. Most jobs of
// a comparison of small data end within it, and a file created, locked,
// written and removed for each of them cost the default compare 0.9 s of
// its 6 (540 jobs); a kill -9 loses at most this much of a job's work.
const lazyAfter = time.Second

// jobCheckpoint keeps a compare job's step outcomes in memory until the job
// has run lazyAfter, then in its FileCheckpoint (the steps so far written
// first). A job whose file exists (a resume) opens it at once. Close (the
// job cut short: ctx cancelled) writes the steps held in memory, so that a
// Ctrl-C loses none.
type jobCheckpoint struct {
	mu      sync.Mutex
	open    func() (*FileCheckpoint, error)
	start   time.Time
	file    *FileCheckpoint
	keys    []string
	pending map[string][]byte
}

func newJobCheckpoint(open func() (*FileCheckpoint, error)) *jobCheckpoint {
	return &jobCheckpoint{open: open, start: time.Now(), pending: map[string][]byte{}}
}

// Steps is the number of step outcomes its file held when opened (0 when
// it has none yet).
func (c *jobCheckpoint) Steps() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return 0
	}
	return c.file.Steps()
}

// Outcome returns key's outcome.
func (c *jobCheckpoint) Outcome(key string) ([]byte, bool) {
	c.mu.Lock()
	f := c.file
	b, ok := c.pending[key]
	c.mu.Unlock()
	if f != nil {
		return f.Outcome(key)
	}
	return b, ok
}

// Record keeps key's outcome: in memory before lazyAfter, else in the file
// (opened then, with the steps held so far).
func (c *jobCheckpoint) Record(key string, outcome []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		if _, seen := c.pending[key]; !seen {
			c.keys = append(c.keys, key)
		}
		c.pending[key] = slices.Clone(outcome)
		if time.Since(c.start) < lazyAfter {
			return nil
		}
		return c.flush()
	}
	return c.file.Record(key, outcome)
}

// flush opens the file and writes the steps held in memory (c.mu held).
func (c *jobCheckpoint) flush() error {
	f, err := c.open()
	if err != nil {
		return err
	}
	for _, k := range c.keys {
		if err := f.Record(k, c.pending[k]); err != nil {
			f.Close()
			return err
		}
	}
	c.file, c.keys, c.pending = f, nil, nil
	return nil
}

// Close keeps the steps for a resume: those held in memory are written to
// the file first.
func (c *jobCheckpoint) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		if len(c.keys) == 0 {
			return nil
		}
		if err := c.flush(); err != nil {
			return err
		}
	}
	return c.file.Close()
}

// Remove deletes the file, if one was made: the job is recorded.
func (c *jobCheckpoint) Remove() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return nil
	}
	return c.file.Remove()
}

// fileExists reports whether path names something (a checkpoint to resume).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}

var _ methods.Checkpoint = (*jobCheckpoint)(nil)
