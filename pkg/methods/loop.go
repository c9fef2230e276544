package methods

import "cmp"

// Loop holds the settings of a method's own loop that a command line gives
// every method alike (tune's --max-iter, --tol, --rho, --init, --margin and
// --budget). Each settings type takes the ones it has (WithLoop), so that a
// command needs no switch over the methods: a new method adds its own
// withLoop, and cmd is not edited. A zero field keeps the settings' own
// value (a preset's hard margin for gi, say).
type Loop struct {
	MaxIter int     // iterations (gi: iRprop+ steps); random's and bo's budget is Budget
	Tol     float64 // stopping tolerance
	Rho     float64 // spd's regularisation weight
	Init    string  // spd's start
	Margin  string  // gi's and lccp's margin
	Budget  int     // random's and bo's evaluated points
}

// loopSetter is a Spec that takes Loop settings.
type loopSetter interface {
	withLoop(Loop) Spec
}

// WithLoop returns spec with the loop settings of l that it has; a method
// without a loop of its own (svm, halving) is returned as it is.
func WithLoop(spec Spec, l Loop) Spec {
	if s, ok := spec.(loopSetter); ok {
		return s.withLoop(l)
	}
	return spec
}

func (s SPDSettings) withLoop(l Loop) Spec {
	s.MaxIter, s.Tol, s.Rho, s.Init = cmp.Or(l.MaxIter, s.MaxIter), cmp.Or(l.Tol, s.Tol), cmp.Or(l.Rho, s.Rho), cmp.Or(l.Init, s.Init)
	return s
}

func (s GISettings) withLoop(l Loop) Spec {
	s.Steps, s.Tol, s.Margin = cmp.Or(l.MaxIter, s.Steps), cmp.Or(l.Tol, s.Tol), cmp.Or(l.Margin, s.Margin)
	return s
}

func (s LCCPSettings) withLoop(l Loop) Spec {
	s.MaxIter, s.Tol, s.Margin = cmp.Or(l.MaxIter, s.MaxIter), cmp.Or(l.Tol, s.Tol), cmp.Or(l.Margin, s.Margin)
	return s
}

func (s RCSCSettings) withLoop(l Loop) Spec {
	s.MaxIter, s.Tol = cmp.Or(l.MaxIter, s.MaxIter), cmp.Or(l.Tol, s.Tol)
	return s
}

func (s TwoLevelSettings) withLoop(l Loop) Spec {
	s.MaxIter, s.Tol = cmp.Or(l.MaxIter, s.MaxIter), cmp.Or(l.Tol, s.Tol)
	return s
}

func (s RandomSettings) withLoop(l Loop) Spec {
	s.Budget = cmp.Or(l.Budget, s.Budget)
	return s
}

func (s BOSettings) withLoop(l Loop) Spec {
	s.Budget = cmp.Or(l.Budget, s.Budget)
	return s
}
