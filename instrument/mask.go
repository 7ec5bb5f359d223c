package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// rewriteMasked wraps a function for masking:
//
//	func (s *T) M(x int) (err error) { var done bool; defer rt.Mask(site, s, x).Rollback(&done, &err); …
//
// The checkpoint is taken at entry and the deferred rollback, registered
// before the function's own deferred calls, runs after them. Returns
// record normal completion as in detection, so that a panic is told from
// a return without recover.
//
// When the function opens with the lock idiom
//
//	x.mu.Lock()
//	defer x.mu.Unlock()
//
// the checkpoint goes right after the deferred unlock instead: taken with
// the lock held, rolled back before the lock is released, so that a
// rollback cannot undo another goroutine's update. A function that locks
// elsewhere gets a note: its rollback runs outside the lock.
func (fe *funcEdits) rewriteMasked(edits *editList, siteRef string) error {
	fd := fe.decl
	errArg := "nil"
	if fe.errResult != "" {
		errArg = "&" + fe.errResult
	}
	args := append([]string{siteRef}, fe.roots...)
	wrap := fmt.Sprintf("defer %s.Mask(%s).Rollback(&%s, %s); ", rtName, strings.Join(args, ", "), doneName, errArg)

	var b strings.Builder
	fmt.Fprintf(&b, " var %s bool; ", doneName)
	unlock := lockIdiom(fd.Body, fe.src, fe.tf)
	if unlock == nil {
		b.WriteString(wrap)
		if lock := fe.lockElsewhere(); lock.IsValid() {
			fe.p.notes = append(fe.p.notes, Note{Name: fe.name, Pos: fe.p.fset.Position(lock),
				Message: fe.name + " takes a lock other than by opening with x.Lock(); defer x.Unlock(): its rollback runs after the lock is released and may undo another goroutine's update"})
		}
	}
	if fe.userResults && fe.hasValuedReturn() {
		fmt.Fprintf(&b, "%s := %s; ", strings.Join(fe.temps(), ", "), strings.Join(fe.results, ", "))
	}
	lbrace := fe.off(fd.Body.Lbrace) + 1
	b.WriteString(lineDirective(fe.p.fset, fe.tf, lbrace))
	edits.insert(lbrace, b.String())
	if unlock != nil {
		end := fe.off(unlock.End())
		edits.insert(end, "; "+wrap+lineDirective(fe.p.fset, fe.tf, end))
	}
	if err := fe.rewriteReturns(edits); err != nil {
		return err
	}
	if fd.Type.Results == nil || len(fd.Type.Results.List) == 0 {
		edits.insert(fe.off(fd.Body.Rbrace), "; "+doneName+" = true; ")
	}
	return nil
}

// lockIdiom returns the deferred unlock when body opens with
// "x.Lock(); defer x.Unlock()" (or RLock and RUnlock) on the same x.
func lockIdiom(body *ast.BlockStmt, src []byte, tf *token.File) *ast.DeferStmt {
	if len(body.List) < 2 {
		return nil
	}
	lockX, lock := methodCall(body.List[0])
	d, ok := body.List[1].(*ast.DeferStmt)
	if !ok || lockX == nil {
		return nil
	}
	unlockX, unlock := selectorCall(d.Call)
	if unlockX == nil || !(lock == "Lock" && unlock == "Unlock" || lock == "RLock" && unlock == "RUnlock") {
		return nil
	}
	text := func(e ast.Expr) string { return string(src[tf.Offset(e.Pos()):tf.Offset(e.End())]) }
	if text(lockX) != text(unlockX) {
		return nil
	}
	return d
}

// methodCall returns x and M of a statement "x.M()".
func methodCall(s ast.Stmt) (ast.Expr, string) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return nil, ""
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return nil, ""
	}
	return selectorCall(call)
}

func selectorCall(call *ast.CallExpr) (ast.Expr, string) {
	if len(call.Args) != 0 {
		return nil, ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	return sel.X, sel.Sel.Name
}

// lockElsewhere returns the position of a call x.Lock() or x.RLock() in
// the function's own body (not in function literals), or NoPos.
func (fe *funcEdits) lockElsewhere() token.Pos {
	pos := token.NoPos
	ast.Inspect(fe.decl.Body, func(n ast.Node) bool {
		if pos.IsValid() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if _, name := selectorCall(n); name == "Lock" || name == "RLock" {
				pos = n.Pos()
			}
		}
		return true
	})
	return pos
}
