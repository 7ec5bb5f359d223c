package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
)

// funcEdits rewrites one function, declared or literal:
//
//   - unnamed and blank receivers, parameters and results get names, so
//     that the prologue can refer to them (a signature change on the same
//     lines, invisible to callers);
//   - a prologue after the opening brace asks the runtime whether to inject
//     a fault, and defers the comparison of the call's object graph;
//   - every return statement of the function itself (not of function
//     literals inside it) records that the call completes normally before
//     the deferred functions run. A call that ends without passing a
//     return — a panic or runtime.Goexit — is a failure even when no
//     recover is ever called, so the panic keeps its value and its stack.
//
// A function literal is rewritten the same way, on its own: its roots are
// its parameters, then the variables it captures (their addresses, since
// it shares them with the function around it), and its name is the one
// the compiler gives it (funcname.Literals).
type funcEdits struct {
	p    *pkgRewriter
	tf   *token.File
	src  []byte
	name string

	recv    *ast.FieldList // nil for a function without receiver
	ftype   *ast.FuncType
	body    *ast.BlockStmt
	namePos token.Pos        // where the function is said to be: its name, or a literal's func keyword
	sig     *types.Signature // nil when unknown
	lit     *ast.FuncLit     // the literal, or nil for a declaration
	in      string           // for a literal: what it is written in, for display
	capture []*types.Var     // for a literal: the variables it captures
	decl    *ast.FuncDecl    // the declaration, or nil for a literal
	// crossPkgs are the packages whose exported clones its undo log
	// calls (see crossRedirect), which a copy of it in another file
	// must import.
	crossPkgs []*types.Package

	roots       []string // receiver and parameter identifiers, in order
	rootNames   []string // their display names
	results     []string // result identifiers after naming
	userResults bool     // results were named by the user
	errResult   string   // identifier of the error result, or ""
	// atomicOblivious: masking build, an atomic failure-oblivious
	// function (see rewriteMasked).
	atomicOblivious bool
	// ends are the lines of the statements that end a call normally, in
	// the order of the indexes that the rewritten code stores in done.
	ends []int32
	// errFlow is the body's control-flow graph, for the kinds of its
	// handlers (see flow).
	errFlow *errorFlow
	// checkpointNote, in a masking build, says why the function keeps
	// the checkpoint at entry rather than an undo log (see undoSaves).
	checkpointNote Note
	// undoNeeds are the functions whose clones its undo log calls.
	undoNeeds []*types.Func
}

func (fe *funcEdits) off(pos token.Pos) int { return fe.tf.Offset(pos) }

// declEdits prepares the rewrite of a declared function.
func (p *pkgRewriter) declEdits(tf *token.File, src []byte, fd *ast.FuncDecl, name string) *funcEdits {
	fe := &funcEdits{p: p, tf: tf, src: src, name: name, recv: fd.Recv, ftype: fd.Type, body: fd.Body, namePos: fd.Name.Pos(), decl: fd}
	if fn, ok := p.info.Defs[fd.Name].(*types.Func); ok {
		fe.sig = fn.Type().(*types.Signature)
	}
	return fe
}

// litEdits prepares the rewrite of a function literal.
func (p *pkgRewriter) litEdits(tf *token.File, src []byte, lit *ast.FuncLit, name funcname.Literal) *funcEdits {
	fe := &funcEdits{p: p, tf: tf, src: src, name: name.Name, ftype: lit.Type, body: lit.Body, namePos: lit.Pos(), lit: lit, in: name.In}
	if tv, ok := p.info.Types[lit]; ok {
		fe.sig, _ = tv.Type.(*types.Signature)
	}
	fe.capture = p.captured(lit)
	return fe
}

// captured returns the variables that a literal captures, in the order
// of their first use in it: the local variables and parameters of the
// functions around it that it refers to.
func (p *pkgRewriter) captured(lit *ast.FuncLit) []*types.Var {
	var vars []*types.Var
	seen := map[*types.Var]bool{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := p.info.Uses[id].(*types.Var)
		if !ok || v.IsField() || seen[v] || v.Name() == "_" || v.Pkg() == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
			return true // a field, or a package-level variable of this package or another (os.Args)
		}
		if v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
			return true // its own
		}
		if p.results[v] {
			// A result of the function around it: what that function
			// returns, not state. Taking its address would move it to
			// the heap, and a function whose results live on the heap
			// runs its deferred calls from its closing brace, which
			// runtime.Caller in them would see.
			return true
		}
		seen[v] = true
		vars = append(vars, v)
		return true
	})
	return vars
}

func (fe *funcEdits) rewrite(edits *editList) error {
	var local editList
	fe.nameFields(&local)
	sig := len(local.edits)

	siteIdx := len(fe.p.sites)
	pkgPath := fe.p.opts.ImportPath
	pos := fe.p.fset.Position(fe.namePos)
	ignored := fe.p.opts.Ignored != nil && fe.p.opts.Ignored(fe.name)
	fn := funcname.Join(pkgPath, fe.name)
	st := site{
		id:       fn + "#entry",
		fn:       fn,
		pos:      fe.p.sitePos(pos),
		roots:    strings.Join(fe.rootNames, ","),
		canError: fe.errResult != "",
		ignored:  ignored,
		literal:  fe.lit != nil,
		in:       fe.in,
		done:     fe.doneErrors(),
	}

	siteRef := fmt.Sprintf("&%s[%d]", sitesName, siteIdx)
	if fe.p.opts.Mask {
		if err := fe.rewriteMasked(&local, siteRef); err != nil {
			return err
		}
		edits.edits = append(edits.edits, local.edits...)
		fe.p.sites = append(fe.p.sites, st)
		return nil
	}

	// The snapshot's roots: those that can show a change (see snapRoots).
	roots, rootNames, rootTypes := fe.snapRoots()
	st.roots = strings.Join(rootNames, ",")

	// Prologue, on the line of the opening brace: the injection point,
	// then the snapshot, whose comparison is deferred.
	//
	// A leaf, and a function without an error result, asks its site
	// whether to go through the runtime (see rt.Site.Traced): an
	// experiment has no use for most calls of leaves, which are the most
	// frequent calls of a program, and a profile run none for the later
	// calls of either.
	st.leaf = fe.leaf()
	untraceable := st.leaf || fe.errResult == ""
	enabled := rtName + ".Enabled()"
	if untraceable {
		enabled = fmt.Sprintf("%s[%d].Traced()", sitesName, siteIdx)
	}
	handlersBefore := len(fe.p.handlers)
	var b strings.Builder
	unlock := lockIdiom(fe.body, fe.src, fe.tf)
	var regions *lockRegionPlan
	regionsReason := ""
	if unlock == nil {
		regions, regionsReason = fe.lockRegions()
	}
	fmt.Fprintf(&b, " var %s int32; ", doneName)
	if regions != nil {
		fmt.Fprintf(&b, "var %s *%s.Regions; ", regionsName, rtName)
	}
	fmt.Fprintf(&b, "if %s { ", enabled)
	switch {
	case ignored:
	case fe.errResult != "":
		fmt.Fprintf(&b, "if _atx_e := %s.Inject(%s); _atx_e != nil { %s = _atx_e; return }; ", rtName, siteRef, fe.errResult)
	case fe.p.opts.Panics:
		fmt.Fprintf(&b, "%s.Inject(%s); ", rtName, siteRef)
	}
	// When every root boxes into an interface for free (pointers, maps,
	// …), one call of Enter begins the call and snapshots it when
	// wanted: less code for the compiler to compile in every instrumented
	// function than Begin and a Snap behind Wants. Other roots are boxed
	// only when the call is to be snapshotted, since boxing a value that
	// is not a pointer costs an allocation.
	//
	// A function that opens with the lock idiom is snapshotted once it
	// holds the lock, and compared before the lock is released: the
	// snapshot then reads nothing that another goroutine writes under
	// that lock. The runtime is told which lock the call holds, which it
	// reads under without taking it as it takes the others it meets (see
	// heldLock). The fault is still injected at entry, before the lock,
	// where a caller would see the function fail without it running. Such
	// a function that takes a second lock is not snapshotted (see
	// otherLock): at entry, other goroutines may be writing what that lock
	// guards.
	//
	// A function that takes its locks otherwise, mid-body, has lock
	// regions (see lockRegions): its snapshot at entry leaves out what its
	// locks guard, and each region snapshots it once the lock is held.
	// Its Begin and SnapRegions are separate calls whatever its roots: its
	// handle on its regions is assigned between them.
	held := ""
	if unlock != nil {
		held = fe.heldLock()
	}
	snap := fmt.Sprintf("%s.Snap(%s)", callName, strings.Join(roots, ", "))
	if held != "" {
		snap = fmt.Sprintf("%s.Holding(%s); %s", callName, held, snap)
	}
	if regions != nil {
		// interface{}, not any: the package's language may predate any.
		snap = fmt.Sprintf("%s = %s.SnapRegions([]interface{}{%s}, %s)", regionsName, callName, strings.Join(regions.own, ", "), strings.Join(roots, ", "))
	}
	enter := fmt.Sprintf("%[1]s := %[2]s.Begin(%[3]s); if %[1]s.Wants() { %[4]s }; ", callName, rtName, siteRef, snap)
	if regions == nil && boxFreeRoots(roots, rootTypes) {
		args := append([]string{siteRef}, roots...)
		enterFunc := "Enter"
		if held != "" {
			args = slices.Insert(args, 1, held)
			enterFunc = "EnterHolding"
		}
		enter = fmt.Sprintf("%s := %s.%s(%s); ", callName, rtName, enterFunc, strings.Join(args, ", "))
	}
	enter += fmt.Sprintf("defer %s.Exit(&%s, %s) }; ", callName, doneName, fe.errArg())
	probed := fe.probedAcquisitions()
	if unlock != nil {
		// The idiom's own lock comes before the probes are declared (and
		// its deferred unlock releases it).
		probed = slices.DeleteFunc(probed, func(a probedAcquisition) bool { return a.stmt.Pos() < unlock.End() })
	}
	if len(probed) > 0 {
		enter += fe.probesDecl(siteRef)
	}
	if unlock != nil {
		b.WriteString("}; ")
		end := fe.off(unlock.End())
		local.insert(end, fmt.Sprintf("; if %s { %s", enabled, enter)+lineDirective(fe.p.fset, fe.tf, end))
	} else {
		b.WriteString(enter)
	}
	switch {
	case unlock != nil && held == "" && !fieldChain(fe.p.info, fe.body.List[0].(*ast.ExprStmt).X.(*ast.CallExpr).Fun.(*ast.SelectorExpr).X):
		// A lock that cannot be named again (m[k].mu) cannot be told to
		// the runtime as the call's: its snapshot would find it locked.
		st.noSnapshot = unnamedLockReason(fe.p.fset.Position(fe.body.List[0].Pos()).Line) + notSnapshotted
	case unlock != nil:
		if lock := fe.otherLock(unlock); lock.IsValid() {
			st.noSnapshot = lockedReason(fe.p.fset.Position(lock).Line)
		}
	case regionsReason != "":
		st.noSnapshot = regionsReason
	}
	fe.insertPrologue(&local, b.String())
	callSites := fe.rewriteCalls(&local, siteIdx+1)
	fe.insertProbes(&local, probed)
	hooks := fe.insertLockHooks(&local)
	if regions != nil {
		for _, h := range regions.hooks {
			local.insert(h.off, h.text)
		}
		hooks += len(regions.hooks)
	}
	hooks += fe.insertCallbackHooks(&local)
	if err := fe.rewriteReturns(&local); err != nil {
		return err
	}
	fe.markFallOff(&local)
	st.ends = fe.ends
	if st.noSnapshot == "" && fe.twinnable() {
		gate := rtName + ".On"
		if untraceable && len(callSites) == 0 && len(probed) == 0 && len(fe.p.handlers) == handlersBefore && hooks == 0 {
			// The runtime may have no use for the function's calls (see
			// rt.Site.Gate): it then lets them skip the twin, whose body
			// differs from the function's only by the prologue and the
			// returns. A twin with injection points, handlers, probes or
			// lock hooks of its own is never skipped: they are reached
			// in it.
			st.gate = fmt.Sprintf("%s%d", gatePrefix, siteIdx)
			gate = st.gate
		}
		if err := fe.twin(edits, local.edits, sig, gate); err != nil {
			return err
		}
		st.frame = funcname.Join(pkgPath, fe.twinFrame())
		fe.p.sites = append(fe.p.sites, st)
		fe.p.sites = append(fe.p.sites, callSites...)
		return nil
	}
	edits.edits = append(edits.edits, local.edits...)
	fe.p.sites = append(fe.p.sites, st)
	fe.p.sites = append(fe.p.sites, callSites...)
	return nil
}

// snapRoots returns the roots that a detection snapshot takes, with their
// display names and types: the receiver and parameters whose values can
// reach something, and the captured variables. A value that reaches
// nothing but itself (a number, a string, an array or struct of those) is
// the callee's own copy: no caller sees a change to it, and its snapshot,
// a copy of the boxed copy, could only compare equal. Left out, it is not
// boxed, nor walked, and leaves more functions to the shorter prologue of
// Enter (see boxFreeRoots). When the types are not known, every root, and
// nil types.
func (fe *funcEdits) snapRoots() (roots, names []string, ts []types.Type) {
	all := fe.rootTypes()
	if all == nil {
		return fe.roots, fe.rootNames, nil
	}
	for i, t := range all {
		if i < len(all)-len(fe.capture) && selfContained(t) {
			continue
		}
		roots = append(roots, fe.roots[i])
		names = append(names, fe.rootNames[i])
		ts = append(ts, t)
	}
	return roots, names, ts
}

// selfContained reports whether a value of type t reaches no memory but
// its own: a boolean, number or string (strings cannot change), or an
// array or struct of those. A type parameter may be anything.
func selfContained(t types.Type) bool {
	t = types.Unalias(t)
	if _, ok := t.(*types.TypeParam); ok {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsBoolean|types.IsNumeric|types.IsString) != 0
	case *types.Array:
		return selfContained(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if !selfContained(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}

// boxFreeRoots reports whether every one of roots, of types ts, converts
// to an interface without allocating; false when the types are not known
// (ts is nil).
func boxFreeRoots(roots []string, ts []types.Type) bool {
	if ts == nil && len(roots) > 0 {
		return false
	}
	for _, t := range ts {
		if !boxFree(t) {
			return false
		}
	}
	return true
}

// boxFree reports whether a value of type t goes into an interface with
// no copy on the heap: pointers, maps, channels, functions and interfaces
// are stored as they are, and booleans and bytes point into a table of
// the runtime's. (The compiler stores some other types without a copy
// too, such as structs of one pointer; they are rare roots.)
func boxFree(t types.Type) bool {
	t = types.Unalias(t)
	if _, ok := t.(*types.TypeParam); ok {
		// Its underlying type is its constraint's: an interface, whatever
		// its type arguments are.
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		return true
	case *types.Basic:
		switch u.Kind() {
		case types.UnsafePointer, types.Bool, types.Int8, types.Uint8:
			return true
		}
	}
	return false
}

// lockedReason is why calls of a function that opens with the lock idiom
// and takes another lock are not snapshotted, and so get the verdict
// "unknown" when they fail.
func lockedReason(line int) string {
	return "takes a second lock at line " + strconv.Itoa(line) + ": not snapshotted, as other goroutines may write what that lock guards"
}

// otherLock returns the position of the first call x.Lock(), x.RLock(),
// x.TryLock() or x.TryRLock() in the function's body, function literals
// included (a literal called in the body locks during the call), other
// than the lock of the lock idiom the function opens with; or NoPos.
func (fe *funcEdits) otherLock(unlock *ast.DeferStmt) token.Pos {
	var idiomLock ast.Node
	if unlock != nil {
		idiomLock = fe.body.List[0].(*ast.ExprStmt).X
	}
	pos := token.NoPos
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if pos.IsValid() {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && call != idiomLock {
			switch _, name := selectorCall(call); name {
			case "Lock", "RLock", "TryLock", "TryRLock":
				pos = call.Pos()
			}
		}
		return true
	})
	return pos
}

// heldLock returns Go code for the lock that the lock idiom opening the
// function takes, as rt.Holding wants it (see lockOperand).
func (fe *funcEdits) heldLock() string {
	return fe.lockOperand(fe.body.List[0].(*ast.ExprStmt).X.(*ast.CallExpr))
}

// lockOperand returns Go code for the lock that call, x.Lock() or the
// like, takes, as the runtime wants it: the address of its sync.Mutex or
// sync.RWMutex (through the embedded fields that promote its Lock: see
// receiverOf), or the interface or type parameter whose Lock it calls,
// whose dynamic value the runtime looks at. It returns "" when the lock
// is of another kind, or x could have side effects when evaluated again.
func (fe *funcEdits) lockOperand(call *ast.CallExpr) string {
	sel := call.Fun.(*ast.SelectorExpr)
	if t := fe.p.info.TypeOf(sel.X); t != nil && fieldChain(fe.p.info, sel.X) {
		if _, ok := types.Unalias(t).(*types.TypeParam); ok {
			return fe.text(sel.X)
		}
	}
	expr, t, _, ok := fe.receiverOf(call)
	if !ok {
		return ""
	}
	if _, ok := t.Underlying().(*types.Interface); ok {
		return expr
	}
	if !isMutex(derefType(t)) {
		return ""
	}
	return expr
}

// insertLockHooks tells the runtime of each lock that the function's own
// statements take for writing, x.Lock(), right after it is taken, and
// returns how many it found: a snapshot of another call that read what
// the lock guards learns that something else may have written it since
// (see rt.Took).
func (fe *funcEdits) insertLockHooks(edits *editList) int {
	n := 0
	fe.eachOwnStatement(func(s ast.Stmt) {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return
		}
		call, ok := ast.Unparen(es.X).(*ast.CallExpr)
		if !ok {
			return
		}
		if _, name := selectorCall(call); name != "Lock" {
			return
		}
		lock := fe.lockOperand(call)
		if lock == "" {
			return
		}
		end := fe.off(s.End())
		edits.insert(end, fmt.Sprintf("; %s.Took(%s)", rtName, lock)+lineDirective(fe.p.fset, fe.tf, end))
		n++
	})
	return n
}

// errArg is the runtime's view of the error result: its address, or nil.
func (fe *funcEdits) errArg() string {
	if fe.errResult == "" {
		return "nil"
	}
	return "&" + fe.errResult
}

// insertPrologue inserts the prologue after the opening brace, followed by
// the result temporaries when returns need them and a directive that
// gives the user's code its column back. It must come before the return
// rewrites so that, at the same offset ("{return}"), it comes first.
func (fe *funcEdits) insertPrologue(edits *editList, prologue string) {
	if fe.userResults && fe.hasValuedReturn() {
		// Temporaries of the result types, declared where no result is
		// shadowed: a valued return assigns them, then returns them.
		prologue += fmt.Sprintf("%s := %s; ", strings.Join(fe.temps(), ", "), strings.Join(fe.results, ", "))
	}
	lbrace := fe.off(fe.body.Lbrace) + 1
	edits.insert(lbrace, prologue+lineDirective(fe.p.fset, fe.tf, lbrace))
}

// markFallOff records normal completion for a function without results,
// which can also end by running off its body.
func (fe *funcEdits) markFallOff(edits *editList) {
	if res := fe.ftype.Results; res == nil || len(res.List) == 0 {
		edits.insert(fe.off(fe.body.Rbrace), "; "+fe.doneAt(fe.body.Rbrace)+"; ")
	}
}

// doneAt is the statement that records normal completion by the
// statement at pos. A detection build stores which statement it was, an
// index into the site's table of lines (1 for the first), so that a
// failed call's verdict can say where the call ended; a masking build
// only needs to know that it completed.
func (fe *funcEdits) doneAt(pos token.Pos) string {
	if fe.p.opts.Mask {
		return doneName + " = true"
	}
	fe.ends = append(fe.ends, int32(fe.p.fset.Position(pos).Line))
	return doneName + " = " + strconv.Itoa(len(fe.ends))
}

// nameFields names unnamed or blank receivers, parameters and results.
// A literal's captured variables follow its parameters among the roots,
// by address: "&x", which the runtime displays as x.
func (fe *funcEdits) nameFields(edits *editList) {
	if fe.recv != nil && len(fe.recv.List) > 0 {
		id := fe.nameField(edits, fe.recv.List[0], "_atx_recv", 0)
		fe.roots = append(fe.roots, id[0])
		fe.rootNames = append(fe.rootNames, displayName(id[0], "recv"))
	}
	n := 0
	for _, field := range fe.ftype.Params.List {
		for i, id := range fe.nameField(edits, field, "_atx_p", n) {
			fe.roots = append(fe.roots, id)
			fe.rootNames = append(fe.rootNames, displayName(id, "arg"+strconv.Itoa(n+i)))
		}
		n += max(1, len(field.Names))
	}
	for _, v := range fe.capture {
		fe.roots = append(fe.roots, "&"+v.Name())
		fe.rootNames = append(fe.rootNames, "&"+v.Name())
	}
	res := fe.ftype.Results
	if res == nil || len(res.List) == 0 {
		return
	}
	fe.userResults = len(res.List[0].Names) > 0
	if res.Opening == token.NoPos {
		// A single unparenthesized result type: "error" becomes "(_atx_r0 error)".
		t := res.List[0].Type
		edits.insert(fe.off(t.Pos()), "(_atx_r0 "+fe.resync(t.Pos()))
		edits.insert(fe.off(t.End()), ")")
		fe.results = []string{"_atx_r0"}
	} else {
		n = 0
		for _, field := range res.List {
			ids := fe.nameField(edits, field, "_atx_r", n)
			fe.results = append(fe.results, ids...)
			n += len(ids)
		}
	}
	// Blank result names are renamed, but the user's other names stay.
	last := res.List[len(res.List)-1]
	if tv, ok := fe.p.info.Types[last.Type]; ok && failsWith(tv.Type, fe.decl) && !fe.declaredNeverFailing() {
		fe.errResult = fe.results[len(fe.results)-1]
	}
	if fe.userResults {
		for _, r := range fe.results {
			if !strings.HasPrefix(r, "_atx_r") {
				return
			}
		}
		fe.userResults = false // every name was blank: all are ours now
	}
}

// resync returns, for a function literal, a directive that gives the text
// at pos its position back after an insertion in its signature: the
// literal is inside the code of another function, whose positions must
// stay exact. A declaration's signature needs none.
func (fe *funcEdits) resync(pos token.Pos) string {
	if fe.lit == nil {
		return ""
	}
	return lineDirective(fe.p.fset, fe.tf, fe.off(pos))
}

// nameField gives a field names where it has none or blank ones, and
// returns the identifiers of its entries.
func (fe *funcEdits) nameField(edits *editList, field *ast.Field, prefix string, first int) []string {
	synth := func(i int) string {
		if prefix == "_atx_recv" {
			return prefix
		}
		return prefix + strconv.Itoa(first+i)
	}
	if len(field.Names) == 0 {
		id := synth(0)
		edits.insert(fe.off(field.Type.Pos()), id+" "+fe.resync(field.Type.Pos()))
		return []string{id}
	}
	ids := make([]string, len(field.Names))
	for i, n := range field.Names {
		if n.Name == "_" {
			ids[i] = synth(i)
			edits.replace(fe.off(n.Pos()), fe.off(n.End()), ids[i]+fe.resync(n.End()))
		} else {
			ids[i] = n.Name
		}
	}
	return ids
}

func displayName(id, synthetic string) string {
	if strings.HasPrefix(id, "_atx_") {
		return synthetic
	}
	return id
}

func (fe *funcEdits) temps() []string {
	t := make([]string, len(fe.results))
	for i := range t {
		t[i] = "_atx_t" + strconv.Itoa(i)
	}
	return t
}

func (fe *funcEdits) hasValuedReturn() bool {
	found := false
	inspectOwnReturns(fe.body, func(r *ast.ReturnStmt) {
		if len(r.Results) > 0 {
			found = true
		}
	})
	return found
}

// rewriteReturns makes each return of the function record normal
// completion after its results are evaluated and before it returns:
//
//	return a, b   →   { r0, r1 = a, b; done = N; return }            (results named by atomicx)
//	return a, b   →   { t0, t1 = a, b; done = N; return t0, t1 }     (results named by the user)
//	return        →   { done = N; return }
//
// Assigning first keeps the evaluation order, and a panic while the
// results are evaluated still counts as a failure. N says which return
// it was (see doneAt).
func (fe *funcEdits) rewriteReturns(edits *editList) error {
	var err error
	inspectOwnReturns(fe.body, func(r *ast.ReturnStmt) {
		if err != nil {
			return
		}
		start, end := fe.off(r.Pos()), fe.off(r.End())
		after := lineDirective(fe.p.fset, fe.tf, end)
		if len(r.Results) == 0 {
			edits.insert(start, "{ "+fe.doneAt(r.Pos())+"; "+lineDirective(fe.p.fset, fe.tf, start))
			edits.insert(end, " }"+after)
			return
		}
		first := fe.off(r.Results[0].Pos())
		if strings.ContainsAny(string(fe.src[start:first]), "\n\r") {
			err = errNewline
			return
		}
		targets, tail := fe.results, "return"
		if fe.userResults {
			targets = fe.temps()
			tail = "return " + strings.Join(targets, ", ")
		}
		edits.replace(start, first, "{ "+strings.Join(targets, ", ")+" = "+lineDirective(fe.p.fset, fe.tf, first))
		edits.insert(end, "; "+fe.doneAt(r.Pos())+"; "+tail+" }"+after)
	})
	return err
}

// inspectOwnReturns calls fn for each return statement of body that
// returns from the function itself, not from a function literal in it.
func inspectOwnReturns(body *ast.BlockStmt, fn func(*ast.ReturnStmt)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			fn(n)
		}
		return true
	})
}

// sourcePath is the import path that positions are given in.
func (p *pkgRewriter) sourcePath() string {
	if p.opts.SourcePath != "" {
		return p.opts.SourcePath
	}
	return p.opts.ImportPath
}

// sitePos is a position as sites give it: import path/file.go:line:col,
// which -trimpath builds can carry and reports can map back to files.
func (p *pkgRewriter) sitePos(pos token.Position) string {
	return path.Join(p.sourcePath(), path.Base(pos.Filename)) + ":" + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column)
}

// errorAccessor reports methods that return an error as data, not as a
// failure: Unwrap() error, Err() error, Cause() error. A non-nil result
// of theirs is no failure, and injecting one would test nothing.
func errorAccessor(fd *ast.FuncDecl) bool {
	if fd.Recv == nil || len(fd.Type.Params.List) != 0 || len(fd.Type.Results.List) != 1 {
		return false
	}
	switch fd.Name.Name {
	case "Unwrap", "Err", "Cause":
		return true
	}
	return false
}
