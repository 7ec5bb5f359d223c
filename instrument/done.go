package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
)

// Errors that mean "done", not "failed" (see rt.Site.Fails): io.EOF from
// any function, as io documents it, which the runtime knows without
// help; fs.SkipDir and fs.SkipAll from the functions whose signature
// says they are walk callbacks, which the instrumenter tells it; and the
// values the policy declares (Options.DoneValues).

// doneErrors mirrors rt.DoneErrors.
type doneErrors uint8

const doneSkip doneErrors = 1

// doneErrors returns the standard errors beyond io.EOF that mean done for
// the function: fs.SkipDir and fs.SkipAll for a function, declared or
// literal, of the shape of fs.WalkDirFunc or filepath.WalkFunc, whose
// caller skips a directory or the rest of the walk on them.
func (fe *funcEdits) doneErrors() doneErrors {
	if fe.sig != nil && fe.errResult != "" && walkFunc(fe.sig) {
		return doneSkip
	}
	return 0
}

// tupleOf reports whether the tuple's types are ts.
func tupleOf(t *types.Tuple, ts ...types.Type) bool {
	if t.Len() != len(ts) {
		return false
	}
	for i, want := range ts {
		if !types.Identical(t.At(i).Type(), want) {
			return false
		}
	}
	return true
}

// walkFunc reports whether sig is that of fs.WalkDirFunc,
// func(path string, d fs.DirEntry, err error) error, or of
// filepath.WalkFunc, func(path string, info fs.FileInfo, err error)
// error (os.FileInfo is fs.FileInfo).
func walkFunc(sig *types.Signature) bool {
	params := sig.Params()
	if sig.Variadic() || params.Len() != 3 || !tupleOf(sig.Results(), errorType) {
		return false
	}
	named, ok := types.Unalias(params.At(1).Type()).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "io/fs" {
		return false
	}
	entry := named.Obj().Name()
	return (entry == "DirEntry" || entry == "FileInfo") &&
		types.Identical(params.At(0).Type(), types.Typ[types.String]) && types.Identical(params.At(2).Type(), errorType)
}

// doneValues returns the expressions of the policy's done values
// (Options.DoneValues) and of the errors the package retries on
// (p.retried) that the package can name: its own variables, and
// the exported variables of the packages it imports, of a type that is
// an error. The others are left out: code that cannot name a value can
// only pass on what a callee returned, and a package that does not
// import the value's package cannot refer to it without a new
// dependency. The names come back as "path.Name", sorted, each once;
// generated code spells them with the package's path (see genFile).
func (p *pkgRewriter) doneValues() []string {
	var out []string
	seen := map[string]bool{}
	declared := append(slices.Clip(p.opts.DoneValues), p.retried...)
	for _, v := range declared {
		dot := strings.LastIndex(v, ".")
		if dot <= 0 || seen[v] {
			continue
		}
		path, name := v[:dot], v[dot+1:]
		var scope *types.Scope
		switch {
		case path == p.pkg.Path():
			scope = p.pkg.Scope()
		case token.IsExported(name):
			for _, imp := range p.pkg.Imports() {
				if imp.Path() == path {
					scope = imp.Scope()
				}
			}
		}
		if scope == nil {
			continue
		}
		obj, ok := scope.Lookup(name).(*types.Var)
		if !ok || !types.AssignableTo(obj.Type(), errorType) {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// writeDoneValues gives every site the policy's done values that the
// package can name, from an init function, as writeGlobals does the
// variables: an initializer of the values may call an instrumented
// function, and the site table cannot refer to them. During the
// package's variable initialization, before it runs, calls that return
// one of them count as failures.
// The values are written _atx_P<n>.Name, n indexing the paths it
// returns (see genFile.parseDecls).
func (p *pkgRewriter) writeDoneValues(b *strings.Builder) (paths []string) {
	values := p.doneValues()
	if len(values) == 0 {
		return nil
	}
	exprs := make([]string, len(values))
	for i, v := range values {
		dot := strings.LastIndex(v, ".")
		n := slices.Index(paths, v[:dot])
		if n < 0 {
			n = len(paths)
			paths = append(paths, v[:dot])
		}
		exprs[i] = fmt.Sprintf("_atx_P%d.%s", n, v[dot+1:])
	}
	fmt.Fprintf(b, "\nfunc init() {\n\td := []error{%s}\n", strings.Join(exprs, ", "))
	fmt.Fprintf(b, "\tfor i := range %s {\n\t\t%s[i].DoneValues = d\n\t}\n}\n", sitesName, sitesName)
	return paths
}

// retriedErrors returns the errors that the package's code retries on: a loop that calls one of the package's
// functions and goes round again when the call returns the error,
//
//	for {
//		r.sr, err = r.newStreamReader(r.xz)
//		if err != errPadding {
//			break
//		}
//	}
//
// (or `if err == X { continue }`, or errors.Is). The call has made
// progress when it returns X (it consumed padding); a rollback would
// hand the retry the same state, and the loop would never end. Such an
// error is taken as done, as if the policy's success_errors listed it,
// in detection builds too (an experiment masked with ATOMICX_MASK would
// hang the same way, and the return is no failure), and a masking
// build's warning on the function says so. The names are "path.Name", as
// Options.DoneValues has them. Package calls it once, before the
// functions are rewritten, and keeps them in p.retried.
func (p *pkgRewriter) retriedErrors() []string {
	var values []string
	var notes []Note
	seen := map[string]bool{}
	var decls []*ast.FuncDecl
	for _, fd := range p.decls {
		if fd.Body != nil {
			decls = append(decls, fd)
		}
	}
	sort.Slice(decls, func(i, j int) bool { return decls[i].Pos() < decls[j].Pos() })
	for _, fd := range decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			loop, ok := n.(*ast.ForStmt)
			if !ok {
				return true
			}
			list := loop.Body.List
			for i := 0; i+1 < len(list); i++ {
				callee, errVar := p.callAssigningErr(list[i])
				if callee == nil {
					continue
				}
				x := p.retryOn(list[i+1], errVar)
				if x == nil {
					continue
				}
				name := x.Pkg().Path() + "." + x.Name()
				if !seen[name] {
					seen[name] = true
					values = append(values, name)
				}
				calleeName := funcname.Relative(callee)
				notes = append(notes, Note{Name: calleeName, Pos: p.fset.Position(list[i].Pos()),
					Message: fmt.Sprintf("%s calls %s again, in a loop, when it returns %s: %s is taken as done, not as a failure, since a rollback would hand the retry the same state and the loop would not end (list it in success_errors to say so)",
						p.funcName(fd), calleeName, x.Name(), x.Name())})
			}
			return true
		})
	}
	p.notes = append(p.notes, notes...)
	return values
}

// callAssigningErr returns the function of the package that statement s
// calls, assigning its last result, an error, to a variable: the
// function and the variable. nil when s is no such statement.
func (p *pkgRewriter) callAssigningErr(s ast.Stmt) (*types.Func, *types.Var) {
	as, ok := s.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
		return nil, nil
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil, nil
	}
	fn, _ := calleeObject(p.info, call.Fun).(*types.Func)
	if fn == nil || p.decls[fn.Origin()] == nil {
		return nil, nil
	}
	id, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident)
	if !ok {
		return nil, nil
	}
	v, _ := p.info.ObjectOf(id).(*types.Var)
	if v == nil || !types.Identical(v.Type(), errorType) {
		return nil, nil
	}
	return fn.Origin(), v
}

// retryOn returns the package-level error variable X that statement s
// goes round the loop again on: `if err != X { break }` (or return),
// `if err == X { continue }`, or the same with errors.Is. nil otherwise.
func (p *pkgRewriter) retryOn(s ast.Stmt, errVar *types.Var) *types.Var {
	ifs, ok := s.(*ast.IfStmt)
	if !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 {
		return nil
	}
	// tok is how the if's body leaves the iteration: break, continue,
	// or a return (token.RETURN), which ends the loop as break does.
	var tok token.Token
	switch last := ifs.Body.List[0].(type) {
	case *ast.BranchStmt:
		if last.Label != nil {
			return nil
		}
		tok = last.Tok
	case *ast.ReturnStmt:
		tok = token.RETURN
	default:
		return nil
	}
	// equal: the condition holds when err is X.
	var equal bool
	var x ast.Expr
	cond := ast.Unparen(ifs.Cond)
	if not, ok := cond.(*ast.UnaryExpr); ok && not.Op == token.NOT {
		if x = p.errorsIs(not.X, errVar); x == nil {
			return nil
		}
		equal = false
	} else if x = p.errorsIs(cond, errVar); x != nil {
		equal = true
	} else if bin, ok := cond.(*ast.BinaryExpr); ok && (bin.Op == token.EQL || bin.Op == token.NEQ) {
		if !p.isVar(bin.X, errVar) {
			return nil
		}
		x, equal = bin.Y, bin.Op == token.EQL
	} else {
		return nil
	}
	if equal && tok != token.CONTINUE || !equal && tok != token.BREAK && tok != token.RETURN {
		return nil
	}
	v, _ := p.info.Uses[funcIdent(x)].(*types.Var)
	if v == nil || v.Parent() != v.Pkg().Scope() || !types.AssignableTo(v.Type(), errorType) {
		return nil
	}
	return v
}

// errorsIs returns X of errors.Is(err, X), where err is errVar; nil for
// any other expression.
func (p *pkgRewriter) errorsIs(e ast.Expr, errVar *types.Var) ast.Expr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return nil
	}
	fn, _ := calleeObject(p.info, call.Fun).(*types.Func)
	if fn == nil || fn.FullName() != "errors.Is" || !p.isVar(call.Args[0], errVar) {
		return nil
	}
	return call.Args[1]
}

func (p *pkgRewriter) isVar(e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && p.info.Uses[id] == v
}
