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
// rollback cannot undo another goroutine's update. A function that opens
// with a read lock is not masked (errReadLock). Nor, unless the policy
// says to (Options.MasksOutsideLocks), is one that takes a lock
// otherwise, calls a function that does, or runs as a goroutine (see
// outsideLocks): its checkpoint would read, and its rollback write, what
// other goroutines write under locks the call does not hold then. A
// rollback of a function that locks mid-body cannot be moved under its
// lock: the call may release the lock before it fails.
//
// A function with nothing to checkpoint (no roots, or roots that are
// plain values, the callee's own copies) is masked as it is: edits is
// left empty.
func (fe *funcEdits) rewriteMasked(edits *editList, siteRef string) error {
	if fe.coveredByEnclosing() {
		edits.edits = nil
		return nil
	}
	oblivious, atomic := false, false
	if fe.p.opts.Oblivious != nil {
		oblivious, atomic = fe.p.opts.Oblivious(fe.name)
	}
	fe.atomicOblivious = atomic
	wrap := ""
	var saves []undoSave
	selects := atomic || fe.p.opts.Selects == nil || fe.p.opts.Selects(fe.name)
	selected := selects && fe.needsCheckpoint()
	if selected {
		var pos token.Pos
		var why string
		switch saves, pos, why = fe.undoSaves(); {
		case why == "" && len(saves) > 0 && fe.copyCheaper():
			// Its object is a small plain value, or it stores in a
			// loop: the copy costs less than the records.
			saves, fe.undoNeeds = nil, nil
			wrap = fe.maskWrap(siteRef)
		case why == "" && len(saves) == 0 && len(fe.acquisitions()) == 0:
			// It writes nothing that its call's graph holds.
		case why == "":
			wrap = fe.undoWrap(siteRef)
		default:
			wrap = fe.maskWrap(siteRef)
			if !fe.p.opts.checkpointsOnly {
				fe.checkpointNote = Note{Name: fe.name, Pos: fe.p.fset.Position(pos), Message: fe.name + " " + undoNote(why), Cost: true}
			}
		}
	}
	if selected && wrap == "" {
		// A function that opens with a read lock is refused whatever it
		// writes: its callers learn that it is not masked.
		if unlock := lockIdiom(fe.body, fe.src, fe.tf); unlock != nil && readUnlock(unlock) {
			return errReadLock
		}
	}
	if selects {
		// Its writes to regular files go back with its memory (see
		// fileundo.go), also when the call changes nothing else.
		wrap = fe.fileUndoWrap(siteRef) + wrap
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
	if pos, why := fe.outsideLocks(unlock); why != "" {
		if fe.p.opts.MasksOutsideLocks == nil || !fe.p.opts.MasksOutsideLocks(fe.name) {
			return fmt.Errorf("%s (mask_outside_locks masks it anyway)", why)
		}
		fe.note(pos, why+"; masked as the policy's mask_outside_locks says")
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
	}
	fe.insertPrologue(edits, prologue)
	if unlock != nil {
		end := fe.off(unlock.End())
		edits.insert(end, "; "+wrap+lineDirective(fe.p.fset, fe.tf, end))
	}
	for _, s := range saves {
		s.add(edits)
	}
	if fe.checkpointNote.Name != "" {
		fe.p.notes = append(fe.p.notes, fe.checkpointNote)
	}
	if err := fe.rewriteReturns(edits); err != nil {
		return err
	}
	fe.markFallOff(edits)
	for _, fn := range fe.undoNeeds {
		if err := fe.p.writeClones(fn); err != nil {
			return err
		}
	}
	return nil
}

// maxCopyCheaper is the size of plain roots under which a copy at entry
// costs less than recording even one store.
const maxCopyCheaper = 512

// copyCheaper reports whether the roots of the function are pointers to
// plain values (rootWhole) and a copy of them costs less than the undo
// log: they are small, or the function stores in a loop, which may
// write them all, one record each.
func (fe *funcEdits) copyCheaper() bool {
	types := fe.rootTypes()
	// A literal's checkpoint is the reflective one (see maskWrap).
	if types == nil || fe.p.opts.Globals || fe.lit != nil {
		return false
	}
	sizes := fe.p.opts.Sizes
	if sizes == nil {
		sizes = gotypes.SizesFor("gc", "amd64")
	}
	var size int64
	for _, t := range types {
		switch fe.p.classifyRoot(t) {
		case rootNothing:
		case rootWhole:
			size += sizes.Sizeof(t.Underlying().(*gotypes.Pointer).Elem())
		default:
			return false
		}
	}
	if size <= maxCopyCheaper {
		return true
	}
	loops := false
	ast.Inspect(fe.body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loops = true
		}
		return !loops
	})
	return loops
}

// needsCheckpoint reports whether a masked call of the function has
// anything to roll back: roots that are not plain values, its own
// copies, or the package-level variables (see maskWrap).
func (fe *funcEdits) needsCheckpoint() bool {
	if fe.p.opts.Globals {
		return true
	}
	types := fe.rootTypes()
	for i := range fe.roots {
		if types == nil || fe.p.classifyRoot(types[i]) != rootNothing {
			return true
		}
	}
	return false
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

// lockElsewhere returns the position of a call that takes a lock (see
// takesLock) in the function's own body (not in function literals), other
// than idiom, the lock idiom's, or NoPos.
func (fe *funcEdits) lockElsewhere(idiom *ast.CallExpr) token.Pos {
	call := fe.firstOwnCall(func(call *ast.CallExpr) bool { return call != idiom && takesLock(call) })
	if call == nil {
		return token.NoPos
	}
	return call.Pos()
}

// takesLock reports whether call is x.Lock(), x.RLock(), x.TryLock() or
// x.TryRLock().
func takesLock(call *ast.CallExpr) bool {
	_, name := selectorCall(call)
	return name == "Lock" || name == "RLock" || name == "TryLock" || name == "TryRLock"
}

// outsideLocks returns why, and where, a masked call of the function
// would read or write what other goroutines write under a lock the call
// does not hold then; "" when it would not. unlock is the deferred unlock
// of the lock idiom the function opens with, or nil: that lock is held
// from the checkpoint to the rollback.
func (fe *funcEdits) outsideLocks(unlock *ast.DeferStmt) (token.Pos, string) {
	line := func(pos token.Pos) string { return fmt.Sprint(fe.p.fset.Position(pos).Line) }
	var idiom *ast.CallExpr
	if unlock != nil {
		idiom = ast.Unparen(fe.body.List[0].(*ast.ExprStmt).X).(*ast.CallExpr)
	}
	if fe.lit != nil {
		if at, ok := fe.p.goroutineLits()[fe.lit]; ok {
			return at, "runs as a goroutine (started at line " + line(at) + "): its checkpoint would read, and its rollback write, what it captures while the goroutine that started it goes on using it"
		}
	}
	if lock := fe.lockElsewhere(idiom); lock.IsValid() {
		return lock, "takes a lock at line " + line(lock) + " other than by opening with x.Lock(); defer x.Unlock(): its checkpoint would be taken, and its rollback written, without that lock, while other goroutines write what it guards"
	}
	if call, callee := fe.lockingCallee(); call.IsValid() {
		return call, "calls " + callee + " at line " + line(call) + ", which takes a lock: its checkpoint would be taken, and its rollback written, without that lock, while other goroutines write what it guards"
	}
	if unlock == nil {
		// A function that takes no lock may still reach what one guards:
		// it may run while its caller holds that lock, or race with the
		// goroutines that take it. The build cannot tell which.
		types := fe.rootTypes()
		for i, root := range fe.roots {
			if types == nil {
				break
			}
			if owner, lock := guardedStruct(fe.p.pkg, types[i], map[gotypes.Type]bool{}); owner != "" {
				return fe.namePos, "reaches " + owner + " through " + displayName(root, "an argument") + ", whose fields its lock " + lock + " guards, without taking that lock: its checkpoint would read, and its rollback write, what other goroutines write under it"
			}
		}
	}
	return token.NoPos, ""
}

// guardedStruct returns the first struct type of package pkg that t
// reaches (through pointers, slices, arrays, maps and fields) that holds a
// sync.Mutex or sync.RWMutex, inline, embedded or by pointer, and that
// lock's field; or "" when t reaches none. The named types of other
// packages are not entered: the package's own locks are the ones its
// callers take around its functions, and a lock inside another package's
// value (an *os.File's) guards what that package's own code touches.
func guardedStruct(pkg *gotypes.Package, t gotypes.Type, seen map[gotypes.Type]bool) (owner, lock string) {
	if seen[t] {
		return "", ""
	}
	seen[t] = true
	if n, ok := gotypes.Unalias(t).(*gotypes.Named); ok && n.Obj().Pkg() != pkg {
		// An atomic.Pointer[T] leads to a T all the same.
		if n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync/atomic" {
			for i := range n.TypeArgs().Len() {
				if owner, lock = guardedStruct(pkg, gotypes.NewPointer(n.TypeArgs().At(i)), seen); owner != "" {
					return owner, lock
				}
			}
		}
		return "", ""
	}
	switch u := t.Underlying().(type) {
	case *gotypes.Pointer:
		return guardedStruct(pkg, u.Elem(), seen)
	case *gotypes.Slice:
		return guardedStruct(pkg, u.Elem(), seen)
	case *gotypes.Array:
		return guardedStruct(pkg, u.Elem(), seen)
	case *gotypes.Map:
		if owner, lock = guardedStruct(pkg, u.Key(), seen); owner != "" {
			return owner, lock
		}
		return guardedStruct(pkg, u.Elem(), seen)
	case *gotypes.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			ft := f.Type()
			if p, ok := ft.Underlying().(*gotypes.Pointer); ok {
				ft = p.Elem()
			}
			if isMutex(ft) {
				name := gotypes.TypeString(t, func(p *gotypes.Package) string { return p.Name() })
				return name, f.Name()
			}
		}
		for i := range u.NumFields() {
			if owner, lock = guardedStruct(pkg, u.Field(i).Type(), seen); owner != "" {
				return owner, lock
			}
		}
	}
	return "", ""
}

// isMutex reports whether t is sync.Mutex or sync.RWMutex.
func isMutex(t gotypes.Type) bool {
	n, ok := gotypes.Unalias(t).(*gotypes.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync" && (n.Obj().Name() == "Mutex" || n.Obj().Name() == "RWMutex")
}

// coveredByEnclosing reports a function literal that returns no error
// and that the masked function it is written in calls in place: called
// where it is written, bound to a variable that is only ever called, or
// handed to a function of the standard library that calls it before it
// returns and keeps no reference to it (a comparison for sort.Search,
// say). Only a panic would roll it back, and that panic goes on through
// the masked function, whose checkpoint covers what the literal can
// write of its graph, or whose undo log records the literal's stores
// (see undoScan.walk): a checkpoint per call of the literal, per
// comparison of a search, would only add cost.
func (fe *funcEdits) coveredByEnclosing() bool {
	return fe.lit != nil && fe.errResult == "" && fe.p.coveredLit(fe.lit, fe.name)
}

// coveredLit is coveredByEnclosing for the literal lit, named name, that
// returns no error.
func (p *pkgRewriter) coveredLit(lit *ast.FuncLit, name string) bool {
	if p.opts.Selects == nil || p.oblivious(name) {
		return false
	}
	lname, ok := p.literals[lit]
	if !ok || !p.opts.Selects(lname.In) || p.oblivious(lname.In) {
		return false
	}
	return p.inPlaceLits()[lit]
}

// inPlaceCallers are the functions of the standard library that call the
// function they are handed before they return and keep no reference to
// it.
var inPlaceCallers = map[string]bool{
	"sort.Search": true, "sort.Slice": true, "sort.SliceStable": true, "sort.SliceIsSorted": true,
	"slices.SortFunc": true, "slices.SortStableFunc": true, "slices.IsSortedFunc": true,
	"slices.BinarySearchFunc": true, "slices.IndexFunc": true, "slices.ContainsFunc": true,
	"slices.DeleteFunc": true, "slices.EqualFunc": true, "slices.CompareFunc": true,
	"slices.MinFunc": true, "slices.MaxFunc": true, "slices.CompactFunc": true,
	"strings.Map": true, "strings.IndexFunc": true, "strings.LastIndexFunc": true,
	"strings.FieldsFunc": true, "strings.TrimFunc": true, "strings.TrimLeftFunc": true,
	"strings.TrimRightFunc": true, "strings.ContainsFunc": true,
	"bytes.Map": true, "bytes.IndexFunc": true, "bytes.LastIndexFunc": true,
	"bytes.FieldsFunc": true, "bytes.TrimFunc": true, "bytes.ContainsFunc": true,
}

// inPlaceLits returns the function literals of the package's declared
// functions that are called in place (see coveredByEnclosing).
func (p *pkgRewriter) inPlaceLits() map[*ast.FuncLit]bool {
	if p.inPlace != nil {
		return p.inPlace
	}
	p.inPlace = map[*ast.FuncLit]bool{}
	goLits := p.goroutineLits()
	p.eachCall(func(_ *gotypes.Func, call *ast.CallExpr) {
		if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
			if _, async := goLits[lit]; !async {
				p.inPlace[lit] = true
			}
		}
		fn, _ := calleeObject(p.info, call.Fun).(*gotypes.Func)
		if fn == nil || fn.Pkg() == nil || !inPlaceCallers[fn.Pkg().Path()+"."+fn.Name()] {
			return
		}
		for _, a := range call.Args {
			if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
				p.inPlace[lit] = true
			}
		}
	})
	for _, fd := range p.decls {
		if fd.Body != nil {
			p.calledByName(fd.Body)
		}
	}
	return p.inPlace
}

// calledByName adds to p.inPlace the function literals of body bound to a
// local variable that is only ever called (appendChild := func(h int32)
// { … } … appendChild(h)), or handed to a parameter of the package's
// functions that is only ever called, never from another literal: the
// variable is not assigned but a literal or a function, not handed on
// elsewhere, not kept, so the literal runs only in a call of the function
// it is written in.
func (p *pkgRewriter) calledByName(body *ast.BlockStmt) {
	bound := map[*gotypes.Var]*funcBinding{}
	assigns := map[*ast.Ident]bool{} // the variables' identifiers a binding assigns
	bind := func(id *ast.Ident, e ast.Expr, define bool) {
		var v *gotypes.Var
		if define {
			v, _ = p.info.Defs[id].(*gotypes.Var)
		} else {
			v, _ = p.info.Uses[id].(*gotypes.Var)
		}
		b := bound[v]
		if v == nil || !define && b == nil {
			return
		}
		if _, isFunc := v.Type().Underlying().(*gotypes.Signature); !isFunc {
			return
		}
		if b == nil {
			b = &funcBinding{}
			bound[v] = b
		}
		if !define {
			assigns[id] = true
		}
		switch e := ast.Unparen(e).(type) {
		case nil:
		case *ast.FuncLit:
			b.lits = append(b.lits, e)
		case *ast.Ident:
			if fn, ok := p.info.Uses[e].(*gotypes.Func); ok {
				b.funcs = append(b.funcs, fn)
				break
			}
			b.other = true
		default:
			b.other = true
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if id, ok := n.Lhs[0].(*ast.Ident); ok {
					bind(id, n.Rhs[0], n.Tok == token.DEFINE)
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == 1 && len(n.Values) <= 1 {
				if _, ok := p.info.TypeOf(n.Names[0]).Underlying().(*gotypes.Signature); ok {
					var e ast.Expr
					if len(n.Values) == 1 {
						e = n.Values[0]
					}
					bind(n.Names[0], e, true)
				}
			}
		}
		return true
	})
	if len(bound) == 0 {
		return
	}
	for v, b := range bound {
		if !b.other && p.onlyCalled(body, v, assigns) {
			for _, lit := range b.lits {
				p.inPlace[lit] = true
			}
			if p.boundLits == nil {
				p.boundLits = map[*gotypes.Var]*funcBinding{}
			}
			p.boundLits[v] = b
		}
	}
}

// funcBinding is what a local variable of a function type is bound to:
// literals, functions, or other values.
type funcBinding struct {
	lits  []*ast.FuncLit
	funcs []*gotypes.Func
	other bool
}

// onlyCalled reports whether every use of v in body is a call of it, an
// assignment that binds it (assigns), or an argument for a parameter that
// is only called (see paramOnlyCalled); and none is in a function
// literal, which may run later or in another goroutine.
func (p *pkgRewriter) onlyCalled(body *ast.BlockStmt, v *gotypes.Var, assigns map[*ast.Ident]bool) bool {
	ok := true
	allowed := map[*ast.Ident]bool{}
	var lits []*ast.FuncLit
	ast.Inspect(body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.CallExpr:
			if id, isIdent := ast.Unparen(n.Fun).(*ast.Ident); isIdent {
				allowed[id] = true
			}
			fn, _ := calleeObject(p.info, n.Fun).(*gotypes.Func)
			for i, a := range n.Args {
				if id, isIdent := ast.Unparen(a).(*ast.Ident); isIdent && p.info.Uses[id] == v && fn != nil && p.paramOnlyCalled(fn, i) {
					allowed[id] = true
				}
			}
		case *ast.Ident:
			if p.info.Uses[n] != v {
				break
			}
			if !allowed[n] && !assigns[n] {
				ok = false
			}
			for _, lit := range lits {
				if n.Pos() >= lit.Pos() && n.End() <= lit.End() {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

// paramOnlyCalled reports whether the ith parameter of fn, a function of
// the package, is only called in its body (see onlyCalled): a literal
// handed to it runs within the call.
func (p *pkgRewriter) paramOnlyCalled(fn *gotypes.Func, i int) bool {
	fn = fn.Origin()
	fd := p.decls[fn]
	sig := fn.Type().(*gotypes.Signature)
	if fd == nil || fd.Body == nil || i >= sig.Params().Len() || sig.Variadic() && i == sig.Params().Len()-1 {
		return false
	}
	key := paramKey{fn, i}
	if known, ok := p.calledParams[key]; ok {
		return known
	}
	if p.calledParams == nil {
		p.calledParams = map[paramKey]bool{}
	}
	// A recursive function that hands the parameter to itself: assumed
	// only called while its body is asked about.
	p.calledParams[key] = true
	only := p.onlyCalled(fd.Body, sig.Params().At(i), nil)
	p.calledParams[key] = only
	return only
}

// paramKey is a parameter of a function, by index.
type paramKey struct {
	fn *gotypes.Func
	i  int
}

// eachCall calls f with every call in the bodies of the package's
// declared functions, and the function it is in.
func (p *pkgRewriter) eachCall(f func(fn *gotypes.Func, call *ast.CallExpr)) {
	for fn, fd := range p.decls {
		if fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				f(fn, call)
			}
			return true
		})
	}
}

// goroutineLits returns the function literals that the package's
// functions run as goroutines, and where: go func() { … }(), and
// literals passed to a method named Go (errgroup.Group.Go,
// sync.WaitGroup.Go).
func (p *pkgRewriter) goroutineLits() map[*ast.FuncLit]token.Pos {
	if p.goLits != nil {
		return p.goLits
	}
	p.goLits = map[*ast.FuncLit]token.Pos{}
	for _, fd := range p.decls {
		if fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
					p.goLits[lit] = n.Pos()
				}
			case *ast.CallExpr:
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
					for _, a := range n.Args {
						if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
							p.goLits[lit] = n.Pos()
						}
					}
				}
			}
			return true
		})
	}
	return p.goLits
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
	p.eachCall(func(fn *gotypes.Func, call *ast.CallExpr) {
		if takesLock(call) {
			if !lockers[fn] {
				lockers[fn] = true
				work = append(work, fn)
			}
		} else if callee, ok := calleeObject(p.info, call.Fun).(*gotypes.Func); ok {
			callers[callee.Origin()] = append(callers[callee.Origin()], fn)
		}
	})
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
