package methods

import "fmt"

// Sizes a method refuses up front (issue 11: at n = 20,000 every method
// either finishes within 30 minutes on 2 cores or says before any work why
// it will not). Only twolevel has such a limit; the others either finish
// at 20,000 rows or are refused by the memory bound (CheckMemory).

// TwoLevelMaxRows is the most training rows twolevel takes without an
// explicit iteration limit. Its SQP carries a slack variable and a
// constraint per validation row (eq. 12; 2n/3 rows) in dense matrices and
// solves its QP subproblems by Goldfarb–Idnani over all of them: a step
// costs about O(n³). Measured on 2 cores (BENCHMARKS.md): 4.0 s per step
// at n = 5,000 and 36–38 s at 10,000 (a default run of about 40 steps:
// some 25 minutes); at n = 20,000 the first step's QP subproblem
// (Goldfarb–Idnani over 13,336 variables) was still running after 12
// minutes.
const TwoLevelMaxRows = 10_000

// twoLevelStepNote says what a step costs (BENCHMARKS.md).
const twoLevelStepNote = "a step took about 4 s at n = 5,000 and 37 s at 10,000, growing like n^3 (at 20,000 the first step's QP alone ran over 12 minutes), and a run takes about 40 steps"

// SizeError is a refusal to run before any work: the method is known to
// take hours on this many training rows.
type SizeError struct {
	Method string
	N, Max int    // training rows, and the most the method takes
	Reason string // why, with what was measured
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s refuses %d training rows, more than %d: %s; use fewer rows, or set an iteration limit to run that many steps anyway",
		e.Method, e.N, e.Max, e.Reason)
}

func twoLevelSize(n, maxIter int) error {
	if n <= TwoLevelMaxRows || maxIter > 0 {
		return nil
	}
	return &SizeError{Method: "twolevel", N: n, Max: TwoLevelMaxRows,
		Reason: fmt.Sprintf("its SQP has a variable and a constraint per validation row (%d of them here) and works on dense matrices of that size; %s",
			n-(n+2)/3, twoLevelStepNote)}
}
