package coverage

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Region is a stretch of a file, from Start to End (End exclusive), that
// holds error-path statements, and what kind of error path it is.
type Region struct {
	Start, End Position
	Kind       string // one of the Kind constants
}

// The kinds of error paths.
const (
	KindErrorCheck = "error-check" // an if body or case clause taken when an error is not nil
	KindDeferred   = "deferred"    // the body of a deferred function literal
	KindRecover    = "recover"     // the body of an if that handles a recovered panic
)

// contains says whether b lies inside r.
func (r Region) contains(b Block) bool {
	return !b.Start.before(r.Start) && !r.End.before(b.End)
}

// ErrorPaths finds the error paths of a file: the bodies of if statements
// whose condition tests an error-typed value against nil (the body for
// err != nil, the else branch for err == nil) or calls errors.Is or
// errors.As (the body), the case clauses of switch statements that do the
// same, the bodies of deferred function literals, and the bodies of if
// statements that test the value of recover() against nil. info must hold
// the file's Types, Defs and Uses.
func ErrorPaths(fset *token.FileSet, file *ast.File, info *types.Info) []Region {
	var regions []Region
	pos := func(p token.Pos) Position {
		q := fset.Position(p)
		return Position{q.Line, q.Column}
	}
	add := func(from, to token.Pos, kind string) {
		regions = append(regions, Region{pos(from), pos(to), kind})
	}
	// recovered holds the variables assigned the value of recover().
	recovered := map[types.Object]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 && isRecoverCall(n.Rhs[0], info) {
				if id, ok := n.Lhs[0].(*ast.Ident); ok {
					if obj := objectOf(id, info); obj != nil {
						recovered[obj] = true
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == 1 && len(n.Values) == 1 && isRecoverCall(n.Values[0], info) {
				if obj := objectOf(n.Names[0], info); obj != nil {
					recovered[obj] = true
				}
			}
		case *ast.IfStmt:
			if n.Init != nil {
				ast.Inspect(n.Init, func(m ast.Node) bool {
					if as, ok := m.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 && isRecoverCall(as.Rhs[0], info) {
						if id, ok := as.Lhs[0].(*ast.Ident); ok {
							if obj := objectOf(id, info); obj != nil {
								recovered[obj] = true
							}
						}
					}
					return true
				})
			}
			switch c := classify(n.Cond, info, recovered); c {
			case condNotNil, condRecovered:
				kind := KindErrorCheck
				if c == condRecovered {
					kind = KindRecover
				}
				add(n.Body.Lbrace, n.Body.Rbrace+1, kind)
			case condNil:
				if n.Else != nil {
					add(elseStart(n.Else), n.Else.End(), KindErrorCheck)
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if c := classify(e, info, recovered); c == condNotNil || c == condRecovered {
					add(n.Colon+1, n.End(), KindErrorCheck)
					break
				}
			}
		case *ast.DeferStmt:
			if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				add(lit.Body.Lbrace, lit.Body.Rbrace+1, KindDeferred)
			}
		}
		return true
	})
	return regions
}

// elseStart is where the statements of an else branch begin, as the
// coverage blocks count them: the brace of a block, the if of an else if.
func elseStart(s ast.Stmt) token.Pos {
	if b, ok := s.(*ast.BlockStmt); ok {
		return b.Lbrace
	}
	return s.Pos()
}

type condKind int

const (
	condOther     condKind = iota
	condNotNil             // true when an error is not nil
	condNil                // true when an error is nil
	condRecovered          // true when a recovered panic is not nil
)

// classify says what a condition tests: an error against nil (err != nil,
// errors.Is, errors.As, alone or in a && or || with other tests), a
// recovered value against nil, or something else. A negated test counts
// the other way round.
func classify(e ast.Expr, info *types.Info, recovered map[types.Object]bool) condKind {
	switch e := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND, token.LOR:
			if c := classify(e.X, info, recovered); c != condOther {
				return c
			}
			return classify(e.Y, info, recovered)
		case token.NEQ, token.EQL:
			var other ast.Expr
			switch {
			case isNil(e.Y, info):
				other = e.X
			case isNil(e.X, info):
				other = e.Y
			default:
				return condOther
			}
			var c condKind
			switch {
			case isRecovered(other, info, recovered):
				c = condRecovered
			case isError(other, info):
				c = condNotNil
			default:
				return condOther
			}
			if e.Op == token.EQL {
				return negate(c)
			}
			return c
		}
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return negate(classify(e.X, info, recovered))
		}
	case *ast.CallExpr:
		if isErrorsCall(e, info, "Is") || isErrorsCall(e, info, "As") {
			return condNotNil
		}
	}
	return condOther
}

func negate(c condKind) condKind {
	switch c {
	case condNotNil:
		return condNil
	case condNil:
		return condNotNil
	}
	// A recovered value that is nil is no panic: nothing to count.
	return condOther
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// isError says whether e is a value of a type that implements error.
func isError(e ast.Expr, info *types.Info) bool {
	tv, ok := info.Types[e]
	if !ok || tv.Type == nil || tv.IsNil() {
		return false
	}
	return types.Implements(tv.Type, errorType)
}

func isNil(e ast.Expr, info *types.Info) bool {
	tv, ok := info.Types[ast.Unparen(e)]
	return ok && tv.IsNil()
}

// isErrorsCall says whether call calls the function name of package errors.
func isErrorsCall(call *ast.CallExpr, info *types.Info, name string) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "errors"
}

func isRecoverCall(e ast.Expr, info *types.Info) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "recover"
}

func isRecovered(e ast.Expr, info *types.Info, recovered map[types.Object]bool) bool {
	if isRecoverCall(e, info) {
		return true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && recovered[objectOf(id, info)]
}

func objectOf(id *ast.Ident, info *types.Info) types.Object {
	if obj := info.Defs[id]; obj != nil {
		return obj
	}
	return info.Uses[id]
}
