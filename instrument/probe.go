package instrument

import (
	"fmt"
	"go/ast"
	gotypes "go/types"
	"strings"
)

// probesName is the local variable of a detected function that holds
// the resources it acquired at the acquisitions Options.ProbeAcquires
// names (rt.Probes).
const probesName = "_atx_probes"

// A probedAcquisition is a statement that acquires a resource that the
// runtime probes for openness when the function returns an error:
//
//	f, err := os.Open(name)
//	s.mu.Lock()
type probedAcquisition struct {
	stmt   ast.Stmt
	pos    string // of the call's opening parenthesis, as sites give it
	res    string // an expression that reads the resource again
	errVar *ast.Ident
	// maybeNil says that res may be nil, to be checked before Add: a
	// result or a variable; not the address of a receiver.
	maybeNil bool
	// isClosed is the resource's method, func() bool, that the probe
	// calls (Options.ProbeAcquires); "" for the runtime's own probes.
	// badIsClosed says that the policy named one the resource lacks.
	isClosed    string
	badIsClosed bool
}

// probedAcquisitions returns the statements of the function's own body
// (not of its literals, which are functions of their own) that call at
// a position of Options.ProbeAcquires and keep the resource where the
// statement after can read it again: a variable, or a field of one. The
// resource must be a pointer or an interface, to be told from nil. A
// call whose results hold no resource (mu.Lock(), err := cmd.Start())
// acquires its receiver: the probe gets the receiver's address.
func (fe *funcEdits) probedAcquisitions() []probedAcquisition {
	if len(fe.p.opts.ProbeAcquires) == 0 || fe.errResult == "" {
		return nil
	}
	var out []probedAcquisition
	fe.eachOwnStatement(func(s ast.Stmt) {
		var ac acquireCall
		switch s := s.(type) {
		case *ast.AssignStmt:
			var ok bool
			if ac, ok = fe.acquireCall(s); !ok {
				return
			}
		case *ast.ExprStmt:
			call, ok := ast.Unparen(s.X).(*ast.CallExpr)
			if !ok {
				return
			}
			ac.call = call
		default:
			return
		}
		pos := fe.p.sitePos(fe.p.fset.Position(ac.call.Lparen))
		isClosed, ok := fe.p.opts.ProbeAcquires[pos]
		if !ok {
			return
		}
		a := probedAcquisition{stmt: s, pos: pos, errVar: ac.errVar, maybeNil: true}
		var resType gotypes.Type
		switch {
		case ac.res != nil:
			resType = fe.p.info.TypeOf(ac.res)
			if !readAgain(ac.res) || !pointerShaped(resType) {
				return
			}
			a.res = fe.text(ac.res)
		default:
			var ok bool
			if a.res, resType, a.maybeNil, ok = fe.receiverOf(ac.call); !ok {
				return
			}
		}
		if isClosed != "" {
			a.isClosed = isClosed
			a.badIsClosed = !fe.hasIsClosed(resType, isClosed)
		}
		out = append(out, a)
	})
	return out
}

// hasIsClosed reports whether a resource of type t has the method name,
// of type func() bool, that the package can call. When not, the
// runtime cannot tell, and says so.
func (fe *funcEdits) hasIsClosed(t gotypes.Type, name string) bool {
	obj, _, _ := gotypes.LookupFieldOrMethod(t, true, fe.p.pkg, name)
	m, ok := obj.(*gotypes.Func)
	if !ok {
		return false
	}
	sig := m.Type().(*gotypes.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 &&
		gotypes.Identical(sig.Results().At(0).Type(), gotypes.Typ[gotypes.Bool])
}

// receiverOf returns an expression for the receiver of a method call,
// as the method gets it: x for x.M() when x is a pointer or an
// interface, &x when M has a pointer receiver, &x.Mutex for a method
// promoted from an embedded field. x must be a variable or a chain of
// fields of one, which the statement after can read again. maybeNil
// says whether the expression may be nil; t is its type.
func (fe *funcEdits) receiverOf(call *ast.CallExpr) (expr string, t gotypes.Type, maybeNil, ok bool) {
	info := fe.p.info
	sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !isSel || !isMethod(info, sel) || !fieldChain(info, sel.X) {
		return "", nil, false, false
	}
	t = info.TypeOf(sel.X)
	obj, index, _ := gotypes.LookupFieldOrMethod(t, true, fe.p.pkg, sel.Sel.Name)
	m, isFunc := obj.(*gotypes.Func)
	if !isFunc || len(index) == 0 {
		return "", nil, false, false
	}
	expr = fe.text(sel.X)
	for _, i := range index[:len(index)-1] { // the embedded fields on the way
		st, isStruct := derefType(t).Underlying().(*gotypes.Struct)
		if !isStruct {
			return "", nil, false, false
		}
		expr += "." + st.Field(i).Name()
		t = st.Field(i).Type()
	}
	if pointerShaped(t) {
		return expr, t, true, true
	}
	recv := m.Type().(*gotypes.Signature).Recv()
	if recv == nil {
		return "", nil, false, false
	}
	if _, ptr := recv.Type().Underlying().(*gotypes.Pointer); !ptr {
		return "", nil, false, false // a copy: nothing to probe
	}
	return "&" + expr, gotypes.NewPointer(t), false, true
}

// fieldChain reports whether e is a variable, a package's variable, or
// a chain of fields of one: an expression read again without effects.
// (The rewrite's type information has no Selections: Uses tells fields
// from methods.)
func fieldChain(info *gotypes.Info, e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := info.Uses[e].(*gotypes.Var)
		return ok && e.Name != "_"
	case *ast.SelectorExpr:
		v, ok := info.Uses[e.Sel].(*gotypes.Var)
		if !ok {
			return false
		}
		if !v.IsField() { // pkg.V
			return true
		}
		return fieldChain(info, e.X)
	}
	return false
}

func derefType(t gotypes.Type) gotypes.Type {
	if p, ok := t.Underlying().(*gotypes.Pointer); ok {
		return p.Elem()
	}
	return t
}

// readAgain reports whether e, where a statement put a resource, can be
// read again after it without effects: a variable (not _), or a field
// of one.
func readAgain(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name != "_"
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return ok
	}
	return false
}

// probesDecl declares the call's Probes, with their deferred check: in
// the prologue after the deferred Exit, so that it runs after the
// function's own deferred calls, and before Exit.
func (fe *funcEdits) probesDecl(siteRef string) string {
	return fmt.Sprintf("var %s %s.Probes; defer %s.AtExit(%s, &%s, %s); ", probesName, rtName, probesName, siteRef, doneName, fe.errArg())
}

// insertProbes registers, after each probed acquisition that succeeded,
// its resource with the call's Probes. It comes after the rewrite of the
// calls, whose edits of the statement it follows.
func (fe *funcEdits) insertProbes(edits *editList, acqs []probedAcquisition) {
	for _, a := range acqs {
		end := fe.off(a.stmt.End())
		var conds []string
		if a.errVar != nil {
			conds = append(conds, a.errVar.Name+" == nil")
		}
		if a.maybeNil {
			conds = append(conds, a.res+" != nil")
		}
		add := fmt.Sprintf("%s.Add(%q, %s)", probesName, a.pos, a.res)
		switch {
		case a.badIsClosed: // the runtime says so
			add = fmt.Sprintf("%s.AddClosed(%q, %s, nil)", probesName, a.pos, a.res)
		case a.isClosed != "":
			add = fmt.Sprintf("%s.AddClosed(%q, %s, (%s).%s)", probesName, a.pos, a.res, a.res, a.isClosed)
		}
		if len(conds) > 0 {
			add = fmt.Sprintf("if %s { %s }", strings.Join(conds, " && "), add)
		}
		edits.insert(end, "; "+add+lineDirective(fe.p.fset, fe.tf, end))
	}
}
