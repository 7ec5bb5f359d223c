package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"github.com/dave/dst"
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
	own := func(e ast.Expr) bool { return p.declaredIn(e, start, fe.body.End()) }
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

// asWritten is a function that detection left as written.
type asWritten struct {
	fn, pos string
	decl    *ast.FuncDecl // nil for a literal
}

// asWrittenTable declares, for the reports, the functions of the package
// that were left as written, as rt.AsWritten reads them:
//
//	var _ = rt.AsWritten("FUNC\tPOS\tFLAGS\n" + ...)
//
// with FLAGS "w" when every method of the function's receiver type was
// left as written, so that the campaign can call the type atomic without
// a test reaching it, and "-" otherwise.
func (p *pkgRewriter) asWrittenTable() dst.Decl {
	whole := p.wholeTypes()
	var data dst.Expr
	for i, a := range p.asWritten {
		flags := "-"
		if a.decl != nil && whole[p.receiverNamed(a.decl)] {
			flags = "w"
		}
		lit := &dst.BasicLit{Kind: token.STRING, Value: strconv.Quote(a.fn + "\t" + a.pos + "\t" + flags + "\n")}
		lit.Decs.Before = dst.NewLine
		if i == 0 {
			data = lit
		} else {
			data = &dst.BinaryExpr{X: data, Op: token.ADD, Y: lit}
		}
	}
	call := &dst.CallExpr{Fun: &dst.Ident{Name: "AsWritten", Path: p.opts.RuntimePath}, Args: []dst.Expr{data}}
	spec := &dst.ValueSpec{Names: []*dst.Ident{dst.NewIdent("_")}, Values: []dst.Expr{call}}
	return &dst.GenDecl{Tok: token.VAR, Specs: []dst.Spec{spec}}
}

// wholeTypes returns the receiver types of the package all of whose
// declared methods were left as written.
func (p *pkgRewriter) wholeTypes() map[*types.Named]bool {
	left := map[*types.Func]bool{}
	types_ := map[*types.Named]bool{}
	for _, a := range p.asWritten {
		if a.decl == nil {
			continue
		}
		if fn, ok := p.info.Defs[a.decl.Name].(*types.Func); ok {
			left[fn] = true
		}
		if t := p.receiverNamed(a.decl); t != nil {
			types_[t] = true
		}
	}
	whole := map[*types.Named]bool{}
	for t := range types_ {
		all := true
		for m := range t.Methods() {
			all = all && left[m.Origin()]
		}
		whole[t] = all
	}
	return whole
}

// receiverNamed is the named type whose method fd declares, or nil.
func (p *pkgRewriter) receiverNamed(fd *ast.FuncDecl) *types.Named {
	fn, ok := p.info.Defs[fd.Name].(*types.Func)
	if !ok {
		return nil
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return nil
	}
	t := types.Unalias(recv.Type())
	if ptr, ok := t.(*types.Pointer); ok {
		t = types.Unalias(ptr.Elem())
	}
	named, _ := t.(*types.Named)
	if named != nil {
		named = named.Origin()
	}
	return named
}

// declaredIn reports whether e names a variable declared between start
// and end (a function's receiver, parameters, results and locals), or is
// the blank identifier: assigning it changes nothing that outlives a call
// of that function.
func (p *pkgRewriter) declaredIn(e ast.Expr, start, end token.Pos) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	if id.Name == "_" {
		return true
	}
	v, ok := p.info.ObjectOf(id).(*types.Var)
	return ok && v.Pos() >= start && v.Pos() < end
}
