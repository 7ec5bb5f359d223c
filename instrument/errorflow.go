package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/cfg"
)

// Where a handler's error goes (see handlerKind).
//
// A handler's kind is decided by following the error it gets, over the
// control-flow graph of its function, from the arm's first statement:
// the variables that hold the error, or a value made from it (passed to
// a call whose result is kept, wrapped by fmt.Errorf, put in a struct
// literal's field, appended to a slice, joined by errors.Join), are
// followed through every assignment on every path, and lose the error
// where another value is assigned to them. An arm whose error reaches a
// return of the function, a send on a channel or the state of an object
// the caller sees (a field of the receiver or of a parameter, a
// package-level variable, a variable of the enclosing function) has
// passed it on. Reading the flow rather than the arm's text is what
// tells `if err != nil { err = wrap(err) }; …; return err` (the error
// goes on) from `if err != nil { log.Print(err) }` (it goes nowhere).
// Paths are not told apart by their conditions: a value that reaches a
// return on some path of the graph reaches it.

// errorFlow is the control-flow graph of one function's body, read for
// handlers.
type errorFlow struct {
	fe *funcEdits
	g  *cfg.CFG
	// entry is the block an arm's body starts: an if statement's then
	// block, a case clause's body.
	entry map[ast.Node]*cfg.Block
	// at locates each statement of the graph.
	at map[ast.Node]nodeAt
	// ranged are the key and value of range statements, which the graph
	// lists as expressions: each is assigned an element of the ranged
	// value.
	ranged map[ast.Expr]*ast.RangeStmt
}

type nodeAt struct {
	b *cfg.Block
	i int
}

// flow returns the function's graph, built once.
func (fe *funcEdits) flow() *errorFlow {
	if fe.errFlow != nil {
		return fe.errFlow
	}
	fl := &errorFlow{fe: fe, entry: map[ast.Node]*cfg.Block{}, at: map[ast.Node]nodeAt{}, ranged: map[ast.Expr]*ast.RangeStmt{}}
	fl.g = cfg.New(fe.body, func(call *ast.CallExpr) bool { return fe.p.endsKind(call) == "" })
	for _, b := range fl.g.Blocks {
		switch b.Kind {
		case cfg.KindIfThen, cfg.KindSwitchCaseBody:
			if _, seen := fl.entry[b.Stmt]; !seen {
				fl.entry[b.Stmt] = b
			}
		}
		for i, n := range b.Nodes {
			fl.at[n] = nodeAt{b, i}
		}
	}
	ast.Inspect(fe.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			if n.Key != nil {
				fl.ranged[n.Key] = n
			}
			if n.Value != nil {
				fl.ranged[n.Value] = n
			}
		}
		return true
	})
	fe.errFlow = fl
	return fl
}

// taint is the set of variables that hold the value followed.
type taint map[types.Object]bool

func (t taint) clone() taint {
	c := make(taint, len(t))
	for v := range t {
		c[v] = true
	}
	return c
}

// reach is where a followed value went.
type reach struct {
	returned bool // a return of the function returns it (or a value made from it)
	inArm    bool // one such return is among the arm's statements
	stored   bool // sent on a channel, or stored where the caller sees it
	// held are the variables that held it at some point.
	held taint
}

func (r reach) passedOn() bool { return r.returned || r.stored }

// follow follows the value that the variables of seed hold from the
// node i of block b on, over every path; values says whether numbers
// and booleans made from it carry it (following a fallback value), or
// not (following an error: errors.Is(err, X), len(err.Error()) say
// something about the error but do not pass it on). arm is the extent
// of the arm's body.
func (fl *errorFlow) follow(b *cfg.Block, i int, seed taint, values bool, arm ast.Node) reach {
	r := reach{held: seed.clone()}
	in := map[*cfg.Block]taint{}
	type item struct {
		b *cfg.Block
		i int
		t taint
	}
	work := []item{{b, i, seed.clone()}}
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		t := it.t
		for _, n := range it.b.Nodes[it.i:] {
			fl.transfer(n, t, values, arm, &r)
		}
		for _, s := range it.b.Succs {
			old, seen := in[s]
			if !seen {
				old = taint{}
			}
			changed := !seen
			for v := range t {
				if !old[v] {
					old[v] = true
					changed = true
				}
			}
			in[s] = old
			if changed {
				work = append(work, item{s, 0, old.clone()})
			}
		}
	}
	return r
}

// transfer applies one node of the graph to t.
func (fl *errorFlow) transfer(n ast.Node, t taint, values bool, arm ast.Node, r *reach) {
	info := fl.fe.p.info
	switch n := n.(type) {
	case *ast.AssignStmt:
		switch {
		case n.Tok != token.ASSIGN && n.Tok != token.DEFINE: // x += y
			fl.assign(n.Lhs[0], fl.carries(n.Lhs[0], t, values) || fl.carries(n.Rhs[0], t, values), t, r)
		case len(n.Lhs) == len(n.Rhs):
			c := make([]bool, len(n.Rhs))
			for i, e := range n.Rhs {
				c[i] = fl.carries(e, t, values)
			}
			for i, l := range n.Lhs {
				fl.assign(l, c[i], t, r)
			}
		default: // x, err := f(y)
			c := fl.carries(n.Rhs[0], t, values)
			for _, l := range n.Lhs {
				fl.assign(l, c && (values || carrierType(info.TypeOf(l))), t, r)
			}
		}
	case *ast.ValueSpec:
		for i, name := range n.Names {
			c := false
			if len(n.Values) == len(n.Names) {
				c = fl.carries(n.Values[i], t, values)
			} else if len(n.Values) == 1 {
				c = fl.carries(n.Values[0], t, values)
			}
			fl.assign(name, c, t, r)
		}
	case *ast.IncDecStmt:
		fl.assign(n.X, fl.carries(n.X, t, values), t, r)
	case *ast.ReturnStmt:
		ret := false
		if len(n.Results) == 0 {
			if sig := fl.fe.sig; sig != nil {
				for i := 0; i < sig.Results().Len(); i++ {
					ret = ret || t[sig.Results().At(i)]
				}
			}
		}
		for _, e := range n.Results {
			ret = ret || fl.carries(e, t, values)
		}
		if ret {
			r.returned = true
			r.inArm = r.inArm || arm != nil && arm.Pos() <= n.Pos() && n.End() <= arm.End()
		}
	case *ast.SendStmt:
		if fl.carries(n.Value, t, values) {
			r.stored = true
		}
	case ast.Expr:
		if rs := fl.ranged[n]; rs != nil {
			fl.assign(n, fl.carries(rs.X, t, values), t, r)
		}
	}
}

// assign records that l is assigned a value that carries the one
// followed, or not: a variable assigned another value no longer holds
// it; an element or a field assigned it makes its variable hold it.
func (fl *errorFlow) assign(l ast.Expr, carries bool, t taint, r *reach) {
	root, whole := fl.root(l)
	if root == nil {
		return
	}
	if carries {
		t[root] = true
		r.held[root] = true
		if fl.outside(root, whole) {
			r.stored = true
		}
	} else if whole {
		delete(t, root)
	}
}

// root returns the variable that an assignment to l changes, and
// whether l is that variable itself (not one of its elements, fields or
// what it points to).
func (fl *errorFlow) root(l ast.Expr) (v *types.Var, whole bool) {
	whole = true
	for {
		switch e := ast.Unparen(l).(type) {
		case *ast.Ident:
			v, _ := fl.fe.p.info.ObjectOf(e).(*types.Var)
			return v, whole
		case *ast.SelectorExpr:
			if _, pkg := fl.fe.p.info.Uses[identOf(e.X)].(*types.PkgName); pkg {
				v, _ := fl.fe.p.info.Uses[e.Sel].(*types.Var)
				return v, whole // pkg.Var
			}
			l, whole = e.X, false
		case *ast.IndexExpr:
			l, whole = e.X, false
		case *ast.StarExpr:
			l, whole = e.X, false
		default:
			return nil, false
		}
	}
}

// isPackageName reports whether e names an imported package (the x of
// x.Sel).
func isPackageName(info *types.Info, e ast.Expr) bool {
	id := identOf(e)
	if id == nil {
		return false
	}
	_, ok := info.Uses[id].(*types.PkgName)
	return ok
}

// outside reports whether a value stored in v (whole: v itself; else
// one of its elements or fields) is seen outside the function: v is a
// package-level variable, a variable of an enclosing function, or a
// parameter (the receiver included) whose element or field is set.
func (fl *errorFlow) outside(v *types.Var, whole bool) bool {
	fe := fl.fe
	if v.Parent() == fe.p.pkg.Scope() || v.Pkg() != fe.p.pkg {
		return true
	}
	if v.Pos() < fe.ftype.Pos() || v.Pos() >= fe.body.End() {
		return true // declared outside the function: captured by a literal
	}
	return !whole && v.Pos() < fe.body.Pos() && !fl.isResult(v)
}

func (fl *errorFlow) isResult(v *types.Var) bool {
	sig := fl.fe.sig
	if sig == nil {
		return false
	}
	for i := 0; i < sig.Results().Len(); i++ {
		if sig.Results().At(i) == v {
			return true
		}
	}
	return false
}

// carries reports whether e's value carries the value followed (see
// follow for values).
func (fl *errorFlow) carries(e ast.Expr, t taint, values bool) bool {
	info := fl.fe.p.info
	if !values && !carrierType(info.TypeOf(e)) {
		return false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return t[info.ObjectOf(e)]
	case *ast.SelectorExpr:
		if isPackageName(info, e.X) {
			return t[info.Uses[e.Sel]]
		}
		return fl.carries(e.X, t, values)
	case *ast.IndexExpr:
		return fl.carries(e.X, t, values)
	case *ast.SliceExpr:
		return fl.carries(e.X, t, values)
	case *ast.StarExpr:
		return fl.carries(e.X, t, values)
	case *ast.UnaryExpr:
		return fl.carries(e.X, t, values)
	case *ast.TypeAssertExpr:
		return fl.carries(e.X, t, values)
	case *ast.BinaryExpr:
		return fl.carries(e.X, t, values) || fl.carries(e.Y, t, values)
	case *ast.KeyValueExpr:
		return fl.carries(e.Value, t, values)
	case *ast.CompositeLit:
		for _, x := range e.Elts {
			if fl.carries(x, t, values) {
				return true
			}
		}
	case *ast.CallExpr:
		if se, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok && !isPackageName(info, se.X) && fl.carries(se.X, t, values) {
			return true // err.Error(), or a method of a value made from the error
		}
		for _, a := range e.Args {
			if fl.carries(a, t, values) {
				return true
			}
		}
	}
	return false
}

// carrierType reports whether a value of type t can carry an error:
// not a boolean or a number (the result of errors.Is, of a comparison,
// of a count).
func carrierType(t types.Type) bool {
	if t == nil {
		return true
	}
	b, ok := t.Underlying().(*types.Basic)
	return !ok || b.Info()&(types.IsBoolean|types.IsNumeric) == 0
}

// endsKind says whether a call never returns: kindPanic for panic,
// log.Panic and its variants, and a function of the package that always
// panics; kindExit for os.Exit, log.Fatal and its variants,
// runtime.Goexit, a test's Fatal, FailNow and Skip, and a function of
// the package that always exits; "" for any other call.
func (p *pkgRewriter) endsKind(call *ast.CallExpr) string {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "panic" {
		if _, builtin := p.info.Uses[id].(*types.Builtin); builtin {
			return kindPanic
		}
		return ""
	}
	fn, ok := calleeObject(p.info, call.Fun).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ""
	}
	name := fn.Name()
	switch fn.Pkg().Path() {
	case "log":
		switch {
		case strings.HasPrefix(name, "Panic"):
			return kindPanic
		case strings.HasPrefix(name, "Fatal"):
			return kindExit
		}
	case "os":
		if name == "Exit" {
			return kindExit
		}
	case "runtime":
		if name == "Goexit" {
			return kindExit
		}
	case "testing":
		if strings.HasPrefix(name, "Fatal") || name == "FailNow" || strings.HasPrefix(name, "Skip") {
			return kindExit
		}
	}
	if fn.Pkg() == p.pkg {
		return p.funcEnds(fn)
	}
	return ""
}

// funcEnds says whether every call of fn, a function of the package,
// ends in a panic (kindPanic) or ends the program (kindExit): its body
// has no return statement and its last statement ends so (an if
// statement ends so when both its branches do).
func (p *pkgRewriter) funcEnds(fn *types.Func) string {
	fn = fn.Origin()
	if k, ok := p.ends[fn]; ok {
		return k
	}
	if p.ends == nil {
		p.ends = map[*types.Func]string{}
	}
	p.ends[fn] = "" // a recursive call is taken to return
	fd := p.decls[fn]
	if fd == nil || fd.Body == nil || hasReturn(fd.Body) {
		return ""
	}
	k := p.stmtsEnd(fd.Body.List)
	p.ends[fn] = k
	return k
}

// guardedEnds returns, for fn, a function of the package whose body is
// one statement, if p != nil { … } ending in a panic or the end of the
// program, the index of the parameter p and how it ends.
func (p *pkgRewriter) guardedEnds(fn *types.Func) (param int, kind string) {
	fd := p.decls[fn.Origin()]
	if fd == nil || fd.Body == nil || len(fd.Body.List) != 1 || hasReturn(fd.Body) {
		return -1, ""
	}
	ifs, ok := fd.Body.List[0].(*ast.IfStmt)
	if !ok || ifs.Init != nil || ifs.Else != nil {
		return -1, ""
	}
	c, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok || c.Op != token.NEQ {
		return -1, ""
	}
	x := c.X
	if isNilExpr(p.info, x) {
		x = c.Y
	} else if !isNilExpr(p.info, c.Y) {
		return -1, ""
	}
	id := identOf(x)
	if id == nil {
		return -1, ""
	}
	sig := fn.Type().(*types.Signature)
	for i := 0; i < sig.Params().Len(); i++ {
		if sig.Params().At(i) == p.info.Uses[id] {
			if k := p.stmtsEnd(ifs.Body.List); k != "" {
				return i, k
			}
		}
	}
	return -1, ""
}

// stmtsEnd says how a list of statements ends: kindPanic, kindExit or
// "" (it may go on).
func (p *pkgRewriter) stmtsEnd(list []ast.Stmt) string {
	if len(list) == 0 {
		return ""
	}
	switch s := list[len(list)-1].(type) {
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			return p.endsKind(call)
		}
	case *ast.BlockStmt:
		return p.stmtsEnd(s.List)
	case *ast.LabeledStmt:
		return p.stmtsEnd([]ast.Stmt{s.Stmt})
	case *ast.IfStmt:
		var other string
		switch e := s.Else.(type) {
		case *ast.BlockStmt:
			other = p.stmtsEnd(e.List)
		case *ast.IfStmt:
			other = p.stmtsEnd([]ast.Stmt{e})
		}
		then := p.stmtsEnd(s.Body.List)
		if then == "" || other == "" {
			return ""
		}
		if then == other {
			return then
		}
		return kindPanic
	}
	return ""
}

// hasReturn reports whether a body has a return statement of its own
// (not of a function literal in it).
func hasReturn(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		}
		return !found
	})
	return found
}
