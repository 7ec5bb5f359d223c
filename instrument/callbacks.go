package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Callback sites. A function that calls a function value its caller
// passed in runs the caller's code: what that code changes is not the
// function's doing. A detection build brackets each such call, so that
// the runtime can tell a change made inside the callback from one made by
// the function itself (see rt.CallbackBegin):
//
//	hook(x)               →  rt.CallbackBegin("hook"); hook(x); rt.CallbackEnd()
//	v, err = cfg.Hook(x)  →  rt.CallbackBegin("cfg.Hook"); v, err = cfg.Hook(x); rt.CallbackEnd()
//	v, err := cfg.Hook(x) →  the same around its rewrite as an injection point
//	return f(x)           →  (injection point;) rt.CallbackBegin("f"); { r0, r1 = f(x); rt.CallbackEnd(); done = N; return }
//
// The brackets go around the whole statement, its rewrite as an injection
// point included (a return's after its guard, which returns without
// calling), on the statement's own lines.
//
// A callee is a callback when it is a function value that came from
// outside the function: a parameter of func type, a field of func type
// reached through a selector (d.config.DecodeHook), the variable of a
// type switch's case (switch f := hook.(type) { case HookFunc: f(x) }),
// or a local variable that the function never sets to a function literal,
// function or method (unified := unify(raw); unified(x)). Declared
// functions and methods, interface methods, function literals, local
// closures and package-level variables are not: they are the function's
// own code or its package's. A callback called inside a larger
// expression, in an if, for or switch header, or by a go or defer
// statement is not bracketed: its changes count as the function's own.

// insertCallbackHooks brackets the function's callback statements, and
// returns how many there are. It must run after rewriteCalls, whose
// guard before a return comes before the return's bracket.
func (fe *funcEdits) insertCallbackHooks(edits *editList) int {
	n := 0
	bracket := func(s ast.Stmt, call *ast.CallExpr) {
		name, ok := fe.callbackName(call)
		if !ok {
			return
		}
		start, end := fe.off(s.Pos()), fe.off(s.End())
		begin := fmt.Sprintf("%s.CallbackBegin(%s); ", rtName, strconv.Quote(name)) + lineDirective(fe.p.fset, fe.tf, start)
		if _, ok := s.(*ast.ReturnStmt); ok {
			// rewriteReturns makes the return an assignment of the
			// results, then the return: the end goes between them.
			edits.insertOutside(start, begin, +1)
			edits.insertOutside(fe.off(call.End()), fmt.Sprintf("; %s.CallbackEnd()", rtName), -1)
		} else {
			edits.insertOutside(start, begin, -1)
			edits.insertOutside(end, fmt.Sprintf("; %s.CallbackEnd()", rtName)+lineDirective(fe.p.fset, fe.tf, end), +1)
		}
		n++
	}
	fe.eachOwnStatement(func(s ast.Stmt) {
		for {
			l, ok := s.(*ast.LabeledStmt)
			if !ok {
				break
			}
			s = l.Stmt
		}
		var call *ast.CallExpr
		switch s := s.(type) {
		case *ast.ExprStmt:
			call, _ = ast.Unparen(s.X).(*ast.CallExpr)
		case *ast.AssignStmt:
			if (s.Tok == token.ASSIGN || s.Tok == token.DEFINE) && len(s.Rhs) == 1 {
				call, _ = ast.Unparen(s.Rhs[0]).(*ast.CallExpr)
			}
		case *ast.ReturnStmt:
			if len(s.Results) == 1 && s.End() == s.Results[0].End() {
				call, _ = ast.Unparen(s.Results[0]).(*ast.CallExpr)
			}
		}
		if call != nil {
			bracket(s, call)
		}
	})
	return n
}

// callbackName returns the text of the callee of a call of a function
// value passed in by the caller, and whether the call is one.
func (fe *funcEdits) callbackName(call *ast.CallExpr) (string, bool) {
	info := fe.p.info
	fun := ast.Unparen(call.Fun)
	tv, ok := info.Types[fun]
	if !ok || tv.IsType() || tv.IsBuiltin() {
		return "", false
	}
	if _, ok := tv.Type.Underlying().(*types.Signature); !ok {
		return "", false
	}
	switch f := fun.(type) {
	case *ast.Ident:
		v, ok := info.Uses[f].(*types.Var)
		if !ok || !fe.p.params[v] && !fe.p.caseVars[v] && !fe.passedIn(v) {
			return "", false
		}
	case *ast.SelectorExpr:
		v, ok := info.Uses[f.Sel].(*types.Var)
		if !ok || !v.IsField() {
			return "", false // a method, or a package's function or variable
		}
		if fe.p.ownFuncFields[v] {
			return "", false // the package's own code: a state machine's next state, say
		}
	default:
		return "", false
	}
	return strings.ReplaceAll(types.ExprString(fun), " ", ""), true
}

// funcFieldsSetByPackage returns the fields of func type that the
// package's own code sets to its own functions: to a function literal, or
// to a function or method of the package, by an assignment or in a
// composite literal. Such a field holds the package's code, not a
// caller's (a lexer's lx.state = lexTop, called as lx.state(lx)): its
// calls are not callbacks. A field only the package's users set (a
// decoder's config.DecodeHook) is.
func funcFieldsSetByPackage(parsed []*ast.File, files []File, info *types.Info, pkg *types.Package) map[*types.Var]bool {
	own := func(e ast.Expr) bool {
		switch e := ast.Unparen(e).(type) {
		case *ast.FuncLit:
			return true
		case *ast.Ident:
			fn, ok := info.Uses[e].(*types.Func)
			return ok && fn.Pkg() == pkg
		case *ast.SelectorExpr:
			fn, ok := info.Uses[e.Sel].(*types.Func)
			return ok && fn.Pkg() == pkg
		}
		return false
	}
	field := func(e ast.Expr) *types.Var {
		var id *ast.Ident
		switch e := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			id = e.Sel
		case *ast.Ident:
			id = e // a composite literal's key
		default:
			return nil
		}
		if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
			return v
		}
		return nil
	}
	set := map[*types.Var]bool{}
	for i, f := range parsed {
		if skipFile(files[i].Name) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for j, lhs := range n.Lhs {
						if v := field(lhs); v != nil && own(n.Rhs[j]) {
							set[v] = true
						}
					}
				}
			case *ast.KeyValueExpr:
				if v := field(n.Key); v != nil && own(n.Value) {
					set[v] = true
				}
			}
			return true
		})
	}
	return set
}

// passedIn reports whether v, a variable of func type, is a local
// variable of the function that holds a value from outside it: it is
// declared in the function's body, and nothing in the body sets it to a
// function literal, a function or method, or another local variable
// (which may hold one).
func (fe *funcEdits) passedIn(v *types.Var) bool {
	if v.Pos() < fe.body.Lbrace || v.Pos() > fe.body.Rbrace {
		return false
	}
	info := fe.p.info
	own := func(rhs ast.Expr) bool {
		switch r := ast.Unparen(rhs).(type) {
		case *ast.FuncLit:
			return true
		case *ast.Ident:
			switch o := info.Uses[r].(type) {
			case *types.Func:
				return true
			case *types.Var:
				return !fe.p.params[o] && !o.IsField() && o.Parent() != fe.p.pkg.Scope()
			}
		case *ast.SelectorExpr:
			_, isFunc := info.Uses[r.Sel].(*types.Func)
			return isFunc
		}
		return false
	}
	setsOwn := false
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if setsOwn {
			return false
		}
		var lhs []ast.Expr
		var rhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs, rhs = n.Lhs, n.Rhs
		case *ast.ValueSpec:
			for _, id := range n.Names {
				lhs = append(lhs, id)
			}
			rhs = n.Values
		default:
			return true
		}
		if len(lhs) != len(rhs) {
			return true // one call or comma-ok expression: from outside
		}
		for i, l := range lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok || info.ObjectOf(id) != v {
				continue
			}
			if own(rhs[i]) {
				setsOwn = true
			}
		}
		return true
	})
	return !setsOwn
}
