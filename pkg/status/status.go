// Package status holds Status, the one enum that says how a run ended: an
// SMO solve (pkg/solver), an SQP minimisation (pkg/solver/sqp) and a
// method's tuning loop (pkg/methods) all report it. It is a package of its
// own, a leaf with no internal imports, so that none of the three imports
// another for it (methods uses solver and sqp; sqp does not use solver).
//
// The enum is a copy of gonum optimize's (termination.go): one table of
// {name, early, err} indexed by the status. A limit is a status, not an
// error: IterationLimit comes with a usable result.
package status

import (
	"context"
	"errors"
	"fmt"
)

// Status reports how a run ended. The zero value is NotTerminated.
type Status int

// The statuses. The order is that of the enums they replace (solver and
// methods had the first five), and the names are the ones written to JSON,
// tables and results files: neither may change.
const (
	// NotTerminated is the zero value: the run has not ended.
	NotTerminated Status = iota
	// Converged: the run's stopping rule held (the SMO's KKT violation below
	// Eps, the SQP's KKT conditions to Tol, a method's paper's rule).
	Converged
	// IterationLimit: the iteration limit was reached without convergence;
	// the result is the last point and usable.
	IterationLimit
	// Canceled: the context was cancelled.
	Canceled
	// Failure: a numerical breakdown (reported with an error).
	Failure
	// LineSearchFailure (SQP): no step decreased the merit function although
	// the KKT test failed (often rounding close to a solution; the result
	// holds the best point).
	LineSearchFailure
	// Infeasible (SQP): the relaxed QP could not reduce the constraint
	// violation (a local minimiser of infeasibility).
	Infeasible
)

// ErrFailure is Failure's Err: the run broke down.
var ErrFailure = errors.New("the run failed")

// ErrInfeasible is Infeasible's Err: no feasible point was found.
var ErrInfeasible = errors.New("no feasible point found")

// statuses is indexed by Status. early: the run stopped before its
// stopping rule held; err: the result is unusable (Err).
var statuses = [...]struct {
	name  string
	early bool
	err   error
}{
	NotTerminated:     {"not-terminated", false, nil},
	Converged:         {"converged", false, nil},
	IterationLimit:    {"iteration-limit", true, nil},
	Canceled:          {"canceled", true, context.Canceled},
	Failure:           {"failure", true, ErrFailure},
	LineSearchFailure: {"line-search-failure", true, nil},
	Infeasible:        {"infeasible", true, ErrInfeasible},
}

func (s Status) valid() bool { return s >= 0 && int(s) < len(statuses) }

// String returns the status name ("converged", "iteration-limit", …), or
// "Status(n)" for a value outside the table.
func (s Status) String() string {
	if s.valid() {
		return statuses[s].name
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Early reports whether the run stopped before its stopping rule held (a
// limit, a cancellation, a failure).
func (s Status) Early() bool { return s.valid() && statuses[s].early }

// Err returns a non-nil error for the statuses whose result is unusable:
// context.Canceled for Canceled, ErrFailure, ErrInfeasible. A limit is not
// an error.
func (s Status) Err() error {
	if s.valid() {
		return statuses[s].err
	}
	return nil
}

// MarshalText writes the status name (JSON output, results files).
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, st := range statuses {
		if st.name == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown status %q", b)
}
