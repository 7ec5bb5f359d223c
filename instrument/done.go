package instrument

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
)

// Errors that mean "done", not "failed" (see rt.Site.Fails): the
// instrumenter tells the runtime which standard errors a function's
// contract gives that meaning, from its name and signature, and which
// values the policy declares (Options.DoneValues).

// doneErrors mirrors rt.DoneErrors.
type doneErrors uint8

const (
	doneEOF doneErrors = 1 << iota
	doneSkip
)

// readerMethods are the methods of the io reader interfaces whose io.EOF
// means the input ended, as io documents them, by name, with their
// parameters and results:
//
//   - io.Reader's Read returns io.EOF at the end of the input, possibly
//     with n > 0 bytes read by the same call;
//   - io.ReaderAt's ReadAt returns io.EOF, or nil, when the bytes read
//     reach the end of the input;
//   - io.ByteReader's ReadByte and io.RuneReader's ReadRune return
//     io.EOF when there is no more input.
//
// Not the others: io.ReaderFrom's ReadFrom reads until io.EOF and
// returns nil then ("any error except EOF encountered during the read is
// also returned"), so io.EOF from it is a failure; io.WriterTo's WriteTo,
// io.Copy and the writers have no end of input to report; io.Seeker's
// Seek has no EOF. bufio's ReadString and ReadBytes return io.EOF too,
// but they are not methods of io's interfaces, and a type that declares
// methods of those names is not held to bufio's contract.
var readerMethods = map[string]struct{ params, results []types.Type }{
	"Read":     {[]types.Type{byteSlice}, []types.Type{types.Typ[types.Int], errorType}},
	"ReadAt":   {[]types.Type{byteSlice, types.Typ[types.Int64]}, []types.Type{types.Typ[types.Int], errorType}},
	"ReadByte": {nil, []types.Type{types.Typ[types.Byte], errorType}},
	"ReadRune": {nil, []types.Type{types.Typ[types.Rune], types.Typ[types.Int], errorType}},
}

var byteSlice = types.NewSlice(types.Typ[types.Byte])

// doneErrors returns the standard errors that mean done for the
// function: io.EOF for a method of the io reader interfaces (see
// readerMethods), fs.SkipDir and fs.SkipAll for a function, declared or
// literal, of the shape of fs.WalkDirFunc or filepath.WalkFunc, whose
// caller skips a directory or the rest of the walk on them.
func (fe *funcEdits) doneErrors() doneErrors {
	if fe.sig == nil || fe.errResult == "" {
		return 0
	}
	var done doneErrors
	if fe.decl != nil && fe.sig.Recv() != nil {
		if m, ok := readerMethods[fe.decl.Name.Name]; ok && !fe.sig.Variadic() &&
			tupleOf(fe.sig.Params(), m.params...) && tupleOf(fe.sig.Results(), m.results...) {
			done |= doneEOF
		}
	}
	if walkFunc(fe.sig) {
		done |= doneSkip
	}
	return done
}

// tupleOf reports whether the tuple's types are ts (byte is uint8).
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
