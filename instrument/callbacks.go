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
// passed in — a parameter of func type, or a field of func type reached
// through a selector (d.config.DecodeHook(x)) — runs the caller's code:
// what that code changes is not the function's doing. A detection build
// brackets each such call statement, so that the runtime can tell a
// change made inside the callback from one made by the function itself
// (see rt.CallbackBegin):
//
//	hook(x)              →  rt.CallbackBegin("hook"); hook(x); rt.CallbackEnd()
//	v, err = cfg.Hook(x)  →  rt.CallbackBegin("cfg.Hook"); v, err = cfg.Hook(x); rt.CallbackEnd()
//	v, err := cfg.Hook(x) →  the same around its rewrite as an injection point
//
// The brackets go around the whole statement, its rewrite as an injection
// point included, on its own lines. Declared functions and methods,
// interface methods, function literals, local closures and package-level
// function variables are not callbacks: they are the function's own code
// or its package's. A callback called inside a larger expression, in an
// if, for or switch header, or by a go or defer statement is not
// bracketed: its changes count as the function's own.

// insertCallbackHooks brackets the function's callback statements, and
// returns how many there are.
func (fe *funcEdits) insertCallbackHooks(edits *editList) int {
	n := 0
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
		}
		if call == nil {
			return
		}
		name, ok := fe.callbackName(call)
		if !ok {
			return
		}
		start, end := fe.off(s.Pos()), fe.off(s.End())
		edits.insertOutside(start, fmt.Sprintf("%s.CallbackBegin(%s); ", rtName, strconv.Quote(name))+lineDirective(fe.p.fset, fe.tf, start), -1)
		edits.insertOutside(end, fmt.Sprintf("; %s.CallbackEnd()", rtName)+lineDirective(fe.p.fset, fe.tf, end), +1)
		n++
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
		if !ok || !fe.p.params[v] {
			return "", false
		}
	case *ast.SelectorExpr:
		v, ok := info.Uses[f.Sel].(*types.Var)
		if !ok || !v.IsField() {
			return "", false // a method, or a package's function or variable
		}
	default:
		return "", false
	}
	return strings.ReplaceAll(types.ExprString(fun), " ", ""), true
}
