package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
	"github.com/dave/dst"
)

// Error handlers, for short-circuit testing (atomicx handlers).
//
// A handler is one arm of the check of an error that a call returned:
//
//	x, err := f(a)               // the region: the call whose error reaches the arms
//	if errors.Is(err, io.EOF) {  // an arm: errors.Is(err, X), errors.As(err, &t),
//		…                        // err == X, err != nil
//	} else if err != nil {       // another arm of the same region
//		…
//	}
//
// and the same with the assignment in the if statement's header, with
// the predicate joined with other conditions (err != nil && x), with
// switches (without tag, on the error, on its type) and the checks
// nested in an err != nil arm (see regionOf). The
// region's statement is rewritten as a call site is (see calls.go), with
// rt.Region asking whether one of its arms is armed: then the call does
// not run, its results are zero and its error is the armed arm's fault
// (an injected error for err != nil, one wrapping X for errors.Is, X
// itself for ==, a constructed value of the target's type for errors.As).
// Each arm's condition is wrapped in rt.Arm, which logs its usages. The
// faults of a region's arms are made by a function appended to the file
// (see hoist.go): it costs no allocation, runs only when an arm is armed,
// and leaves the names of the user's literals as they are.

// The kinds of handlers, by where the arm's error goes (see handlerKind).
const (
	kindPropagate  = "propagate"        // the error, or a value made from it, reaches a return
	kindAccumulate = "accumulate"       // added to a collection of errors that a return returns, and the function goes on
	kindTranslate  = "translate"        // returns another error
	kindFallback   = "fallback"         // makes the function's result otherwise: returns without an error, or sets a value it returns
	kindLog        = "log-and-continue" // hands the error to a call (a log) and goes on: the error goes no further
	kindIgnore     = "ignore"           // neither uses the error nor makes a result (an empty arm, continue)
	kindPanic      = "panic"            // panics, or calls a function of the package that always panics
	kindExit       = "exit"             // ends the program or the test: os.Exit, log.Fatal, t.Fatal
)

// handlersName is the package-level array of rt.Handler.
const handlersName = "_atx_handlers"

// handler is one arm, as the handler table declares it.
type handler struct {
	id, fn, pos, region  string
	kind, predicate, why string // why: not injectable, and why
	// widened is the predicate widened to any error, for a typed arm that
	// can be widened; notWidenable says why a typed arm cannot be.
	widened, notWidenable string
	// route is, for the err != nil arm of a region whose call can panic,
	// the call, whose panic can be routed to the arm as an error;
	// notRoutable says why the err != nil arm's region cannot.
	// routeResults are the call's results as the result list of a
	// function literal that returns them ("_ string, err error"), for the
	// suggested rewrite; "" when a type cannot be named there.
	route, notRoutable, routeResults string
}

// region is a statement whose call's error reaches arms.
type region struct {
	stmt   *ast.AssignStmt
	errVar string // the identifier the error is assigned to
	first  int    // index of the first arm in the handler table
	arms   []arm
	// rewritten says that the statement was rewritten so that an armed
	// arm skips it.
	rewritten bool
	// typeSwitch is the check when it is a type switch on the error.
	typeSwitch *ast.TypeSwitchStmt
	// deferStmt is, for a deferred recover handler, its defer statement:
	// the region starts after it.
	deferStmt *ast.DeferStmt
}

// arm is one handler of a region.
type arm struct {
	cond   ast.Expr        // the predicate; nil for a type switch's case
	clause *ast.CaseClause // a type switch's case
	fault  string          // Go expression of the fault; "" when not injectable
	why    string          // why not injectable
	// part is, when cond joins a predicate on the error with other
	// conditions (err != nil && x, errors.Is(err, X) || x), that
	// predicate, whose fault is the arm's; nil when cond is one.
	part ast.Expr
	// tag is, for a case of a switch on the error (switch err { case X:
	// … }), X; tagged is that switch, for the case and for its default.
	tag    ast.Expr
	tagged *ast.SwitchStmt
	// typed is, for a case of a type switch on the error, that switch.
	typed *ast.TypeSwitchStmt
	// nested is the number of arms nested in this err != nil arm's body
	// (checks of the same error in it), which follow it in the table.
	nested int
}

// findRegions finds the regions of the function's body (not of the
// function literals in it, which are functions of their own) and adds
// their arms to the package's handler table.
func (fe *funcEdits) findRegions() map[*ast.AssignStmt]*region {
	regions := map[*ast.AssignStmt]*region{}
	add := func(as *ast.AssignStmt, check ast.Stmt) {
		if r := fe.regionOf(as, check); r != nil {
			regions[as] = r
		}
	}
	// list finds the checks that follow their assignment in a list of
	// statements.
	list := func(stmts []ast.Stmt) {
		for i := 0; i+1 < len(stmts); i++ {
			as, ok := stmts[i].(*ast.AssignStmt)
			if !ok {
				continue
			}
			switch next := stmts[i+1].(type) {
			case *ast.IfStmt:
				if next.Init == nil {
					add(as, next)
				}
			case *ast.SwitchStmt:
				if next.Init == nil {
					add(as, next) // without tag, or on the error
				}
			case *ast.TypeSwitchStmt:
				if next.Init == nil {
					add(as, next)
				}
			}
		}
	}
	for _, st := range fe.body.List {
		if d, ok := st.(*ast.DeferStmt); ok {
			if r := fe.recoverRegion(d); r != nil {
				regions[r.stmt] = r
			}
		}
	}
	ast.Inspect(fe.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			list(n.List)
		case *ast.CaseClause:
			list(n.Body)
		case *ast.CommClause:
			list(n.Body)
		case *ast.IfStmt:
			if as, ok := n.Init.(*ast.AssignStmt); ok {
				add(as, n)
			}
		case *ast.SwitchStmt:
			if as, ok := n.Init.(*ast.AssignStmt); ok {
				add(as, n) // without tag, or on the error
			}
		}
		return true
	})
	return regions
}

// regionOf returns the region of an assignment of a call's error that
// check checks (an if statement, a switch without tag, a type switch on
// the error), nil if it is not one.
func (fe *funcEdits) regionOf(as *ast.AssignStmt, check ast.Stmt) *region {
	if as.Tok != token.ASSIGN && as.Tok != token.DEFINE || len(as.Rhs) != 1 {
		return nil
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if _, _, ok := fe.returnsError(call); !ok {
		return nil
	}
	errID, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident)
	if !ok || errID.Name == "_" {
		return nil
	}
	errVar := fe.p.info.ObjectOf(errID)
	if errVar == nil || !types.Identical(errVar.Type(), errorType) {
		return nil
	}
	r := &region{stmt: as, errVar: errID.Name, first: len(fe.p.handlers)}
	fn := funcname.Join(fe.p.opts.ImportPath, fe.name)
	regionPos := fe.p.sitePos(fe.p.fset.Position(call.Lparen))
	add := func(owner ast.Node, a arm, predicate string, body []ast.Stmt) {
		at := owner.Pos()
		errVars := []types.Object{errVar}
		if a.clause != nil {
			if v := fe.p.info.Implicits[a.clause]; v != nil {
				errVars = append(errVars, v) // e of switch e := err.(type)
			}
		}
		errVars = append(errVars, fe.asTargets(a.cond, errVar)...)
		r.arms = append(r.arms, a)
		widened, notWidenable := fe.widening(a, errID.Name, body)
		pos := fe.p.fset.Position(at)
		fe.p.handlers = append(fe.p.handlers, handler{
			id:        fn + "#handler:" + path.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column),
			fn:        fn,
			pos:       fe.p.sitePos(pos),
			region:    regionPos,
			kind:      fe.handlerKind(owner, body, errVars...),
			predicate: predicate,
			why:       a.why,

			widened:      widened,
			notWidenable: notWidenable,
		})
	}
	// nested adds, after an err != nil arm, the arms of the checks of the
	// same error among the statements of its body, up to the first that
	// may assign the error: their regions are the same call.
	var chain func(*ast.IfStmt)
	var cases, tagged func(*ast.SwitchStmt)
	var typeCases func(*ast.TypeSwitchStmt)
	nested := func(a arm, body []ast.Stmt) {
		if !errorNotNil(a) && (a.tagged == nil || a.tag != nil) {
			return // neither err != nil (or err != nil && x) nor the default of a switch on the error
		}
		parent := len(r.arms) - 1
		// walk finds the checks among stmts, up to the first statement
		// that may assign the error, and in the blocks of the statements
		// before it: blocks, the branches of an if that is no check,
		// the bodies of loops that do not assign the error (a loop that
		// does checks another error from its second iteration on).
		var walk func(stmts []ast.Stmt)
		walk = func(stmts []ast.Stmt) {
			for _, st := range stmts {
				for {
					l, ok := st.(*ast.LabeledStmt)
					if !ok {
						break
					}
					st = l.Stmt
				}
				switch st := st.(type) {
				case *ast.IfStmt:
					if st.Init != nil {
						break
					}
					if _, _, _, ok := fe.joinedPredicate(st.Cond, errVar, st.Pos(), 0); ok {
						chain(st)
						break
					}
					walk(st.Body.List)
					switch e := st.Else.(type) {
					case *ast.BlockStmt:
						walk(e.List)
					case *ast.IfStmt:
						walk([]ast.Stmt{e})
					}
				case *ast.SwitchStmt:
					if st.Init == nil && st.Tag == nil {
						cases(st)
					} else if st.Init == nil {
						tagged(st)
					}
				case *ast.TypeSwitchStmt:
					if st.Init == nil {
						typeCases(st)
					}
				case *ast.BlockStmt:
					walk(st.List)
				case *ast.ForStmt:
					if !assigns(fe.p.info, st, errVar) {
						walk(st.Body.List)
					}
				case *ast.RangeStmt:
					if !assigns(fe.p.info, st, errVar) {
						walk(st.Body.List)
					}
				}
				if assigns(fe.p.info, st, errVar) {
					return
				}
			}
		}
		walk(body)
		r.arms[parent].nested = len(r.arms) - 1 - parent
	}
	chain = func(s *ast.IfStmt) {
		for s != nil {
			part, fault, why, ok := fe.joinedPredicate(s.Cond, errVar, s.Pos(), len(fe.p.handlers))
			if !ok {
				break
			}
			a := arm{cond: s.Cond, part: part, fault: fault, why: why}
			add(s, a, fe.text(s.Cond), s.Body.List)
			nested(a, s.Body.List)
			s, _ = s.Else.(*ast.IfStmt)
		}
	}
	// switch { case errors.Is(err, X): … case err != nil: … }
	cases = func(sw *ast.SwitchStmt) {
		for _, st := range sw.Body.List {
			cc := st.(*ast.CaseClause)
			if len(cc.List) != 1 {
				continue
			}
			part, fault, why, ok := fe.joinedPredicate(cc.List[0], errVar, cc.Pos(), len(fe.p.handlers))
			if !ok {
				continue
			}
			a := arm{cond: cc.List[0], part: part, fault: fault, why: why}
			add(cc, a, fe.text(cc.List[0]), cc.Body)
			nested(a, cc.Body)
		}
	}
	// switch err { case nil: … case io.EOF: … default: … }: each case of
	// one value but nil is an err == X arm; default is an err != nil arm
	// when nil is a case of its own (without one, default runs when there
	// is no error too: it is no handler).
	tagged = func(sw *ast.SwitchStmt) {
		if id, ok := ast.Unparen(sw.Tag).(*ast.Ident); !ok || fe.p.info.ObjectOf(id) != errVar {
			return
		}
		isNil := func(e ast.Expr) bool {
			tv, ok := fe.p.info.Types[e]
			return ok && tv.IsNil()
		}
		nilCase := false
		for _, st := range sw.Body.List {
			cc := st.(*ast.CaseClause)
			if len(cc.List) == 1 && isNil(cc.List[0]) {
				nilCase = true
			}
		}
		for _, st := range sw.Body.List {
			cc := st.(*ast.CaseClause)
			switch {
			case cc.List == nil && nilCase:
				a := arm{clause: cc, tagged: sw, fault: fmt.Sprintf("%s.HandlerError(&%s[%d])", rtName, handlersName, len(fe.p.handlers))}
				add(cc, a, "default", cc.Body)
				nested(a, cc.Body)
			case len(cc.List) >= 1 && plainValues(fe.p.info, cc.List):
				// case io.EOF, io.ErrUnexpectedEOF: one arm, whose fault
				// is its first value.
				x := cc.List[0]
				a := arm{clause: cc, tag: x, tagged: sw, fault: fe.text(x)}
				if a.why = fe.localName(x); a.why != "" {
					a.fault = ""
				}
				add(cc, a, "case "+fe.listText(cc.List), cc.Body)
			}
		}
	}
	// switch err.(type) { case *T: … }: the arm's fault is a value of its
	// type itself, as a type switch does not unwrap.
	typeCases = func(ts *ast.TypeSwitchStmt) {
		if !fe.switchesOn(ts, errVar) {
			return
		}
		for _, st := range ts.Body.List {
			cc := st.(*ast.CaseClause)
			named := 0 // of the case's types
			for _, t := range cc.List {
				if tv, ok := fe.p.info.Types[t]; ok && tv.IsType() {
					named++
				}
			}
			if named == 0 || named != len(cc.List) {
				continue // default, or a case of nil
			}
			// case *A, *B: one arm, whose fault is a value of its first
			// type.
			tv := fe.p.info.Types[cc.List[0]]
			fault, why := fe.typeCaseFault(tv.Type, cc.Pos(), fmt.Sprintf("&%s[%d]", handlersName, len(fe.p.handlers)))
			add(cc, arm{clause: cc, typed: ts, fault: fault, why: why}, "case "+fe.listText(cc.List), cc.Body)
		}
	}
	switch check := check.(type) {
	case *ast.IfStmt:
		chain(check)
	case *ast.SwitchStmt:
		if check.Tag == nil {
			cases(check)
		} else {
			tagged(check)
		}
	case *ast.TypeSwitchStmt:
		if !fe.switchesOn(check, errVar) {
			return nil
		}
		r.typeSwitch = check
		typeCases(check)
	}
	if len(r.arms) == 0 {
		return nil
	}
	fe.routing(r, call)
	return r
}

// routing marks the first err != nil arm of r among those not nested in
// another arm (the handler of every error of the region) as the handler a
// panic of the region's call can be routed to, as an error: the second
// widening. A call can panic unless it is a function or method of the
// standard library, which panics only when misused: routing such a panic
// would hide a bug, not handle a failure. Calls of the module's
// functions, of dependencies, of function values and of interface
// methods can panic.
func (fe *funcEdits) routing(r *region, call *ast.CallExpr) {
	for i := 0; i < len(r.arms); i += 1 + r.arms[i].nested {
		c, ok := ast.Unparen(r.arms[i].cond).(*ast.BinaryExpr)
		if !ok || c.Op != token.NEQ || !isNilExpr(fe.p.info, c.X) && !isNilExpr(fe.p.info, c.Y) {
			continue // not err != nil
		}
		h := &fe.p.handlers[r.first+i]
		if fn, ok := calleeObject(fe.p.info, call.Fun).(*types.Func); ok && fn.Pkg() != nil && isStd(fn.Pkg().Path()) {
			if sig, ok := fn.Type().(*types.Signature); !ok || sig.Recv() == nil || !types.IsInterface(sig.Recv().Type()) {
				h.notRoutable = "the call is to the standard library (" + fn.FullName() + "), which panics only when misused"
				return
			}
		}
		h.route = fe.text(call)
		h.routeResults = fe.resultTypes(call)
		return
	}
}

// resultTypes are call's results, as the result list of a function
// literal that returns them, at the call: the error named err (errPanic
// when the call names an err of its own), the others blank ("_ string,
// err error"); "" when a type cannot be named there.
func (fe *funcEdits) resultTypes(call *ast.CallExpr) string {
	tv, ok := fe.p.info.Types[call]
	if !ok {
		return ""
	}
	var results []types.Type
	if tuple, ok := tv.Type.(*types.Tuple); ok {
		for i := range tuple.Len() {
			results = append(results, tuple.At(i).Type())
		}
	} else {
		results = append(results, tv.Type)
	}
	errName := "err"
	ast.Inspect(call, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "err" {
			errName = "errPanic"
		}
		return true
	})
	names := make([]string, len(results))
	for i, t := range results {
		name, ok := fe.typeName(t, call.Pos())
		if !ok {
			return ""
		}
		if i < len(results)-1 {
			names[i] = "_ " + name
		} else {
			names[i] = errName + " " + name
		}
	}
	return strings.Join(names, ", ")
}

// isNilExpr reports whether e is the untyped nil.
func isNilExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// isStd reports whether an import path is of the standard library: its
// first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// plainValues reports whether the values of a case of several values
// are none of them nil, and, when there are several, each a name or a
// selector: the arm's predicate evaluates them once more (err == x || err
// == y), which must not change what the program does.
func plainValues(info *types.Info, values []ast.Expr) bool {
	for _, x := range values {
		if tv, ok := info.Types[x]; ok && tv.IsNil() {
			return false
		}
		if len(values) == 1 {
			continue
		}
		switch x := ast.Unparen(x).(type) {
		case *ast.Ident:
		case *ast.SelectorExpr:
			if _, ok := ast.Unparen(x.X).(*ast.Ident); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// listText is the text of a case's list of values or types, as written.
func (fe *funcEdits) listText(list []ast.Expr) string {
	return string(fe.src[fe.off(list[0].Pos()):fe.off(list[len(list)-1].End())])
}

// widening says whether a typed arm (errors.Is, errors.As, err == X, a
// type switch's case) can be widened to hold for any error: widened is
// the widened predicate ("err != nil") when it can, notWidenable why not.
// Both are empty for an arm that is not typed. An arm can be widened when
// nothing but the predicate depends on the error being of the type the
// arm looks for: for errors.As, the target variable is used nowhere else
// in the function (its body would find it zero otherwise); for a type
// switch's case, the case's variable (e of switch e := err.(type)) is not
// used in its body, and a value of its type can be made (the switch then
// switches on that value, see WidenSwitch).
func (fe *funcEdits) widening(a arm, errVar string, body []ast.Stmt) (widened, notWidenable string) {
	widened = errVar + " != nil"
	info := fe.p.info
	if a.tagged != nil {
		if a.tag == nil {
			return "", "" // default: holds for any error already
		}
		return widened, ""
	}
	if a.clause != nil {
		if a.fault == "" {
			return "", "a value of the case's type cannot be made: " + a.why
		}
		if v := info.Implicits[a.clause]; v != nil && uses(info, &ast.BlockStmt{List: body}, v, nil) {
			return "", "the arm uses the typed value " + v.Name()
		}
		return widened, ""
	}
	if a.part != nil {
		widened, notWidenable = fe.widening(arm{cond: a.part}, errVar, body)
		if widened == "" {
			return "", notWidenable
		}
		for _, op := range joins(a.cond, a.part) {
			if op != token.LOR {
				return "", "the predicate is joined with another condition by &&: widened, the arm would run whether it holds or not"
			}
		}
		// errors.Is(err, X) || x becomes err != nil || x: the arm holds
		// for any error, which is what rt.Arm makes it do.
		from, to := fe.off(a.part.Pos())-fe.off(a.cond.Pos()), fe.off(a.part.End())-fe.off(a.cond.Pos())
		text := fe.text(a.cond)
		return text[:from] + widened + text[to:], ""
	}
	switch c := ast.Unparen(a.cond).(type) {
	case *ast.BinaryExpr:
		if c.Op == token.NEQ {
			return "", "" // err != nil: holds for any error already
		}
		return widened, ""
	case *ast.CallExpr:
		fn, _ := calleeObject(info, c.Fun).(*types.Func)
		if fn == nil || fn.Name() != "As" {
			return widened, ""
		}
		u, ok := ast.Unparen(c.Args[1]).(*ast.UnaryExpr)
		var id *ast.Ident
		if ok && u.Op == token.AND {
			id, _ = ast.Unparen(u.X).(*ast.Ident)
		}
		var v *types.Var
		if id != nil {
			v, _ = info.ObjectOf(id).(*types.Var)
		}
		if v == nil || v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
			return "", "the errors.As target is not the address of a local variable: what it points to may be used elsewhere"
		}
		if uses(info, &ast.BlockStmt{List: body}, v, c) {
			return "", "the arm uses the typed value " + id.Name
		}
		if uses(info, fe.body, v, c) {
			return "", "the typed value " + id.Name + " is used outside the arm"
		}
		return widened, ""
	}
	return "", ""
}

// assigns reports whether n may assign v: an assignment to it, an
// increment, a range over into it, or its address taken.
func assigns(info *types.Info, n ast.Node, v types.Object) bool {
	found := false
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.ObjectOf(id) == v
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				found = found || is(l)
			}
		case *ast.IncDecStmt:
			found = found || is(n.X)
		case *ast.RangeStmt:
			found = found || n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && is(n.X)
		}
		return !found
	})
	return found
}

// uses reports whether n uses v, outside skip.
func uses(info *types.Info, n ast.Node, v types.Object, skip ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if n == skip && skip != nil {
			return false
		}
		if x, ok := n.(*ast.Ident); ok && info.Uses[x] == v {
			found = true
		}
		return !found
	})
	return found
}

// recoverRegion returns the region of a deferred recover handler,
//
//	defer func() { if r := recover(); r != nil { … } }()
//
// a statement of the function's body: the rest of the body, which the
// handler's fault (a panic) skips from its start. nil if the defer
// statement is not one. The region is keyed by the assignment of r.
func (fe *funcEdits) recoverRegion(d *ast.DeferStmt) *region {
	lit, ok := d.Call.Fun.(*ast.FuncLit)
	if !ok || len(d.Call.Args) != 0 {
		return nil
	}
	for _, st := range lit.Body.List {
		ifs, ok := st.(*ast.IfStmt)
		if !ok {
			continue
		}
		as, ok := ifs.Init.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			continue
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			continue
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); !ok || id.Name != "recover" {
			continue
		} else if _, builtin := fe.p.info.Uses[id].(*types.Builtin); !builtin {
			continue
		}
		rID := as.Lhs[0].(*ast.Ident)
		rVar := fe.p.info.ObjectOf(rID)
		cond, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
		if rVar == nil || !ok || cond.Op != token.NEQ {
			continue
		}
		x, y := cond.X, cond.Y
		if id, ok := ast.Unparen(y).(*ast.Ident); ok && fe.p.info.ObjectOf(id) == rVar {
			x, y = y, x
		}
		if id, ok := ast.Unparen(x).(*ast.Ident); !ok || fe.p.info.ObjectOf(id) != rVar {
			continue
		}
		if tv, ok := fe.p.info.Types[y]; !ok || !tv.IsNil() {
			continue
		}
		fn := funcname.Join(fe.p.opts.ImportPath, fe.name)
		pos := fe.p.fset.Position(ifs.Pos())
		r := &region{stmt: as, errVar: rID.Name, first: len(fe.p.handlers), deferStmt: d, rewritten: true}
		predicate := fe.text(as) + "; " + fe.text(ifs.Cond)
		a := arm{cond: ifs.Cond, fault: "panic"}
		body, vars := ifs.Body, []types.Object{rVar}
		if as := fe.recoverAssertion(ifs.Body, rVar, d.End()); as != nil {
			predicate += "; " + rID.Name + ".(" + fe.text(as.typ) + ")"
			a.why = as.why
			if as.value != "" {
				a.fault = as.value
			}
			if as.body != nil {
				body = as.body
				if as.typed != nil {
					vars = append(vars, as.typed)
				}
			}
		}
		r.arms = []arm{a}
		kind := fe.recoverKind(body, vars...)
		fe.p.handlers = append(fe.p.handlers, handler{
			id:        fn + "#handler:" + path.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column),
			fn:        fn,
			pos:       fe.p.sitePos(pos),
			region:    fe.p.sitePos(fe.p.fset.Position(d.Pos())),
			kind:      kind,
			predicate: predicate,
			why:       a.why,
		})
		return r
	}
	return nil
}

// A recoverAssertion is the assertion of the recovered value's type that
// a recover handler's fault satisfies.
type recoverAssertion struct {
	typ ast.Expr // the asserted type, as written
	// value is the Go expression of the panic value, a zero value of the
	// asserted type; "" when it is the runtime's injected fault (the type
	// is error, or an interface that an error satisfies).
	value string
	why   string         // why no value can be made; then value is ""
	body  *ast.BlockStmt // the block that runs when the assertion holds, nil if not known
	typed types.Object   // the variable that holds the typed value, nil if none
}

// recoverAssertion finds, among the statements of a recover handler's
// block, the assertions of the recovered value r's type: "if v, ok :=
// r.(T); ok {…}", "v, ok := r.(T)", and the cases of "switch r.(type)".
// Real handlers take the values of one type and panic again with the
// others (toml's parse: "if perr, ok := r.(ParseError); ok {…}; panic(r)"),
// so an injected fault that is not of that type would only test the
// re-panic. The first assertion whose type has a value that can be made,
// at pos, is returned; when none has, the first one, with why; nil when
// the block asserts nothing.
func (fe *funcEdits) recoverAssertion(block *ast.BlockStmt, r types.Object, pos token.Pos) *recoverAssertion {
	info := fe.p.info
	onR := func(e ast.Expr) (*ast.TypeAssertExpr, bool) {
		ta, ok := ast.Unparen(e).(*ast.TypeAssertExpr)
		if !ok {
			return nil, false
		}
		id, ok := ast.Unparen(ta.X).(*ast.Ident)
		return ta, ok && info.ObjectOf(id) == r
	}
	var first *recoverAssertion
	try := func(typ ast.Expr, body *ast.BlockStmt, typed types.Object) *recoverAssertion {
		tv, ok := info.Types[typ]
		if !ok || !tv.IsType() {
			return nil
		}
		a := &recoverAssertion{typ: typ, body: body, typed: typed}
		a.value, a.why = fe.panicValue(tv.Type, pos)
		if a.why == "" {
			return a
		}
		if first == nil {
			first = a
		}
		return nil
	}
	commaOk := func(as *ast.AssignStmt, body *ast.BlockStmt) *recoverAssertion {
		if len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return nil
		}
		ta, ok := onR(as.Rhs[0])
		if !ok || ta.Type == nil {
			return nil
		}
		var typed types.Object
		if id, ok := as.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
			typed = info.ObjectOf(id)
		}
		return try(ta.Type, body, typed)
	}
	for _, st := range block.List {
		var found *recoverAssertion
		switch st := st.(type) {
		case *ast.IfStmt:
			if as, ok := st.Init.(*ast.AssignStmt); ok {
				found = commaOk(as, st.Body)
			}
		case *ast.AssignStmt:
			found = commaOk(st, nil)
		case *ast.TypeSwitchStmt:
			var x ast.Expr
			switch as := st.Assign.(type) {
			case *ast.ExprStmt:
				x = as.X
			case *ast.AssignStmt:
				if len(as.Rhs) == 1 {
					x = as.Rhs[0]
				}
			}
			if _, ok := onR(x); !ok {
				break
			}
			for _, c := range st.Body.List {
				cc := c.(*ast.CaseClause)
				if len(cc.List) != 1 {
					continue
				}
				var typed types.Object
				if v := info.Implicits[cc]; v != nil {
					typed = v
				}
				if found = try(cc.List[0], &ast.BlockStmt{List: cc.Body}, typed); found != nil {
					break
				}
			}
		}
		if found != nil {
			return found
		}
	}
	return first
}

// panicValue is the Go expression, at pos, of a value of type t for the
// panic of an armed recover handler whose block asserts t: "" for the
// runtime's injected fault when it is of type t (error, or an interface
// that an error satisfies), or why no value can be made.
func (fe *funcEdits) panicValue(t types.Type, pos token.Pos) (value, why string) {
	if iface, ok := t.Underlying().(*types.Interface); ok {
		if types.Implements(errorType, iface) {
			return "", ""
		}
		return "", "the recovered value is asserted to an interface that an error does not satisfy: no value to construct"
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		// A pointer to a value, not nil: the handler may use what it
		// points to.
		if name, why := fe.outsideTypeName(p.Elem(), pos); why == "" {
			return "new(" + name + ")", ""
		}
	}
	name, why := fe.outsideTypeName(t, pos)
	if why != "" {
		return "", "the type the recovered value is asserted to " + why
	}
	return "*new(" + name + ")", ""
}

// setsErrorResult reports whether body assigns the function's error
// result.
func (fe *funcEdits) setsErrorResult(body *ast.BlockStmt) bool {
	if fe.sig == nil || fe.sig.Results().Len() == 0 {
		return false
	}
	res := fe.sig.Results().At(fe.sig.Results().Len() - 1)
	if !types.Identical(res.Type(), errorType) {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok && fe.p.info.ObjectOf(id) == res {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// switchesOn reports whether a type switch is on the error variable v.
func (fe *funcEdits) switchesOn(ts *ast.TypeSwitchStmt, v types.Object) bool {
	var x ast.Expr
	switch a := ts.Assign.(type) {
	case *ast.ExprStmt:
		x = a.X
	case *ast.AssignStmt:
		if len(a.Rhs) != 1 || len(a.Lhs) != 1 || a.Lhs[0].(*ast.Ident).Name == v.Name() {
			return false // switch err := err.(type): the cases cannot name the error
		}
		x = a.Rhs[0]
	}
	ta, ok := x.(*ast.TypeAssertExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(ta.X).(*ast.Ident)
	return ok && fe.p.info.ObjectOf(id) == v
}

// typeCaseFault is the fault of a type switch's case of type t: a zero
// value of t, when t is a pointer to a struct or a struct, and an error.
func (fe *funcEdits) typeCaseFault(t types.Type, pos token.Pos, h string) (fault, why string) {
	if types.IsInterface(t) {
		return "", "the case's type is an interface: no value to construct"
	}
	if !types.Implements(t, errorType.Underlying().(*types.Interface)) {
		return "", "the case's type is not an error"
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		if _, isStruct := u.Elem().Underlying().(*types.Struct); !isStruct {
			return "", "the case's type is a pointer to a type that is not a struct: no value to construct"
		}
		name, why := fe.outsideTypeName(u.Elem(), pos)
		if why != "" {
			return "", "the case's type " + why
		}
		return rtName + ".HandlerValue(" + h + ", new(" + name + "))", ""
	case *types.Struct:
		name, why := fe.outsideTypeName(t, pos)
		if why != "" {
			return "", "the case's type " + why
		}
		return rtName + ".HandlerValue(" + h + ", *new(" + name + "))", ""
	}
	return "", "the case's type is not a struct or a pointer to one: no value to construct"
}

// predicate recognises an arm's condition on the error variable v and
// returns the fault that makes it hold, made for the handler at index idx
// of the table, or why there is none. ok is false for a condition that is
// not an arm's.
func (fe *funcEdits) predicate(cond ast.Expr, v types.Object, pos token.Pos, idx int) (fault, why string, ok bool) {
	h := fmt.Sprintf("&%s[%d]", handlersName, idx)
	info := fe.p.info
	isVar := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.ObjectOf(id) == v
	}
	isNil := func(e ast.Expr) bool {
		tv, ok := info.Types[e]
		return ok && tv.IsNil()
	}
	switch c := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		x, y := c.X, c.Y
		if isVar(y) {
			x, y = y, x
		}
		if !isVar(x) {
			return "", "", false
		}
		switch {
		case c.Op == token.NEQ && isNil(y):
			return rtName + ".HandlerError(" + h + ")", "", true
		case c.Op == token.EQL && !isNil(y):
			if why := fe.localName(y); why != "" {
				return "", why, true
			}
			return fe.text(y), "", true
		}
	case *ast.CallExpr:
		fn, ok := calleeObject(info, c.Fun).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "errors" || len(c.Args) != 2 || !isVar(c.Args[0]) {
			return "", "", false
		}
		switch fn.Name() {
		case "Is":
			if why := fe.localName(c.Args[1]); why != "" {
				return "", why, true
			}
			return rtName + ".HandlerWrap(" + h + ", " + fe.text(c.Args[1]) + ")", "", true
		case "As":
			tv, ok := info.Types[c.Args[1]]
			if !ok {
				return "", "", false
			}
			ptr, ok := tv.Type.Underlying().(*types.Pointer)
			if !ok {
				return "", "", false
			}
			return fe.constructed(ptr.Elem(), pos, h)
		}
	}
	return "", "", false
}

// joinedPredicate recognises an arm's condition on the error variable v
// as predicate does, and also a predicate joined with other conditions
// by && and ||, at any depth (err != nil && x, x && errors.Is(err, X),
// err != nil || x): part is then the predicate found, whose fault is the
// arm's, and nil when cond is the predicate itself. Of several, the
// first that is injectable, else the first. The other conditions are
// evaluated as written: armed, a conjoined arm runs only where they hold.
func (fe *funcEdits) joinedPredicate(cond ast.Expr, v types.Object, pos token.Pos, idx int) (part ast.Expr, fault, why string, ok bool) {
	if fault, why, ok := fe.predicate(cond, v, pos, idx); ok {
		return nil, fault, why, true
	}
	b, isBin := ast.Unparen(cond).(*ast.BinaryExpr)
	if !isBin || b.Op != token.LAND && b.Op != token.LOR {
		return nil, "", "", false
	}
	for _, x := range []ast.Expr{b.X, b.Y} {
		p, f, w, found := fe.joinedPredicate(x, v, pos, idx)
		if !found {
			continue
		}
		if p == nil {
			p = x
		}
		if !ok || why != "" && w == "" {
			part, fault, why, ok = p, f, w, true
		}
	}
	return part, fault, why, ok
}

// joins returns the operators (&&, ||) that join part into cond, from
// cond down.
func joins(cond, part ast.Expr) []token.Token {
	var ops []token.Token
	for {
		b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
		if !ok || cond == part {
			return ops
		}
		ops = append(ops, b.Op)
		if part.Pos() < b.Y.Pos() {
			cond = b.X
		} else {
			cond = b.Y
		}
	}
}

// errorNotNil reports whether an arm holds only when there is an error:
// err != nil, or err != nil conjoined with other conditions.
func errorNotNil(a arm) bool {
	p := a.cond
	if a.part != nil {
		for _, op := range joins(a.cond, a.part) {
			if op != token.LAND {
				return false
			}
		}
		p = a.part
	}
	c, ok := ast.Unparen(p).(*ast.BinaryExpr)
	return ok && c.Op == token.NEQ
}

// constructed is the fault of an errors.As arm whose target is of type t:
// an injected error wrapping a zero value of t, when t is a pointer to a
// struct or a struct that is an error.
func (fe *funcEdits) constructed(t types.Type, pos token.Pos, h string) (fault, why string, ok bool) {
	var value string
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		if _, isStruct := u.Elem().Underlying().(*types.Struct); !isStruct {
			return "", "the errors.As target is a pointer to a type that is not a struct: no value to construct", true
		}
		name, why := fe.outsideTypeName(u.Elem(), pos)
		if why != "" {
			return "", "the errors.As target's type " + why, true
		}
		value = "new(" + name + ")"
	case *types.Struct:
		name, why := fe.outsideTypeName(t, pos)
		if why != "" {
			return "", "the errors.As target's type " + why, true
		}
		value = "*new(" + name + ")"
	case *types.Interface:
		return "", "the errors.As target is an interface: no value to construct", true
	default:
		return "", "the errors.As target is not a struct or a pointer to one: no value to construct", true
	}
	if !types.Implements(t, errorType.Underlying().(*types.Interface)) {
		return "", "the errors.As target's type is not an error", true
	}
	return rtName + ".HandlerAs(" + h + ", " + value + ")", "", true
}

// handlerKind classifies an arm by where its error goes (see
// errorflow.go): owner is the if statement or case clause whose body is
// the arm's, vs the variables that hold the error at its start (the
// variable checked, a type switch's typed variable, an errors.As
// target). The first that holds, in this order:
//
//   - exit, panic: a statement of the arm ends the program, or panics
//     (the strongest wins: exit);
//   - propagate: the error, or a value made from it, reaches a return of
//     the function, a channel or a place the caller sees;
//     accumulate when the arm goes on after adding it to a collection
//     of errors (errs = append(errs, err), merr = errors.Join(merr, err))
//     and only that collection reaches a return;
//   - translate: the arm returns another error, or assigns another error
//     to a variable that reaches a return;
//   - fallback: the arm returns without an error, or assigns a value
//     that reaches a return or a place the caller sees;
//   - log-and-continue: the arm calls something (a log, with the error
//     or a message) or hands the error to a call, and the error goes no
//     further;
//   - ignore: the arm does none of that (an empty arm, continue).
//
// A value reaches a return when it does on some path: an arm that
// falls back on one path and lets the error reach the return on another
// propagates.
func (fe *funcEdits) handlerKind(owner ast.Node, body []ast.Stmt, vs ...types.Object) string {
	info := fe.p.info
	block := &ast.BlockStmt{List: body}
	if len(body) > 0 {
		block.Lbrace, block.Rbrace = body[0].Pos(), body[len(body)-1].End()
	}
	seed := taint{}
	for _, v := range vs {
		seed[v] = true
	}
	if k := fe.armEnds(block, seed); k != "" {
		return k
	}
	fl := fe.flow()
	entry := fl.entry[owner]
	var flowed reach
	if entry != nil {
		flowed = fl.follow(entry, 0, seed, false, block)
	}
	if flowed.passedOn() {
		if !flowed.inArm && fe.accumulates(block, flowed.held, seed) {
			return kindAccumulate
		}
		return kindPropagate
	}
	// What the arm makes instead: a return, or a value that reaches one.
	kind := ""
	see := func(k string) {
		if kind == "" || k == kindTranslate {
			kind = k
		}
	}
	produces := func(n ast.Node, l ast.Expr) bool {
		v, whole := fl.root(l)
		if v == nil {
			return false
		}
		if fl.outside(v, whole) {
			return true
		}
		at, ok := fl.at[n]
		if !ok {
			return false
		}
		r := fl.follow(at.b, at.i+1, taint{v: true}, true, nil)
		return r.passedOn()
	}
	anotherError := func(l, rhs ast.Expr) bool {
		t := info.TypeOf(l)
		return t != nil && types.Identical(t, errorType) && !isNilExpr(info, rhs)
	}
	ast.Inspect(block, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			switch {
			case len(n.Results) > 0:
				last := n.Results[len(n.Results)-1]
				if tv, ok := info.Types[last]; ok && !tv.IsNil() && (types.Identical(tv.Type, errorType) || types.Implements(tv.Type, errorType.Underlying().(*types.Interface))) {
					see(kindTranslate)
				} else {
					see(kindFallback) // returns without an error
				}
			case fe.sig != nil && fe.sig.Results().Len() > 0:
				see(kindFallback) // the named results, as they are
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if !produces(n, l) {
					continue
				}
				if len(n.Lhs) == len(n.Rhs) && anotherError(l, n.Rhs[i]) {
					see(kindTranslate)
				} else {
					see(kindFallback) // a value, nil for the error, or another call's error (a retry)
				}
			}
		case *ast.IncDecStmt:
			if produces(n, n.X) {
				see(kindFallback)
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if produces(n, name) {
					if len(n.Values) == len(n.Names) && anotherError(name, n.Values[i]) {
						see(kindTranslate)
					} else {
						see(kindFallback)
					}
				}
			}
		}
		return true
	})
	if kind != "" {
		return kind
	}
	// A call of its own (a log, a message), or the error handed to a
	// call: any variable that held the error in the arm.
	held := flowed.held
	if held == nil {
		held = seed
	}
	logged := false
	ast.Inspect(block, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ExprStmt:
			_, logged = ast.Unparen(n.X).(*ast.CallExpr)
		case *ast.CallExpr:
			call := n
			for _, a := range call.Args {
				logged = logged || mentionsAny(info, a, held)
			}
			if se, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && !isPackageName(info, se.X) {
				logged = logged || mentionsAny(info, se.X, held) // err.Error(), a method of a value made from it
			}
		}
		return !logged
	})
	if logged {
		return kindLog
	}
	return kindIgnore
}

// armEnds says whether a statement of the arm (not of a function
// literal in it) ends the program (kindExit) or panics (kindPanic): a
// call that never returns, or one of a function of the package that
// panics or exits when a parameter is not nil, given the error.
func (fe *funcEdits) armEnds(block *ast.BlockStmt, seed taint) string {
	kind := ""
	ast.Inspect(block, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			k := fe.p.endsKind(n)
			if fn, ok := calleeObject(fe.p.info, n.Fun).(*types.Func); ok && k == "" && fn.Pkg() == fe.p.pkg {
				if i, gk := fe.p.guardedEnds(fn); i >= 0 && i < len(n.Args) && mentionsAny(fe.p.info, n.Args[i], seed) {
					k = gk
				}
			}
			if k == kindExit || k == kindPanic && kind == "" {
				kind = k
			}
		}
		return true
	})
	return kind
}

// accumulates reports whether the arm adds the error to a collection of
// errors that held it: an assignment in the arm of a variable other
// than the error's that mentions that variable on both sides
// (errs = append(errs, err), merr = errors.Join(merr, err)), or of one
// of its elements (errs[i] = err). An error kept in a field of a value
// the function returns (r.err = err; return r, nil) is no collection:
// the caller gets it later, and the arm propagates it.
func (fe *funcEdits) accumulates(block *ast.BlockStmt, held, seed taint) bool {
	info := fe.p.info
	fl := fe.flow()
	found := false
	ast.Inspect(block, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return !found
		}
		for i, l := range as.Lhs {
			v, whole := fl.root(l)
			if v == nil || seed[v] || !held[v] {
				continue
			}
			_, element := ast.Unparen(l).(*ast.IndexExpr)
			if element || whole && as.Tok == token.ASSIGN && mentionsAny(info, as.Rhs[i], taint{v: true}) {
				found = true // a field (r.err = err) is no collection: it propagates
			}
		}
		return !found
	})
	return found
}

// asTargets returns the targets of errors.As(v, &t) in cond: each
// holds the error when the arm runs.
func (fe *funcEdits) asTargets(cond ast.Expr, v types.Object) []types.Object {
	var ts []types.Object
	if cond == nil {
		return nil
	}
	ast.Inspect(cond, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		fn, ok := calleeObject(fe.p.info, call.Fun).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "errors" || fn.Name() != "As" || !mentionsAny(fe.p.info, call.Args[0], taint{v: true}) {
			return true
		}
		if u, ok := ast.Unparen(call.Args[1]).(*ast.UnaryExpr); ok && u.Op == token.AND {
			if id := identOf(u.X); id != nil {
				if t := fe.p.info.ObjectOf(id); t != nil {
					ts = append(ts, t)
				}
			}
		}
		return true
	})
	return ts
}

// mentionsAny reports whether e names one of the variables of t.
func mentionsAny(info *types.Info, e ast.Expr, t taint) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && t[info.ObjectOf(id)] {
			found = true
		}
		return !found
	})
	return found
}

// recoverKind classifies a recover handler's body: exit or panic when
// it ends the program or panics again; translate when it sets the
// function's error result (the panic becomes the function's error);
// fallback when it sets another variable or returns (the function
// returns normally); log-and-continue when it hands the recovered value
// to a call; ignore otherwise.
func (fe *funcEdits) recoverKind(body *ast.BlockStmt, vs ...types.Object) string {
	seed := taint{}
	for _, v := range vs {
		seed[v] = true
	}
	if k := fe.armEnds(body, seed); k != "" {
		return k
	}
	if fe.setsErrorResult(body) {
		return kindTranslate
	}
	kind := kindIgnore
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN {
				kind = kindFallback
			}
		case *ast.ReturnStmt, *ast.IncDecStmt:
			kind = kindFallback
		case *ast.CallExpr:
			for _, a := range n.Args {
				if kind == kindIgnore && mentionsAny(fe.p.info, a, seed) {
					kind = kindLog
				}
			}
		}
		return true
	})
	return kind
}

// regionGuard is the expression that asks the runtime, at the start of
// r's statement, for the fault of an armed arm, or else for inject's
// ("nil" when the call is not an injection point).
//
// The faults are made by a function hoisted out of fe's (see hoist),
// given to the runtime, only where an arm needs one of its own: where
// every arm's fault is its handler's error (rt.HandlerError), the
// runtime makes it, and the function is left out. A function costs the
// compiler one more; a function literal would also shift the numbers of
// the function's own literals that follow (Outer.func2 becoming
// Outer.func3 in stack traces).
func (r *region) guard(fe *funcEdits, inject string) string {
	if r.defaultFaults() {
		return fmt.Sprintf("%s.Region(%s[%d:%d], %s, nil)", rtName, handlersName, r.first, r.first+len(r.arms), inject)
	}
	var b strings.Builder
	b.WriteString("(_atx_arm int) error { switch _atx_arm {")
	for i, a := range r.arms {
		if a.fault == "" {
			continue
		}
		fmt.Fprintf(&b, " case %d: return %s;", i, a.fault)
	}
	b.WriteString(" }; return nil }")
	fault := fe.hoist(r.stmt.Pos(), fmt.Sprintf("_atx_fault%d", r.first), b.String())
	return fmt.Sprintf("%s.Region(%s[%d:%d], %s, %s)", rtName, handlersName, r.first, r.first+len(r.arms), inject, fault)
}

// defaultFaults reports whether the fault of every arm of r is its
// handler's error, rt.HandlerError, which the runtime makes itself when
// Region is given no fault function.
func (r *region) defaultFaults() bool {
	for i, a := range r.arms {
		if a.fault != fmt.Sprintf("%s.HandlerError(&%s[%d])", rtName, handlersName, r.first+i) {
			return false
		}
	}
	return true
}

// insertArms wraps each arm's condition in rt.Arm, which logs its usages.
// The condition keeps its position.
func (cr *callRewriter) insertArms(r *region) {
	fe := cr.fe
	if ts := r.typeSwitch; ts != nil {
		// A type switch's cases log white when they run; the pink usages
		// are logged before the switch, when there is no error.
		var pink strings.Builder
		fmt.Fprintf(&pink, "if %s == nil {", r.errVar)
		for i := range r.arms {
			fmt.Fprintf(&pink, " %s.Arm(&%s[%d], nil, false);", rtName, handlersName, r.first+i)
		}
		cr.edits.insert(fe.off(ts.Pos()), pink.String()+" }; "+cr.directive(ts.Pos()))
	}
	// Each type switch of the region (the check, or one nested in an
	// err != nil arm, whose pink usages that arm logs).
	for i, a := range r.arms {
		if a.typed != nil && (i == 0 || r.arms[i-1].typed != a.typed) {
			cr.widenSwitch(r, a.typed)
		}
	}
	if d := r.deferStmt; d != nil {
		h := fmt.Sprintf("&%s[%d]", handlersName, r.first)
		switch a := r.arms[0]; a.fault {
		case "panic", "":
			cr.edits.insert(fe.off(d.End()), fmt.Sprintf("; %s.RecoverRegion(%s)", rtName, h)+cr.directive(d.End()))
		default:
			// The block asserts the recovered value's type: the panic is
			// a value of that type, made by a hoisted function.
			value := fe.hoist(d.Pos(), fmt.Sprintf("_atx_panic%d", r.first), "() any { return "+a.fault+" }")
			cr.edits.insert(fe.off(d.End()), fmt.Sprintf("; %s.RecoverRegionWith(%s, %s)", rtName, h, value)+cr.directive(d.End()))
		}
		cond := r.arms[0].cond
		cr.edits.insert(fe.off(cond.Pos()), fmt.Sprintf("%s.ArmRecover(%s, %s, ", rtName, h, r.errVar)+cr.directive(cond.Pos()))
		cr.edits.insert(fe.off(cond.End()), ")")
		return
	}
	// A switch on the error logs the pink usages of its arms before it,
	// when there is no error; when the error is assigned in its header,
	// after the assignment, which the rewrite moved out of the header
	// (see switchInit): { …; _, err = f() }; if err == nil { … };
	// switch err { … }. A header that stays as it is (a labeled switch,
	// whose arms are then not injectable) has no place for a statement
	// but a function literal, which would rename the user's literals that
	// follow: its pink usages are not logged.
	var pinkAt *ast.SwitchStmt
	var pink strings.Builder
	flush := func() {
		if pinkAt == nil {
			return
		}
		if pinkAt.Init != nil {
			if pinkAt.Init == ast.Stmt(r.stmt) && r.rewritten {
				cr.edits.insert(fe.off(pinkAt.Init.End()), "; "+pink.String()+" }")
			}
			return
		}
		cr.edits.insert(fe.off(pinkAt.Pos()), pink.String()+" }; "+cr.directive(pinkAt.Pos()))
	}
	for i, a := range r.arms {
		if a.tagged != nil && a.tagged != pinkAt {
			flush()
			pinkAt = a.tagged
			pink.Reset()
			fmt.Fprintf(&pink, "if %s == nil {", r.errVar)
		}
		if a.tagged != nil {
			fmt.Fprintf(&pink, " %s.Arm(&%s[%d], nil, false);", rtName, handlersName, r.first+i)
		}
	}
	flush()
	for i, a := range r.arms {
		if a.tag != nil && len(a.clause.List) > 1 {
			// case x, y: the first value says whether the error is any
			// of them, so that the arm logs one usage; the comparisons
			// are made only while the runtime is enabled.
			var held []string
			for _, x := range a.clause.List {
				held = append(held, r.errVar+" == "+fe.text(x))
			}
			cr.edits.insert(fe.off(a.tag.Pos()), fmt.Sprintf("%s.ArmCases(&%s[%d], %s, ", rtName, handlersName, r.first+i, r.errVar)+cr.directive(a.tag.Pos()))
			cr.edits.insert(fe.off(a.tag.End()), fmt.Sprintf(", %s.Enabled() && (%s))", rtName, strings.Join(held, " || "))+cr.directive(a.tag.End()))
		} else if a.tag != nil {
			cr.edits.insert(fe.off(a.tag.Pos()), fmt.Sprintf("%s.ArmCase(&%s[%d], %s, ", rtName, handlersName, r.first+i, r.errVar)+cr.directive(a.tag.Pos()))
			cr.edits.insert(fe.off(a.tag.End()), ")")
		} else if a.clause != nil {
			after := a.clause.Colon + 1
			cr.edits.insert(fe.off(after), fmt.Sprintf(" %s.Arm(&%s[%d], %s, true);", rtName, handlersName, r.first+i, r.errVar)+cr.directive(after))
		} else {
			// The arms nested in an err != nil arm run only when there is
			// an error: their pink usages are logged by it, when there is
			// none (the condition is unchanged: false || cond).
			pink, closing := "", ")"
			if a.nested > 0 {
				var b strings.Builder
				fmt.Fprintf(&b, "%s == nil && (", r.errVar)
				for j := 1; j <= a.nested; j++ {
					if j > 1 {
						b.WriteString(" || ")
					}
					fmt.Fprintf(&b, "%s.Arm(&%s[%d], nil, false)", rtName, handlersName, r.first+i+j)
				}
				b.WriteString(") || (")
				pink, closing = b.String(), "))"
			}
			cr.edits.insert(fe.off(a.cond.Pos()), fmt.Sprintf("%s.Arm(&%s[%d], %s, %s", rtName, handlersName, r.first+i, r.errVar, pink)+cr.directive(a.cond.Pos()))
			cr.edits.insert(fe.off(a.cond.End()), closing)
		}
		if !r.rewritten && a.why == "" {
			fe.p.handlers[r.first+i].why = "its region's statement could not be rewritten (see the build's notes on injection points)"
		}
	}
}

// widenSwitch makes a type switch with a case that can be widened switch
// on rt.WidenSwitch(arms, err, earlier, fault) instead of err: the error
// itself, unless a case is widened (ATOMICX_WIDEN), the error is not nil
// and no case before the widened one takes it: then a value of the
// widened case's type, so that its case runs. earlier tells whether a
// case before an arm's takes the error; both are functions hoisted out
// of fe's (see hoist), so an arm with a case before it whose type is
// declared in the function is not widened.
func (cr *callRewriter) widenSwitch(r *region, ts *ast.TypeSwitchStmt) {
	fe := cr.fe
	// The switch's cases are consecutive arms of the region: first..end.
	first, end := -1, 0
	for i, a := range r.arms {
		if a.typed == ts {
			if first < 0 {
				first = i
			}
			end = i + 1
		}
	}
	var earlier, fault strings.Builder
	earlier.WriteString("(_atx_e error, _atx_arm int) bool { switch _atx_arm {")
	fault.WriteString("(_atx_arm int) error { switch _atx_arm {")
	widened := false
	for i := range end - first {
		a := r.arms[first+i]
		h := &fe.p.handlers[r.first+first+i]
		if h.widened == "" {
			continue
		}
		var before []string
		why := ""
		for _, st := range ts.Body.List {
			cc := st.(*ast.CaseClause)
			if cc == a.clause {
				break
			}
			for _, t := range cc.List {
				tv := fe.p.info.Types[t]
				if tv.IsNil() {
					before = append(before, "nil")
					continue
				}
				name, w := fe.outsideTypeName(tv.Type, t.Pos())
				if w != "" && why == "" {
					why = "the type of a case before it (" + fe.text(t) + ") " + w
				}
				before = append(before, name)
			}
		}
		if why != "" {
			h.widened, h.notWidenable = "", why
			continue
		}
		widened = true
		if len(before) > 0 {
			fmt.Fprintf(&earlier, " case %d: switch _atx_e.(type) { case %s: return true };", i, strings.Join(before, ", "))
		}
		fmt.Fprintf(&fault, " case %d: return %s;", i, a.fault)
	}
	if !widened {
		return
	}
	earlier.WriteString(" }; return false }")
	fault.WriteString(" }; return nil }")
	k := r.first + first
	earlierFunc := fe.hoist(ts.Pos(), fmt.Sprintf("_atx_widenEarlier%d", k), earlier.String())
	faultFunc := fe.hoist(ts.Pos(), fmt.Sprintf("_atx_widenFault%d", k), fault.String())
	var x ast.Expr
	switch as := ts.Assign.(type) {
	case *ast.ExprStmt:
		x = as.X
	case *ast.AssignStmt:
		x = as.Rhs[0]
	}
	ta := x.(*ast.TypeAssertExpr)
	cr.edits.insert(fe.off(ta.X.Pos()), fmt.Sprintf("%s.WidenSwitch(%s[%d:%d], ", rtName, handlersName, r.first+first, r.first+end)+cr.directive(ta.X.Pos()))
	cr.edits.insert(fe.off(ta.X.End()), ", "+earlierFunc+", "+faultFunc+")")
}

// handlerTable declares the handler table, one rt.Handler per arm.
func (p *pkgRewriter) handlerTable() dst.Decl {
	str := func(s string) dst.Expr { return &dst.BasicLit{Kind: token.STRING, Value: strconv.Quote(s)} }
	elts := make([]dst.Expr, len(p.handlers))
	for i, h := range p.handlers {
		var fields []dst.Expr
		field := func(key, value string) {
			fields = append(fields, &dst.KeyValueExpr{Key: dst.NewIdent(key), Value: str(value)})
		}
		field("ID", h.id)
		field("Func", h.fn)
		field("Pos", h.pos)
		field("Region", h.region)
		field("Kind", h.kind)
		field("Predicate", h.predicate)
		for _, f := range [...]struct{ key, value string }{
			{"NotInjectable", h.why}, {"Widened", h.widened}, {"NotWidenable", h.notWidenable},
			{"Route", h.route}, {"RouteResults", h.routeResults}, {"NotRoutable", h.notRoutable},
		} {
			if f.value != "" { // only when set, as most arms have none
				field(f.key, f.value)
			}
		}
		entry := &dst.CompositeLit{Elts: fields}
		entry.Decs.Before, entry.Decs.After = dst.NewLine, dst.NewLine
		elts[i] = entry
	}
	length := &dst.BasicLit{Kind: token.INT, Value: strconv.Itoa(len(p.handlers))}
	table := &dst.CompositeLit{Type: &dst.ArrayType{Len: length, Elt: &dst.Ident{Name: "Handler", Path: p.opts.RuntimePath}}, Elts: elts}
	spec := &dst.ValueSpec{Names: []*dst.Ident{dst.NewIdent(handlersName)}, Values: []dst.Expr{table}}
	return &dst.GenDecl{Tok: token.VAR, Specs: []dst.Spec{spec}}
}
