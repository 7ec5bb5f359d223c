package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Functions that no failure leaves half done. A function without an
// error result fails only by panicking, and when the policy injects no
// panics, only by a panic of its own. If it calls nothing, and changes
// nothing but its own variables until a last statement that makes one
// change (p.n = n, p.hits++), a panic leaves nothing changed: one comes
// before that change or stops it. Its verdict could only be atomic or
// "cannot fail", and no chain has it but as an atomic link. Detection
// leaves it as written: instrumented, a getter or a setter is compiled
// three times (itself, its twin and the twin's deferred comparison),
// which was most of what atomicx added to the build of a package of
// small accessors.

// leavesNoChange reports whether fe is such a function, in a detect
// build: the policy injects no panics into it, it has no error result, it
// calls nothing but builtins and conversions (see leaf), none that writes
// (append, copy, delete, clear, close), it receives and sends nothing,
// and the only variables it assigns are its receiver's, parameters',
// results' and locals' themselves, but in its last statement when that
// is an assignment to one operand or an increment.
func (fe *funcEdits) leavesNoChange() bool {
	p := fe.p
	if p.opts.Mask || p.opts.Panics || p.oblivious(fe.name) || fe.sig == nil || canReturnError(fe.sig, fe.decl) || !fe.leaf() {
		return false
	}
	start := fe.ftype.Pos()
	if fe.recv != nil {
		start = fe.recv.Pos()
	}
	// own reports whether e names a variable that the function declares:
	// assigning it changes nothing that outlives the call.
	own := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		if id.Name == "_" {
			return true
		}
		v, ok := p.info.ObjectOf(id).(*types.Var)
		return ok && v.Pos() >= start && v.Pos() < fe.body.End()
	}
	// The one change the last statement may make: the operands of its
	// left side are evaluated, and may panic, before it is made; nothing
	// runs after it.
	var last ast.Stmt
	if n := len(fe.body.List); n > 0 {
		switch s := fe.body.List[n-1].(type) {
		case *ast.AssignStmt:
			if len(s.Lhs) == 1 {
				last = s
			}
		case *ast.IncDecStmt:
			last = s
		}
	}
	unchanging := true
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if !unchanging {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n != last {
				for _, lhs := range n.Lhs {
					unchanging = unchanging && own(lhs)
				}
			}
		case *ast.IncDecStmt:
			unchanging = n == last || own(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				unchanging = (n.Key == nil || own(n.Key)) && (n.Value == nil || own(n.Value))
			}
			if tv, ok := p.info.Types[n.X]; !ok || mayBeChan(tv.Type) {
				unchanging = false // a receive takes a value from the channel
			}
		case *ast.SendStmt:
			unchanging = false
		case *ast.UnaryExpr:
			unchanging = n.Op != token.ARROW
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := p.info.Uses[id].(*types.Builtin); ok {
					switch b.Name() {
					case "append", "copy", "delete", "clear", "close":
						// append may write into the array of a slice
						// the function was given.
						unchanging = false
					}
				}
			}
		}
		return unchanging
	})
	return unchanging
}

// canReturnError reports whether a function of signature sig, declared by
// fd (nil for a literal), fails by returning an error (see failsWith).
func canReturnError(sig *types.Signature, fd *ast.FuncDecl) bool {
	res := sig.Results()
	return res.Len() > 0 && failsWith(res.At(res.Len()-1).Type(), fd)
}

// failsWith reports whether a function declared by fd (nil for a literal)
// whose last result has type last fails by returning it: last is error,
// and the function is not an accessor that returns one as data (see
// errorAccessor).
func failsWith(last types.Type, fd *ast.FuncDecl) bool {
	return types.Identical(last, errorType) && (fd == nil || !errorAccessor(fd))
}

// mayBeChan reports whether ranging over a value of type t may receive
// from a channel: t is one, or a type parameter.
func mayBeChan(t types.Type) bool {
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return true
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok
}
