package methods

import (
	"context"
	"errors"
	"fmt"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// Custom is a tuning method given as a Go function: a program's own method,
// run by Tune and by the protocol (pkg/experiment) exactly as the built-in
// ones are, with their multi-class dispatch, large-data subset and records.
// The built-in methods' tuning is not exported (Spec's tune): Tune is the
// one way in.
type Custom struct {
	// Common holds the shared settings (the seed, workers, C, …) the
	// protocol sets per job through WithBase.
	Common
	// ID is the method's name in records and tables; it must not be one
	// of the registry's names.
	ID string
	// Func tunes on one binary training part (already normalised) with the
	// shared settings c, as Spec's tune does. Required.
	Func func(ctx context.Context, c Common, train *dataio.Dataset) (*Result, error)
	// Peak estimates the peak memory in bytes on n rows of d features; nil
	// counts the runtime's share and the data (RuntimeBytes + 3·8·n·d).
	Peak func(n, d int) int64
	// Validate, if set, is Check's own part (after the shared settings').
	Validate func() error
}

// Name returns the method's name.
func (c Custom) Name() string { return c.ID }

// Check refuses a Custom without a name or function, or whose name is a
// built-in method's, and then checks the shared settings and Validate.
func (c Custom) Check() error {
	if c.ID == "" {
		return errors.New("custom method: no ID")
	}
	if _, err := Lookup(c.ID); err == nil {
		return fmt.Errorf("custom method %q: the name of a built-in method", c.ID)
	}
	if c.Func == nil {
		return fmt.Errorf("custom method %q: no Func", c.ID)
	}
	if err := c.Common.check(c.ID); err != nil {
		return err
	}
	if c.Validate != nil {
		return c.Validate()
	}
	return nil
}

func (c Custom) tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	return c.Func(ctx, c.Common, train)
}

// PeakBytes is Peak, or the runtime's share and three copies of the data.
func (c Custom) PeakBytes(n, d int) int64 {
	if c.Peak != nil {
		return c.Peak(n, d)
	}
	return RuntimeBytes + 3*8*int64(n)*int64(d)
}

// Base returns the shared settings.
func (c Custom) Base() Common { return c.Common }

// WithBase returns a copy with the shared settings b.
func (c Custom) WithBase(b Common) Spec { c.Common = b; return c }
