package instrument

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	gotypes "go/types"
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
// elsewhere gets a note: its rollback runs outside the lock. A function
// that opens with a read lock is not masked (errReadLock).
//
// A function with nothing to checkpoint (no roots, or roots that are
// plain values, the callee's own copies) is masked as it is: edits is
// left empty.
func (fe *funcEdits) rewriteMasked(edits *editList, siteRef string) error {
	oblivious, atomic := false, false
	if fe.p.opts.Oblivious != nil {
		oblivious, atomic = fe.p.opts.Oblivious(fe.name)
	}
	fe.atomicOblivious = atomic
	wrap := ""
	if atomic || fe.p.opts.Selects == nil || fe.p.opts.Selects(fe.name) {
		wrap = fe.maskWrap(siteRef)
	}
	if wrap == "" {
		if oblivious {
			// Nothing to roll back: the failure is swallowed as it is.
			lbrace := fe.off(fe.body.Lbrace) + 1
			edits.insert(lbrace, fmt.Sprintf(" defer %s.Swallow(%s, %s); ", rtName, siteRef, fe.errArg())+lineDirective(fe.p.fset, fe.tf, lbrace))
			return nil
		}
		// edits holds this function's edits only: naming its fields is
		// of no use without a prologue.
		edits.edits = nil
		return nil
	}
	unlock := lockIdiom(fe.body, fe.src, fe.tf)
	if unlock != nil && readUnlock(unlock) {
		return errReadLock
	}
	if fe.errResult == "" {
		fe.note(fe.namePos, "returns no error: only a panic or runtime.Goexit rolls it back")
	}
	fe.noteChannels()

	// The releases are deferred before the rollback, to run after it.
	if acqs := fe.acquisitions(); len(acqs) > 0 {
		wrap = fe.releaseEdits(edits, acqs, siteRef) + wrap
	}
	prologue := " var " + doneName + " bool; "
	// The failure is swallowed last, once the rollbacks and releases
	// deferred after it have run: they must see the call fail.
	switch {
	case atomic:
		prologue += fmt.Sprintf("var %[1]s %[2]s.Oblivious; defer %[1]s.Swallow(%[5]s, &%[3]s, %[4]s); ", obliviousName, rtName, doneName, fe.errArg(), siteRef)
	case oblivious:
		prologue += fmt.Sprintf("defer %s.Swallow(%s, %s); ", rtName, siteRef, fe.errArg())
	}
	if unlock == nil {
		prologue += wrap
		if lock := fe.lockElsewhere(); lock.IsValid() {
			fe.note(lock, "takes a lock other than by opening with x.Lock(); defer x.Unlock(): its rollback runs after the lock is released and may undo another goroutine's update")
		} else if call, callee := fe.lockingCallee(); call.IsValid() {
			fe.note(call, "calls "+callee+", which takes a lock: its checkpoint and rollback run without that lock, and race with other goroutines that take it")
		}
	}
	fe.insertPrologue(edits, prologue)
	if unlock != nil {
		end := fe.off(unlock.End())
		edits.insert(end, "; "+wrap+lineDirective(fe.p.fset, fe.tf, end))
	}
	if err := fe.rewriteReturns(edits); err != nil {
		return err
	}
	fe.markFallOff(edits)
	return nil
}

// errReadLock is why a function that opens with x.RLock(); defer
// x.RUnlock() is not masked: other readers hold the lock at the same
// time, and a rollback may only write what the call itself wrote, which
// other goroutines may have changed too under locks of their own.
var errReadLock = errors.New("opens with x.RLock(); defer x.RUnlock(): its rollback would write under a read lock, while other goroutines read and may update what it restores")

// note tells the user something about the function, at pos.
func (fe *funcEdits) note(pos token.Pos, msg string) {
	fe.p.notes = append(fe.p.notes, Note{Name: fe.name, Pos: fe.p.fset.Position(pos), Message: fe.name + " " + msg})
}

// maskWrap returns the checkpoint and the deferred rollback. Roots that
// generated code can copy get it (see maskgen.go); the others go to the
// runtime's reflective checkpoint:
//
//	_atx_g0, _atx_c0 := _atx_save_T(v); _atx_a0 := v
//	_atx_g1, _atx_a1 := _atx_save(p), p
//	_atx_k := _atx_graphs.Get(); _atx_k.root3(l); _atx_k.drain()
//	defer _atx_restore_T(&err, &done, site, _atx_a0, &_atx_g0, &_atx_c0)
//	defer _atx_restore(&err, &done, site, _atx_a1, &_atx_g1)
//	defer _atx_restoreGraph(&err, &done, site, _atx_k)
//	defer rt.Mask(site, m).Rollback(&done, &err)
//
// Each generated restore checks that the call failed before it writes
// anything (see rollbackGuard).
func (fe *funcEdits) maskWrap(siteRef string) string {
	types := fe.rootTypes()
	var saves, restores, reflected []string
	var graphTypes []gotypes.Type
	var graphRoots []string
	for i, root := range fe.roots {
		kind := rootReflected
		if types != nil && !fe.p.opts.Globals {
			kind = fe.p.classifyRoot(types[i])
		}
		// A literal's roots may have types declared inside a function,
		// which the generated checkpoints cannot name.
		if fe.lit != nil && kind != rootNothing {
			kind = rootReflected
		}
		// The generated checkpoints are generic; a package whose language
		// version predates generics gets the reflective one.
		if (kind == rootWhole || kind == rootFields || kind == rootGraph) && !fe.p.genericsAllowed() {
			kind = rootReflected
		}
		g, a := fmt.Sprintf("_atx_g%d", i), fmt.Sprintf("_atx_a%d", i)
		switch kind {
		case rootNothing:
		case rootWhole:
			fe.p.wholeSaver = true
			saves = append(saves, fmt.Sprintf("%s, %s := _atx_save(%s), %s; ", g, a, root, root))
			restores = append(restores, fmt.Sprintf("defer _atx_restore(%s, &%s, %s, %s, &%s); ", fe.errArg(), doneName, siteRef, a, g))
		case rootFields:
			save, restore := fe.p.typeSaver(types[i].Underlying().(*gotypes.Pointer).Elem())
			c := fmt.Sprintf("_atx_c%d", i)
			saves = append(saves, fmt.Sprintf("%s, %s := %s(%s); %s := %s; ", g, c, save, root, a, root))
			restores = append(restores, fmt.Sprintf("defer %s(%s, &%s, %s, %s, &%s, &%s); ", restore, fe.errArg(), doneName, siteRef, a, g, c))
		case rootGraph:
			graphTypes = append(graphTypes, types[i])
			graphRoots = append(graphRoots, root)
		default:
			reflected = append(reflected, root)
		}
	}
	if len(graphTypes) > 0 {
		saves = append(saves, fe.p.graph().addRoots(graphTypes, graphRoots))
		restores = append(restores, fmt.Sprintf("defer _atx_restoreGraph(%s, &%s, %s, _atx_k); ", fe.errArg(), doneName, siteRef))
	}
	var b strings.Builder
	if len(saves) > 0 {
		b.WriteString(strings.Join(saves, ""))
		b.WriteString(strings.Join(restores, ""))
	}
	if len(reflected) > 0 || fe.p.opts.Globals {
		args := append([]string{siteRef}, reflected...)
		mask := fmt.Sprintf("%s.Mask(%s)", rtName, strings.Join(args, ", "))
		if fe.atomicOblivious {
			// Its failures are swallowed only when it can be rolled back.
			mask = fmt.Sprintf("%s.Masked(%s)", obliviousName, mask)
		}
		fmt.Fprintf(&b, "defer %s.Rollback(&%s, %s); ", mask, doneName, fe.errArg())
	}
	return b.String()
}

// noteChannels tells the user about each root that can reach a channel.
func (fe *funcEdits) noteChannels() {
	types := fe.rootTypes()
	for i, root := range fe.roots {
		if types != nil && reachesChan(types[i], map[gotypes.Type]bool{}) {
			fe.note(fe.namePos, "can reach a channel through "+displayName(root, "an argument")+": a rollback restores which channel a field holds, not what the channel holds")
		}
	}
}

// rootTypes returns the types of the function's roots (receiver, then
// parameters), in the order of fe.roots, or nil if they are not known.
func (fe *funcEdits) rootTypes() []gotypes.Type {
	sig := fe.sig
	if sig == nil {
		return nil
	}
	var ts []gotypes.Type
	if sig.Recv() != nil {
		ts = append(ts, sig.Recv().Type())
	}
	for i := range sig.Params().Len() {
		ts = append(ts, sig.Params().At(i).Type())
	}
	for _, v := range fe.capture {
		ts = append(ts, gotypes.NewPointer(v.Type()))
	}
	if len(ts) != len(fe.roots) {
		return nil
	}
	return ts
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

// readUnlock reports whether the deferred unlock of the lock idiom
// releases a read lock.
func readUnlock(d *ast.DeferStmt) bool {
	_, name := selectorCall(d.Call)
	return name == "RUnlock"
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
	call := fe.firstOwnCall(takesLock)
	if call == nil {
		return token.NoPos
	}
	return call.Pos()
}

// takesLock reports whether call is x.Lock() or x.RLock().
func takesLock(call *ast.CallExpr) bool {
	_, name := selectorCall(call)
	return name == "Lock" || name == "RLock"
}

// lockingCallee returns the first call in the function's own body (not in
// function literals) of a function or method of the package that takes a
// lock, itself or through the package's functions it calls, and the
// callee's name; or NoPos.
func (fe *funcEdits) lockingCallee() (token.Pos, string) {
	var callee *gotypes.Func
	call := fe.firstOwnCall(func(call *ast.CallExpr) bool {
		fn, ok := calleeObject(fe.p.info, call.Fun).(*gotypes.Func)
		if ok && fe.p.locks(fn) {
			callee = fn
			return true
		}
		return false
	})
	if call == nil {
		return token.NoPos, ""
	}
	return call.Pos(), callee.Name()
}

// firstOwnCall returns the first call in the function's own body (not in
// function literals) for which match is true, or nil.
func (fe *funcEdits) firstOwnCall(match func(*ast.CallExpr) bool) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if match(n) {
				found = n
			}
		}
		return true
	})
	return found
}

// locks reports whether fn, a function of the package, takes a lock
// (x.Lock() or x.RLock(), function literals included) or calls one of the
// package's functions that does. The package's locking functions are
// found once, on first use.
func (p *pkgRewriter) locks(fn *gotypes.Func) bool {
	if p.lockers == nil {
		p.lockers = p.lockingFuncs()
	}
	return p.lockers[fn.Origin()]
}

// lockingFuncs returns the package's functions that take a lock, directly
// or through the package's functions they call.
func (p *pkgRewriter) lockingFuncs() map[*gotypes.Func]bool {
	lockers := map[*gotypes.Func]bool{}
	callers := map[*gotypes.Func][]*gotypes.Func{} // callee → its callers in the package
	var work []*gotypes.Func
	for fn, fd := range p.decls {
		if fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if takesLock(call) {
				if !lockers[fn] {
					lockers[fn] = true
					work = append(work, fn)
				}
			} else if callee, ok := calleeObject(p.info, call.Fun).(*gotypes.Func); ok {
				callers[callee.Origin()] = append(callers[callee.Origin()], fn)
			}
			return true
		})
	}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		for _, caller := range callers[fn] {
			if !lockers[caller] {
				lockers[caller] = true
				work = append(work, caller)
			}
		}
	}
	return lockers
}
