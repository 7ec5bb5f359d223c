package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	gotypes "go/types"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
)

// The undo log. A masked function whose every write into memory it does
// not own the build can see in its own body gets no checkpoint at entry:
// each such store is preceded by a call that records the old contents
// (rt.SaveBits, rt.Save, rt.SaveEntry, rt.SaveEntryBits, rt.SaveElems,
// rt.SaveAppend, and rt.SaveReach before a call the build does not
// rewrite: the graph its receiver and arguments reach), and
// the deferred rt.Undo.End writes them back, last first, when the call
// fails. A successful call then costs what it writes, whatever its
// object holds:
//
//	var _atx_done bool; _atx_u := rt.NewUndo(site); defer _atx_u.End(&_atx_done, &err)
//	…
//	rt.SaveBits(&_atx_u, &v.size); v.size += n
//	rt.Save(&_atx_u, &v.data); rt.SaveAppend(&_atx_u, v.data, 1); v.data = append(v.data, x)
//	rt.SaveEntry(&_atx_u, v.index, k); delete(v.index, k)
//
// A call that may be handed a pointer into the graph (a method with a
// pointer receiver, an argument that holds a pointer, a slice, a map or
// an interface) of a function the build does not rewrite here writes
// where the build cannot see: what its receiver and arguments reach is
// recorded before it (rt.SaveReach), a checkpoint of that part of the
// graph only; where the statement gives no place for that record (an
// operand that takes a call to compute, the header of an if or a
// switch), the operand is wrapped in a call that records it once it is
// computed (see reachAround; map keys, spreads and reflect.Append alike).
// A call of another instrumented package's function records only what
// that package's write facts leave (see facts.go). Where none of this
// can be done (in a loop, a call that writes outside memory), and for
// calls through function values, function literals and goroutines, the
// function keeps the checkpoint of its whole graph, with a build note
// that says which call made it so (see undoSaves).

// undoName is the rt.Undo of a masked call.
const undoName = "_atx_u"

// undoSave is the recording of one store, to be inserted at off, before
// the statement that makes it; or, when end > off, the text that
// replaces src[off:end] (a call redirected to a clone).
type undoSave struct {
	off, end int
	code     string
	// rank puts an insertion outside the others at its offset (see
	// editList.insertOutside): the brackets around an operand that the
	// record wraps, whose own calls are rewritten inside them.
	rank int
}

// add puts the save into edits.
func (s undoSave) add(edits *editList) {
	switch {
	case s.end > s.off:
		edits.replace(s.off, s.end, s.code)
	case s.rank != 0:
		edits.insertOutside(s.off, s.code, s.rank)
	default:
		edits.insert(s.off, s.code)
	}
}

// undoWrap returns the undo log's prologue: the log and its deferred
// end.
func (fe *funcEdits) undoWrap(siteRef string) string {
	return fmt.Sprintf("%[1]s := %[2]s.NewUndo(%[3]s); defer %[1]s.End(&%[4]s, %[5]s); ", undoName, rtName, siteRef, doneName, fe.errArg())
}

// undoSaves returns the recordings to insert before the stores of the
// function's body, or, when some write of the call is out of the build's
// sight, where and why: the function then keeps the checkpoint at entry.
func (fe *funcEdits) undoSaves() (saves []undoSave, pos token.Pos, why string) {
	switch {
	case fe.p.opts.checkpointsOnly:
		return nil, fe.namePos, "is built with checkpoints only"
	case fe.p.opts.Globals:
		return nil, fe.namePos, "rolls back package-level variables"
	case fe.sig == nil || fe.p.info == nil:
		return nil, fe.namePos, "has types the build does not know"
	case !fe.p.genericsAllowed():
		return nil, fe.namePos, "is in a package whose language version predates generics"
	case fe.atomicOblivious:
		return nil, fe.namePos, "is failure-oblivious"
	}
	u := fe.scanUndo("&" + undoName)
	if u.why != "" {
		return nil, u.pos, u.why
	}
	for _, fn := range u.needs {
		if why := fe.p.cloneClosure(fn, map[*gotypes.Func]bool{}); why != "" {
			return nil, fe.namePos, why
		}
	}
	fe.undoNeeds = u.needs
	return u.saves, token.NoPos, ""
}

// scanUndo finds the stores of the function and the calls to clone;
// ref is how its code names its log.
func (fe *funcEdits) scanUndo(ref string) *undoScan {
	u := &undoScan{fe: fe, ref: ref, listed: map[ast.Stmt]ast.Stmt{}}
	u.list(fe.body)
	u.walk(fe.body, nil)
	return u
}

// undoScan finds the stores of a body and what to record before them.
type undoScan struct {
	fe *funcEdits
	// ref is the log in the code of the function: &_atx_u in a masked
	// function, _atx_u, a parameter, in a clone.
	ref string
	// needs are the functions of the package whose clones it calls.
	needs []*gotypes.Func
	// listed maps each statement of a statement list (labels removed)
	// to itself: a recording can be inserted before it.
	listed map[ast.Stmt]ast.Stmt
	saves  []undoSave
	pos    token.Pos
	why    string
	// loops is how many loops enclose the statement walked, and lits how
	// many of them are function literals that run in place.
	loops, lits int
	// loopStmts are the loops that enclose the statement walked, outermost
	// first, when no function literal is among them; labels maps a
	// listed statement to the outermost label written before it.
	loopStmts []ast.Stmt
	labels    map[ast.Stmt]*ast.LabeledStmt
	// onces counts the flags of records made once per loop (see
	// onceInLoop).
	onces int
	// fresh are the variables that hold only memory the function
	// allocated (see freshVars), once asked.
	fresh       map[*gotypes.Var]bool
	freshFields map[freshField]bool
	// outlive are the fresh variables whose memory outlives the call
	// (see outliving), once asked.
	outlive map[*gotypes.Var]bool
	// atEntry: the call snapshots what its receiver and arguments reach
	// at entry, into its log (see snapshotAtEntry); entryRoots are they.
	atEntry    bool
	entryRoots []string
}

func (u *undoScan) fail(pos token.Pos, why string) {
	if u.why == "" {
		u.pos, u.why = pos, why
	}
}

func (u *undoScan) line(pos token.Pos) string {
	return fmt.Sprint(u.fe.p.fset.Position(pos).Line)
}

// list records the statements of every statement list of body.
func (u *undoScan) list(body *ast.BlockStmt) {
	add := func(list []ast.Stmt) {
		for _, s := range list {
			var outer *ast.LabeledStmt
			for {
				l, ok := s.(*ast.LabeledStmt)
				if !ok {
					break
				}
				if outer == nil {
					outer = l
				}
				s = l.Stmt
			}
			u.listed[s] = s
			if outer != nil {
				if u.labels == nil {
					u.labels = map[ast.Stmt]*ast.LabeledStmt{}
				}
				u.labels[s] = outer
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			add(n.List)
		case *ast.CaseClause:
			add(n.Body)
		case *ast.CommClause:
			add(n.Body)
		}
		return true
	})
}

// walk visits n; stmt is the innermost statement around it.
func (u *undoScan) walk(n ast.Node, stmt ast.Stmt) {
	ast.Inspect(n, func(m ast.Node) bool {
		if u.why != "" {
			return false
		}
		if m == n {
			return true
		}
		switch m := m.(type) {
		case *ast.FuncLit:
			if !u.inPlace(m) {
				u.fail(m.Pos(), "holds a function literal at line "+u.line(m.Pos()))
				return false
			}
			// Its stores are the call's, recorded in its log; it may
			// run many times, as a loop's body does.
			u.loops++
			u.lits++
			outer := u.loopStmts
			u.loopStmts = nil
			u.walk(m.Body, nil)
			u.loopStmts = outer
			u.loops--
			u.lits--
			return false
		case *ast.GoStmt:
			u.fail(m.Pos(), "starts a goroutine at line "+u.line(m.Pos()))
			return false
		case ast.Stmt:
			u.stmt(m)
			loop := false
			switch m.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				loop = true
				u.loops++
				u.loopStmts = append(u.loopStmts, m)
			}
			u.walk(m, m)
			if loop {
				u.loops--
				u.loopStmts = u.loopStmts[:len(u.loopStmts)-1]
			}
			return false
		case *ast.CallExpr:
			u.call(m, stmt)
		}
		return true
	})
}

// snapshotAtEntry makes a clone record, at entry, what its receiver and
// arguments reach: a function value it calls may write there, through its
// arguments or what it captured, and no record before the call could name
// what the value captured. That is what the function's whole checkpoint
// saves, at the same time, and the rest of the call keeps its records,
// in its caller's log. It returns why not: a lock taken in the body, or
// a root that holds one (the whole checkpoint's to handle); a root the
// code cannot name, or that the body assigns, so that its value at entry
// is gone by the time of the record.
func (u *undoScan) snapshotAtEntry() string {
	if u.atEntry {
		return ""
	}
	fe := u.fe
	if lockIdiom(fe.body, fe.src, fe.tf) != nil || len(fe.acquisitions()) > 0 {
		return "it takes a lock"
	}
	info := fe.p.info
	var fields []*ast.Field
	if fe.recv != nil {
		fields = append(fields, fe.recv.List...)
	}
	fields = append(fields, fe.ftype.Params.List...)
	var roots []string
	for _, f := range fields {
		t := info.TypeOf(f.Type)
		if t == nil {
			return "a parameter has a type the build does not know"
		}
		if plainNoLocks(t) {
			continue
		}
		switch t.Underlying().(type) {
		case *gotypes.Signature, *gotypes.Chan:
			continue
		}
		elem := t
		if p, ok := t.Underlying().(*gotypes.Pointer); ok {
			elem = p.Elem()
		}
		if holdsSync(elem, map[gotypes.Type]bool{}) {
			return "its parameter of type " + gotypes.TypeString(t, gotypes.RelativeTo(fe.p.pkg)) + " holds a lock"
		}
		if len(f.Names) == 0 {
			return "a parameter it would record has no name"
		}
		for _, id := range f.Names {
			if id.Name == "_" {
				return "a parameter it would record has no name"
			}
			if assigns(info, fe.body, info.Defs[id]) {
				return "it assigns its parameter " + id.Name
			}
			roots = append(roots, id.Name)
		}
	}
	u.atEntry, u.entryRoots = true, roots
	return ""
}

// entrySave is the record that snapshotAtEntry asked for, or "".
func (u *undoScan) entrySave() string {
	if len(u.entryRoots) == 0 {
		return ""
	}
	return fmt.Sprintf("%s.SaveReach(%s, %s); ", rtName, u.ref, strings.Join(u.entryRoots, ", "))
}

// inPlace reports whether lit, a literal that returns no error, runs
// only within the call and is not masked itself: its stores go to the
// call's log as the body's own do. In the masked function's own body
// that is a literal covered by it (see coveredByEnclosing); in a clone,
// whose literals are copies of the original's text without their own
// masking, any literal called in place.
func (u *undoScan) inPlace(lit *ast.FuncLit) bool {
	name, ok := u.fe.p.literals[lit]
	if !ok {
		return false
	}
	if sig, ok := u.fe.p.info.TypeOf(lit).(*gotypes.Signature); !ok || sig.Results().Len() > 0 && failsWith(sig.Results().At(sig.Results().Len()-1).Type(), nil) {
		return false
	}
	if u.ref != "&"+undoName {
		return u.fe.p.inPlaceLits()[lit]
	}
	return u.fe.p.coveredLit(lit, name.Name)
}

// stmt records the stores that statement s makes itself.
func (u *undoScan) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			return
		}
		for _, lhs := range s.Lhs {
			u.store(lhs, s)
		}
	case *ast.IncDecStmt:
		u.store(s.X, s)
	case *ast.RangeStmt:
		if s.Tok == token.ASSIGN {
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if e != nil && !u.isLocal(e) {
					u.fail(e.Pos(), "assigns the range variable "+u.fe.text(e)+" at line "+u.line(e.Pos()))
				}
			}
		}
	}
}

// store records the old contents of lhs, written by statement s.
func (u *undoScan) store(lhs ast.Expr, s ast.Stmt) {
	lhs = ast.Unparen(lhs)
	if id, ok := lhs.(*ast.Ident); ok && !u.captured(id) {
		// A local, a result, or a package-level variable: none is part
		// of the call's graph (see Options.Globals).
		return
	}
	if u.isLocal(lhs) || u.intoReport(lhs) || u.inFresh(lhs) {
		return
	}
	info := u.fe.p.info
	if ix, ok := lhs.(*ast.IndexExpr); ok {
		if m, ok := info.TypeOf(ix.X).Underlying().(*gotypes.Map); ok {
			u.mapEntry(m, ix.X, ix.Index, s)
			return
		}
	}
	t := info.TypeOf(lhs)
	if t == nil {
		u.fail(lhs.Pos(), "writes "+u.fe.text(lhs)+", of a type the build does not know, at line "+u.line(lhs.Pos()))
		return
	}
	if holdsSync(t, map[gotypes.Type]bool{}) {
		u.fail(lhs.Pos(), "writes "+u.fe.text(lhs)+", which holds a lock or an atomic value, at line "+u.line(lhs.Pos()))
		return
	}
	if !u.sideEffectFree(lhs) {
		u.fail(lhs.Pos(), "writes through "+u.fe.text(lhs)+", whose address takes a call to compute, at line "+u.line(lhs.Pos()))
		return
	}
	save := "Save"
	if pointerFree(t) && !hasTypeParam(t) {
		save = "SaveBits"
	}
	u.insert(s, fmt.Sprintf("%s.%s(%s, &%s); ", rtName, save, u.ref, u.fe.text(lhs)))
}

// intoReport reports whether lhs is a field of an error, through a
// pointer: the report of a failure, which a rollback leaves as the
// failing path wrote it (a key or a position that a decorator sets on
// the error it found with errors.As), as the runtime's restore does.
func (u *undoScan) intoReport(lhs ast.Expr) bool {
	sel, ok := lhs.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	selection := u.fe.p.info.Selections[sel]
	if selection == nil || selection.Kind() != gotypes.FieldVal || !selection.Indirect() && !isPointer(u.fe.p.info.TypeOf(sel.X)) {
		return false
	}
	t := u.fe.p.info.TypeOf(sel.X)
	if p, ok := t.Underlying().(*gotypes.Pointer); ok {
		t = p.Elem()
	}
	if _, ok := t.Underlying().(*gotypes.Interface); ok {
		return false
	}
	errType := errorType.Underlying().(*gotypes.Interface)
	return gotypes.Implements(t, errType) || gotypes.Implements(gotypes.NewPointer(t), errType)
}

// mapEntry records the entry of key k of map m (of type mt), which
// statement s assigns or deletes. A key that is no equal of itself, a
// NaN or a value that holds one, names no entry a lookup or a delete
// finds: rt.SaveEntry then leaves the call unmasked, at run time.
func (u *undoScan) mapEntry(mt *gotypes.Map, m, k ast.Expr, s ast.Stmt) {
	save := "SaveEntry"
	if pointerFree(mt.Key()) && pointerFree(mt.Elem()) && !hasTypeParam(mt) {
		save = "SaveEntryBits"
	}
	if u.sideEffectFree(m) && !u.sideEffectFree(k) && gotypes.Identical(u.fe.p.info.TypeOf(k), mt.Key()) {
		// m[d.name(p)] = v: the key is recorded where it is computed,
		// once, by a call that returns it (rt.SaveEntryKey).
		u.wrap(k, fmt.Sprintf("%s.%sKey(%s, %s, ", rtName, save, u.ref, u.fe.text(m)), ")")
		return
	}
	if !u.sideEffectFree(m) || !u.sideEffectFree(k) {
		u.fail(m.Pos(), "writes into "+u.fe.text(m)+" with a call in the map or key expression, at line "+u.line(m.Pos()))
		return
	}
	u.insert(s, fmt.Sprintf("%s.%s(%s, %s, %s); ", rtName, save, u.ref, u.fe.text(m), u.fe.text(k)))
}

// call checks a call made by statement s (nil outside statements): a
// call that can write memory the call's graph reaches is either recorded
// (delete, copy, clear of a slice, append) or out of sight.
func (u *undoScan) call(call *ast.CallExpr, s ast.Stmt) {
	info := u.fe.p.info
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return
	}
	if b, ok := calleeObject(info, call.Fun).(*gotypes.Builtin); ok {
		u.builtin(b.Name(), call, s)
		return
	}
	if u.callsInPlace(call) {
		return // its body's stores are recorded where they are written
	}
	fn, _ := calleeObject(info, call.Fun).(*gotypes.Func)
	if fn == nil && u.fe.p.opts.CallbacksWriteArguments != nil && u.fe.p.opts.CallbacksWriteArguments(u.fe.name) {
		u.callbackArgs(call)
		return
	}
	if fn == nil {
		// A masked function keeps its whole checkpoint, which is what
		// its clone records at entry, and more often generated code.
		if u.ref == "&"+undoName {
			u.fail(call.Pos(), "calls "+u.short(call.Fun)+", a function value, at line "+u.line(call.Pos()))
		} else if why := u.snapshotAtEntry(); why != "" {
			u.fail(call.Pos(), "calls "+u.short(call.Fun)+", a function value, at line "+u.line(call.Pos())+", and "+why)
		}
		return
	}
	if harmlessFunc(fn) || u.asIntoLocal(call, fn) || u.fe.p.accessor(fn, map[*gotypes.Func]bool{}) || u.freshMessage(call, fn) {
		return
	}
	if fn.FullName() == "reflect.Append" && !call.Ellipsis.IsValid() && len(call.Args) > 1 {
		// reflect.Append(v, x): what it overwrites past v's length is
		// recorded once v is evaluated (rt.SaveReflectAppend).
		v := call.Args[0]
		u.wrap(v, fmt.Sprintf("%s.SaveReflectAppend(%s, ", rtName, u.ref), fmt.Sprintf(", %d)", len(call.Args)-1))
		return
	}
	if save := reflectSetters[fn.FullName()]; save != "" {
		u.reflectSet(call, save, s)
		return
	}
	if ownBuilderWrite(fn) {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && u.isLocal(sel.X) && !isPointer(u.fe.p.info.TypeOf(sel.X)) {
			return // var b strings.Builder: memory the call allocates
		}
	}
	switch u.fe.p.importedFact(fn) {
	case writesNothing:
		return
	case writesReceiver:
		if u.receiverOnly(call, s) {
			return
		}
	}
	reaches := u.reachedBy(call, fn)
	if reaches == nil {
		return // it can write nothing of the call's graph
	}
	if v := u.publishedFresh(call, fn); v != nil {
		u.fail(call.Pos(), "hands "+v.Name()+", which it allocated, to "+u.short(call.Fun)+" at line "+u.line(call.Pos())+" and lets it outlive the call")
		return
	}
	if fd := u.fe.p.decls[fn.Origin()]; fd != nil && fd.Body != nil {
		if why := u.fe.p.cloneable(fn.Origin(), fd); why != "" {
			u.fail(call.Pos(), "calls "+u.short(call.Fun)+" at line "+u.line(call.Pos())+", which "+why)
			return
		}
		u.redirect(call, fn.Origin())
		return
	}
	if u.crossRedirect(call, fn) {
		return
	}
	if roots := u.reachRoots(call, fn, s); roots != nil {
		u.insert(s, fmt.Sprintf("%s.SaveReach(%s, %s); ", rtName, u.ref, strings.Join(roots, ", ")))
		return
	}
	if u.onceInLoop(call, fn, s) {
		return
	}
	if u.reachAround(call, fn, s) {
		return
	}
	u.fail(call.Pos(), "calls "+u.short(call.Fun)+" at line "+u.line(call.Pos())+", which may write what "+u.short(reaches)+" reaches")
}

// callbackArgs records what the arguments of call, a call of a function
// value, reach, where the policy says that the function values the
// masked function calls write only that (callbacks_write_arguments):
// each argument that may hold a reference is wrapped in rt.SaveArg,
// which records what it reaches once it is evaluated, where the call
// evaluates it (after the && or || that guards it, in an if header too).
// A value of a type parameter's type is wrapped in loops as well: the
// instantiation decides at run time, once per type, whether it holds a
// reference, and one that holds none costs no snapshot. In a loop, an
// argument that holds references keeps the whole checkpoint, as a call
// outside the build does (a snapshot per iteration).
func (u *undoScan) callbackArgs(call *ast.CallExpr) {
	info := u.fe.p.info
	sig, _ := info.TypeOf(call.Fun).Underlying().(*gotypes.Signature)
	if sig == nil {
		u.fail(call.Pos(), "calls "+u.short(call.Fun)+", a function value of a type the build does not know, at line "+u.line(call.Pos()))
		return
	}
	var wrap []ast.Expr
	for _, a := range call.Args {
		t := info.TypeOf(a)
		if t == nil {
			u.fail(a.Pos(), "calls "+u.short(call.Fun)+", a function value, at line "+u.line(call.Pos())+" with an argument of a type the build does not know")
			return
		}
		if tv := info.Types[a]; tv.IsNil() || tv.Value != nil || plainNoLocks(t) {
			continue // it hands over no reference
		}
		if tuple, ok := t.(*gotypes.Tuple); ok && tuple.Len() > 1 {
			u.fail(a.Pos(), "calls "+u.short(call.Fun)+", a function value, at line "+u.line(call.Pos())+" with the results of "+u.short(a))
			return
		}
		if u.loops > 0 && !hasTypeParam(t) {
			u.fail(a.Pos(), "calls "+u.short(call.Fun)+", a function value, in a loop at line "+u.line(call.Pos())+" and hands it "+u.short(a)+", which holds references (a record per iteration)")
			return
		}
		if !u.wrappable(call, nil, sig, a) {
			u.fail(a.Pos(), "calls "+u.short(call.Fun)+", a function value, at line "+u.line(call.Pos())+" and hands it "+u.short(a)+", which the undo log cannot record where it is evaluated")
			return
		}
		wrap = append(wrap, a)
	}
	for _, a := range wrap {
		u.wrap(a, fmt.Sprintf("%s.SaveArg(%s, ", rtName, u.ref), ")")
	}
}

// reachRoots returns the roots to snapshot before statement s, whose
// call of fn, a function the build does not rewrite, may write what its
// receiver and arguments reach: what they reach is recorded, not the
// whole graph of the masked call. nil where it cannot be done soundly
// and cheaply: in a loop (a snapshot per iteration) but in a return
// of the function's own, which ends the loop; before a statement that is
// not simple, for an expression that takes a call to compute
// (evaluated twice), for values that hold locks or concurrent data, and
// for calls that write outside memory (what file undo and the refusal of
// such functions reason about is the whole checkpoint).
func (u *undoScan) reachRoots(call *ast.CallExpr, fn *gotypes.Func, s ast.Stmt) []string {
	if _, ret := s.(*ast.ReturnStmt); u.loops > 0 && (!ret || u.lits > 0) || !u.simple(s) {
		return nil // a return of the function's own, in a loop, runs once
	}
	if _, ok := u.fe.p.writesOutside(call); ok {
		return nil
	}
	var roots []string
	add := func(e ast.Expr, addr bool) bool {
		if !u.recordable(e, s) {
			return false
		}
		text := u.fe.text(e)
		if addr {
			text = "&" + text
		}
		roots = append(roots, text)
		return true
	}
	for _, o := range u.writableOperands(call, fn) {
		if !add(o.expr, o.addr) {
			return nil
		}
	}
	return roots
}

// recordable reports whether a record before statement s can snapshot
// what operand e reaches: e evaluates again to the same value, with no
// call, and names only variables declared before s; it is no function
// value or channel; and it holds no lock or concurrent data, which are
// the whole checkpoint's to handle (see holdsSync): the method of a
// sync or atomic value writes it through its own stores.
func (u *undoScan) recordable(e ast.Expr, s ast.Stmt) bool {
	t := u.fe.p.info.TypeOf(e)
	if t == nil || !u.sideEffectFree(e) || !u.declaredBefore(s, e) {
		return false
	}
	switch t.Underlying().(type) {
	case *gotypes.Signature, *gotypes.Chan:
		return false
	}
	if p, ok := t.Underlying().(*gotypes.Pointer); ok {
		t = p.Elem()
	}
	return !holdsSync(t, map[gotypes.Type]bool{})
}

// onceInLoop records what the operands of call, a call of fn that the
// build does not rewrite, made by statement s in a loop, reach, once per
// run of the loop: at the first iteration that makes the call, before
// it, behind a flag the loop's run starts false
//
//	var _atx_once0 bool; for _, b := range p { if !_atx_once0 { _atx_once0 = true; rt.SaveReach(&_atx_u, t.hr) }; h = t.hr.RollByte(b) }
//
// That is sound where the operands are the same in every iteration, so
// that a later iteration's call writes only what the first one's
// operands reached or what the calls allocated: the loop assigns no
// variable they use, stores nothing of the type of any part of them and
// no reference but into variables of its own (which could link more
// memory to what they reach), takes no address of such a part, and makes
// no other call that could write one. It reports whether it recorded. A record per iteration
// could cost more than the whole checkpoint; a record of a part of the
// graph, once, costs less (a hash's roller, not its table).
func (u *undoScan) onceInLoop(call *ast.CallExpr, fn *gotypes.Func, s ast.Stmt) bool {
	if u.lits > 0 || len(u.loopStmts) == 0 || !u.simple(s) {
		return false
	}
	if _, ok := u.fe.p.writesOutside(call); ok {
		return false
	}
	if ownBuilderWrite(fn) {
		// A builder written in a loop may hand out strings over the
		// bytes that a rollback of its length would let later writes
		// overwrite: it keeps its checkpoint.
		return false
	}
	ops := u.writableOperands(call, fn)
	if len(ops) == 0 {
		return false
	}
	var exprs []ast.Expr
	for _, o := range ops {
		if !u.recordable(o.expr, s) {
			return false
		}
		exprs = append(exprs, o.expr)
	}
	// The outermost loop over which the operands are the same.
	var loop ast.Stmt
	for _, l := range u.loopStmts {
		if u.declaredBefore(l, exprs...) && u.invariantIn(l, call, exprs) {
			loop = l
			break
		}
	}
	if loop == nil || u.hasGoto() {
		return false
	}
	at := loop
	if l := u.labels[loop]; l != nil {
		at = l
	}
	if u.listed[loop] == nil {
		return false
	}
	roots := make([]string, len(ops))
	for i, o := range ops {
		roots[i] = u.fe.text(o.expr)
		if o.addr {
			roots[i] = "&" + roots[i]
		}
	}
	flag := fmt.Sprintf("_atx_once%d", u.onces)
	u.onces++
	off := u.fe.off(at.Pos())
	u.saves = append(u.saves, undoSave{off: off, end: off, code: "var " + flag + " bool; " + lineDirective(u.fe.p.fset, u.fe.tf, off)})
	u.insert(s, fmt.Sprintf("if !%s { %s = true; %s.SaveReach(%s, %s) }; ", flag, flag, rtName, u.ref, strings.Join(roots, ", ")))
	return true
}

// invariantIn reports whether the expressions exprs, operands of call,
// evaluate to the same values, with the same parts, in every iteration of
// loop: see onceInLoop.
func (u *undoScan) invariantIn(loop ast.Stmt, call *ast.CallExpr, exprs []ast.Expr) bool {
	info := u.fe.p.info
	vars := map[*gotypes.Var]bool{}
	// parts are the types of the parts of exprs, and of what holds them
	// (a struct that a pointer leads to, whose store replaces them all).
	var parts []gotypes.Type
	addPart := func(e ...ast.Expr) {
		for _, x := range e {
			t := info.TypeOf(x)
			if t == nil {
				continue
			}
			parts = append(parts, t)
			if p, ok := t.Underlying().(*gotypes.Pointer); ok {
				parts = append(parts, p.Elem())
			}
		}
	}
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if v, ok := info.Uses[n].(*gotypes.Var); ok {
					vars[v] = true
				}
			case *ast.SelectorExpr:
				addPart(n, n.X)
			case *ast.IndexExpr:
				addPart(n, n.X)
			case *ast.StarExpr:
				addPart(n, n.X)
			}
			return true
		})
	}
	touches := func(lhs ast.Expr) bool {
		lhs = ast.Unparen(lhs)
		if id, ok := lhs.(*ast.Ident); ok {
			v, _ := info.ObjectOf(id).(*gotypes.Var)
			return v != nil && vars[v]
		}
		t := info.TypeOf(lhs)
		if t == nil || !plainNoLocks(t) {
			// A store of a reference could link memory that the
			// operands did not reach at the first record, and that a
			// later call writes.
			return true
		}
		for _, p := range parts {
			if gotypes.Identical(t, p) {
				return true
			}
		}
		return false
	}
	ok := true
	ast.Inspect(loop, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
			ok = false
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if touches(l) {
					ok = false
				}
			}
		case *ast.IncDecStmt:
			ok = !touches(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, l := range []ast.Expr{n.Key, n.Value} {
					if l != nil && touches(l) {
						ok = false
					}
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && touches(n.X) {
				ok = false
			}
		case *ast.CallExpr:
			if n == call {
				return true // its arguments are walked
			}
			if tv, isType := info.Types[n.Fun]; isType && tv.IsType() {
				return true
			}
			switch callee := calleeObject(info, n.Fun).(type) {
			case *gotypes.Builtin:
				switch callee.Name() {
				case "len", "cap", "append", "min", "max", "new", "make", "complex", "real", "imag", "panic":
					return true
				}
			case *gotypes.Func:
				if harmlessFunc(callee) {
					return true
				}
			}
			ok = false
		}
		return ok
	})
	return ok
}

// hasGoto reports whether the function's body has a goto, which a
// declaration inserted before a loop could be jumped over by.
func (u *undoScan) hasGoto() bool {
	found := false
	ast.Inspect(u.fe.body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO {
			found = true
		}
		return !found
	})
	return found
}

// receiverOnly records what call writes, a call of a method of another
// package that, as that package's facts say, writes only the variable
// its pointer receiver points to: that variable, as a store into it
// would be recorded, or nothing when it is the function's own. It
// reports whether it could.
func (u *undoScan) receiverOnly(call *ast.CallExpr, s ast.Stmt) bool {
	info := u.fe.p.info
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || info.Selections[sel] == nil || info.Selections[sel].Kind() != gotypes.MethodVal || len(info.Selections[sel].Index()) != 1 {
		return false
	}
	t := info.TypeOf(sel.X)
	if t == nil {
		return false
	}
	if !isPointer(t) {
		// The method takes the address of the variable sel.X denotes.
		if u.isLocal(sel.X) {
			return true
		}
		if !u.simple(s) {
			return false
		}
		u.store(sel.X, s)
		return true
	}
	elem := t.Underlying().(*gotypes.Pointer).Elem()
	if !u.simple(s) || !u.sideEffectFree(sel.X) || holdsSync(elem, map[gotypes.Type]bool{}) {
		return false
	}
	save := "Save"
	if pointerFree(elem) && !hasTypeParam(elem) {
		save = "SaveBits"
	}
	x := u.fe.text(sel.X)
	u.insert(s, fmt.Sprintf("if %[3]s != nil { %[1]s.%[2]s(%[4]s, %[3]s) }; ", rtName, save, x, u.ref))
	return true
}

// reachAround records what the receiver and arguments of call, a call
// of fn that the build does not rewrite, reach from within the call
// itself, where reachRoots cannot record it before the statement: one
// operand takes a call to compute, so that a record before the statement
// would evaluate it twice, or the statement is not simple (the header of
// an if or a switch). That operand, or the last one, is wrapped in
// rt.SaveReachWith (when the callee may write what it reaches) or
// rt.SaveReachAfter, which records what the call's writable operands
// reach once the wrapped one is evaluated, and returns it:
//
//	return v, u.UnmarshalTOML(rt.SaveReachAfter(&_atx_u, d.rawValue(expr, value), u))
//
// Every other operand must take no call, so that it evaluates again to
// the value the call gets and nothing runs between the record and the
// call. It reports whether it could.
func (u *undoScan) reachAround(call *ast.CallExpr, fn *gotypes.Func, s ast.Stmt) bool {
	switch s.(type) {
	case nil, *ast.DeferStmt, *ast.GoStmt:
		return false // no statement, or a call that runs later
	}
	if _, ret := s.(*ast.ReturnStmt); u.loops > 0 && (!ret || u.lits > 0) {
		return false
	}
	if _, ok := u.fe.p.writesOutside(call); ok {
		return false
	}
	info := u.fe.p.info
	sig, _ := info.TypeOf(call.Fun).(*gotypes.Signature) // instantiated
	if sig == nil {
		return false
	}
	var wrapped ast.Expr
	operands := call.Args
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if selection := info.Selections[sel]; selection != nil && selection.Kind() == gotypes.MethodVal {
			operands = append([]ast.Expr{sel.X}, call.Args...)
		}
	}
	for _, o := range operands {
		if u.sideEffectFree(o) {
			continue
		}
		if _, lit := ast.Unparen(o).(*ast.FuncLit); lit || wrapped != nil {
			return false
		}
		wrapped = o
	}
	if wrapped == nil && len(operands) > 0 {
		wrapped = operands[len(operands)-1]
	}
	if wrapped == nil || !u.wrappable(call, fn, sig, wrapped) {
		return false
	}
	save := "SaveReachAfter"
	var roots []string
	for _, o := range u.writableOperands(call, fn) {
		t := info.TypeOf(o.expr)
		if p, ok := t.Underlying().(*gotypes.Pointer); ok {
			t = p.Elem()
		}
		switch t.Underlying().(type) {
		case *gotypes.Signature, *gotypes.Chan:
			return false
		}
		if holdsSync(t, map[gotypes.Type]bool{}) {
			return false
		}
		switch {
		case o.expr == wrapped && o.addr:
			return false // a wrapped value is no variable to take the address of
		case o.expr == wrapped:
			save = "SaveReachWith"
		case o.addr:
			roots = append(roots, "&"+u.fe.text(o.expr))
		default:
			roots = append(roots, u.fe.text(o.expr))
		}
	}
	closing := ")"
	if len(roots) > 0 {
		closing = ", " + strings.Join(roots, ", ") + ")"
	}
	u.wrap(wrapped, fmt.Sprintf("%s.%s(%s, ", rtName, save, u.ref), closing)
	return true
}

// wrap records around e, an expression that the recording evaluates
// once and returns: open before it and close after it, outside any other
// rewrite of e's own calls.
func (u *undoScan) wrap(e ast.Expr, open, close string) {
	fset, tf := u.fe.p.fset, u.fe.tf
	start, end := u.fe.off(e.Pos()), u.fe.off(e.End())
	u.saves = append(u.saves,
		undoSave{off: start, end: start, rank: -1, code: open + lineDirective(fset, tf, start)},
		undoSave{off: end, end: end, rank: +1, code: close + lineDirective(fset, tf, end)})
}

// wrappable reports whether operand o of call, a call of fn whose
// function expression has the signature sig, keeps its meaning wrapped
// in a generic function that returns it: a value of a type of its own
// (not an untyped constant, whose type the context gives), as the
// parameter takes it, or a receiver that the method does not take the
// address of.
func (u *undoScan) wrappable(call *ast.CallExpr, fn *gotypes.Func, sig *gotypes.Signature, o ast.Expr) bool {
	info := u.fe.p.info
	tv, ok := info.Types[o]
	if !ok || tv.Value != nil || tv.IsNil() || tv.Type == nil {
		return false
	}
	if b, ok := tv.Type.(*gotypes.Basic); ok && b.Info()&gotypes.IsUntyped != 0 {
		return false
	}
	if _, tuple := tv.Type.(*gotypes.Tuple); tuple {
		return false
	}
	for i, a := range call.Args {
		if a != o {
			continue
		}
		var param gotypes.Type
		switch n := sig.Params().Len(); {
		case sig.Variadic() && i >= n-1 && !call.Ellipsis.IsValid():
			slice, ok := sig.Params().At(n - 1).Type().(*gotypes.Slice)
			if !ok {
				return false
			}
			param = slice.Elem()
		case i < n:
			param = sig.Params().At(i).Type()
		default:
			return false
		}
		_, iface := param.Underlying().(*gotypes.Interface)
		return iface || gotypes.Identical(param, tv.Type)
	}
	// The receiver: a method of a pointer receiver called on a value
	// takes its address, which a returned value has not.
	recv := fn.Type().(*gotypes.Signature).Recv()
	if recv == nil {
		return false
	}
	_, ptrRecv := recv.Type().Underlying().(*gotypes.Pointer)
	return !ptrRecv || isPointer(tv.Type)
}

// reachedBy returns the receiver or argument of call, a call of fn,
// through which it may write memory that the function's own variables do
// not hold: a pointer receiver of a value the function did not declare,
// or a value that holds a pointer, a slice, a map or an interface. nil
// when there is none.
func (u *undoScan) reachedBy(call *ast.CallExpr, fn *gotypes.Func) ast.Expr {
	if ops := u.writableOperands(call, fn); len(ops) > 0 {
		return ops[0].expr
	}
	return nil
}

// operand is a receiver or argument of a call; addr: the call takes its
// address (a pointer method of an addressable value), so that it writes
// the value in place.
type operand struct {
	expr ast.Expr
	addr bool
}

// writableOperands returns the receiver and arguments of call, a call of
// fn, through which it may write memory that the function's own
// variables do not hold (see reachedBy), receiver first.
func (u *undoScan) writableOperands(call *ast.CallExpr, fn *gotypes.Func) []operand {
	info := u.fe.p.info
	var ops []operand
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if selection := info.Selections[sel]; selection != nil && selection.Kind() == gotypes.MethodVal {
			recv := info.TypeOf(sel.X)
			_, ptrRecv := fn.Type().(*gotypes.Signature).Recv().Type().Underlying().(*gotypes.Pointer)
			if !plainNoLocks(recv) || ptrRecv && !u.isLocal(sel.X) {
				ops = append(ops, operand{sel.X, ptrRecv && !isPointer(recv)})
			}
		}
	}
	for _, a := range call.Args {
		if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok && u.inPlace(lit) {
			continue // a comparison for sort.Search: walked as the body
		}
		if t := info.TypeOf(a); t == nil || !plainNoLocks(t) && !isReflectType(t) {
			ops = append(ops, operand{a, false})
		}
	}
	return ops
}

// isReflectType reports reflect.Type, an interface whose values are the
// runtime's descriptions of types, which no code writes: a call handed
// one writes nothing through it.
func isReflectType(t gotypes.Type) bool {
	named, ok := gotypes.Unalias(t).(*gotypes.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "reflect" && named.Obj().Name() == "Type"
}

// callsInPlace reports whether call calls a literal that u walks as part
// of the body (see inPlace): written where it is called, or bound to a
// variable that is only ever called.
func (u *undoScan) callsInPlace(call *ast.CallExpr) bool {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.FuncLit:
		return u.inPlace(f)
	case *ast.Ident:
		v, ok := u.fe.p.info.Uses[f].(*gotypes.Var)
		u.fe.p.inPlaceLits() // binds boundLits
		b := u.fe.p.boundLits[v]
		if !ok || b == nil {
			return false
		}
		for _, lit := range b.lits {
			// Walked with this body: the variable is the body's own.
			if lit.Pos() < u.fe.body.Pos() || lit.End() > u.fe.body.End() || !u.inPlace(lit) {
				return false
			}
		}
		for _, fn := range b.funcs {
			if !u.fe.p.accessor(fn, map[*gotypes.Func]bool{}) {
				return false
			}
		}
		return true
	}
	return false
}

// reflectSetters are the methods of reflect.Value that write the variable
// the Value addresses, or an entry of the map it holds, and nothing that
// the old contents refer to; each is recorded by the rt function named.
var reflectSetters = map[string]string{
	"(reflect.Value).Set": "SaveSet", "(reflect.Value).SetBool": "SaveSet",
	"(reflect.Value).SetBytes": "SaveSet", "(reflect.Value).SetCap": "SaveSet",
	"(reflect.Value).SetComplex": "SaveSet", "(reflect.Value).SetFloat": "SaveSet",
	"(reflect.Value).SetInt": "SaveSet", "(reflect.Value).SetIterKey": "SaveSet",
	"(reflect.Value).SetIterValue": "SaveSet", "(reflect.Value).SetLen": "SaveSet",
	"(reflect.Value).SetPointer": "SaveSet", "(reflect.Value).SetString": "SaveSet",
	"(reflect.Value).SetUint": "SaveSet", "(reflect.Value).SetZero": "SaveSet",
	"(reflect.Value).Grow":        "SaveSet",
	"(reflect.Value).SetMapIndex": "SaveMapIndex",
}

// reflectSet records what call, of a setter of reflect.Value made by
// statement s, overwrites: the Value's variable (SaveSet), or the map
// entry of its first argument (SaveMapIndex). A record per call: it
// saves one variable or entry, in a loop too.
func (u *undoScan) reflectSet(call *ast.CallExpr, save string, s ast.Stmt) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		u.fail(call.Pos(), "calls "+u.short(call.Fun)+" at line "+u.line(call.Pos())+" in a form the undo log cannot record")
		return
	}
	exprs := []ast.Expr{sel.X}
	if save == "SaveMapIndex" {
		if k := call.Args[0]; u.sideEffectFree(sel.X) && !u.sideEffectFree(k) {
			// m.SetMapIndex(d.key(name), v): the key is recorded where
			// it is computed (rt.SaveMapIndexKey), as for a map store.
			u.wrap(k, fmt.Sprintf("%s.SaveMapIndexKey(%s, %s, ", rtName, u.ref, u.fe.text(sel.X)), ")")
			return
		}
		exprs = append(exprs, call.Args[0])
	}
	if !u.simple(s) || !u.sideEffectFree(exprs...) || !u.declaredBefore(s, exprs...) {
		u.fail(call.Pos(), "calls "+u.short(call.Fun)+" at line "+u.line(call.Pos())+", which writes what "+u.short(sel.X)+" refers to, in a form the undo log cannot record")
		return
	}
	args := []string{u.ref}
	for _, e := range exprs {
		args = append(args, u.fe.text(e))
	}
	u.insert(s, fmt.Sprintf("%s.%s(%s); ", rtName, save, strings.Join(args, ", ")))
}

// freshMessage reports the message of an error the standard library has
// just made, fmt.Errorf(…).Error(): the dynamic type is fmt's or errors',
// whose Error method returns the text it keeps.
func (u *undoScan) freshMessage(call *ast.CallExpr, fn *gotypes.Func) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || fn.Pkg() != nil || fn.Name() != "Error" {
		return false // error.Error, the universe's, has no package
	}
	made, ok := ast.Unparen(sel.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	maker, ok := calleeObject(u.fe.p.info, made.Fun).(*gotypes.Func)
	if !ok || maker.Pkg() == nil {
		return false
	}
	switch maker.Pkg().Path() + "." + maker.Name() {
	case "fmt.Errorf", "errors.New":
		return true
	}
	return false
}

// harmlessFunc reports the functions of the standard library that write
// nothing their arguments reach, and that error paths and the code
// around them call.
func harmlessFunc(fn *gotypes.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	pkg := fn.Pkg().Path()
	recv := fn.Type().(*gotypes.Signature).Recv()
	if recv == nil {
		return harmlessFuncs[pkg+"."+fn.Name()]
	}
	t := recv.Type()
	if p, ok := t.(*gotypes.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*gotypes.Named)
	if !ok {
		return false
	}
	typ := pkg + "." + named.Obj().Name()
	switch {
	case pkg == "sync" && isMutex(t):
		// A lock's state is never rolled back: taking and releasing one
		// writes nothing the log must restore.
		return true
	case pkg == "testing":
		// A test's bookkeeping (Helper, Errorf, Fatal, …) is no state
		// that a rollback restores.
		return true
	case typ == "reflect.Type", typ == "time.Time":
		// Every method of either reads: a reflect.Type describes a type,
		// and a time.Time's methods take a copy of it.
		return true
	}
	return harmlessMethods[typ+"."+fn.Name()]
}

// ownBuilderWrite reports a method of strings.Builder that writes the
// builder: on a variable of the function's own it writes only memory the
// call allocated, as a builder never takes a buffer it was handed and a
// copy of a used one panics when written. (Not on another variable: a
// rollback of its length would let later writes overwrite the bytes of
// strings it returned.)
func ownBuilderWrite(fn *gotypes.Func) bool {
	recv := fn.Type().(*gotypes.Signature).Recv()
	if recv == nil || fn.Pkg() == nil || fn.Pkg().Path() != "strings" {
		return false
	}
	p, ok := recv.Type().(*gotypes.Pointer)
	if !ok {
		return false
	}
	named, ok := p.Elem().(*gotypes.Named)
	return ok && named.Obj().Name() == "Builder"
}

// asIntoLocal reports a call of errors.As whose target is a variable of
// the function's own: the one thing errors.As writes.
func (u *undoScan) asIntoLocal(call *ast.CallExpr, fn *gotypes.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != "errors" || fn.Name() != "As" || len(call.Args) != 2 {
		return false
	}
	addr, ok := ast.Unparen(call.Args[1]).(*ast.UnaryExpr)
	if !ok || addr.Op != token.AND {
		return false
	}
	id, ok := ast.Unparen(addr.X).(*ast.Ident)
	return ok && u.isLocal(id) && u.fe.p.info.Uses[id] != nil && u.fe.p.info.Uses[id].Parent() != u.fe.p.pkg.Scope()
}

// harmlessFuncs are the functions of the standard library, by package
// path and name, that write nothing their arguments reach.
var harmlessFuncs = map[string]bool{
	"fmt.Errorf": true, "fmt.Sprintf": true, "fmt.Sprint": true, "fmt.Sprintln": true,
	"errors.New": true, "errors.Is": true, "errors.Join": true, "errors.Unwrap": true,
	"bytes.Equal": true, "bytes.Compare": true, "bytes.EqualFold": true,
	"bytes.HasPrefix": true, "bytes.HasSuffix": true,
	"bytes.Contains": true, "bytes.ContainsAny": true, "bytes.ContainsRune": true, "bytes.Count": true,
	"bytes.Index": true, "bytes.IndexAny": true, "bytes.IndexByte": true, "bytes.IndexRune": true,
	"bytes.LastIndex": true, "bytes.LastIndexAny": true, "bytes.LastIndexByte": true, "strings.Join": true,
	"reflect.ValueOf": true, "reflect.TypeOf": true, "reflect.DeepEqual": true,
	"reflect.Indirect": true, "reflect.Zero": true, "reflect.New": true, "reflect.PointerTo": true, "reflect.PtrTo": true,
	"time.Date": true, "time.Unix": true, "time.UnixMilli": true, "time.UnixMicro": true,
}

// harmlessMethods are the methods of the standard library's types, by
// type and name, that write neither their receiver nor what their
// arguments reach. A sync.Pool's contents are no state that a rollback
// restores.
var harmlessMethods = map[string]bool{
	"reflect.Value.Kind": true, "reflect.Value.Type": true, "reflect.Value.Len": true,
	"reflect.Value.Cap": true, "reflect.Value.IsNil": true, "reflect.Value.IsValid": true,
	"reflect.Value.IsZero": true, "reflect.Value.Elem": true, "reflect.Value.Field": true,
	"reflect.Value.FieldByIndex": true, "reflect.Value.FieldByName": true, "reflect.Value.Index": true,
	"reflect.Value.NumField": true, "reflect.Value.NumMethod": true, "reflect.Value.MapIndex": true,
	"reflect.Value.MapKeys": true, "reflect.Value.Interface": true, "reflect.Value.CanAddr": true,
	"reflect.Value.CanSet": true, "reflect.Value.CanInterface": true, "reflect.Value.Addr": true,
	"reflect.Value.Int": true, "reflect.Value.Uint": true, "reflect.Value.Float": true,
	"reflect.Value.Bool": true, "reflect.Value.String": true, "reflect.Value.Pointer": true,
	"reflect.Value.CanInt": true, "reflect.Value.CanUint": true, "reflect.Value.CanFloat": true,
	"reflect.Value.OverflowInt": true, "reflect.Value.OverflowUint": true, "reflect.Value.OverflowFloat": true,
	"sync.Map.Load": true, "sync.Pool.Get": true,
	"encoding/binary.littleEndian.Uint16": true, "encoding/binary.littleEndian.Uint32": true,
	"encoding/binary.littleEndian.Uint64": true, "encoding/binary.bigEndian.Uint16": true,
	"encoding/binary.bigEndian.Uint32": true, "encoding/binary.bigEndian.Uint64": true,
}

// builtin checks a call of a built-in function made by statement s.
func (u *undoScan) builtin(name string, call *ast.CallExpr, s ast.Stmt) {
	info := u.fe.p.info
	switch name {
	case "delete":
		m := call.Args[0]
		mt, _ := info.TypeOf(m).Underlying().(*gotypes.Map)
		if mt == nil || u.freshValue(m) {
			return
		}
		u.mapEntry(mt, m, call.Args[1], s)
	case "copy":
		dst, src := call.Args[0], call.Args[1]
		if u.freshValue(dst) {
			return
		}
		u.elems(call, s, fmt.Sprintf("%s.SaveCopy(%s, %s, len(%s)); ", rtName, u.ref, u.fe.text(dst), u.fe.text(src)), dst, src)
	case "clear":
		x := call.Args[0]
		if u.freshValue(x) {
			return
		}
		if _, isMap := info.TypeOf(x).Underlying().(*gotypes.Map); isMap {
			u.fail(call.Pos(), "clears the map "+u.fe.text(x)+" at line "+u.line(call.Pos()))
			return
		}
		u.elems(call, s, fmt.Sprintf("%s.SaveElems(%s, %s); ", rtName, u.ref, u.fe.text(x)), x)
	case "append":
		first := call.Args[0]
		if _, isSlice := info.TypeOf(first).Underlying().(*gotypes.Slice); !isSlice {
			return
		}
		n := fmt.Sprint(len(call.Args) - 1)
		exprs := []ast.Expr{first}
		if call.Ellipsis.IsValid() {
			n = "len(" + u.fe.text(call.Args[1]) + ")"
			exprs = append(exprs, call.Args[1])
		}
		if len(call.Args) == 1 || u.freshValue(first) {
			return
		}
		if spread := call.Args[len(call.Args)-1]; call.Ellipsis.IsValid() && u.sideEffectFree(first) && !u.sideEffectFree(spread) {
			// append(c.buf, d.raw(n)...): what it overwrites is recorded
			// once the spread is computed (rt.SaveAppendSpread).
			u.wrap(spread, fmt.Sprintf("%s.SaveAppendSpread(%s, %s, ", rtName, u.ref, u.fe.text(first)), ")")
			return
		}
		if !u.simple(s) || !u.sideEffectFree(exprs...) || !u.declaredBefore(s, exprs...) {
			u.fail(call.Pos(), "appends to "+u.fe.text(first)+" at line "+u.line(call.Pos())+" where the undo log cannot record what it overwrites")
			return
		}
		u.insert(s, fmt.Sprintf("%s.SaveAppend(%s, %s, %s); ", rtName, u.ref, u.fe.text(first), n))
	case "len", "cap", "make", "new", "min", "max", "panic", "print", "println",
		"complex", "real", "imag", "recover":
	default:
		u.fail(call.Pos(), "calls "+name+" at line "+u.line(call.Pos()))
	}
}

// elems inserts save, the recording of the elements that call, made by
// statement s, writes into exprs[0], a slice.
func (u *undoScan) elems(call *ast.CallExpr, s ast.Stmt, save string, exprs ...ast.Expr) {
	if !u.simple(s) || !u.sideEffectFree(exprs...) || !u.declaredBefore(s, exprs...) {
		u.fail(call.Pos(), "calls "+u.short(call.Fun)+" at line "+u.line(call.Pos())+" where the undo log cannot record what it overwrites")
		return
	}
	if _, isString := u.fe.p.info.TypeOf(exprs[0]).Underlying().(*gotypes.Basic); isString {
		return
	}
	u.insert(s, save)
}

// short is the text of e for a note: its first line, cut.
func (u *undoScan) short(e ast.Node) string {
	t := u.fe.text(e)
	if i := strings.IndexByte(t, '\n'); i >= 0 || len(t) > 40 {
		if i < 0 || i > 40 {
			i = 40
		}
		t = t[:i] + "…"
	}
	return t
}

// simple reports whether s is a statement of a statement list that
// evaluates its expressions once, when it runs: a recording inserted
// before it sees what it writes.
func (u *undoScan) simple(s ast.Stmt) bool {
	if s == nil || u.listed[s] == nil {
		return false
	}
	switch s := s.(type) {
	case *ast.AssignStmt, *ast.IncDecStmt, *ast.ExprStmt, *ast.DeclStmt, *ast.ReturnStmt:
		return true
	case *ast.DeferStmt:
		// defer delete(visited, t): its operands are evaluated here, and
		// the entry recorded here comes before any later write of it.
		b, ok := calleeObject(u.fe.p.info, s.Call.Fun).(*gotypes.Builtin)
		return ok && b.Name() == "delete"
	}
	return false
}

// insert adds a recording before statement s, which must be simple.
func (u *undoScan) insert(s ast.Stmt, code string) {
	if !u.simple(s) {
		pos := token.NoPos
		if s != nil {
			pos = s.Pos()
		}
		u.fail(pos, "writes in a statement at line "+u.line(pos)+" before which the undo log cannot record it")
		return
	}
	off := u.fe.off(s.Pos())
	u.saves = append(u.saves, undoSave{off: off, end: off, code: code + lineDirective(u.fe.p.fset, u.fe.tf, off)})
}

// isLocal reports whether e denotes a variable, or a part of one that no
// pointer leads to (a field, an array element): the function's own
// variables, and package-level ones, which are no part of the call's
// graph (see Options.Globals).
func (u *undoScan) isLocal(e ast.Expr) bool {
	info := u.fe.p.info
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := info.ObjectOf(e).(*gotypes.Var)
		return ok && !u.captured(e)
	case *ast.SelectorExpr:
		if v, ok := info.Uses[e.Sel].(*gotypes.Var); ok && !v.IsField() {
			return true // a package-level variable of another package
		}
		sel := info.Selections[e]
		return sel != nil && sel.Kind() == gotypes.FieldVal && !sel.Indirect() && !isPointer(info.TypeOf(e.X)) && u.isLocal(e.X)
	case *ast.IndexExpr:
		_, isArray := info.TypeOf(e.X).Underlying().(*gotypes.Array)
		return isArray && u.isLocal(e.X)
	}
	return false
}

// captured reports whether id, in a function literal, is a variable of
// a function around it: one of the literal's roots (see
// pkgRewriter.captured), which its stores change for that function too.
func (u *undoScan) captured(id *ast.Ident) bool {
	lit := u.fe.lit
	if lit == nil {
		return false
	}
	v, ok := u.fe.p.info.Uses[id].(*gotypes.Var)
	if !ok || v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	return v.Pos() < lit.Pos() || v.Pos() >= lit.End()
}

func isPointer(t gotypes.Type) bool {
	_, ok := t.Underlying().(*gotypes.Pointer)
	return ok
}

// sideEffectFree reports whether evaluating the expressions twice gives
// the same values and changes nothing: no calls but conversions, len and
// cap and the package's accessors (see accessor), no receive.
func (u *undoScan) sideEffectFree(exprs ...ast.Expr) bool {
	return u.fe.p.sideEffectFree(exprs, map[*gotypes.Func]bool{})
}

// sideEffectFree is undoScan.sideEffectFree; asked holds the accessors
// whose bodies are being asked about, which a recursive one does not
// pass.
func (p *pkgRewriter) sideEffectFree(exprs []ast.Expr, asked map[*gotypes.Func]bool) bool {
	ok := true
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				ok = false
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					ok = false
				}
			case *ast.CallExpr:
				if tv, isType := p.info.Types[n.Fun]; isType && tv.IsType() {
					return true
				}
				switch callee := calleeObject(p.info, n.Fun).(type) {
				case *gotypes.Builtin:
					if callee.Name() == "len" || callee.Name() == "cap" {
						return true
					}
				case *gotypes.Func:
					if p.accessor(callee, asked) || reflectRead(callee) {
						return true
					}
				}
				ok = false
			}
			return ok
		})
	}
	return ok
}

// reflectRead reports the functions of reflect that return what their
// arguments hold, or a Value of it, and write nothing: called again, they
// give the same variable or value (v.Field(i), reflect.ValueOf(k)).
func reflectRead(fn *gotypes.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != "reflect" {
		return false
	}
	switch fn.FullName() {
	case "reflect.ValueOf", "reflect.TypeOf", "reflect.Indirect":
		return true
	case "(reflect.Value).MapKeys":
		return false // a new slice each time
	}
	return strings.HasPrefix(fn.FullName(), "(reflect.Value).") && harmlessMethods["reflect.Value."+fn.Name()]
}

// accessor reports whether fn is a function of the package whose body is
// one return of side-effect-free expressions (func (p *P) at(i int) *Node
// { return &p.nodes[i] }): a call of it writes nothing, and a store
// through what it returns can be recorded by calling it again.
func (p *pkgRewriter) accessor(fn *gotypes.Func, asked map[*gotypes.Func]bool) bool {
	fn = fn.Origin()
	if known, ok := p.accessors[fn]; ok {
		return known
	}
	fd := p.decls[fn]
	if fd == nil || fd.Body == nil || len(fd.Body.List) != 1 || asked[fn] {
		return false
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) == 0 {
		return false
	}
	asked[fn] = true
	is := p.sideEffectFree(ret.Results, asked)
	delete(asked, fn)
	if p.accessors == nil {
		p.accessors = map[*gotypes.Func]bool{}
	}
	p.accessors[fn] = is
	return is
}

// declaredBefore reports whether the variables the expressions use are
// declared before statement s: a recording inserted before s can name
// them.
func (u *undoScan) declaredBefore(s ast.Stmt, exprs ...ast.Expr) bool {
	info := u.fe.p.info
	ok := true
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, isIdent := n.(*ast.Ident); isIdent {
				if v, isVar := info.Uses[id].(*gotypes.Var); isVar && v.Pos() >= s.Pos() && v.Pos() < s.End() {
					ok = false
				}
			}
			return ok
		})
	}
	return ok
}

// pointerFree reports a type whose values hold no pointer: the runtime
// may save and restore their bytes.
func pointerFree(t gotypes.Type) bool {
	switch u := t.Underlying().(type) {
	case *gotypes.Basic:
		return u.Info()&(gotypes.IsString|gotypes.IsUntyped) == 0 && u.Kind() != gotypes.UnsafePointer
	case *gotypes.Array:
		return pointerFree(u.Elem())
	case *gotypes.Struct:
		for i := range u.NumFields() {
			if !pointerFree(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}

// holdsSync reports whether a value of type t holds, inline, a lock or
// other synchronisation state, or concurrent data: never written back
// by a plain store.
func holdsSync(t gotypes.Type, seen map[gotypes.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if isLockType(t) || concKindOf(t) != concNone {
		return true
	}
	switch u := t.Underlying().(type) {
	case *gotypes.Array:
		return holdsSync(u.Elem(), seen)
	case *gotypes.Struct:
		for i := range u.NumFields() {
			if holdsSync(u.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}

// undoNote is the build note of a masked function that keeps the
// checkpoint at entry.
func undoNote(why string) string {
	return "checkpoints its whole graph at entry, not only what it writes: it " + strings.TrimSpace(why)
}

// Clones. A function of the package that a masked function calls is
// called, from the undo log's code, as a copy of itself that takes the
// log and records its own stores: the method (n *node) bump() gets the
// twin (n *node) _atx_undo_bump(_atx_u *rt.Undo), appended to its file,
// whose imports it uses. Calls outside masked calls still go to the
// original, which pays nothing.
//
// A function that is masked itself gets a clone that marks a savepoint in
// its caller's log and writes back, when it fails, what it recorded since
// (rt.Savepoint): a failure it returns to its caller changes nothing, as
// its own log would have made sure, and its caller's failure writes back
// the stores of its successful calls with the caller's own. The clone has
// a site of its own, which names its frame for a panic going through it.

// cloneName is the name of the clone of the function named name.
func cloneName(name string) string { return "_atx_undo_" + name }

// undoClone is what the package knows of the clone of one function.
type undoClone struct {
	why   string // why it cannot have one; "" when it can
	saves []undoSave
	needs []*gotypes.Func
	entry string // the record at entry (see snapshotAtEntry), or ""
	fe    *funcEdits
	// savepoint: the function is masked itself (see rt.Savepoint), and
	// sig are the edits that name its receiver, parameters and results.
	savepoint bool
	sig       editList
	// written: its declaration is in the file's tail.
	written bool
}

// redirect makes call, of fn, call fn's clone with the log.
func (u *undoScan) redirect(call *ast.CallExpr, fn *gotypes.Func) {
	var name *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = f
	case *ast.SelectorExpr:
		// A method expression takes its receiver as its first argument,
		// before where the log would go.
		if sel := u.fe.p.info.Selections[f]; sel == nil || sel.Kind() != gotypes.MethodExpr {
			name = f.Sel
		}
	case *ast.IndexExpr:
		name = funcIdent(f.X)
	case *ast.IndexListExpr:
		name = funcIdent(f.X)
	}
	if len(call.Args) == 1 {
		if _, tuple := u.fe.p.info.TypeOf(call.Args[0]).(*gotypes.Tuple); tuple {
			name = nil // f(g()): no room for the log beside g's results
		}
	}
	if name == nil {
		u.fail(call.Pos(), "calls "+u.short(call.Fun)+" at line "+u.line(call.Pos())+" in a form the undo log cannot redirect")
		return
	}
	log := strings.TrimPrefix(u.ref, "&")
	if u.ref != log {
		log = "&" + log
	}
	arg := log
	if len(call.Args) > 0 {
		arg += ", "
	}
	// Directives after the longer name and after the log put what
	// follows back at its columns.
	off, end := u.fe.off(name.Pos()), u.fe.off(name.End())
	u.saves = append(u.saves, undoSave{off: off, end: end, code: cloneName(name.Name) + lineDirective(u.fe.p.fset, u.fe.tf, end)})
	lparen := u.fe.off(call.Lparen) + 1
	u.saves = append(u.saves, undoSave{off: lparen, end: lparen, code: arg + lineDirective(u.fe.p.fset, u.fe.tf, lparen)})
	u.needs = append(u.needs, fn)
}

// cloneSite adds the site of the clone of fe's function, a function
// masked itself (see rt.Savepoint), and returns the code that refers to
// it.
func (p *pkgRewriter) cloneSite(fe *funcEdits) string {
	fn := funcname.Join(p.opts.ImportPath, fe.name)
	i := strings.LastIndexByte(fe.name, '.')
	frame := funcname.Join(p.opts.ImportPath, fe.name[:i+1]+cloneName(fe.name[i+1:]))
	p.sites = append(p.sites, site{
		id:    fn + "#undo",
		fn:    fn,
		frame: frame,
		pos:   p.sitePos(p.fset.Position(fe.namePos)),
		done:  fe.doneErrors(),
	})
	return fmt.Sprintf("&%s[%d]", sitesName, len(p.sites)-1)
}

// funcIdent is the identifier that a plain or qualified name names: X
// itself, or the Sel of pkg.X (a function, a package-level variable).
// nil for other expressions.
func funcIdent(fun ast.Expr) *ast.Ident {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	}
	return nil
}

// cloneable reports why fn, declared by fd in the package, cannot be
// called as a clone, or "". Its own callees are checked by cloneClosure.
func (p *pkgRewriter) cloneable(fn *gotypes.Func, fd *ast.FuncDecl) string {
	if p.undoClones == nil {
		p.undoClones = map[*gotypes.Func]*undoClone{}
	}
	if c := p.undoClones[fn]; c != nil {
		return c.why
	}
	c := &undoClone{}
	p.undoClones[fn] = c
	name := p.funcName(fd)
	tf := p.fset.File(fd.Pos())
	switch {
	case unsupported(fd) != "":
		c.why = "has a compiler directive"
	case p.oblivious(name):
		// Its failures are swallowed by its wrapper, which a clone
		// would not have.
		c.why = "is failure-oblivious"
	case p.syntax[tf] == nil:
		c.why = "is declared in a file the build does not rewrite"
	}
	if c.why != "" {
		return c.why
	}
	c.fe = p.declEdits(tf, p.sources[tf], fd, name)
	if p.opts.Selects == nil || p.opts.Selects(name) {
		c.fe.nameFields(&c.sig)
		if why := c.fe.savepointable(); why != "" {
			c.why = "is masked itself, and " + why
			return c.why
		}
		c.savepoint = c.fe.needsCheckpoint()
	}
	u := c.fe.scanUndo(undoName)
	if u.why != "" {
		c.why = u.why
		return c.why
	}
	c.saves, c.needs, c.entry = u.saves, u.needs, u.entrySave()
	return ""
}

// savepointable returns why the function, masked itself, cannot be
// called as a clone that rolls back its own failures from a savepoint in
// its caller's log, or "": its own masking would do more than its undo
// log (take its checkpoint under the lock it opens with, undo its file
// writes, release what it acquired), or refuse it. Its fields are named.
func (fe *funcEdits) savepointable() string {
	if unlock := lockIdiom(fe.body, fe.src, fe.tf); unlock != nil {
		return "opens with the lock idiom"
	}
	if _, why := fe.outsideLocks(nil); why != "" {
		return why
	}
	if fe.undoesFiles() {
		return "undoes its file writes"
	}
	if len(fe.acquisitions()) > 0 {
		return "releases what it acquires when it fails"
	}
	return ""
}

// cloneClosure reports why fn's clone, or one of the clones it calls,
// cannot be, or "".
func (p *pkgRewriter) cloneClosure(fn *gotypes.Func, seen map[*gotypes.Func]bool) string {
	if seen[fn] {
		return ""
	}
	seen[fn] = true
	c := p.undoClones[fn]
	if c.why != "" {
		return "calls " + fn.Name() + ", which " + c.why
	}
	if !c.written {
		// Its clone would go into the file being rewritten.
		if _, why := p.importsFor(c.fe); why != "" {
			return "calls " + fn.Name() + ", which is declared in another file and " + why
		}
	}
	for _, callee := range c.needs {
		if why := p.cloneClosure(callee, seen); why != "" {
			return why
		}
	}
	return ""
}

// importsFor returns the imports, by name, that the clone of fe's
// function needs in the file being rewritten, whose tail takes it, and
// that the file lacks; or why it cannot have them there: a package name
// the file gives another package or declares otherwise, cgo, a dot
// import.
func (p *pkgRewriter) importsFor(fe *funcEdits) (map[string]string, string) {
	if fe.tf == p.fileNow {
		return nil, ""
	}
	for _, spec := range p.syntax[fe.tf].Imports {
		if spec.Name != nil && spec.Name.Name == "." {
			return nil, "its file has a dot import"
		}
	}
	scope := p.info.Scopes[p.astNow]
	var needs map[string]string
	why := ""
	need := func(name, path string) {
		switch have := scope.Lookup(name).(type) {
		case nil:
			if prev, ok := p.imports[name]; ok && prev != path {
				why = "another clone in this file imports another package as " + name
			} else if name == "C" {
				why = "uses cgo"
			} else if p.pkg.Scope().Lookup(name) != nil || name == rtName {
				why = "this file cannot import " + path + " as " + name
			} else {
				if needs == nil {
					needs = map[string]string{}
				}
				needs[name] = path
			}
		case *gotypes.PkgName:
			if have.Imported().Path() != path {
				why = "this file imports another package as " + name
			}
		default:
			why = "this file declares " + name
		}
	}
	ast.Inspect(fe.decl, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || why != "" {
			return why == ""
		}
		if pn, ok := p.info.Uses[id].(*gotypes.PkgName); ok {
			need(pn.Name(), pn.Imported().Path())
		}
		return true
	})
	// The packages whose clones it calls, by the names its file gives
	// them (see crossRedirect).
	for _, pkg := range fe.crossPkgs {
		if why == "" {
			need(fe.importName(pkg), pkg.Path())
		}
	}
	return needs, why
}

// writeClones appends to the file's tail the clones that fn's clone
// needs, fn's own first, each once.
func (p *pkgRewriter) writeClones(fn *gotypes.Func) error {
	c := p.undoClones[fn]
	if c.written {
		return nil
	}
	c.written = true
	p.cloned = append(p.cloned, c)
	fe, fd := c.fe, c.fe.decl
	imports, why := p.importsFor(fe)
	if why != "" {
		return fmt.Errorf("clone of %s: %s", fe.name, why) // cloneClosure asked first
	}
	for name, path := range imports {
		if p.imports == nil {
			p.imports = map[string]string{}
		}
		p.imports[name] = path
	}
	var edits editList
	edits.replace(fe.off(fd.Name.Pos()), fe.off(fd.Name.End()), cloneName(fd.Name.Name))
	param := undoName + " *" + rtName + ".Undo"
	if fd.Type.Params.NumFields() > 0 {
		param += ", "
	}
	edits.insert(fe.off(fd.Type.Params.Opening)+1, param)
	if c.savepoint {
		for _, e := range c.sig.edits {
			e.seq = len(edits.edits)
			edits.edits = append(edits.edits, e)
		}
		siteRef := p.cloneSite(fe)
		fe.insertPrologue(&edits, fmt.Sprintf(" var %[1]s bool; _atx_sp := %[2]s.Mark(); defer _atx_sp.End(%[3]s, &%[1]s, %[4]s); ", doneName, undoName, siteRef, fe.errArg())+c.entry)
		if err := fe.rewriteReturns(&edits); err != nil {
			return fmt.Errorf("clone of %s: %w", fe.name, err)
		}
		fe.markFallOff(&edits)
	}
	if !c.savepoint && c.entry != "" {
		lbrace := fe.off(fd.Body.Lbrace) + 1
		edits.insert(lbrace, " "+c.entry+lineDirective(p.fset, fe.tf, lbrace))
	}
	for _, s := range c.saves {
		s.add(&edits)
	}
	start, end := fe.off(fd.Pos()), fe.off(fd.End())
	var text editList
	for _, e := range edits.edits {
		e.start, e.end = e.start-start, e.end-start
		text.edits = append(text.edits, e)
	}
	out, err := text.apply(fe.src[start:end])
	if err != nil {
		return fmt.Errorf("clone of %s: %w", fe.name, err)
	}
	p.tail = append(p.tail, "\n"+lineDirective(p.fset, fe.tf, start)+string(out)+"\n")
	for _, callee := range c.needs {
		if err := p.writeClones(callee); err != nil {
			return err
		}
	}
	return nil
}
