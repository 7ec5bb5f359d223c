package funcname

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Literal is the name of a function literal.
type Literal struct {
	// Name is relative to the package, as the runtime prints it when the
	// function around the literal is not inlined: F.func1, (*T).M.func2.1,
	// G[...].func1, init.func1 (a package-level variable's initializer),
	// init.0.func1 (the first init function).
	Name string
	// In is what the literal is written in, for display: the declared
	// function's relative name, or the names of the package-level
	// variables whose initializer holds it ("save").
	In string
}

// Literals names the function literals of a type-checked package, as the
// compiler does: a literal in a declared function F is F.funcN, N
// counting F's literals that are not inside another literal in source
// order; a literal in a literal L is L.N, N counting L's own literals;
// literals in package-level initializers are init.funcN, numbered in
// initialization order (info.InitOrder); the init functions are init.0,
// init.1, … in the order of files and declarations.
//
// files must be every file the compiler gets, test files included, in
// the compiler's order: they all take part in the numbering. The names
// are the ones stack frames show except where the compiler drops a
// literal as dead code (a constant false condition, statements after a
// return), which shifts the numbers of the literals after it, and where
// it inlines the function around the literal: the inlined copy of the
// literal is named after the caller (pkg.G.F.func1 in G).
//
// Without type information (info nil), declared functions are named as
// Decl names them, and package-level initializers are taken in source
// order, which is their initialization order unless one refers to a
// variable declared after it.
func Literals(files []*ast.File, info *types.Info) map[*ast.FuncLit]Literal {
	names := map[*ast.FuncLit]Literal{}
	var aliases Aliases
	if info == nil {
		aliases = LocalAliases(files)
	}
	inits := 0
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var name string
			switch {
			case fd.Recv == nil && fd.Name.Name == "init":
				name = "init." + strconv.Itoa(inits)
				inits++
			case fd.Recv == nil && fd.Name.Name == "_":
				continue // never compiled under a name of its own
			case info == nil:
				name = Decl(fd, aliases)
			default:
				fn, ok := info.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				name = Relative(fn)
			}
			counter := 0
			nameLiterals(fd.Body, name, name, true, &counter, names)
		}
	}
	counter := 0
	if info == nil {
		for _, f := range files {
			for _, d := range f.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
					for _, spec := range gd.Specs {
						vs := spec.(*ast.ValueSpec)
						vars := make([]string, len(vs.Names))
						for i, n := range vs.Names {
							vars[i] = n.Name
						}
						in := strings.Join(vars, ", ")
						for i, v := range vs.Values {
							if len(vs.Values) == len(vars) {
								in = vars[i] // var a, b = x, y
							}
							nameLiterals(v, "init", in, true, &counter, names)
						}
					}
				}
			}
		}
		return names
	}
	for _, init := range info.InitOrder {
		vars := make([]string, len(init.Lhs))
		for i, v := range init.Lhs {
			vars[i] = v.Name()
		}
		nameLiterals(init.Rhs, "init", strings.Join(vars, ", "), true, &counter, names)
	}
	return names
}

// nameLiterals names the literals in n that are not inside another
// literal in n, and theirs in turn. top says whether parent is a
// declared function (its literals are funcN) rather than a literal (N).
func nameLiterals(n ast.Node, parent, in string, top bool, counter *int, names map[*ast.FuncLit]Literal) {
	ast.Inspect(n, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		*counter++
		name := parent + "." + strconv.Itoa(*counter)
		if top {
			name = parent + ".func" + strconv.Itoa(*counter)
		}
		names[lit] = Literal{Name: name, In: in}
		inner := 0
		nameLiterals(lit.Body, name, in, false, &inner, names)
		return false
	})
}

// Enclosing returns, for the relative name of a function literal
// ("(*T).M.func2.1"), the name of the function it is written in
// ("(*T).M"); "init" for a literal of a package-level initializer,
// "init.0" for one in the first init function. ok is false for any
// other name. A method named like a literal (T.func1) is taken for one.
func Enclosing(rel string) (string, bool) {
	parts := splitDots(rel)
	for i := 1; i < len(parts); i++ {
		if !isLiteralPart(parts[i], true) {
			continue
		}
		rest := true
		for _, p := range parts[i+1:] {
			rest = rest && isLiteralPart(p, false)
		}
		if rest {
			return strings.Join(parts[:i], "."), true
		}
	}
	return "", false
}

// Enclosers returns, for the relative name of a function literal, the
// names of the functions it is written in, innermost first:
// "(*T).M.func2.1" gives "(*T).M.func2" and "(*T).M". It returns nil for
// any other name.
func Enclosers(rel string) []string {
	decl, ok := Enclosing(rel)
	if !ok {
		return nil
	}
	var out []string
	for name := rel; name != decl; {
		name = name[:strings.LastIndex(name, ".")]
		out = append(out, name)
	}
	return out
}

// isLiteralPart reports whether p is funcN or, unless first, N.
func isLiteralPart(p string, first bool) bool {
	digits := p
	if first || strings.HasPrefix(p, "func") {
		var ok bool
		if digits, ok = strings.CutPrefix(p, "func"); !ok {
			return false
		}
	}
	if digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// splitDots splits a relative name at the dots outside parentheses and
// brackets: "(*T[a.b]).M.func1" gives "(*T[a.b])", "M", "func1".
func splitDots(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '.':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// Readable names a function literal for people: "closure in save,
// store.go:16". in is what Literal.In gives, or, where only the runtime
// name is known, Enclosing's answer; file and line are where the literal
// starts.
func Readable(in, file string, line int) string {
	return "closure in " + in + ", " + file + ":" + strconv.Itoa(line)
}
