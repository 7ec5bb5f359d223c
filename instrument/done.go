package instrument

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
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
// (Options.DoneValues) that the package can name: its own variables, and
// the exported variables of the packages it imports, of a type that is
// an error. The others are left out: code that cannot name a value can
// only pass on what a callee returned, and a package that does not
// import the value's package cannot refer to it without a new
// dependency. The names come back as "path.Name", sorted, each once;
// generated code spells them with the package's path (see genFile).
func (p *pkgRewriter) doneValues() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range p.opts.DoneValues {
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
