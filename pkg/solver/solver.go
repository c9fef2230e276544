// Package solver is kerneltune's one SMO solver for LIBSVM's generic dual
//
//	min_α ½ αᵀPα + pᵀα  s.t.  yᵀα = Δ,  0 ≤ α_i ≤ C_i,  P_ij = y_i y_j Q_ij,
//
// (second-order working-set selection, gradient maintenance with Ḡ, shrinking,
// an LRU cache of kernel columns bounded in bytes, warm starts), and the
// formulations that build problems for it: C-SVC, hard margin, L2 soft margin
// (K + νI) and the radius of the smallest enclosing ball (../shared/DESIGN.md,
// "One SVM solver, several duals").
package solver

import "fmt"

// Status reports how a solve ended. A limit is a status, not an error.
type Status int

const (
	// NotTerminated is the zero value: the solver has not run.
	NotTerminated Status = iota
	// Converged: the maximal KKT violation fell below Eps.
	Converged
	// IterationLimit: MaxIter iterations ran without convergence.
	IterationLimit
	// Canceled: the context was cancelled.
	Canceled
	// Failure: a numerical breakdown (reported with an error).
	Failure
)

var statusNames = [...]string{"not-terminated", "converged", "iteration-limit", "canceled", "failure"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// MarshalText writes the status name (JSON output).
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
