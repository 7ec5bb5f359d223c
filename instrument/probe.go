package instrument

import (
	"fmt"
	"go/ast"
)

// probesName is the local variable of a detected function that holds
// the resources it acquired at the acquisitions Options.ProbeAcquires
// names (rt.Probes).
const probesName = "_atx_probes"

// A probedAcquisition is a statement that acquires a resource that the
// runtime probes for openness when the function returns an error:
//
//	f, err := os.Open(name)
type probedAcquisition struct {
	stmt   *ast.AssignStmt
	pos    string // of the call's opening parenthesis, as sites give it
	res    ast.Expr
	errVar *ast.Ident
}

// probedAcquisitions returns the statements of the function's own body
// (not of its literals, which are functions of their own) that call at
// a position of Options.ProbeAcquires and keep the resource where the
// statement after can read it again: a variable, or a field of one. The
// resource must be a pointer or an interface, to be told from nil.
func (fe *funcEdits) probedAcquisitions() []probedAcquisition {
	if len(fe.p.opts.ProbeAcquires) == 0 || fe.errResult == "" {
		return nil
	}
	var out []probedAcquisition
	fe.eachOwnAssignment(func(as *ast.AssignStmt) {
		ac, ok := fe.acquireCall(as)
		if !ok {
			return
		}
		pos := fe.p.sitePos(fe.p.fset.Position(ac.call.Lparen))
		if fe.p.opts.ProbeAcquires[pos] && readAgain(ac.res) && pointerShaped(fe.p.info.TypeOf(ac.res)) {
			out = append(out, probedAcquisition{stmt: as, pos: pos, res: ac.res, errVar: ac.errVar})
		}
	})
	return out
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
		res := fe.text(a.res)
		cond := res + " != nil"
		if a.errVar != nil {
			cond = a.errVar.Name + " == nil && " + cond
		}
		edits.insert(end, fmt.Sprintf("; if %s { %s.Add(%q, %s) }%s", cond, probesName, a.pos, res, lineDirective(fe.p.fset, fe.tf, end)))
	}
}
