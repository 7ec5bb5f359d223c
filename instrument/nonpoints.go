package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Places where no failure is possible, and which are therefore not
// injection points: an error injected there is one the program can never
// meet, and an experiment armed there can only report what cannot happen.
//
//   - A call whose error the callee's documentation says is always nil:
//     writes into a bytes.Buffer, a strings.Builder or a hash (contract
//     below), fmt.Fprint* and io.WriteString into those, and the readers
//     of random bytes that never fail.
//   - The entry, and a call, of an error constructor: a function whose
//     error result is the value it builds (errors.New, fmt.Errorf,
//     errors.Join, and the package's own, see errorConstructors). Making
//     it "fail" hands its caller an error where the caller already gets
//     one.
//
// The policy may name more of both (never_fail, error_constructors).

// Why a call of an error-returning function is not an injection point
// although the rewrite could make it one (see the omit* reasons of
// calls.go).
const (
	omitContract    = "that cannot fail by their callee's documented contract"
	omitConstructor = "of error constructors"
)

// neverFailing are the functions and methods of the standard library
// whose error result is nil by their documentation, whoever calls them,
// by types.Func.FullName, with what the documentation says.
var neverFailing = map[string]string{
	"(*bytes.Buffer).Write":            "err is always nil",
	"(*bytes.Buffer).WriteString":      "err is always nil",
	"(*bytes.Buffer).WriteByte":        "the returned error is always nil",
	"(*bytes.Buffer).WriteRune":        "an error, which is always nil",
	"(*strings.Builder).Write":         "always returns len(p), nil",
	"(*strings.Builder).WriteString":   "returns the length of s and a nil error",
	"(*strings.Builder).WriteByte":     "the returned error is always nil",
	"(*strings.Builder).WriteRune":     "returns the length of r and a nil error",
	"(*hash/maphash.Hash).Write":       "always writes all of b and never fails",
	"(*hash/maphash.Hash).WriteString": "always writes all of s and never fails",
	"(*hash/maphash.Hash).WriteByte":   "never fails",
	// It implements hash.Hash, whose Write "never returns an error".
	"(*crypto/sha3.SHA3).Write":    "hash.Hash: never returns an error",
	"math/rand.Read":               "always returns len(p) and a nil error",
	"(*math/rand.Rand).Read":       "always returns len(p) and a nil error",
	"(*math/rand/v2.ChaCha8).Read": "always returns len(p) and a nil error",
}

// neverFailingSince are those whose contract holds from a Go release on:
// the package's language version must be at least that (a module that
// says go 1.24 is built by a toolchain of 1.24 or later).
var neverFailingSince = map[string]struct{ since, doc string }{
	"crypto/rand.Read": {"go1.24", "never returns an error, and always fills b entirely"},
}

// writingThrough are the functions whose error is only that of the
// io.Writer they are given as their first argument: "any write error
// encountered" (fmt), w.Write or w.WriteString called directly (io).
var writingThrough = map[string]bool{
	"fmt.Fprint":     true,
	"fmt.Fprintf":    true,
	"fmt.Fprintln":   true,
	"io.WriteString": true,
}

// cannotFail reports whether the call's error is nil by the callee's
// contract, or by the policy's never_fail list.
func (fe *funcEdits) cannotFail(call *ast.CallExpr, fn *types.Func) bool {
	p := fe.p
	if fn == nil {
		return false
	}
	name := fn.FullName()
	if _, ok := neverFailing[name]; ok {
		return true
	}
	if c, ok := neverFailingSince[name]; ok && p.langAtLeast(c.since) {
		return true
	}
	if p.opts.NeverFails != nil && p.opts.NeverFails(name) {
		return true
	}
	if writingThrough[name] && len(call.Args) > 0 {
		return p.neverFailingWriter(call.Args[0])
	}
	sig := fn.Type().(*types.Signature)
	if recv := sig.Recv(); recv != nil && fn.Name() == "Write" {
		if _, iface := recv.Type().Underlying().(*types.Interface); iface {
			// An interface method, io.Writer's Write as hash.Hash
			// embeds it: what the value is decides.
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				return p.neverFailingWriter(sel.X)
			}
		}
	}
	return false
}

// neverFailingWriter reports whether writing into e never fails: its
// static type is one whose Write is in neverFailing (or the policy's
// never_fail list), a hash (an interface with hash.Hash's methods, whose
// Write "never returns an error"), or e is io.Discard, "on which all
// Write calls succeed".
func (p *pkgRewriter) neverFailingWriter(e ast.Expr) bool {
	e = ast.Unparen(e)
	if id := identOf(selectedName(e)); id != nil {
		if v, ok := p.info.Uses[id].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "io" && v.Name() == "Discard" && v.Parent() == v.Pkg().Scope() {
			return true
		}
	}
	tv, ok := p.info.Types[e]
	if !ok || tv.Type == nil {
		return false
	}
	t := types.Unalias(tv.Type)
	if isHash(t) {
		return true
	}
	ms := types.NewMethodSet(t)
	sel := ms.Lookup(nil, "Write")
	if sel == nil {
		// The exported Write is found whatever the package.
		for i := range ms.Len() {
			if ms.At(i).Obj().Name() == "Write" {
				sel = ms.At(i)
			}
		}
	}
	if sel == nil {
		return false
	}
	fn, ok := sel.Obj().(*types.Func)
	if !ok {
		return false
	}
	name := fn.FullName()
	_, ok = neverFailing[name]
	return ok || p.opts.NeverFails != nil && p.opts.NeverFails(name)
}

// selectedName returns the identifier a selector expression selects
// (io.Discard: Discard), or e.
func selectedName(e ast.Expr) ast.Expr {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		return sel.Sel
	}
	return e
}

// isHash reports whether t is an interface with the methods of hash.Hash
// (hash.Hash, Hash32, Hash64, or the user's own): whatever implements it
// makes a promise that its Write never returns an error.
func isHash(t types.Type) bool {
	iface, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	want := map[string]bool{"Write": true, "Sum": true, "Reset": true, "Size": true, "BlockSize": true}
	for i := range iface.NumMethods() {
		delete(want, iface.Method(i).Name())
	}
	return len(want) == 0
}

// stdConstructors are the error constructors of the standard library.
// errors.Join returns nil when it is given no error: a nil that means
// "nothing to wrap", not success after a failure.
var stdConstructors = map[string]bool{
	"errors.New":  true,
	"errors.Join": true,
	"fmt.Errorf":  true,
}

// constructsErrors reports functions whose error result is what they
// make, not a failure: the standard library's, the package's own (see
// errorConstructors) and those the policy names.
func (p *pkgRewriter) constructsErrors(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	name := fn.FullName()
	if stdConstructors[name] || p.constructors[fn] {
		return true
	}
	return p.opts.ErrorConstructors != nil && p.opts.ErrorConstructors(name)
}

// errorConstructors finds the package's error constructors: functions
// and methods whose one result is an error that, on every return, they
// build — a composite literal (&MyErr{…}), a call of an error
// constructor (of the standard library, of the policy, or of the package
// itself: the set is grown to a fixed point), a conversion to an error
// type, or, on some returns but not all, an error parameter returned as
// it came (a wrapper that has nothing to add) — and that change nothing
// meanwhile (see changesNothing). A return of nil counts only where the function is a
// wrapper with nothing to wrap: "if err == nil { return nil }" on an
// error parameter, or "if len(errs) == 0 { return nil }" on a slice of
// errors; any other nil would be a success, and the error a failure.
//
// Skipping such a function hides nothing: its entry and its calls are
// not injection points, and detection leaves it as written.
func (p *pkgRewriter) errorConstructors() map[*types.Func]bool {
	p.constructors = map[*types.Func]bool{}
	var candidates []*types.Func
	for fn, fd := range p.decls {
		if fd.Body != nil && constructorShape(fn) {
			candidates = append(candidates, fn)
		}
	}
	// A candidate that calls another of the package is one once that
	// one is: the set only grows.
	for grown := true; grown; {
		grown = false
		for _, fn := range candidates {
			fd := p.decls[fn]
			if !p.constructors[fn] && p.changesNothing(fd) && p.buildsEveryError(fd) {
				p.constructors[fn] = true
				grown = true
			}
		}
	}
	return p.constructors
}

// constructorShape reports whether fn's only result is an error, and
// it has no type parameters (whose instances the package does not see).
func constructorShape(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 || sig.Results().Len() != 1 {
		return false
	}
	return types.Identical(sig.Results().At(0).Type(), errorType)
}

// buildsEveryError reports whether every return statement of fd returns
// a value it builds, or nil where it has nothing to wrap.
func (p *pkgRewriter) buildsEveryError(fd *ast.FuncDecl) bool {
	if len(fd.Body.List) == 0 {
		return false
	}
	if _, ok := fd.Body.List[len(fd.Body.List)-1].(*ast.ReturnStmt); !ok {
		return false // it may end otherwise (a panic, a loop): be sure
	}
	builds, made := true, false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if !builds {
			return false
		}
		switch n := n.(type) {
		case *ast.ReturnStmt:
			if len(n.Results) != 1 {
				builds = false // a bare return of a named result
				break
			}
			if isNil(p.info, ast.Unparen(n.Results[0])) {
				builds = p.nothingToWrap(fd, n)
				break
			}
			if id, ok := ast.Unparen(n.Results[0]).(*ast.Ident); ok {
				builds = p.errorParam(fd, id, false)
				break
			}
			builds = p.built(n.Results[0])
			made = true
		}
		return true
	})
	// A function that only hands its parameter back builds nothing: its
	// callers may pass it a nil error, which it turns into a success.
	return builds && made
}

// nothingToWrap reports whether ret, a "return nil", is the whole body of
// an if statement of fd's top level whose condition says there is no
// error to wrap: an error parameter is nil, or a slice of errors
// parameter is empty.
func (p *pkgRewriter) nothingToWrap(fd *ast.FuncDecl, ret *ast.ReturnStmt) bool {
	for _, s := range fd.Body.List {
		is, ok := s.(*ast.IfStmt)
		if !ok || is.Init != nil || len(is.Body.List) != 1 || is.Body.List[0] != ret {
			continue
		}
		cond, ok := ast.Unparen(is.Cond).(*ast.BinaryExpr)
		if !ok || cond.Op != token.EQL {
			return false
		}
		switch x := ast.Unparen(cond.X).(type) {
		case *ast.Ident:
			return isNil(p.info, ast.Unparen(cond.Y)) && p.errorParam(fd, x, false)
		case *ast.CallExpr:
			id, ok := ast.Unparen(x.Fun).(*ast.Ident)
			if !ok || id.Name != "len" || len(x.Args) != 1 {
				return false
			}
			if _, builtin := p.info.Uses[id].(*types.Builtin); !builtin {
				return false
			}
			tv, ok := p.info.Types[cond.Y]
			arg, isID := ast.Unparen(x.Args[0]).(*ast.Ident)
			return ok && tv.Value != nil && tv.Value.String() == "0" && isID && p.errorParam(fd, arg, true)
		}
	}
	return false
}

// errorParam reports whether id names a parameter of fd of type error,
// or of type []error when slice is set.
func (p *pkgRewriter) errorParam(fd *ast.FuncDecl, id *ast.Ident, slice bool) bool {
	v, ok := p.info.Uses[id].(*types.Var)
	if !ok {
		return false
	}
	for _, field := range fd.Type.Params.List {
		for _, name := range field.Names {
			if p.info.Defs[name] != v {
				continue
			}
			t := v.Type()
			if slice {
				s, ok := t.Underlying().(*types.Slice)
				if !ok {
					return false
				}
				t = s.Elem()
			}
			return types.Identical(t, errorType)
		}
	}
	return false
}

// built reports whether e is an error that the function returning it
// builds: a composite literal or its address, a conversion, or a call of
// an error constructor.
func (p *pkgRewriter) built(e ast.Expr) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	switch e := e.(type) {
	case *ast.CompositeLit:
		return true
	case *ast.CallExpr:
		if tv, ok := p.info.Types[e.Fun]; ok && tv.IsType() {
			return true // a conversion
		}
		fn, ok := calleeObject(p.info, e.Fun).(*types.Func)
		return ok && p.constructsErrors(fn)
	}
	return false
}

// changesNothing reports whether fd assigns nothing but its own
// variables, sends, receives, starts and defers nothing, declares no
// function literal, and calls nothing but builtins that do not write
// (append only to grow a local), conversions, and functions that make
// values without an effect: error constructors (of the package: those
// found so far), the formatting
// and conversion functions of fmt, strings, strconv and errors, and
// Error and String methods.
func (p *pkgRewriter) changesNothing(fd *ast.FuncDecl) bool {
	own := func(e ast.Expr) bool { return p.declaredIn(e, fd.Pos(), fd.End()) }
	unchanging := true
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if !unchanging {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt, *ast.SendStmt:
			unchanging = false
		case *ast.UnaryExpr:
			unchanging = n.Op != token.ARROW
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				unchanging = unchanging && own(lhs)
			}
		case *ast.IncDecStmt:
			unchanging = own(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				unchanging = (n.Key == nil || own(n.Key)) && (n.Value == nil || own(n.Value))
			}
			if tv, ok := p.info.Types[n.X]; !ok || mayBeChan(tv.Type) {
				unchanging = false
			}
		case *ast.CallExpr:
			unchanging = p.makesValue(n, own)
		}
		return unchanging
	})
	return unchanging
}

// makesValue reports whether call, in a candidate error constructor, only
// computes a value (see changesNothing); own says which variables are
// the function's.
func (p *pkgRewriter) makesValue(call *ast.CallExpr, own func(ast.Expr) bool) bool {
	if tv, ok := p.info.Types[call.Fun]; ok && tv.IsType() {
		return true // a conversion
	}
	switch obj := calleeObject(p.info, call.Fun).(type) {
	case *types.Builtin:
		switch obj.Name() {
		case "len", "cap", "min", "max", "new", "make", "complex", "real", "imag":
			return true
		case "append":
			return len(call.Args) > 0 && own(call.Args[0])
		}
		return false
	case *types.Func:
		if obj.Pkg() == nil {
			return obj.Name() == "Error" // error's own method
		}
		sig := obj.Type().(*types.Signature)
		if sig.Recv() != nil {
			return (obj.Name() == "Error" || obj.Name() == "String") && sig.Params().Len() == 0
		}
		if obj.Pkg() == p.pkg {
			return p.constructsErrors(obj)
		}
		switch obj.Pkg().Path() {
		case "strings", "strconv", "errors", "unicode", "unicode/utf8":
			return true
		case "fmt":
			return strings.HasPrefix(obj.Name(), "Sprint") || obj.Name() == "Errorf"
		}
		return p.constructsErrors(obj)
	}
	return false
}

// errorConstructor reports whether a detect build leaves the function as
// written because it is an error constructor: its entry is no injection
// point, and, changing nothing, it has no verdict to give but atomic.
// With panics injected too, a panic at its entry would be one at its
// caller's call, where the caller's own statements are the points.
func (fe *funcEdits) errorConstructor() bool {
	if fe.p.opts.Mask || fe.decl == nil {
		return false
	}
	fn, ok := fe.p.info.Defs[fe.decl.Name].(*types.Func)
	return ok && fe.p.constructsErrors(fn)
}

// declaredNeverFailing reports whether the policy says the function
// never fails: its error result is data, as an accessor's is, and its
// entry injects no error.
func (fe *funcEdits) declaredNeverFailing() bool {
	if fe.p.opts.NeverFails == nil || fe.decl == nil {
		return false
	}
	fn, ok := fe.p.info.Defs[fe.decl.Name].(*types.Func)
	return ok && fe.p.opts.NeverFails(fn.FullName())
}
