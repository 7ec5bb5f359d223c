package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// Hoisted functions. The compiler names a function literal by its place
// among the literals of the function it is written in (F.func1, F.func2,
// nested F.func1.1), so a literal that the rewrite put in a user's
// function before one of the user's would give that one another name: in
// stack traces, in runtime.FuncForPC and runtime.Caller, in panics and
// profiles, and against the site table, whose names are the original's.
// The rewrite therefore adds no function literal to the user's functions.
// What a literal would do is declared instead as a function of its own,
// appended to the file (whose imports it may use), and named by the
// rewrite where the literal would have been: a function value that
// captures nothing, which costs no allocation. Such a function cannot
// name what is declared in the function it serves (a local type, a type
// parameter, a variable): a fault that would need one is not injectable,
// with that reason.

// hoist appends to the file being rewritten the declaration of the
// function name, "func name" followed by rest, with the position pos.
func (fe *funcEdits) hoist(pos token.Pos, name, rest string) string {
	fe.p.tail = append(fe.p.tail, "\n"+lineDirective(fe.p.fset, fe.tf, fe.off(pos))+"func "+name+rest+"\n")
	return name
}

// outsideTypeName is the name of t in a function hoisted out of the
// function being rewritten, where pos is. why says why there is none:
// t is declared in the function, or cannot be named in the file.
func (fe *funcEdits) outsideTypeName(t types.Type, pos token.Pos) (name, why string) {
	if name, ok := fe.typeName(t, fe.p.top); ok {
		return name, ""
	}
	if _, ok := fe.typeName(t, pos); ok {
		return "", "is declared in the function, and its value is made outside it"
	}
	return "", "cannot be named here"
}

// localName says why the expression cannot be evaluated in a function
// hoisted out of the function being rewritten: it names a variable, a
// type or a constant declared in that function. "" when it can.
func (fe *funcEdits) localName(e ast.Expr) string {
	why := ""
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || why != "" {
			return why == ""
		}
		obj := fe.p.info.Uses[id]
		if obj == nil || obj.Pkg() == nil || obj.Parent() == nil || obj.Parent() == obj.Pkg().Scope() {
			return true // predeclared, a field or a method, or the package's
		}
		if _, ok := obj.(*types.PkgName); ok {
			return true
		}
		if _, ok := obj.(*types.Var); ok {
			why = "the predicate compares with a local variable (" + id.Name + ")"
		} else {
			why = fmt.Sprintf("the predicate names %s, declared in the function", id.Name)
		}
		return true
	})
	return why
}
