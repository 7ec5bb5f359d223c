package instrument

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/types"
	"maps"
	"slices"
	"strings"
)

// Twins. The compiler never inlines a function that contains a defer
// statement, even one that never runs, so the deferred comparison of the
// instrumented prologue would cost every small function of a selected
// package its inlining, in every run, armed or not. A function that the
// inliner could take as it is written (see inlineCost) is therefore split
// in two:
//
//   - the function keeps its name, its signature and its body, preceded by
//     one test: when the runtime is enabled it returns what its twin
//     returns. Nothing armed, the test is all it costs, and it stays
//     inlinable, with the same frames, positions and runtime.Caller
//     answers as without atomicx;
//   - its twin, appended to the file with the positions of the original,
//     is the instrumented function: injection point, snapshot, deferred
//     comparison, call sites. Armed, the body runs in the twin, whose
//     frames show the twin's name (Site.Frame).
//
// The test calls the twin directly where the function stays inlinable
// with that call: the inliner charges a call it cannot inline 57 of its
// budget of 80, which leaves room for a function whose own cost is up to
// about 17 (a getter, a setter). A costlier function hands the call over
// through a small generic function of the generated file (see handOver),
// which calls the twin through its parameter: a call of a parameter costs
// 17, so that a function whose own cost is up to about 50 stays
// inlinable. The helper is inlined; the twin is then called through a
// func value, an indirect call that only armed runs make. Packages whose
// language version has no generics always call the twin directly.
//
// Other functions keep the single instrumented body, whose unarmed cost is
// one branch and a deferred call that is not made: they were not inlined
// anyway, or would not be once they hand over.

// twinPrefix starts the name of a function's twin.
const twinPrefix = "_atx_"

// gatePrefix starts the name of a function's gate (see rt.Site.Gate),
// followed by its site's index: no twin's name starts with it.
const gatePrefix = "_atxGate"

// The inliner's arithmetic (cmd/compile/internal/inline), which
// inlineCost follows from the syntax.
const (
	inlineBudget  = 80 // the most a function may cost and be inlined
	callCost      = 57 // a call that is not inlined
	paramCallCost = 17 // a call of a parameter
	// handOverCost and directHandOverCost are what the test
	// "if On { return handOver(twin, args) }" costs, or with a direct call
	// of the twin, before its arguments (one each): measured with -m=2.
	handOverCost       = 30
	directHandOverCost = 61
	tooCostly          = inlineBudget + 1
)

// twinnable reports whether fe, a declared function, is split into a
// function and its instrumented twin.
func (fe *funcEdits) twinnable() bool {
	fd := fe.decl
	return fd != nil && fe.p.twinCost(fd) <= inlineBudget
}

// twinCost estimates what the inliner charges for fd once it is split,
// or returns more than inlineBudget when fd is not split: the mask
// rewrite, main, a function with a blank type parameter (its twin could
// not be instantiated) or marked //go:noinline, or one that would not be
// inlinable once split.
func (p *pkgRewriter) twinCost(fd *ast.FuncDecl) int {
	if p.opts.Mask || fd.Body == nil || fd.Recv == nil && (fd.Name.Name == "main" || fd.Name.Name == "init") || noinline(fd) {
		return tooCostly
	}
	if tp := fd.Type.TypeParams; tp != nil {
		for _, f := range tp.List {
			for _, n := range f.Names {
				if n.Name == "_" {
					return tooCostly // cannot be passed on to the twin
				}
			}
		}
	}
	cost := p.inlineCost(fd)
	if cost > inlineBudget {
		return tooCostly
	}
	over := directHandOverCost
	if p.handsOver(fd, cost) {
		over = handOverCost
	}
	return cost + over + countRoots(fd)
}

// handsOver reports whether fd, of inliner cost cost, calls its twin
// through a hand-over helper: only where it can (viaHandOver) and where
// a direct call would not leave it inlinable. Each helper is instantiated
// for the shapes of the functions that use it, and compiled with them, in
// every package; a direct call costs the compiler nothing more.
func (p *pkgRewriter) handsOver(fd *ast.FuncDecl, cost int) bool {
	return p.viaHandOver(fd) && cost+directHandOverCost+countRoots(fd) > inlineBudget
}

// noinline reports a //go:noinline directive.
func noinline(fd *ast.FuncDecl) bool {
	if fd.Doc == nil {
		return false
	}
	for _, c := range fd.Doc.List {
		if strings.HasPrefix(c.Text, "//go:noinline") {
			return true
		}
	}
	return false
}

// countRoots counts a function's receiver and parameters.
func countRoots(fd *ast.FuncDecl) int {
	n := 0
	if fd.Recv != nil {
		n = len(fd.Recv.List)
	}
	for _, f := range fd.Type.Params.List {
		n += max(1, len(f.Names))
	}
	return n
}

// inlineCost estimates what the inliner charges for fd's body as the user
// wrote it: one per syntax node (a little more than the inliner counts),
// plus, for each call, the cost of the callee where the inliner would
// inline it (a function of the package, instrumented or not, as atomicx
// compiles it) and 57 where not. It returns more than inlineBudget for a
// body the inliner refuses whatever its size (a defer, a go statement, a
// select, a label, a function literal, recover, a range over a function).
// A recursive call costs 57.
func (p *pkgRewriter) inlineCost(fd *ast.FuncDecl) int {
	if c, ok := p.costs[fd]; ok {
		return c
	}
	p.costs[fd] = tooCostly // a recursive call is not inlined
	if fd.Body == nil {
		// Implemented in assembly or pulled by go:linkname: the inliner
		// has no body to inline.
		return tooCostly
	}
	cost := 0
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil || cost > inlineBudget {
			return false
		}
		if !p.costsNode(n) {
			return true
		}
		if e, ok := n.(ast.Expr); ok {
			if tv, ok := p.info.Types[e]; ok && tv.IsType() {
				return false // types are no nodes of the compiler's
			}
		}
		cost++
		switch n := n.(type) {
		case *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt, *ast.SelectStmt, *ast.LabeledStmt:
			cost = tooCostly
		case *ast.RangeStmt:
			// Ranging over a function calls it, with the loop's body as
			// a function of its own.
			if tv, ok := p.info.Types[n.X]; !ok || isFunc(tv.Type) {
				cost = tooCostly
			}
		case *ast.CallExpr:
			if isRecover(p.info, n) {
				cost = tooCostly
			} else if !builtinOrConversion(p.info, n) {
				cost += p.callCost(fd, n)
			}
		}
		return cost <= inlineBudget
	})
	cost = min(cost, tooCostly)
	p.costs[fd] = cost
	return cost
}

// costsNode reports whether the inliner counts a node of the syntax as
// one of its own: blocks, parentheses, the names of fields and methods
// after a selector's dot, package names and the names of builtins are
// part of other nodes.
func (p *pkgRewriter) costsNode(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BlockStmt, *ast.ParenExpr:
		return false
	case *ast.Ident:
		if _, ok := p.info.Uses[n].(*types.PkgName); ok {
			return false
		}
		if tv, ok := p.info.Types[n]; ok && tv.IsBuiltin() {
			return false
		}
		return !p.selectorNames[n]
	}
	return true
}

// callCost is what the inliner charges for a call in fd: the callee's
// own cost when it inlines it, 17 for a call of a parameter (a function
// the caller may pass as a constant), 57 for any other.
func (p *pkgRewriter) callCost(fd *ast.FuncDecl, call *ast.CallExpr) int {
	obj := calleeObject(p.info, call.Fun)
	if v, ok := obj.(*types.Var); ok && v.Pos() >= fd.Type.Params.Pos() && v.Pos() < fd.Type.Params.End() {
		return paramCallCost
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return callCost
	}
	if fn.Pkg() != nil && fn.Pkg().Path() == "errors" && fn.Name() == "New" {
		return 6 // inlined: it makes a *errorString
	}
	if intrinsic(fn) {
		return 0 // an instruction or a few: the inliner counts only the call's node
	}
	callee := p.decls[fn.Origin()]
	if callee == nil {
		return callCost
	}
	cost := p.inlineCost(callee)
	if p.willInstrument(callee) {
		cost = p.twinCost(callee)
	}
	if cost > inlineBudget {
		return callCost
	}
	return cost
}

// intrinsic reports the functions of math/bits and sync/atomic that the
// compiler turns into instructions on 64-bit targets (see
// cmd/compile/internal/ssagen's intrinsics), whose calls the inliner
// charges as any other node of the syntax. Where one is not an intrinsic
// (some 32-bit targets), a function that calls it is split into a
// function and a twin that the compiler then does not inline: the same
// verdicts, and unarmed calls that cost no more than a single
// instrumented body's (a branch, no deferred call).
func intrinsic(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Signature().Recv() != nil {
		return false
	}
	name := fn.Name()
	if strings.HasSuffix(name, "Pointer") {
		return false // a pointer store has a write barrier, a call; loads go with them
	}
	switch fn.Pkg().Path() {
	case "math/bits":
		for _, prefix := range []string{"Len", "LeadingZeros", "TrailingZeros", "OnesCount", "RotateLeft", "ReverseBytes"} {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		}
		switch name {
		case "Add64", "Sub64", "Mul64", "Add", "Sub", "Mul":
			return true
		}
	case "sync/atomic":
		for _, prefix := range []string{"Load", "Store", "Add", "Swap", "CompareAndSwap", "And", "Or"} {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		}
	}
	return false
}

// willInstrument reports whether fd, a function of the package, is
// instrumented for detection.
func (p *pkgRewriter) willInstrument(fd *ast.FuncDecl) bool {
	if p.opts.Mask || fd.Body == nil || unsupported(fd) != "" {
		return false
	}
	return p.opts.Selects == nil || p.opts.Selects(p.funcName(fd))
}

// isRecover reports a call of the recover builtin, which no inlinable
// function may make.
func isRecover(info *types.Info, call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "recover"
}

// leaf reports whether the function calls nothing but builtins and
// conversions, so that no injection point is reached while a call of it
// is in progress (see Site.Leaf).
func (fe *funcEdits) leaf() bool {
	leaf := true
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if !leaf || n == nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt, *ast.SelectStmt, *ast.LabeledStmt:
			leaf = false
		case *ast.CallExpr:
			leaf = builtinOrConversion(fe.p.info, n) && !isRecover(fe.p.info, n)
		case *ast.RangeStmt:
			if tv, ok := fe.p.info.Types[n.X]; !ok || isFunc(tv.Type) {
				leaf = false
			}
		}
		return leaf
	})
	return leaf
}

// builtinOrConversion reports calls that are not calls of functions: type
// conversions and builtins.
func builtinOrConversion(info *types.Info, call *ast.CallExpr) bool {
	tv, ok := info.Types[call.Fun]
	return ok && (tv.IsType() || tv.IsBuiltin())
}

// twinName is the identifier of the function's twin.
func (fe *funcEdits) twinName() string { return twinPrefix + fe.decl.Name.Name }

// twinFrame is the relative name of the twin's frames, as the runtime
// names them: the function's with its last identifier replaced.
func (fe *funcEdits) twinFrame() string {
	name := fe.decl.Name.Name
	i := strings.LastIndex(fe.name, name)
	if i < 0 {
		return ""
	}
	return fe.name[:i] + fe.twinName() + fe.name[i+len(name):]
}

// twin splits the function. instrumented holds the edits that make its
// instrumented body (signature edits first, sig of them); they become the
// twin, appended at the end of the file, while the function itself gets
// the signature edits and a prologue that calls the twin when gate, a
// boolean variable, is set: rt.On, or the function's own (see
// rt.Site.Gate), which costs the inliner the same.
func (fe *funcEdits) twin(edits *editList, instrumented []edit, sig int, gate string) error {
	fd := fe.decl
	start, end := fe.off(fd.Pos()), fe.off(fd.End())
	twin := editList{edits: append([]edit(nil), instrumented...)}
	twin.replace(fe.off(fd.Name.Pos()), fe.off(fd.Name.End()), fe.twinName())
	sorted, err := twin.sorted()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(lineDirective(fe.p.fset, fe.tf, start))
	last := start
	for _, e := range sorted {
		if e.start < start || e.end > end {
			return fmt.Errorf("a rewrite of the function reaches outside it, at byte %d", e.start)
		}
		b.Write(fe.src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(fe.src[last:end])
	b.WriteString("\n")

	edits.edits = append(edits.edits, instrumented[:sig]...)
	lbrace := fe.off(fe.body.Lbrace) + 1
	edits.insert(lbrace, fmt.Sprintf(" if %s { %s }; ", gate, fe.twinCall())+lineDirective(fe.p.fset, fe.tf, lbrace))
	edits.insert(len(fe.src), b.String())
	return nil
}

// twinCall is the statement that hands a call over to the twin: through
// a hand-over helper (see handOver), or with a direct call where none
// can be used.
func (fe *funcEdits) twinCall() string {
	fd := fe.decl
	var call string
	if fe.p.handsOver(fd, fe.p.inlineCost(fd)) {
		h := handOver{params: len(fe.roots), results: fd.Type.Results.NumFields(), variadic: variadic(fd.Type)}
		fe.p.handOvers[h] = true
		twin := fe.twinName() + fe.typeArgs()
		if fd.Recv != nil {
			t := fd.Recv.List[0].Type
			twin = "(" + string(fe.src[fe.off(t.Pos()):fe.off(t.End())]) + ")." + twin
		}
		call = h.name() + "(" + strings.Join(append([]string{twin}, fe.roots...), ", ") + ")"
	} else {
		args := fe.roots
		callee := fe.twinName() + fe.typeArgs()
		if fd.Recv != nil {
			callee = args[0] + "." + callee
			args = args[1:]
		}
		list := strings.Join(args, ", ")
		if variadic(fd.Type) {
			list += "..."
		}
		call = callee + "(" + list + ")"
	}
	if fd.Type.Results.NumFields() == 0 {
		return call + "; return"
	}
	return "return " + call
}

// typeArgs instantiates the twin of a generic function with the
// function's type parameters: "[K, V]", or "".
func (fe *funcEdits) typeArgs() string {
	tp := fe.decl.Type.TypeParams
	if tp == nil || len(tp.List) == 0 {
		return ""
	}
	var names []string
	for _, f := range tp.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// viaHandOver reports whether fd's calls are handed over to its twin
// through a hand-over helper: the helpers are generic, and the method
// expression that names the twin of a method repeats the receiver's type,
// which must name its type parameters, fit on one line, and not be
// shadowed by a parameter or result of the method.
func (p *pkgRewriter) viaHandOver(fd *ast.FuncDecl) bool {
	if !p.genericsAllowed() {
		return false
	}
	if fd.Recv == nil {
		return true
	}
	shadowed := map[string]bool{"_": true}
	for _, list := range []*ast.FieldList{fd.Type.Params, fd.Type.Results} {
		if list == nil {
			continue
		}
		for _, f := range list.List {
			for _, n := range f.Names {
				shadowed[n.Name] = true
			}
		}
	}
	t := fd.Recv.List[0].Type
	ok := p.fset.Position(t.Pos()).Line == p.fset.Position(t.End()).Line
	ast.Inspect(t, func(n ast.Node) bool {
		if id, isID := n.(*ast.Ident); isID && shadowed[id.Name] {
			ok = false
		}
		return ok
	})
	return ok
}

func variadic(ft *ast.FuncType) bool {
	params := ft.Params.List
	if len(params) == 0 {
		return false
	}
	_, ok := params[len(params)-1].Type.(*ast.Ellipsis)
	return ok
}

// handOver is the shape of a hand-over helper, declared in the generated
// file for each shape that the package's twins use:
//
//	func _atx_handOver2_1[P0, P1, R0 any](f func(P0, P1) R0, p0 P0, p1 P1) R0 { return f(p0, p1) }
//
// The function calls it with its twin (a method expression for a method)
// and its receiver and parameters.
type handOver struct {
	params, results int
	variadic        bool
}

func (h handOver) name() string {
	v := ""
	if h.variadic {
		v = "v"
	}
	return fmt.Sprintf("_atx_handOver%d%s_%d", h.params, v, h.results)
}

// decl is the helper's declaration.
func (h handOver) decl() string {
	var tparams, ptypes, params, args, rtypes []string
	for i := range h.params {
		tparams = append(tparams, fmt.Sprintf("P%d", i))
		pt, param, arg := fmt.Sprintf("P%d", i), fmt.Sprintf("p%d P%d", i, i), fmt.Sprintf("p%d", i)
		if h.variadic && i == h.params-1 {
			pt, param, arg = "..."+pt, fmt.Sprintf("p%d []P%d", i, i), arg+"..."
		}
		ptypes, params, args = append(ptypes, pt), append(params, param), append(args, arg)
	}
	for i := range h.results {
		tparams = append(tparams, fmt.Sprintf("R%d", i))
		rtypes = append(rtypes, fmt.Sprintf("R%d", i))
	}
	generic, results, ret := "", "", ""
	if len(tparams) > 0 {
		generic = "[" + strings.Join(tparams, ", ") + " any]"
	}
	switch len(rtypes) {
	case 0:
	case 1:
		results, ret = " "+rtypes[0], "return "
	default:
		results, ret = " ("+strings.Join(rtypes, ", ")+")", "return "
	}
	fn := "func(" + strings.Join(ptypes, ", ") + ")" + results
	return fmt.Sprintf("func %s%s(%s)%s { %sf(%s) }\n", h.name(), generic, strings.Join(append([]string{"f " + fn}, params...), ", "), results, ret, strings.Join(args, ", "))
}

// isFunc reports a function type. A type parameter may stand for one: it
// counts as one.
func isFunc(t types.Type) bool {
	if _, ok := t.(*types.TypeParam); ok {
		return true
	}
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

// writeHandOvers declares the hand-over helpers that the twins use.
func (p *pkgRewriter) writeHandOvers(b *strings.Builder) {
	if len(p.handOvers) == 0 {
		return
	}
	hs := slices.SortedFunc(maps.Keys(p.handOvers), func(a, b handOver) int {
		return cmp.Or(cmp.Compare(a.params, b.params), cmp.Compare(a.results, b.results), boolCompare(a.variadic, b.variadic))
	})
	b.WriteString("\n")
	for _, h := range hs {
		b.WriteString(h.decl())
	}
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
