// Package funcname names functions exactly as the Go runtime does
// (runtime.Func.Name, runtime.Frame.Function), so that the names atomicx
// writes into site tables, compares with stack frames, matches against
// policy patterns and keys reports by are one and the same string.
//
// A runtime name is the package's symbol prefix, a dot, and the name
// relative to the package:
//
//	example.com/m.Transfer
//	example.com/m.(*Vector).Alloc
//	example.com/m.(*Stack[...]).Push
//	gopkg.in/yaml%2ev3.(*Decoder).Decode
//
// The symbol prefix is the import path with some bytes escaped as %xx,
// the dots of its last element among them (see Prefix). A method declared
// on an alias is named after the type the alias denotes.
//
// Function literals are named by Literals, after the function they are
// in and a counter: F.func1, F.func1.2 for a literal in a literal,
// init.0.func1 in the first init function, init.func1 in a package-level
// variable's initializer (numbered in initialization order). Those are
// the names frames show where the compiler compiles the literal once,
// inside its function. It does not in two cases. It drops literals in
// code it finds dead (a constant false condition, statements after a
// return), which shifts the numbers of the literals after them; and a
// function inlined into another has its literals compiled again under the
// caller's name and counter (pkg.G.F.func1 for F's literal run from G).
// atomicx keys sites, reports and policy patterns by the name computed
// here; the runtime matches a literal's frames by the name it learns from
// them (rt.Site.Literal).
//
// The package is used at build time and by the commands; the runtime
// linked into programs gets the names already computed, in its site
// tables.
package funcname

import (
	"fmt"
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// Prefix returns the symbol prefix of a package path: the path with every
// control character, space, '%', '"' and non-ASCII byte, and every '.'
// after the last '/', escaped as %xx (lower-case hex). It mirrors the
// linker's rule (cmd/internal/objabi.PathToPrefix) byte for byte.
func Prefix(pkgPath string) string {
	slash := strings.LastIndex(pkgPath, "/")
	escape := func(i int) bool {
		c := pkgPath[i]
		return c <= ' ' || c == '.' && i > slash || c == '%' || c == '"' || c >= 0x7F
	}
	n := 0
	for i := 0; i < len(pkgPath); i++ {
		if escape(i) {
			n++
		}
	}
	if n == 0 {
		return pkgPath
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(pkgPath)+2*n)
	for i := 0; i < len(pkgPath); i++ {
		if c := pkgPath[i]; escape(i) {
			b = append(b, '%', hex[c>>4], hex[c&0xF])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

// PathOf is the inverse of Prefix: the package path a symbol prefix
// stands for.
func PathOf(prefix string) (string, error) {
	if !strings.Contains(prefix, "%") {
		return prefix, nil
	}
	b := make([]byte, 0, len(prefix))
	for i := 0; i < len(prefix); i++ {
		if prefix[i] != '%' {
			b = append(b, prefix[i])
			continue
		}
		if i+2 >= len(prefix) {
			return "", fmt.Errorf("malformed symbol prefix %q: an escape needs two hex digits", prefix)
		}
		c, err := strconv.ParseUint(prefix[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("malformed symbol prefix %q: escape %q is not two hex digits", prefix, prefix[i:i+3])
		}
		b = append(b, byte(c))
		i += 2
	}
	return string(b), nil
}

// Join returns the runtime name of the function named rel (as Relative
// gives it) in the package with path pkgPath ("main" for commands).
func Join(pkgPath, rel string) string {
	return Prefix(pkgPath) + "." + rel
}

// Split splits a runtime name into its package path, unescaped, and the
// name relative to the package: "gopkg.in/yaml%2ev3.(*Decoder).Decode"
// gives "gopkg.in/yaml.v3" and "(*Decoder).Decode". Since the prefix
// escapes the dots of the path's last element, the first dot after the
// last slash ends it. ok is false when name has no package part or a
// malformed escape.
func Split(name string) (pkgPath, rel string, ok bool) {
	// A slash may only appear in the package part: type arguments are
	// printed as [...].
	head := name
	if i := strings.IndexAny(head, "[("); i >= 0 {
		head = head[:i]
	}
	slash := strings.LastIndex(head, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return "", name, false
	}
	prefix := name[:slash+1+dot]
	path, err := PathOf(prefix)
	if err != nil {
		return "", name, false
	}
	return path, name[slash+1+dot+1:], true
}

// Relative returns the name of a declared function or method relative to
// its package, as the runtime prints it: F, F[...], T.M, (*T).M, T[...].M,
// (*T[...]).M. A receiver declared through an alias (type A = T, or
// type P = *T) is named after the type it denotes, as the compiler does.
func Relative(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		if sig.TypeParams().Len() > 0 {
			return fn.Name() + "[...]"
		}
		return fn.Name()
	}
	return receiver(sig.Recv().Type()) + "." + fn.Name()
}

// receiver names a method's receiver type: T, (*T), T[...], (*T[...]).
func receiver(t types.Type) string {
	t = types.Unalias(t)
	ptr := false
	if p, ok := t.(*types.Pointer); ok {
		t, ptr = types.Unalias(p.Elem()), true
	}
	name := "?"
	switch n := t.(type) {
	case *types.Named:
		name = n.Obj().Name()
		if n.TypeParams().Len() > 0 || n.TypeArgs().Len() > 0 {
			name += "[...]"
		}
	case *types.Interface:
		// An interface method has no code of its own; name it by the
		// interface's printed form for display.
		name = types.TypeString(n, nil)
	}
	if ptr {
		return "(*" + name + ")"
	}
	return name
}

// Decl returns the name relative to its package of a function declared by
// fd, from the syntax alone, for callers without type information:
// receivers named through aliases declared in the same package (aliases,
// as LocalAliases collects them) resolve as Relative resolves them. A
// receiver alias of a type of another package cannot declare methods, so
// the package's own aliases are all it takes.
func Decl(fd *ast.FuncDecl, aliases Aliases) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
			return fd.Name.Name + "[...]"
		}
		return fd.Name.Name
	}
	return declReceiver(fd.Recv.List[0].Type, aliases, 0) + "." + fd.Name.Name
}

// maxAliasDepth bounds alias resolution, against cycles in code that
// does not type-check.
const maxAliasDepth = 100

func declReceiver(t ast.Expr, aliases Aliases, depth int) string {
	t = ast.Unparen(t)
	ptr := false
	if st, ok := t.(*ast.StarExpr); ok {
		ptr, t = true, ast.Unparen(st.X)
	}
	generic := false
	switch x := t.(type) {
	case *ast.IndexExpr:
		t, generic = x.X, true
	case *ast.IndexListExpr:
		t, generic = x.X, true
	}
	name := "?"
	if id, ok := t.(*ast.Ident); ok {
		name = id.Name
		if target, isAlias := aliases[name]; isAlias && !generic && depth < maxAliasDepth {
			resolved := declReceiver(target, aliases, depth+1)
			if ptr {
				return "(*" + resolved + ")"
			}
			return resolved
		}
	}
	if generic {
		name += "[...]"
	}
	if ptr {
		return "(*" + name + ")"
	}
	return name
}

// Aliases maps the names of a package's type aliases to the types they
// denote.
type Aliases map[string]ast.Expr

// LocalAliases collects the package-level type aliases (type A = T) of a
// package's files.
func LocalAliases(files []*ast.File) Aliases {
	aliases := Aliases{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				if ts, ok := spec.(*ast.TypeSpec); ok && ts.Assign.IsValid() {
					aliases[ts.Name.Name] = ts.Type
				}
			}
		}
	}
	return aliases
}
