package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"github.com/atomicx/atomicx/internal/funcname"
	"golang.org/x/tools/go/ast/astutil"
)

// Call sites as injection points.
//
// A call, in instrumented code, of a function that returns an error is an
// injection point: an injected fault makes the call yield zero values and
// the injected error without the callee running. The rewrite works on the
// statement that makes the call, and leaves the call's own text where it
// is, so that when nothing is injected the statement is the original one:
// the same evaluation order, the same frames (runtime.Caller, log's
// Lshortfile and panics see the user's line), the same positions.
//
//	x, err = f(a)              →  if e := rt.Inject(&site); e != nil { x = 0; err = e } else { x, err = f(a) }
//	x, err := f(a)             →  var x T; var err error; if … else { x, err = f(a) }
//	f(a)                       →  if rt.Inject(&site) == nil { f(a) }
//	return f(a)                →  if e := rt.Inject(&site); e != nil { return 0, e }; return f(a)
//	if err := f(a); err != nil →  { var err error; if … else { err = f(a) }; if err != nil { … } }
//
// When a fault is injected, neither the callee expression nor the
// arguments are evaluated. A call in any other place — inside a larger
// expression, in a for or switch header, in a go or defer statement — or
// whose zero values or new variables have types that cannot be named in
// its file is not an injection point: nothing there could be rewritten
// without moving user code into another frame or another order.

// callRewriter finds the call statements of one function body.
type callRewriter struct {
	fe    *funcEdits
	edits *editList
	first int
	sites []site
	seen  map[string]int // callee name -> calls of it so far
	made  map[*ast.CallExpr]bool
	// regions are the statements whose calls' errors reach handlers
	// (see handlers.go).
	regions map[*ast.AssignStmt]*region
}

// rewriteCalls makes each eligible call statement in the function's body
// an injection point. It returns the sites, whose indices in the site
// table start at first. It must run before rewriteReturns: a guard it
// puts before a return statement comes first. The function literals in
// the body are functions of their own, with their own call sites.
func (fe *funcEdits) rewriteCalls(edits *editList, first int) []site {
	cr := &callRewriter{fe: fe, edits: edits, first: first, seen: map[string]int{}, made: map[*ast.CallExpr]bool{}}
	cr.regions = fe.findRegions()
	astutil.Apply(fe.body, func(c *astutil.Cursor) bool {
		// switchInit leaves a labeled switch as it is.
		_, labeled := c.Parent().(*ast.LabeledStmt)
		switch n := c.Node().(type) {
		case *ast.FuncLit:
			return false // a function of its own, with its own call sites
		case *ast.BlockStmt:
			cr.list(n.List)
		case *ast.CaseClause:
			cr.list(n.Body)
		case *ast.CommClause:
			cr.list(n.Body)
		case *ast.IfStmt:
			cr.ifInit(n)
		case *ast.SwitchStmt:
			cr.switchInit(n, n.Init, n.Switch, n.Body, labeled)
		case *ast.TypeSwitchStmt:
			cr.switchInit(n, n.Init, n.Switch, n.Body, labeled)
		}
		return true
	}, nil)
	for _, r := range cr.regions {
		cr.insertArms(r)
	}
	cr.countOmitted()
	return cr.sites
}

// Why a call of an error-returning function is not an injection point,
// as the build tells the user.
const (
	omitExpr    = "inside larger expressions"
	omitHeader  = "in for, range or switch headers or if conditions"
	omitGoDefer = "in go or defer statements"
	omitTypes   = "whose results or new variables have types that cannot be named there"
	// A caller that assigns a call's error to _ has said that it does
	// not handle that failure: an injected fault could only hand the
	// zero values to code that assumes success (u, _ := url.Parse(s);
	// u.Path … dereferences nil), a failure of the fault's making, not
	// of the program's.
	omitDiscarded = "whose error the caller discards (assigned to _)"
)

// countOmitted counts, by reason, the calls of error-returning functions
// in the body that were not made injection points.
func (cr *callRewriter) countOmitted() {
	fe := cr.fe
	var stack []ast.Node
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false // counted as a function of its own
		}
		parents := stack
		stack = append(stack, n)
		call, ok := n.(*ast.CallExpr)
		if !ok || cr.made[call] {
			return true
		}
		if _, obj, ok := fe.errorSignature(call); ok {
			if reason := fe.notPoint(call, obj); reason != "" {
				fe.p.omitted[reason]++
				return true
			}
		}
		if _, _, ok := fe.callPoint(call); !ok {
			return true
		}
		fe.p.omitted[omissionReason(call, parents)]++
		return true
	})
}

// omissionReason says why a call, whose ancestors are parents (the
// nearest last), is not an injection point.
func omissionReason(call *ast.CallExpr, parents []ast.Node) string {
	var child ast.Node = call
	for i := len(parents) - 1; i >= 0; i-- {
		switch p := parents[i].(type) {
		case *ast.ParenExpr:
			child = p
			continue
		case *ast.GoStmt, *ast.DeferStmt:
			return omitGoDefer
		case *ast.ExprStmt, *ast.ReturnStmt:
			return omitTypes
		case *ast.AssignStmt:
			if i > 0 {
				switch h := parents[i-1].(type) {
				case *ast.ForStmt:
					if h.Init == p || h.Post == p {
						return omitHeader
					}
				case *ast.SwitchStmt, *ast.TypeSwitchStmt:
					return omitHeader // a labeled switch
				}
			}
			if len(p.Rhs) == 1 && p.Rhs[0] == child {
				if discardsError(p) {
					return omitDiscarded
				}
				return omitTypes
			}
			return omitExpr
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.IfStmt:
			return omitHeader
		}
		return omitExpr
	}
	return omitExpr
}

// list rewrites the call statements of a statement list.
func (cr *callRewriter) list(stmts []ast.Stmt) {
	for _, s := range stmts {
		for {
			l, ok := s.(*ast.LabeledStmt)
			if !ok {
				break
			}
			s = l.Stmt
		}
		switch s := s.(type) {
		case *ast.ExprStmt:
			cr.exprStmt(s)
		case *ast.AssignStmt:
			cr.assign(s, s.Pos(), s.End(), "", "")
		case *ast.ReturnStmt:
			cr.returnStmt(s)
		}
	}
}

// point registers the call as an injection point and returns the
// expression that asks the runtime for a fault there.
func (cr *callRewriter) point(call *ast.CallExpr, callee string) string {
	fe := cr.fe
	cr.seen[callee]++
	cr.made[call] = true
	idx := cr.first + len(cr.sites)
	pos := fe.p.fset.Position(call.Lparen)
	fn := funcname.Join(fe.p.opts.ImportPath, fe.name)
	cr.sites = append(cr.sites, site{
		id:       fmt.Sprintf("%s#call:%s#%d", fn, callee, cr.seen[callee]),
		fn:       fn,
		pos:      fe.p.sitePos(pos),
		call:     true,
		in:       fe.in,
		canError: true,
		ignored:  fe.p.opts.Ignored != nil && fe.p.opts.Ignored(fe.name),
	})
	return fmt.Sprintf("%s.Inject(&%s[%d])", rtName, sitesName, idx)
}

// wrote is the statement that tells the runtime that the call, the
// injection point registered last, writes outside memory, when it does
// (see outside.go): it runs where the fault was not injected, just
// before the call, on the call's line, where a nil receiver on the way to
// the file panics as the call would.
func (cr *callRewriter) wrote(call *ast.CallExpr) string {
	w := cr.fe.wroteOutside(call, cr.first+len(cr.sites)-1)
	if w == "" {
		return ""
	}
	return cr.directive(call.Pos()) + w
}

func (cr *callRewriter) directive(pos token.Pos) string {
	return lineDirective(cr.fe.p.fset, cr.fe.tf, cr.fe.off(pos))
}

// exprStmt: f(a) → if rt.Inject(&site) == nil { f(a) }
func (cr *callRewriter) exprStmt(s *ast.ExprStmt) {
	call, ok := ast.Unparen(s.X).(*ast.CallExpr)
	if !ok {
		return
	}
	_, callee, ok := cr.fe.callPoint(call)
	if !ok {
		return
	}
	inject := cr.point(call, callee)
	cr.edits.insert(cr.fe.off(s.Pos()), "if "+inject+" == nil { "+cr.wrote(call)+cr.directive(s.Pos()))
	cr.edits.insert(cr.fe.off(s.End()), " }"+cr.directive(s.End()))
}

// assign rewrites "x, err = f(a)" and "x, err := f(a)" from start to end.
// prefix and suffix wrap the whole rewrite (an if statement's header).
// It reports whether it rewrote the statement.
func (cr *callRewriter) assign(s *ast.AssignStmt, start, end token.Pos, prefix, suffix string) bool {
	fe := cr.fe
	if s.Tok != token.ASSIGN && s.Tok != token.DEFINE || len(s.Rhs) != 1 {
		return false
	}
	call, ok := ast.Unparen(s.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return false
	}
	sig, callee, point := fe.callPoint(call)
	point = point && !discardsError(s)
	r := cr.regions[s]
	ok = point
	if !point && r != nil {
		// The region of handlers: rewritten so that an armed arm skips
		// it, also where the call is not an injection point.
		sig, _, ok = fe.returnsError(call)
	}
	if !ok || sig.Results().Len() != len(s.Lhs) {
		return false
	}
	var decls, zeros strings.Builder
	var newVars []string // declared before the call instead of by it
	var zeroValues []string
	for i, lhs := range s.Lhs {
		if id, ok := lhs.(*ast.Ident); ok && id.Name == "_" {
			continue
		}
		t := sig.Results().At(i).Type()
		dest := t
		if s.Tok == token.DEFINE {
			if v, ok := fe.p.info.Defs[lhs.(*ast.Ident)].(*types.Var); ok {
				name, ok := fe.typeName(v.Type(), s.Pos())
				if !ok {
					return false
				}
				fmt.Fprintf(&decls, "var %s %s; ", v.Name(), name)
				newVars = append(newVars, v.Name())
			}
		}
		if tv, ok := fe.p.info.Types[lhs]; ok && tv.Type != nil {
			dest = tv.Type
		} else if v, ok := fe.p.info.Uses[identOf(lhs)].(*types.Var); ok {
			dest = v.Type()
		}
		value := "_atx_e"
		if i < len(s.Lhs)-1 {
			z, ok := fe.zeroValue(t, dest, s.Pos())
			if !ok {
				return false
			}
			value = z
			zeroValues = append(zeroValues, z)
		}
		fmt.Fprintf(&zeros, "%s = %s; ", fe.text(lhs), value)
	}
	// A new variable is in scope from its declaration on, where the
	// original only declares it after the call: the call, the types and
	// the zero values must not mention its name.
	for _, name := range newVars {
		if mentions(fe.text(call), name) || mentions(decls.String(), name) || mentions(strings.Join(zeroValues, " "), name) {
			return false
		}
	}
	inject, wrote := "nil", ""
	if point {
		inject = cr.point(call, callee)
		wrote = cr.wrote(call)
	}
	if r != nil {
		inject = r.guard(fe, inject)
		r.rewritten = true
	}
	cr.edits.insert(fe.off(start), fmt.Sprintf("%s%sif _atx_e := %s; _atx_e != nil { %s} else { %s%s", prefix, decls.String(), inject, zeros.String(), wrote, cr.directive(s.Pos())))
	if s.Tok == token.DEFINE {
		cr.edits.replace(fe.off(s.TokPos), fe.off(s.TokPos)+2, "= ")
	}
	cr.edits.insert(fe.off(end), " }"+suffix)
	return true
}

// ifInit: if v, err := f(a); cond { … } →
// { var v T; var err error; if _atx_e := …; _atx_e != nil { … } else { v, err = f(a) }; if cond { … } }
func (cr *callRewriter) ifInit(s *ast.IfStmt) {
	as, ok := s.Init.(*ast.AssignStmt)
	if !ok {
		return
	}
	fe := cr.fe
	// The "if " keyword goes in front of the condition; the statement is
	// wrapped in a block, the scope its header's variables had.
	if !cr.assign(as, as.Pos(), as.End(), "{ ", "; if "+cr.directive(s.Cond.Pos())) {
		return
	}
	cr.edits.replace(fe.off(s.If), fe.off(as.Pos()), "")
	cr.edits.replace(fe.off(as.End()), fe.off(s.Cond.Pos()), "")
	cr.edits.insert(fe.off(s.End()), " }"+cr.directive(s.End()))
}

// switchInit: switch v, err := f(a); tag { … } →
// { var v T; var err error; if _atx_e := …; _atx_e != nil { … } else { v, err = f(a) }; switch tag { … } }
// and the same for a type switch. A labeled switch is left as it is: its
// label would have to move to the line of the call, inside the block, for
// break to still find it.
func (cr *callRewriter) switchInit(s ast.Stmt, init ast.Stmt, kw token.Pos, body *ast.BlockStmt, labeled bool) {
	as, ok := init.(*ast.AssignStmt)
	if !ok || labeled {
		return
	}
	fe := cr.fe
	// What follows the init statement's semicolon: the tag, the type
	// switch guard, or the body when the switch has no tag.
	var next token.Pos
	switch s := s.(type) {
	case *ast.SwitchStmt:
		next = body.Lbrace
		if s.Tag != nil {
			next = s.Tag.Pos()
		}
	case *ast.TypeSwitchStmt:
		next = s.Assign.Pos()
	}
	if !cr.assign(as, as.Pos(), as.End(), "{ ", "") {
		return
	}
	cr.edits.replace(fe.off(kw), fe.off(as.Pos()), "")
	cr.edits.replace(fe.off(as.End()), fe.off(next), "")
	// The keyword goes after what follows the assignment: the pink usages
	// of a switch on the error (see insertArms).
	cr.edits.insert(fe.off(next), "; switch "+cr.directive(next))
	cr.edits.insert(fe.off(s.End()), " }"+cr.directive(s.End()))
}

// returnStmt: return f(a) → if _atx_e := …; _atx_e != nil { return 0, _atx_e }; return f(a)
// where f's results are the function's.
func (cr *callRewriter) returnStmt(s *ast.ReturnStmt) {
	fe := cr.fe
	if len(s.Results) != 1 {
		return
	}
	call, ok := ast.Unparen(s.Results[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	sig, callee, ok := fe.callPoint(call)
	if !ok {
		return
	}
	var results *types.Tuple
	if fe.sig != nil {
		results = fe.sig.Results()
	}
	if results == nil || results.Len() != sig.Results().Len() || !types.Identical(results.At(results.Len()-1).Type(), errorType) {
		return
	}
	values := make([]string, 0, results.Len())
	for i := range results.Len() - 1 {
		z, ok := fe.zeroValue(sig.Results().At(i).Type(), results.At(i).Type(), s.Pos())
		if !ok {
			return
		}
		values = append(values, z)
	}
	values = append(values, "_atx_e")
	var ret string
	switch {
	case fe.userResults:
		ret = fmt.Sprintf("%s = %s; %s; return %s", strings.Join(fe.temps(), ", "), strings.Join(values, ", "), fe.doneAt(s.Pos()), strings.Join(fe.temps(), ", "))
	default:
		ret = fmt.Sprintf("%s = %s; %s; return", strings.Join(fe.results, ", "), strings.Join(values, ", "), fe.doneAt(s.Pos()))
	}
	inject := cr.point(call, callee)
	cr.edits.insert(fe.off(s.Pos()), fmt.Sprintf("if _atx_e := %s; _atx_e != nil { %s }; %s%s", inject, ret, cr.wrote(call), cr.directive(s.Pos())))
}

// discardsError reports whether the assignment of one call's results
// assigns its error, the last, to the blank identifier.
func discardsError(s *ast.AssignStmt) bool {
	id, ok := s.Lhs[len(s.Lhs)-1].(*ast.Ident)
	return ok && id.Name == "_" && len(s.Rhs) == 1
}

// mentions reports whether name occurs in text as a whole identifier
// other than as the name a "var" declares.
func mentions(text, name string) bool {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	for i, w := range words {
		if w == name && (i == 0 || words[i-1] != "var") {
			return true
		}
	}
	return false
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}

// text is the source text of a node.
func (fe *funcEdits) text(n ast.Node) string {
	return string(fe.src[fe.off(n.Pos()):fe.off(n.End())])
}

// zeroValue returns an expression for the zero value of t, to be assigned
// to a destination of type dest, as it can be written at pos: an untyped
// constant or nil where that gives the same value, else *new(T).
func (fe *funcEdits) zeroValue(t, dest types.Type, pos token.Pos) (string, bool) {
	if _, ok := t.(*types.TypeParam); ok {
		// Its underlying type is its constraint, an interface; its zero
		// value need not be nil.
		name, ok := fe.typeName(t, pos)
		return "*new(" + name + ")", ok
	}
	_, destIface := dest.Underlying().(*types.Interface)
	_, tIface := t.Underlying().(*types.Interface)
	if destIface && !tIface {
		// An untyped zero would not carry t's dynamic type.
		name, ok := fe.typeName(t, pos)
		return "*new(" + name + ")", ok
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.UnsafePointer:
			return "nil", true
		case u.Info()&types.IsBoolean != 0:
			return "false", true
		case u.Info()&types.IsString != 0:
			return `""`, true
		case u.Info()&types.IsNumeric != 0:
			return "0", true
		}
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		return "nil", true
	}
	name, ok := fe.typeName(t, pos)
	return "*new(" + name + ")", ok
}

// typeName writes t as it can be named at pos in the function's file,
// or reports that it cannot be (an unexported type of another package, a
// package the file does not import, a name shadowed there).
func (fe *funcEdits) typeName(t types.Type, pos token.Pos) (string, bool) {
	scope := fe.p.pkg.Scope().Innermost(pos)
	if scope == nil || !fe.nameable(t, scope, pos, map[types.Type]bool{}) {
		return "", false
	}
	ok := true
	s := types.TypeString(t, func(pkg *types.Package) string {
		if pkg == fe.p.pkg {
			return ""
		}
		name, found := importName(scope, pos, pkg)
		if !found {
			ok = false
		}
		return name
	})
	return s, ok
}

// nameable reports whether every type name in t refers, at pos, to the
// type it names.
func (fe *funcEdits) nameable(t types.Type, scope *types.Scope, pos token.Pos, seen map[types.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Basic:
		_, obj := scope.LookupParent(t.Name(), pos)
		return obj != nil && obj.Pkg() == nil
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && obj.Pkg() != fe.p.pkg {
			if !obj.Exported() {
				return false
			}
			if _, found := importName(scope, pos, obj.Pkg()); !found {
				return false
			}
		} else if _, found := scope.LookupParent(obj.Name(), pos); found != obj {
			return false
		}
		for i := range t.TypeArgs().Len() {
			if !fe.nameable(t.TypeArgs().At(i), scope, pos, seen) {
				return false
			}
		}
		return true
	case *types.Alias:
		return fe.nameable(types.Unalias(t), scope, pos, seen)
	case *types.TypeParam:
		_, found := scope.LookupParent(t.Obj().Name(), pos)
		return found == t.Obj()
	case *types.Pointer:
		return fe.nameable(t.Elem(), scope, pos, seen)
	case *types.Slice:
		return fe.nameable(t.Elem(), scope, pos, seen)
	case *types.Array:
		return fe.nameable(t.Elem(), scope, pos, seen)
	case *types.Chan:
		return fe.nameable(t.Elem(), scope, pos, seen)
	case *types.Map:
		return fe.nameable(t.Key(), scope, pos, seen) && fe.nameable(t.Elem(), scope, pos, seen)
	case *types.Interface:
		return t.Empty()
	}
	return false
}

// importName returns the name under which pkg is imported in the file
// whose scope encloses pos, "" for a dot import.
func importName(scope *types.Scope, pos token.Pos, pkg *types.Package) (string, bool) {
	file := scope
	for file.Parent() != nil && file.Parent().Parent() != types.Universe {
		file = file.Parent()
	}
	for _, name := range file.Names() {
		pn, ok := file.Lookup(name).(*types.PkgName)
		if !ok || pn.Imported() != pkg {
			continue
		}
		if _, obj := scope.LookupParent(name, pos); obj == pn {
			return name, true
		}
	}
	return "", false
}

// callPoint decides whether call is an injection point, and returns the
// callee's signature and its name for the site ID.
func (fe *funcEdits) callPoint(call *ast.CallExpr) (*types.Signature, string, bool) {
	sig, callee, ok := fe.returnsError(call)
	if !ok {
		return nil, "", false
	}
	info := fe.p.info
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok && fe.p.selectsLiteral(lit) {
		return nil, "", false // its entry is an injection point already
	}
	obj := calleeObject(info, call.Fun)
	if fn, ok := obj.(*types.Func); ok {
		if fe.p.isInstrumented(fn) {
			return nil, "", false // its entry is an injection point already
		}
	}
	return sig, callee, true
}

// returnsError returns the signature and the name for site IDs of a
// called function whose last result is an error that may be a failure
// (see notPoint), and whether it is one.
func (fe *funcEdits) returnsError(call *ast.CallExpr) (*types.Signature, string, bool) {
	sig, obj, ok := fe.errorSignature(call)
	if !ok || fe.notPoint(call, obj) != "" {
		return nil, "", false
	}
	return sig, calleeName(fe.p.fset, obj, call.Fun), true
}

// errorSignature returns the signature of a called function whose last
// result is an error, and the function or variable called, if any.
func (fe *funcEdits) errorSignature(call *ast.CallExpr) (*types.Signature, types.Object, bool) {
	info := fe.p.info
	tv, ok := info.Types[call.Fun]
	if !ok || tv.IsType() || tv.IsBuiltin() {
		return nil, nil, false
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok || sig.Results().Len() == 0 || sig.TypeParams().Len() > 0 {
		return nil, nil, false
	}
	last := sig.Results().At(sig.Results().Len() - 1).Type()
	if !types.Identical(last, errorType) {
		return nil, nil, false
	}
	return sig, calleeObject(info, call.Fun), true
}

// notPoint says why a call of an error-returning function is never an
// injection point, wherever it is (see nonpoints.go), or "".
func (fe *funcEdits) notPoint(call *ast.CallExpr, obj types.Object) string {
	fn, ok := obj.(*types.Func)
	switch {
	case !ok:
		return ""
	case fe.p.constructsErrors(fn):
		return omitConstructor
	case fe.cannotFail(call, fn):
		return omitContract
	}
	return ""
}

// calleeObject returns the function or variable a call expression names,
// or nil for other expressions.
func calleeObject(info *types.Info, fun ast.Expr) types.Object {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return info.Uses[f]
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			return sel.Obj()
		}
		return info.Uses[f.Sel]
	case *ast.IndexExpr:
		return calleeObject(info, f.X)
	case *ast.IndexListExpr:
		return calleeObject(info, f.X)
	}
	return nil
}

// calleeName names a callee in a site ID: os.Open, (*os.File).Close,
// (io.Reader).Read, or the expression's text for function values.
func calleeName(fset *token.FileSet, obj types.Object, fun ast.Expr) string {
	if fn, ok := obj.(*types.Func); ok {
		sig := fn.Type().(*types.Signature)
		if recv := sig.Recv(); recv != nil {
			// A receiver declared through an alias is named after the
			// type it denotes, as the runtime names the method.
			t := types.Unalias(recv.Type())
			ptr := ""
			if p, ok := t.(*types.Pointer); ok {
				t, ptr = types.Unalias(p.Elem()), "*"
			}
			name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
			if i := strings.Index(name, "["); i >= 0 {
				name = name[:i] + "[...]"
			}
			return "(" + ptr + name + ")." + fn.Name()
		}
		if fn.Pkg() != nil {
			return fn.Pkg().Name() + "." + fn.Name()
		}
		return fn.Name()
	}
	if _, ok := ast.Unparen(fun).(*ast.FuncLit); ok {
		return "func-literal"
	}
	return strings.ReplaceAll(types.ExprString(fun), " ", "")
}

// isInstrumented reports whether fn's entry is itself an injection point.
func (p *pkgRewriter) isInstrumented(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() != nil {
		if _, isIface := sig.Recv().Type().Underlying().(*types.Interface); isIface {
			return false // an interface method: any implementation may run
		}
	}
	name := funcname.Relative(fn)
	if fn.Pkg() == p.pkg {
		return p.opts.Selects == nil || p.opts.Selects(name)
	}
	return p.opts.Instrumented != nil && p.opts.Instrumented(fn.Pkg().Path(), name)
}

// selectsLiteral reports whether a function literal is instrumented.
func (p *pkgRewriter) selectsLiteral(lit *ast.FuncLit) bool {
	name, ok := p.literals[lit]
	return ok && (p.opts.Selects == nil || p.opts.Selects(name.Name) || p.oblivious(name.Name))
}

// genericsAllowed reports whether the package's language version lets the
// generated call helpers be generic.
func (p *pkgRewriter) genericsAllowed() bool {
	return p.langAtLeast(goGenerics)
}
