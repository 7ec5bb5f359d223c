package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	gotypes "go/types"
	"slices"
	"strings"
)

// A Release says how a failing masked call releases what an acquire call
// gave it (Options.Releases): the resource is the call's first result
// that is not an error, and it is released by calling Method on it, or on
// its Field.
type Release struct {
	Resource string // what it is ("file")
	Field    string // "Body" for resp.Body.Close(); "" for the resource itself
	Method   string // "Close"
	// Others are the other ways the resource is released, "Method" or
	// "Field.Method" ("Commit" for a transaction rolled back on
	// failure): a function that calls one keeps no resource to release.
	Others []string
}

// releasedBy reports whether calling method on the resource, or on its
// field when field is not "", releases it.
func (r Release) releasedBy(field, method string) bool {
	if field == r.Field && method == r.Method {
		return true
	}
	name := method
	if field != "" {
		name = field + "." + method
	}
	return slices.Contains(r.Others, name)
}

// releaseName is the local variable of a masked function that holds the
// resources it acquired (rt.Releases).
const releaseName = "_atx_rel"

// acquisition is a statement of a masked function's body that acquires a
// resource the rollback may have to release:
//
//	f, err := os.Open(name)
type acquisition struct {
	stmt *ast.AssignStmt
	// res holds the resource: a local variable, or a field of a root
	// (s.file, err = os.Open(name)), which the rollback restores.
	res     ast.Expr
	resVar  *gotypes.Var // the variable, or the field
	root    gotypes.Object
	errVar  *ast.Ident // the one holding the call's error; nil when it has none
	release Release
}

// holds reports whether e denotes where a keeps its resource.
func (a acquisition) holds(info *gotypes.Info, e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return a.root == nil && info.ObjectOf(e) == a.resVar
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && a.root != nil && info.Uses[e.Sel] == a.resVar && info.ObjectOf(x) == a.root
	}
	return false
}

// acquisitions returns the statements of the function's own body (not
// of its literals) that acquire a resource of Options.Releases into a
// variable that the function keeps to itself (see keepsToItself): only
// then can a release after the rollback not take the resource away from
// anyone. Literals are left out: their frames have no name the runtime
// can tell a panic going through by.
func (fe *funcEdits) acquisitions() []acquisition {
	if len(fe.p.opts.Releases) == 0 || fe.lit != nil {
		return nil
	}
	var out []acquisition
	fe.eachOwnAssignment(func(as *ast.AssignStmt) {
		if a, ok := fe.acquisition(as); ok && fe.keepsToItself(a) {
			out = append(out, a)
		}
	})
	return out
}

// eachOwnAssignment calls f with each assignment that is a statement of
// its own in the function's body (see eachOwnStatement).
func (fe *funcEdits) eachOwnAssignment(f func(*ast.AssignStmt)) {
	fe.eachOwnStatement(func(s ast.Stmt) {
		if as, ok := s.(*ast.AssignStmt); ok {
			f(as)
		}
	})
}

// eachOwnStatement calls f with each statement of a list in the
// function's body (in a block or a case, not an if, for or switch init,
// where nothing can be inserted after it), leaving out the bodies of
// function literals, which are functions of their own.
func (fe *funcEdits) eachOwnStatement(f func(ast.Stmt)) {
	visit := func(list []ast.Stmt) {
		for _, s := range list {
			f(s)
		}
	}
	ast.Inspect(fe.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			visit(n.List)
		case *ast.CaseClause:
			visit(n.Body)
		case *ast.CommClause:
			visit(n.Body)
		}
		return true
	})
}

// acquisition recognises "r, err := acquire(...)", "r := acquire(...)"
// and their forms with "=", where the callee is in Options.Releases.
func (fe *funcEdits) acquisition(as *ast.AssignStmt) (acquisition, bool) {
	info := fe.p.info
	ac, ok := fe.acquireCall(as)
	if !ok {
		return acquisition{}, false
	}
	rel, ok := fe.p.opts.Releases[ac.fn.FullName()]
	if !ok {
		return acquisition{}, false
	}
	a := acquisition{stmt: as, res: ac.res, errVar: ac.errVar, release: rel}
	switch e := a.res.(type) {
	case *ast.Ident:
		if e.Name == "_" { // dropped: no name to register it by
			return acquisition{}, false
		}
		a.resVar, _ = info.ObjectOf(e).(*gotypes.Var)
		if a.resVar == nil || fe.isResult(a.resVar) {
			return acquisition{}, false
		}
	case *ast.SelectorExpr:
		// A field of a root: s.file, err = os.Open(name).
		x, ok := e.X.(*ast.Ident)
		if !ok || as.Tok != token.ASSIGN || !fe.isRoot(x) {
			return acquisition{}, false
		}
		a.root = info.ObjectOf(x)
		if a.resVar, _ = info.Uses[e.Sel].(*gotypes.Var); a.resVar == nil || !a.resVar.IsField() {
			return acquisition{}, false
		}
	default:
		return acquisition{}, false
	}
	if !pointerShaped(a.resVar.Type()) || !fe.releasable(a.resVar.Type(), rel) || fe.rootShadowed(as.Pos()) {
		return acquisition{}, false
	}
	return a, true
}

// An acquireCall is "r, err := f(...)", "r := f(...)" or one of their
// forms with "=": the call of a function, whose first result that is
// not an error goes to res, and whose error, if it has one, to errVar.
type acquireCall struct {
	call   *ast.CallExpr
	fn     *gotypes.Func
	res    ast.Expr   // nil when every result is an error
	errVar *ast.Ident // nil when the function returns no error
}

// acquireCall recognises the statements that may acquire a resource:
// the caller then looks at what the function is.
func (fe *funcEdits) acquireCall(as *ast.AssignStmt) (acquireCall, bool) {
	if len(as.Rhs) != 1 || as.Tok != token.DEFINE && as.Tok != token.ASSIGN {
		return acquireCall{}, false
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return acquireCall{}, false
	}
	fn, ok := calleeObject(fe.p.info, call.Fun).(*gotypes.Func)
	if !ok {
		return acquireCall{}, false
	}
	res := fn.Type().(*gotypes.Signature).Results()
	if res.Len() != len(as.Lhs) {
		return acquireCall{}, false
	}
	ac := acquireCall{call: call, fn: fn}
	for i := range res.Len() {
		lhs := as.Lhs[i]
		if isErrorType(res.At(i).Type()) {
			id, ok := lhs.(*ast.Ident)
			if !ok || ac.errVar != nil || id.Name == "_" {
				return acquireCall{}, false
			}
			ac.errVar = id
		} else if ac.res == nil {
			ac.res = lhs
		}
	}
	return ac, true
}

// releasable reports whether the release can be written on a value of
// t, the type of where the resource is kept: a field of type io.Reader
// that holds a file has no Close.
func (fe *funcEdits) releasable(t gotypes.Type, rel Release) bool {
	if rel.Field != "" {
		f, _, _ := gotypes.LookupFieldOrMethod(t, true, fe.p.pkg, rel.Field)
		v, ok := f.(*gotypes.Var)
		if !ok {
			return false
		}
		t = v.Type()
	}
	m, _, _ := gotypes.LookupFieldOrMethod(t, true, fe.p.pkg, rel.Method)
	_, ok := m.(*gotypes.Func)
	return ok
}

// nilableField reports whether the field of a's resource that its
// release is a method of can hold nil.
func (fe *funcEdits) nilableField(a acquisition) bool {
	// TypeOf, not Types: the resource is often a variable the
	// acquisition defines, which Types does not record.
	t := fe.p.info.TypeOf(a.res)
	if t == nil {
		return false
	}
	f, _, _ := gotypes.LookupFieldOrMethod(t, true, fe.p.pkg, a.release.Field)
	v, ok := f.(*gotypes.Var)
	return ok && pointerShaped(v.Type())
}

// pointerShaped reports whether values of t are pointers or interfaces:
// what the runtime can find in the restored graph by address. A type
// parameter is neither, whatever its constraint: it cannot be compared
// with nil.
func pointerShaped(t gotypes.Type) bool {
	if _, ok := gotypes.Unalias(t).(*gotypes.TypeParam); ok {
		return false
	}
	switch t.Underlying().(type) {
	case *gotypes.Pointer, *gotypes.Interface:
		return true
	}
	return false
}

// isResult reports whether v is one of the function's named results: a
// bare return hands it to the caller without naming it.
func (fe *funcEdits) isResult(v *gotypes.Var) bool {
	if fe.ftype.Results == nil {
		return false
	}
	for _, f := range fe.ftype.Results.List {
		for _, n := range f.Names {
			if fe.p.info.Defs[n] == v {
				return true
			}
		}
	}
	return false
}

// rootShadowed reports whether, at pos, a root's name denotes something
// else: the registration names the roots there. Roots the rewrite named
// (unnamed parameters) cannot be shadowed.
func (fe *funcEdits) rootShadowed(pos token.Pos) bool {
	if fe.p.pkg == nil {
		return true
	}
	scope := fe.p.pkg.Scope().Innermost(pos)
	if scope == nil {
		return true
	}
	roots := fe.rootObjects()
	for _, name := range fe.roots {
		if strings.HasPrefix(name, "_atx_") {
			continue
		}
		if _, obj := scope.LookupParent(name, pos); !roots[obj] {
			return true
		}
	}
	return false
}

func isErrorType(t gotypes.Type) bool {
	return gotypes.Identical(t, gotypes.Universe.Lookup("error").Type())
}

// keepsToItself reports whether every use of v in the function, besides
// the acquisition a, leaves the resource to the call: a method call that
// is not the release (r.Read(p)), a field read (resp.StatusCode), a nil
// comparison, an argument of a standard library function that only
// borrows it (Options.Borrows: io.ReadAll), or a store into the call's
// roots (s.f = r, s.m[k] = r, s.l = append(s.l, r)), which the rollback
// undoes. Anything else — a release, a return, a send, a capture by a
// literal, another assignment, an argument of another call — hands the
// resource to someone, or releases it already: it is then not released
// by the rollback.
func (fe *funcEdits) keepsToItself(a acquisition) bool {
	ok := true
	var stack []ast.Node
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if e, isExpr := n.(ast.Expr); isExpr && e != a.res && a.holds(fe.p.info, e) {
			ok = fe.leavesToCall(e, stack, a)
			return false // not pushed: Inspect calls no f(nil) for it
		}
		stack = append(stack, n)
		return true
	})
	return ok
}

// leavesToCall judges one use of where the resource is kept, whose
// enclosing nodes are path (innermost last).
func (fe *funcEdits) leavesToCall(use ast.Expr, path []ast.Node, a acquisition) bool {
	for _, n := range path {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
	}
	parent := func(i int) ast.Node {
		if i > len(path) {
			return nil
		}
		return path[len(path)-i]
	}
	expr := use
	i := 1
	for {
		if p, ok := parent(i).(*ast.ParenExpr); ok {
			expr = p
			i++
			continue
		}
		break
	}
	switch p := parent(i).(type) {
	case *ast.SelectorExpr:
		if p.X != expr {
			return false
		}
		return fe.selectorLeaves(p, path[:len(path)-i], a.release)
	case *ast.BinaryExpr:
		other := p.Y
		if other == expr {
			other = p.X
		}
		return (p.Op == token.EQL || p.Op == token.NEQ) && isNil(fe.p.info, other)
	case *ast.CallExpr:
		if isAppendTo(fe.p.info, p) && p.Args[0] != expr {
			as, ok := parent(i + 1).(*ast.AssignStmt)
			return ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 && as.Rhs[0] == p && fe.rootBased(as.Lhs[0])
		}
		return fe.borrows(p, expr)
	case *ast.AssignStmt:
		for k, r := range p.Rhs {
			if r == expr {
				return len(p.Lhs) == len(p.Rhs) && fe.rootBased(p.Lhs[k])
			}
		}
		return false
	}
	return false
}

// selectorLeaves judges r.X: a call of a method that is not the release,
// or a field read that goes no further than a borrow or another such
// call.
func (fe *funcEdits) selectorLeaves(sel *ast.SelectorExpr, path []ast.Node, rel Release) bool {
	info := fe.p.info
	parent := func(i int) ast.Node {
		if i > len(path) {
			return nil
		}
		return path[len(path)-i]
	}
	if isMethod(info, sel) {
		call, ok := parent(1).(*ast.CallExpr)
		return ok && call.Fun == sel && !rel.releasedBy("", sel.Sel.Name)
	}
	// A field: released through it (resp.Body.Close()), borrowed, called
	// on, or read.
	switch p := parent(1).(type) {
	case *ast.SelectorExpr:
		if isMethod(info, p) {
			call, ok := parent(2).(*ast.CallExpr)
			return ok && call.Fun == p && !rel.releasedBy(sel.Sel.Name, p.Sel.Name)
		}
		return true
	case *ast.CallExpr:
		return fe.borrows(p, sel)
	case *ast.AssignStmt, *ast.ReturnStmt, *ast.SendStmt, *ast.CompositeLit, *ast.KeyValueExpr, *ast.UnaryExpr:
		return false
	}
	return true
}

// borrows reports whether call only borrows its argument arg.
func (fe *funcEdits) borrows(call *ast.CallExpr, arg ast.Expr) bool {
	if call.Fun == arg || fe.p.opts.Borrows == nil {
		return false
	}
	fn, ok := calleeObject(fe.p.info, call.Fun).(*gotypes.Func)
	return ok && fe.p.opts.Borrows(fn.FullName())
}

// rootBased reports whether e stores into the call's roots: a field or
// an element reached from a receiver or parameter (s.f, s.m[k], p.l[i].f).
func (fe *funcEdits) rootBased(e ast.Expr) bool {
	stored := false
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			if v, ok := fe.p.info.Uses[x.Sel].(*gotypes.Var); !ok || !v.IsField() {
				return false
			}
			e, stored = x.X, true
		case *ast.IndexExpr:
			if _, isMap := fe.p.info.TypeOf(x.X).Underlying().(*gotypes.Map); !isMap {
				if _, isSlice := fe.p.info.TypeOf(x.X).Underlying().(*gotypes.Slice); !isSlice {
					return false
				}
			}
			e, stored = x.X, true
		case *ast.StarExpr:
			e, stored = x.X, true
		case *ast.Ident:
			return stored && fe.isRoot(x)
		default:
			return false
		}
	}
}

// isRoot reports whether id names the receiver or a parameter that
// the function never points elsewhere: a store through a root that was
// reassigned (p = fallback; p.f = r) may go outside the graph that the
// rollback restores and the registration names.
func (fe *funcEdits) isRoot(id *ast.Ident) bool {
	obj := fe.p.info.ObjectOf(id)
	return obj != nil && fe.rootObjects()[obj] && !fe.reassigned(obj)
}

// reassigned reports whether the function, or a literal in it, assigns
// the variable or takes its address.
func (fe *funcEdits) reassigned(obj gotypes.Object) bool {
	info := fe.p.info
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.ObjectOf(id) == obj
	}
	found := false
	ast.Inspect(fe.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			found = found || slices.ContainsFunc(n.Lhs, is)
		case *ast.RangeStmt:
			found = found || n.Tok == token.ASSIGN && (n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value))
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && is(n.X)
		}
		return !found
	})
	return found
}

// rootObjects returns the receiver and parameter variables.
func (fe *funcEdits) rootObjects() map[gotypes.Object]bool {
	objs := map[gotypes.Object]bool{}
	for _, list := range []*ast.FieldList{fe.recv, fe.ftype.Params} {
		if list == nil {
			continue
		}
		for _, f := range list.List {
			for _, n := range f.Names {
				if obj := fe.p.info.Defs[n]; obj != nil {
					objs[obj] = true
				}
			}
		}
	}
	return objs
}

func isNil(info *gotypes.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

func isAppendTo(info *gotypes.Info, call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) < 2 || call.Ellipsis.IsValid() {
		return false
	}
	b, ok := info.Uses[id].(*gotypes.Builtin)
	return ok && b.Name() == "append"
}

// releaseEdits makes the function release, after its rollback, what it
// acquired (see rt.Releases): the deferred OnFailure, to be registered
// before the rollback so that it runs after it, and after each
// acquisition the registration of its resource.
func (fe *funcEdits) releaseEdits(edits *editList, acqs []acquisition, siteRef string) string {
	// Roots of basic types cannot reach a resource: they are left out,
	// not to box them.
	var roots []string
	types := fe.rootTypes()
	for i, r := range fe.roots {
		if types != nil {
			if _, basic := types[i].Underlying().(*gotypes.Basic); basic {
				continue
			}
		}
		roots = append(roots, r)
	}
	for _, a := range acqs {
		end := fe.off(a.stmt.End())
		target := "_atx_v"
		if a.release.Field != "" {
			target += "." + a.release.Field
		}
		res := fe.text(a.res)
		// The release is a method value, not a function literal, which
		// would rename the user's literals that follow (see hoist). It
		// is evaluated here: a field that holds nil has nothing to
		// release, and its method value would panic.
		reg := fmt.Sprintf("%s.Add(_atx_v, %s.%s, %s)", releaseName, target, a.release.Method, strings.Join(roots, ", "))
		if len(roots) == 0 {
			reg = strings.TrimSuffix(reg, ", ")
		}
		if a.release.Field != "" && fe.nilableField(a) {
			reg = fmt.Sprintf("if %s != nil { %s }", target, reg)
		}
		reg = "_atx_v := " + res + "; " + reg
		cond := res + " != nil"
		if a.errVar != nil {
			cond = a.errVar.Name + " == nil && " + cond
		}
		edits.insert(end, fmt.Sprintf("; if %s { %s }%s", cond, reg, lineDirective(fe.p.fset, fe.tf, end)))
	}
	return fmt.Sprintf("var %s %s.Releases; defer %s.OnFailure(%s, &%s, %s); ", releaseName, rtName, releaseName, siteRef, doneName, fe.errArg())
}

// isMethod reports whether sel selects a method. (The rewrite's type
// information has no Selections: Uses tells fields from methods.)
func isMethod(info *gotypes.Info, sel *ast.SelectorExpr) bool {
	_, ok := info.Uses[sel.Sel].(*gotypes.Func)
	return ok
}
