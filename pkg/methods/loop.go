package methods

import "cmp"

// Loop holds the settings of a method's own loop that a command line gives
// every method alike (tune's --max-iter, --tol, --rho, --init, --margin and
// --budget, and tune's and compare's --log2c and --log2g). Each settings
// type takes the ones it has (WithLoop), so that a command needs no switch
// over the methods: a new method adds its own withLoop, and cmd is not
// edited. A zero field keeps the settings' own value (a preset's hard
// margin for gi, say).
type Loop struct {
	MaxIter int     // iterations (gi: iRprop+ steps); random's and bo's budget is Budget
	Tol     float64 // stopping tolerance
	Rho     float64 // spd's regularisation weight
	Init    string  // spd's start
	Margin  string  // gi's and lccp's margin
	Budget  int     // random's and bo's evaluated points
	// Space is the user's search space: svm's and halving's grid, random's
	// and bo's box (the other methods have none); a grid left zero keeps
	// the method's own.
	Space Space
}

// loopSetter is a Spec that takes Loop settings.
type loopSetter interface {
	withLoop(Loop) Spec
}

// ApplyLoop returns spec with the loop settings of l that it has
// (WithLoop), refusing a margin its method does not train with
// (Info.CheckMargin; a method outside the registry takes no margin): the
// one way a command or a comparison applies its shared loop settings to an
// entry.
func ApplyLoop(spec Spec, l Loop) (Spec, error) {
	if l.Margin != "" {
		in, err := Lookup(spec.Name())
		if err != nil {
			return nil, err
		}
		if err := in.CheckMargin(l.Margin); err != nil {
			return nil, err
		}
	}
	return WithLoop(spec, l), nil
}

// WithLoop returns spec with the loop settings of l that it has.
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
	s.Budget, s.Space = cmp.Or(l.Budget, s.Budget), l.Space.over(s.Space)
	return s
}

func (s BOSettings) withLoop(l Loop) Spec {
	s.Budget, s.Space = cmp.Or(l.Budget, s.Budget), l.Space.over(s.Space)
	return s
}

func (s SVMSettings) withLoop(l Loop) Spec {
	s.Space = l.Space.over(s.Space)
	return s
}

func (s HalvingSettings) withLoop(l Loop) Spec {
	s.Space = l.Space.over(s.Space)
	return s
}
