package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
)

// node is a function of the program: a declared function or method, or a
// function literal.
type node struct {
	// name is the function's, its package's name first; a function
	// literal is named as Go names it: the enclosing function's name and
	// .funcN, N counting its literals from 1. caller is the enclosing
	// function's name (for a literal) or name.
	name, caller string
	pkg          *Package
	file         string
	sig          *types.Signature
	body         *ast.BlockStmt
	result       state // what the function's results carry
	// returns: a result carries the settings, or holds them in a field
	// (a struct literal with such an element, or a variable one of whose
	// fields was assigned them in the function).
	returns bool
}

// state is what a location or an expression carries: the settings
// (taint) and, for a value of function type, the functions it may be.
type state struct {
	taint bool
	funcs map[*node]bool
}

// merge adds b to *a and reports whether *a changed.
func (a *state) merge(b state) bool {
	changed := false
	if b.taint && !a.taint {
		a.taint, changed = true, true
	}
	for f := range b.funcs {
		if !a.funcs[f] {
			if a.funcs == nil {
				a.funcs = map[*node]bool{}
			}
			a.funcs[f], changed = true, true
		}
	}
	return changed
}

func union(a, b state) state {
	var s state
	s.merge(a)
	s.merge(b)
	return s
}

// Climb is a call that takes the settings back up: Caller, in a package,
// calls Callee in a package that is not below it with them (Kind "call":
// a function value or a method of an interface), or Callee, below,
// returns them to Caller (Kind "return").
type Climb struct {
	Kind, Caller, Callee string
	From, To             string // the packages: the settings go from From up to To
}

// Travel is the measure of one settings type.
type Travel struct {
	// Files are the files (relative to the module) with an expression that
	// carries the settings, sorted; Evidence has one such expression's
	// position for each.
	Files    []string
	Evidence map[string]string
	// Climbs are the distinct (kind, caller, callee) climbs, sorted.
	Climbs []Climb
}

// analysis is the state of Measure.
type analysis struct {
	prog       *Program
	settings   *types.TypeName
	stop       map[string]bool
	stopFields map[*types.Var]bool
	below      map[string]map[string]bool

	funcs    map[*types.Func]*node
	lits     map[*ast.FuncLit]*node
	locs     map[*types.Var]*state
	holds    map[*types.Var]bool
	pkgOf    map[*types.Package]*Package
	named    []types.Type // the module's named types and pointers to them, for interface calls
	impls    map[*types.Func][]*node
	consider map[*node]bool
	changed  bool
}

// Measure follows the settings of type settings (a named type of prog,
// "import/path.Name") from entry (a function of prog, "import/path.Name")
// as main's doc comment defines it; locations of the stop types
// ("import/path.Name") do not carry them.
func Measure(prog *Program, settings, entry string, stop ...string) (*Travel, error) {
	a := &analysis{prog: prog, stop: map[string]bool{}, stopFields: map[*types.Var]bool{}, below: prog.below(), funcs: map[*types.Func]*node{}, lits: map[*ast.FuncLit]*node{},
		locs: map[*types.Var]*state{}, holds: map[*types.Var]bool{}, pkgOf: map[*types.Package]*Package{}, impls: map[*types.Func][]*node{}, consider: map[*node]bool{}}
	obj, err := a.lookup(settings)
	if err != nil {
		return nil, err
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		return nil, fmt.Errorf("%s is not a type", settings)
	}
	a.settings = tn
	for _, t := range stop {
		if t == "" {
			continue
		}
		a.stop[t] = true
		obj, err := a.lookup(t)
		if err != nil {
			return nil, err
		}
		if st, ok := obj.Type().Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				a.stopFields[st.Field(i)] = true
			}
		}
	}
	if obj, err = a.lookup(entry); err != nil {
		return nil, err
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return nil, fmt.Errorf("%s is not a function", entry)
	}
	a.index()
	a.consider[a.funcs[fn]] = true
	// Every function that handles a value of the settings type is a start
	// too: the code that builds the settings and hands them to entry.
	for _, n := range a.all() {
		if a.mentions(n) {
			a.consider[n] = true
		}
	}
	for a.changed = true; a.changed; {
		a.changed = false
		for _, n := range a.all() {
			if a.consider[n] {
				a.flows(n)
			}
		}
	}
	return a.measure(), nil
}

// lookup finds "import/path.Name" among prog's packages.
func (a *analysis) lookup(qualified string) (types.Object, error) {
	i := strings.LastIndex(qualified, ".")
	if i < 0 {
		return nil, fmt.Errorf("want import/path.Name, got %q", qualified)
	}
	for _, p := range a.prog.Packages {
		if p.Path == qualified[:i] {
			if obj := p.Types.Scope().Lookup(qualified[i+1:]); obj != nil {
				return obj, nil
			}
		}
	}
	return nil, fmt.Errorf("%s not found in the module", qualified)
}

// index makes a node of every function and function literal and lists
// the module's named types.
func (a *analysis) index() {
	for _, p := range a.prog.Packages {
		a.pkgOf[p.Types] = p
		for _, f := range p.Files {
			file := a.prog.Fset.Position(f.Pos()).Filename
			outer, lits := p.Types.Name()+".init", 0
			ast.Inspect(f, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.FuncDecl:
					fn := p.Info.Defs[x.Name].(*types.Func)
					outer, lits = funcName(fn), 0
					if x.Body != nil {
						a.funcs[fn] = &node{name: outer, caller: outer, pkg: p, file: file, sig: fn.Type().(*types.Signature), body: x.Body}
					}
				case *ast.FuncLit:
					lits++
					sig, _ := p.Info.Types[x].Type.(*types.Signature)
					a.lits[x] = &node{name: fmt.Sprintf("%s.func%d", outer, lits), caller: outer, pkg: p, file: file, sig: sig, body: x.Body}
				}
				return true
			})
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
				if _, isIface := tn.Type().Underlying().(*types.Interface); !isIface {
					a.named = append(a.named, tn.Type(), types.NewPointer(tn.Type()))
				}
			}
		}
	}
}

// all returns the nodes in a fixed order (by name and position).
func (a *analysis) all() []*node {
	out := slices.Collect(maps.Values(a.funcs))
	out = append(out, slices.Collect(maps.Values(a.lits))...)
	slices.SortFunc(out, func(x, y *node) int {
		return cmp.Or(strings.Compare(x.file, y.file), cmp.Compare(x.body.Pos(), y.body.Pos()))
	})
	return out
}

func funcName(fn *types.Func) string {
	prefix := ""
	if fn.Pkg() != nil {
		prefix = fn.Pkg().Name() + "."
	}
	name := prefix + fn.Name()
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			name = prefix + n.Obj().Name() + "." + fn.Name()
		}
	}
	return name
}

// isSettings reports whether t is the settings type or a pointer to it.
func (a *analysis) isSettings(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj() == a.settings
}

// mentions reports whether n has an expression of the settings type.
func (a *analysis) mentions(n *node) bool {
	found := false
	ast.Inspect(n.body, func(x ast.Node) bool {
		if e, ok := x.(ast.Expr); ok && !found {
			if tv, ok := n.pkg.Info.Types[e]; ok && tv.IsValue() && a.isSettings(tv.Type) {
				found = true
			}
		}
		return !found
	})
	return found
}

// loc is the state of a variable, parameter, result or struct field.
func (a *analysis) loc(v *types.Var) *state {
	v = v.Origin()
	s := a.locs[v]
	if s == nil {
		s = &state{}
		a.locs[v] = s
	}
	return s
}

// canCarry reports whether a location of type t can carry the settings:
// not a string, number or bool (a value copied out of them: where the
// settings go ends there), nor an error (which may describe them), nor an
// empty interface or a slice of them (formatting's arguments), nor one of
// the stop types (the data; a pointer to, or a slice of, one too).
func (a *analysis) canCarry(t types.Type) bool {
	if t == nil || types.Identical(t, types.Universe.Lookup("error").Type()) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return false
	case *types.Interface:
		return !u.Empty()
	case *types.Pointer:
		return a.canCarry(u.Elem())
	case *types.Slice:
		return a.canCarry(u.Elem())
	}
	n, ok := t.(*types.Named)
	return !ok || !a.stop[n.Obj().Pkg().Path()+"."+n.Obj().Name()]
}

// flow adds s to the location v, if its type can carry the settings and
// it is not a field of a stop type.
func (a *analysis) flow(s state, v *types.Var) {
	if v != nil && a.canCarry(v.Type()) && !a.stopFields[v.Origin()] && a.loc(v).merge(s) {
		a.changed = true
	}
}

// carries is eval for what flows on: nothing from an expression whose
// type cannot carry the settings.
func (a *analysis) carries(n *node, e ast.Expr) state {
	if !a.canCarry(n.pkg.Info.TypeOf(e)) {
		return state{}
	}
	return a.eval(n, e)
}

// target is where an assignment to e stores: the variable, or the struct
// field, or for an element (x[i], *x) the variable that holds it.
func (a *analysis) target(info *types.Info, e ast.Expr) *types.Var {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := info.Defs[e].(*types.Var); ok {
			return v
		}
		if v, ok := info.Uses[e].(*types.Var); ok {
			return v
		}
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			return sel.Obj().(*types.Var)
		}
		if v, ok := info.Uses[e.Sel].(*types.Var); ok {
			return v // a package's variable
		}
	case *ast.IndexExpr:
		return a.target(info, e.X)
	case *ast.StarExpr:
		return a.target(info, e.X)
	}
	return nil
}

// holder is the local variable whose field an assignment to e sets
// (v.f = ..., v.f.g = ...), or nil.
func holder(info *types.Info, e ast.Expr) *types.Var {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || info.Selections[sel] == nil {
		return nil
	}
	if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok {
		v, _ := info.Uses[id].(*types.Var)
		return v
	}
	return holder(info, sel.X)
}

// eval is what the expression e of n carries.
func (a *analysis) eval(n *node, e ast.Expr) state {
	info := n.pkg.Info
	var s state
	if tv, ok := info.Types[e]; ok && tv.IsValue() && a.isSettings(tv.Type) {
		s.taint = true
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return union(s, a.eval(n, e.X))
	case *ast.Ident:
		switch obj := info.Uses[e].(type) {
		case *types.Var:
			return union(s, *a.loc(obj))
		case *types.Func:
			if f := a.funcs[obj.Origin()]; f != nil {
				s.merge(state{funcs: map[*node]bool{f: true}})
			}
		}
	case *ast.SelectorExpr:
		sel := info.Selections[e]
		switch {
		case sel == nil: // a package's name
			return union(s, a.eval(n, e.Sel))
		case sel.Kind() == types.FieldVal:
			// A field of something that carries the settings carries them.
			s = union(s, *a.loc(sel.Obj().(*types.Var)))
			if a.eval(n, e.X).taint {
				s.taint = true
			}
		case sel.Kind() == types.MethodVal: // a method value: x.M bound
			s.taint = s.taint || a.eval(n, e.X).taint
			for _, f := range a.methods(sel) {
				s.merge(state{funcs: map[*node]bool{f: true}})
			}
		}
	case *ast.StarExpr:
		return union(s, a.eval(n, e.X))
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return union(s, a.eval(n, e.X))
		}
	case *ast.IndexExpr: // an element, or a generic function's instance
		return union(s, a.eval(n, e.X))
	case *ast.IndexListExpr:
		return union(s, a.eval(n, e.X))
	case *ast.SliceExpr:
		return union(s, a.eval(n, e.X))
	case *ast.TypeAssertExpr:
		return union(s, a.eval(n, e.X))
	case *ast.CompositeLit:
		// A slice, array or map of things that carry the settings carries
		// them; a struct holds them in its fields only (flows).
		if _, isStruct := info.TypeOf(e).Underlying().(*types.Struct); !isStruct {
			for _, el := range e.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				s = union(s, state{taint: a.carries(n, el).taint})
			}
		}
	case *ast.FuncLit:
		s.merge(state{funcs: map[*node]bool{a.lits[e]: true}})
	case *ast.CallExpr:
		return union(s, a.call(n, e))
	}
	return s
}

// copying are the functions outside the module whose result is (a copy
// of) an argument: what they return carries what the argument carries.
var copying = map[string]bool{"slices.Clone": true, "maps.Clone": true, "cmp.Or": true, "slices.Concat": true}

// call is what the call e returns: its callees' results; for a conversion
// and the functions that copy (append, copying), what the argument
// carries. Other computations on the settings (arithmetic, formatting,
// library calls) make new values, which do not carry them.
func (a *analysis) call(n *node, e *ast.CallExpr) state {
	info := n.pkg.Info
	if tv, ok := info.Types[e.Fun]; ok && tv.IsType() {
		if len(e.Args) == 1 {
			return a.carries(n, e.Args[0])
		}
		return state{}
	}
	fun := ast.Unparen(e.Fun)
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok {
			var s state
			if b.Name() == "append" {
				for _, arg := range e.Args {
					s = union(s, a.carries(n, arg))
				}
			}
			return s
		}
	}
	var s state
	if fn := calledFunc(info, fun); fn != nil && fn.Pkg() != nil && a.pkgOf[fn.Pkg()] == nil {
		if copying[fn.Pkg().Path()+"."+fn.Name()] {
			for _, arg := range e.Args {
				s = union(s, a.carries(n, arg))
			}
		}
		return s
	}
	for _, f := range a.callees(n, e) {
		s = union(s, f.result)
	}
	return s
}

// calledFunc is the function or method a call names statically (nil for
// a function value).
func calledFunc(info *types.Info, fun ast.Expr) *types.Func {
	switch f := fun.(type) {
	case *ast.IndexExpr:
		return calledFunc(info, f.X)
	case *ast.IndexListExpr:
		return calledFunc(info, f.X)
	case *ast.Ident:
		fn, _ := info.Uses[f].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			if sel.Kind() != types.FieldVal {
				fn, _ := sel.Obj().(*types.Func)
				return fn
			}
			return nil
		}
		fn, _ := info.Uses[f.Sel].(*types.Func)
		return fn
	}
	return nil
}

// callees are the functions of the program a call may run: the function
// or method it names; every method of the module's types that implements
// an interface's method it calls; the functions a function value it calls
// may be (wherever they were assigned).
func (a *analysis) callees(n *node, e *ast.CallExpr) []*node {
	info := n.pkg.Info
	fun := ast.Unparen(e.Fun)
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			return a.methods(s)
		}
	}
	if fn := calledFunc(info, fun); fn != nil {
		if f := a.funcs[fn.Origin()]; f != nil {
			return []*node{f}
		}
		return nil
	}
	return sortedNodes(a.eval(n, fun).funcs)
}

// methods are the nodes a method selection may run: the method itself,
// or for an interface's method each implementation in the module.
func (a *analysis) methods(sel *types.Selection) []*node {
	fn := sel.Obj().(*types.Func)
	iface, ok := fn.Type().(*types.Signature).Recv().Type().Underlying().(*types.Interface)
	if !ok {
		if f := a.funcs[fn.Origin()]; f != nil {
			return []*node{f}
		}
		return nil
	}
	if impls, ok := a.impls[fn]; ok {
		return impls
	}
	var out []*node
	for _, t := range a.named {
		if !types.Implements(t, iface) {
			continue
		}
		if m := types.NewMethodSet(t).Lookup(fn.Pkg(), fn.Name()); m != nil {
			if f := a.funcs[m.Obj().(*types.Func).Origin()]; f != nil && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	a.impls[fn] = out
	return out
}

func sortedNodes(set map[*node]bool) []*node {
	out := slices.Collect(maps.Keys(set))
	slices.SortFunc(out, func(x, y *node) int {
		return cmp.Or(strings.Compare(x.file, y.file), cmp.Compare(x.body.Pos(), y.body.Pos()))
	})
	return out
}

// flows adds what n's statements move: assignments, composite literals'
// fields, calls' arguments to the callees' parameters, returns to n's
// results; the callees, and the function literals in n, are considered.
func (a *analysis) flows(n *node) {
	info := n.pkg.Info
	ast.Inspect(n.body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			if f := a.lits[x]; !a.consider[f] {
				a.consider[f], a.changed = true, true
			}
			return false // a node of its own
		case *ast.AssignStmt:
			if x.Tok != token.ASSIGN && x.Tok != token.DEFINE {
				return true // x op= y computes a new value
			}
			a.assign(n, x.Lhs, x.Rhs)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(x.Names))
			for i, id := range x.Names {
				lhs[i] = id
			}
			a.assign(n, lhs, x.Values)
		case *ast.RangeStmt:
			s := a.carries(n, x.X)
			if _, isMap := info.Types[x.X].Type.Underlying().(*types.Map); isMap && x.Key != nil {
				a.flow(s, a.target(info, x.Key))
			}
			if x.Value != nil {
				a.flow(s, a.target(info, x.Value))
			}
		case *ast.ReturnStmt:
			var r state
			for _, e := range x.Results {
				r = union(r, a.carries(n, e))
				if !n.returns && (a.holds[holderOf(info, e)] || a.literalHolds(n, e)) {
					n.returns, a.changed = true, true
				}
			}
			if n.sig != nil {
				for i := range n.sig.Results().Len() {
					r = union(r, *a.loc(n.sig.Results().At(i)))
				}
			}
			if n.result.merge(r) {
				a.changed = true
			}
			if r.taint && !n.returns {
				n.returns, a.changed = true, true
			}
		case *ast.CompositeLit:
			st, ok := info.Types[x].Type.Underlying().(*types.Struct)
			if p, isPtr := info.Types[x].Type.Underlying().(*types.Pointer); isPtr {
				st, ok = p.Elem().Underlying().(*types.Struct)
			}
			if !ok {
				return true
			}
			for i, el := range x.Elts {
				if kv, isKV := el.(*ast.KeyValueExpr); isKV {
					if v, isVar := info.Uses[kv.Key.(*ast.Ident)].(*types.Var); isVar {
						a.flow(a.carries(n, kv.Value), v)
					}
				} else if i < st.NumFields() {
					a.flow(a.carries(n, el), st.Field(i))
				}
			}
		case *ast.CallExpr:
			a.callFlows(n, x)
		}
		return true
	})
}

// assign flows rhs into lhs: one to one, or what a call's results carry
// into each variable; a local variable one of whose fields is assigned
// something that carries the settings holds them (for returns).
func (a *analysis) assign(n *node, lhs, rhs []ast.Expr) {
	info := n.pkg.Info
	for i, l := range lhs {
		var s state
		switch {
		case len(lhs) == len(rhs):
			s = a.carries(n, rhs[i])
			if a.literalHolds(n, rhs[i]) {
				a.hold(a.target(info, l))
			}
		case len(rhs) != 1:
			continue
		case i > 0:
			if _, isCall := ast.Unparen(rhs[0]).(*ast.CallExpr); !isCall {
				continue // v, ok := m[k], x.(T), <-c
			}
			s = a.eval(n, rhs[0])
		default:
			s = a.eval(n, rhs[0])
		}
		a.flow(s, a.target(info, l))
		if s.taint {
			a.hold(holder(info, l))
		}
	}
}

// hold marks v as holding the settings in a field.
func (a *analysis) hold(v *types.Var) {
	if v != nil && a.canCarry(v.Type()) && !a.holds[v] {
		a.holds[v], a.changed = true, true
	}
}

// holderOf is the variable e names (or takes the address of), if it is one.
func holderOf(info *types.Info, e ast.Expr) *types.Var {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		v, _ := info.Uses[id].(*types.Var)
		return v
	}
	return nil
}

// literalHolds reports whether e is a struct literal (or its address)
// with an element that carries the settings.
func (a *analysis) literalHolds(n *node, e ast.Expr) bool {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok || !a.canCarry(n.pkg.Info.TypeOf(lit)) {
		return false
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			el = kv.Value
		}
		if a.carries(n, el).taint || a.literalHolds(n, el) {
			return true
		}
	}
	return false
}

// callFlows flows a call's arguments (and receiver) into its callees'
// parameters (and receivers), and considers the callees.
func (a *analysis) callFlows(n *node, e *ast.CallExpr) {
	info := n.pkg.Info
	if tv, ok := info.Types[e.Fun]; ok && tv.IsType() {
		return
	}
	var recv state
	if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok {
		if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			recv = a.carries(n, sel.X)
		}
	}
	for _, f := range a.callees(n, e) {
		if !a.consider[f] {
			a.consider[f], a.changed = true, true
		}
		if f.sig == nil {
			continue
		}
		if r := f.sig.Recv(); r != nil {
			a.flow(recv, r)
		}
		params := f.sig.Params()
		for i, arg := range e.Args {
			j := min(i, params.Len()-1)
			if j < 0 {
				break
			}
			a.flow(a.carries(n, arg), params.At(j))
		}
	}
}

// measure lists the files with an expression that carries the settings
// and the climbs, once the flows are complete.
func (a *analysis) measure() *Travel {
	t := &Travel{Evidence: map[string]string{}}
	climbs := map[Climb]bool{}
	for _, n := range a.all() {
		if !a.consider[n] {
			continue
		}
		ast.Inspect(n.body, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncLit:
				return false
			case *ast.Ident, *ast.SelectorExpr:
				if _, ok := t.Evidence[n.file]; !ok && a.eval(n, x.(ast.Expr)).taint {
					t.Evidence[n.file] = fmt.Sprintf("%s:%d: %s", n.file, a.prog.Fset.Position(x.Pos()).Line, types.ExprString(x.(ast.Expr)))
				}
			case *ast.CallExpr:
				a.climbs(n, x, climbs)
			}
			return true
		})
	}
	t.Files = slices.Sorted(maps.Keys(t.Evidence))
	t.Climbs = slices.SortedFunc(maps.Keys(climbs), func(x, y Climb) int {
		return cmp.Or(strings.Compare(x.From+x.To, y.From+y.To), strings.Compare(x.Kind, y.Kind),
			strings.Compare(x.Caller, y.Caller), strings.Compare(x.Callee, y.Callee))
	})
	return t
}

// climbs adds the climbs of the call e in n to set. A call of an
// interface's method counts once, named by the interface's method, per
// package of its implementations.
func (a *analysis) climbs(n *node, e *ast.CallExpr, set map[Climb]bool) {
	info := n.pkg.Info
	if tv, ok := info.Types[e.Fun]; ok && tv.IsType() {
		return
	}
	carries := a.eval(n, e.Fun).taint
	for _, arg := range e.Args {
		carries = carries || a.eval(n, arg).taint
	}
	var iface string
	if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok {
		if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			if fn := s.Obj().(*types.Func); isInterfaceMethod(fn) {
				iface = funcName(fn)
			}
		}
	}
	for _, f := range a.callees(n, e) {
		from, to, callee := n.pkg.Path, f.pkg.Path, cmp.Or(iface, f.name)
		switch {
		case from == to:
		case !a.below[from][to] && carries:
			set[Climb{Kind: "call", Caller: n.caller, Callee: callee, From: from, To: to}] = true
		case a.below[from][to] && f.returns:
			set[Climb{Kind: "return", Caller: n.caller, Callee: callee, From: to, To: from}] = true
		}
	}
}

func isInterfaceMethod(fn *types.Func) bool {
	_, ok := fn.Type().(*types.Signature).Recv().Type().Underlying().(*types.Interface)
	return ok
}
