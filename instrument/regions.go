package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Lock regions (see rt/regions.go): a function that takes its locks other
// than by opening with the lock idiom tells the runtime where it takes and
// releases each of them, so that a snapshotted call snapshots what a lock
// guards while it holds it, and compares it before releasing it:
//
//	c.mu.Lock()          →  c.mu.Lock(); _atx_lk.Acquired(&c.mu)
//	c.mu.Unlock()        →  _atx_lk.Releasing(&c.mu); c.mu.Unlock()
//	defer c.mu.Unlock()  →  defer c.mu.Unlock(); defer _atx_lk.Releasing(&c.mu)
//	c.mu.TryLock()       →  _atx_lk.Tried(&c.mu, c.mu.TryLock())
//
// (RLock and TryRLock alike, as read regions.) The deferred Releasing runs
// before the deferred unlock. The prologue names the locks it can name at
// entry, which the snapshot at entry leaves out (see ownAtEntry).
//
// A lock the rewrite cannot follow leaves the function unsnapshotted, its
// failures unknown with the reason: a lock it cannot name again without
// effects (m[k].mu, f().mu), one taken in a defer or go statement or in a
// function literal, or released in a function literal.

// regionsName is the *rt.Regions of a call of a function with lock
// regions.
const regionsName = "_atx_lk"

// lockRegionPlan is what the rewrite of a function with lock regions
// inserts.
type lockRegionPlan struct {
	hooks []regionHook
	// own are the arguments of rt.Call.SnapRegions's own: pairs of a
	// value and a lock field's path.
	own []string
}

// regionHook is one insertion: text at an offset of the source.
type regionHook struct {
	off  int
	text string
}

// lockRegions plans the lock regions of a function that does not open
// with the lock idiom. It returns nil and "" for a function that takes no
// lock, and a reason when it takes one that it cannot follow.
func (fe *funcEdits) lockRegions() (*lockRegionPlan, string) {
	parents := map[*ast.CallExpr]ast.Stmt{}
	var lits []*ast.FuncLit
	deferred := map[*ast.FuncLit]*ast.DeferStmt{}
	ast.Inspect(fe.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ExprStmt:
			if c, ok := ast.Unparen(n.X).(*ast.CallExpr); ok {
				parents[c] = n
			}
		case *ast.DeferStmt:
			parents[n.Call] = n
			if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				deferred[lit] = n
			}
		case *ast.GoStmt:
			parents[n.Call] = n
		case *ast.FuncLit:
			lits = append(lits, n)
		}
		return true
	})
	inLit := func(pos token.Pos) bool {
		for _, l := range lits {
			if pos >= l.Pos() && pos < l.End() {
				return true
			}
		}
		return false
	}
	// releasedByDefer returns the statement that defers the function
	// literal that releases a lock by call, when the function itself
	// defers that literal (defer func() { mu.Unlock() }()) and the lock is
	// named by variables of the function: a Releasing deferred after it
	// runs first.
	releasedByDefer := func(call *ast.CallExpr) *ast.DeferStmt {
		var inner *ast.FuncLit
		for _, l := range lits {
			if call.Pos() >= l.Pos() && call.End() <= l.End() && (inner == nil || l.Pos() > inner.Pos()) {
				inner = l
			}
		}
		d := deferred[inner]
		if d == nil || inLit(d.Pos()) {
			return nil
		}
		base := baseIdent(call.Fun.(*ast.SelectorExpr).X)
		if base == nil {
			return nil
		}
		if obj := fe.p.info.Uses[base]; obj == nil || obj.Pos() >= inner.Pos() && obj.Pos() < inner.End() {
			return nil
		}
		return d
	}
	line := func(pos token.Pos) string { return strconv.Itoa(fe.p.fset.Position(pos).Line) }

	plan := &lockRegionPlan{}
	taken := map[string]token.Pos{} // the locks taken, by their operand
	var releases []*ast.CallExpr    // in function literals
	released := map[string]bool{}   // the locks released in the function's own statements
	var reason string
	seenOwn := map[string]bool{}
	ast.Inspect(fe.body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || reason != "" {
			return reason == ""
		}
		_, name := selectorCall(call)
		var read bool
		switch name {
		case "Lock", "TryLock":
		case "RLock", "TryRLock":
			read = true
		case "Unlock", "RUnlock":
			op := fe.lockOperand(call)
			if inLit(call.Pos()) {
				if d := releasedByDefer(call); d != nil && op != "" && !released[op] {
					released[op] = true
					end := fe.off(d.End())
					plan.hooks = append(plan.hooks, regionHook{end, fmt.Sprintf("; defer %s.Releasing(%s)", regionsName, op) + lineDirective(fe.p.fset, fe.tf, end)})
					return true
				}
				releases = append(releases, call)
				return true
			}
			if op == "" {
				return true
			}
			switch s := parents[call].(type) {
			case *ast.ExprStmt:
				released[op] = true
				start := fe.off(s.Pos())
				plan.hooks = append(plan.hooks, regionHook{start, fmt.Sprintf("%s.Releasing(%s); ", regionsName, op) + lineDirective(fe.p.fset, fe.tf, start)})
			case *ast.DeferStmt:
				released[op] = true
				end := fe.off(s.End())
				plan.hooks = append(plan.hooks, regionHook{end, fmt.Sprintf("; defer %s.Releasing(%s)", regionsName, op) + lineDirective(fe.p.fset, fe.tf, end)})
			}
			return true
		default:
			return true
		}
		if inLit(call.Pos()) {
			reason = "takes a lock at line " + line(call.Pos()) + " in a function literal"
			return false
		}
		op := fe.lockOperand(call)
		if op == "" {
			reason = unnamedLockReason(fe.p.fset.Position(call.Pos()).Line)
			return false
		}
		try := strings.HasPrefix(name, "Try")
		switch s := parents[call].(type) {
		case *ast.ExprStmt:
			if try {
				break
			}
			end := fe.off(s.End())
			hook := "Acquired"
			if read {
				hook = "ReadAcquired"
			}
			plan.hooks = append(plan.hooks, regionHook{end, fmt.Sprintf("; %s.%s(%s)", regionsName, hook, op) + lineDirective(fe.p.fset, fe.tf, end)})
		case *ast.DeferStmt, *ast.GoStmt:
			reason = "takes a lock at line " + line(call.Pos()) + " in a defer or go statement"
			return false
		}
		if try {
			hook := "Tried"
			if read {
				hook = "TriedRead"
			}
			start, end := fe.off(call.Pos()), fe.off(call.End())
			plan.hooks = append(plan.hooks,
				regionHook{start, fmt.Sprintf("%s.%s(%s, ", regionsName, hook, op) + lineDirective(fe.p.fset, fe.tf, start)},
				regionHook{end, ")"})
		}
		if _, ok := taken[op]; !ok {
			taken[op] = call.Pos()
		}
		if spec := fe.ownAtEntry(call); spec != "" && !seenOwn[spec] {
			seenOwn[spec] = true
			plan.own = append(plan.own, spec)
		}
		return true
	})
	if reason != "" {
		return nil, reason + notSnapshotted
	}
	if len(taken) == 0 {
		return nil, ""
	}
	for _, call := range releases {
		if at, ok := taken[fe.lockOperand(call)]; ok && !released[fe.lockOperand(call)] {
			return nil, "releases the lock taken at line " + line(at) + " in a function literal, at line " + line(call.Pos()) + ": not snapshotted, as the release cannot be followed"
		}
	}
	// A lock the function does not release itself, released by a callee
	// or held for the caller, leaves its region open to the end of the
	// call: the runtime compares it then if the lock is still the call's
	// (see rt.lockRegions.finish).
	return plan, ""
}

// notSnapshotted ends the reasons why a function that takes a lock is not
// snapshotted.
const notSnapshotted = ": not snapshotted, as other goroutines may write what the lock guards"

// unnamedLockReason says that the lock taken at line is one that the
// rewrite cannot name again (see lockOperand).
func unnamedLockReason(line int) string {
	return "takes a lock at line " + strconv.Itoa(line) + " that cannot be named again without effects (through an index, a call, or a Lock method that is not a sync.Mutex's or sync.RWMutex's)"
}

// ownAtEntry returns the pair of arguments of rt.Call.SnapRegions's own
// that names the lock that call, x.Lock() or the like, takes, as it can
// be named at entry without effects: "c, \"mu\"" for c.mu.Lock() where c
// is the receiver or a parameter that the function never assigns (a nil c
// names nothing), "&mu, \"\"" for a package-level lock; or, where the lock
// is a field of a struct reached otherwise (a loop's item), that field in
// every value of the struct's type: "(*shard)(nil), \"mu\"". It returns
// "" when it names none: the snapshot at entry then takes that lock as it
// takes any other it meets.
func (fe *funcEdits) ownAtEntry(call *ast.CallExpr) string {
	op := fe.lockOperand(call)
	chain := strings.Split(strings.TrimPrefix(op, "&"), ".")
	for _, part := range chain {
		if !token.IsIdentifier(part) {
			return ""
		}
	}
	base := baseIdent(call.Fun.(*ast.SelectorExpr).X)
	if base == nil {
		return ""
	}
	v, ok := fe.p.info.Uses[base].(*types.Var)
	if !ok || base.Name != chain[0] {
		return ""
	}
	global := v.Parent() == fe.p.pkg.Scope()
	if global || fe.isRoot(base) {
		// Through inline fields only: a pointer read on the way could be
		// nil at entry.
		t := v.Type()
		x := chain[0]
		if _, ptr := t.Underlying().(*types.Pointer); !ptr {
			x = "&" + x
		}
		inline := true
		for i, f := range chain[1:] {
			if i > 0 {
				if _, ptr := t.Underlying().(*types.Pointer); ptr {
					inline = false
					break
				}
			}
			obj, _, _ := types.LookupFieldOrMethod(t, true, fe.p.pkg, f)
			fv, ok := obj.(*types.Var)
			if !ok {
				return ""
			}
			t = fv.Type()
		}
		if inline {
			return x + ", " + strconv.Quote(strings.Join(chain[1:], "."))
		}
	}
	if len(chain) < 2 {
		return ""
	}
	t := v.Type()
	for _, f := range chain[1 : len(chain)-1] {
		obj, _, _ := types.LookupFieldOrMethod(t, true, fe.p.pkg, f)
		fv, ok := obj.(*types.Var)
		if !ok {
			return ""
		}
		t = fv.Type()
	}
	return fe.ownType(chain, t)
}

// ownType returns the own argument that names the lock field, the last of
// chain, in every value of the struct type that t is or points to: a named
// type of the package, without type parameters; else "".
func (fe *funcEdits) ownType(chain []string, t types.Type) string {
	named, ok := types.Unalias(derefType(t)).(*types.Named)
	if !ok || named.Obj().Pkg() != fe.p.pkg || named.TypeParams().Len() > 0 || named.Obj().Parent() != fe.p.pkg.Scope() {
		return ""
	}
	if _, ok := named.Underlying().(*types.Struct); !ok {
		return ""
	}
	return "(*" + named.Obj().Name() + ")(nil), " + strconv.Quote(chain[len(chain)-1])
}

// baseIdent returns the variable that x, a variable or a chain of its
// fields, starts from; nil for another expression.
func baseIdent(x ast.Expr) *ast.Ident {
	for {
		switch e := ast.Unparen(x).(type) {
		case *ast.Ident:
			return e
		case *ast.SelectorExpr:
			x = e.X
		default:
			return nil
		}
	}
}
