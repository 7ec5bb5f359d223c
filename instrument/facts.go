package instrument

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
)

// Write facts. The undo log of a masked function redirects a call of the
// package's own functions to a clone that records its stores, but a call
// of another package's function is out of its sight: it must record what
// the receiver and arguments reach (rt.SaveReach), or keep the checkpoint
// of its whole graph. Yet many such calls write nothing the caller can
// see — an iterator's Next advances the iterator, a local variable, and
// reads the nodes it walks. An instrumented package therefore says, in
// its generated file, what its exported functions and methods write of
// what their receiver and arguments reach, as an exported constant that
// the packages importing it read from its export data, where the go
// command keeps it with the compiled package (and the build cache):
//
//	const X_atx_writes_1f2e3d4c = "Iterator.Next:r Node.Next:n"
//
// n: it writes nothing that its receiver or arguments reach, and calls
// nothing that does; r: it writes, besides, only the variable its pointer
// receiver points to, in place (its fields, not what they point to);
// u: in a masking build, the package hands out the function's clone
// (see crossclone.go). Functions with no letter are not listed. The constant's name
// holds a hash of the package's path, so that two instrumented packages
// that one file dot-imports never declare the same name.

// writeFact is what a function writes of the memory its receiver and
// arguments reach.
type writeFact byte

const (
	writesUnknown  writeFact = iota
	writesNothing            // nothing its receiver or arguments reach
	writesReceiver           // only the variable its pointer receiver points to, in place
)

var factLetters = map[writeFact]string{writesNothing: "n", writesReceiver: "r"}

// factsConst is the name of the constant that holds the write facts of
// the package whose import path is path.
func factsConst(path string) string {
	h := fnv.New32a()
	h.Write([]byte(path))
	return "X_atx_writes_" + strconv.FormatUint(uint64(h.Sum32()), 16)
}

// factKey names fn in a package's facts: Name, or Type.Name for a
// method.
func factKey(fn *types.Func) string {
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return fn.Name()
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || types.IsInterface(named) {
		return "" // an interface's method: any implementation may run
	}
	return named.Obj().Name() + "." + fn.Name()
}

// writesFacts returns the declaration of the package's facts constant,
// or "" when no exported function has a fact worth telling.
func (p *pkgRewriter) writesFacts() string {
	var entries []string
	for fn := range p.decls {
		if !fn.Exported() {
			continue
		}
		key := factKey(fn)
		if key == "" {
			continue
		}
		letters := factLetters[p.writeFactOf(fn)]
		if p.exported[fn] {
			letters += "u"
		}
		if letters != "" {
			entries = append(entries, key+":"+letters)
		}
	}
	if len(entries) == 0 {
		return ""
	}
	sort.Strings(entries)
	return "\n// " + factsConst(p.opts.ImportPath) + " is what the package's functions write, for the undo logs of the packages that import it.\nconst " +
		factsConst(p.opts.ImportPath) + " = " + strconv.Quote(strings.Join(entries, " ")) + "\n"
}

// importedFact returns what fn, a function of another package, writes,
// as that package's facts say; writesUnknown when it says nothing.
func (p *pkgRewriter) importedFact(fn *types.Func) writeFact {
	pkg := fn.Pkg()
	if pkg == nil || pkg == p.pkg {
		return writesUnknown
	}
	if p.imported == nil {
		p.imported = map[*types.Package]map[string]writeFact{}
	}
	facts, ok := p.imported[pkg]
	if !ok {
		facts = map[string]writeFact{}
		clones := map[string]bool{}
		if c, ok := pkg.Scope().Lookup(factsConst(pkg.Path())).(*types.Const); ok && c.Val().Kind() == constant.String {
			for _, e := range strings.Fields(constant.StringVal(c.Val())) {
				key, letters, _ := strings.Cut(e, ":")
				for _, letter := range letters {
					switch letter {
					case 'n':
						facts[key] = writesNothing
					case 'r':
						facts[key] = writesReceiver
					case 'u':
						clones[key] = true
					}
				}
			}
		}
		p.imported[pkg] = facts
		if p.importedClones == nil {
			p.importedClones = map[*types.Package]map[string]bool{}
		}
		p.importedClones[pkg] = clones
	}
	if key := factKey(fn.Origin()); key != "" {
		return facts[key]
	}
	return writesUnknown
}

// writeFactOf returns what fn, a function of the package or of an
// instrumented package it imports, writes of what its receiver and
// arguments reach. A function still being asked about, a recursive
// one, is unknown.
func (p *pkgRewriter) writeFactOf(fn *types.Func) writeFact {
	fn = fn.Origin()
	if fn.Pkg() != p.pkg {
		return p.importedFact(fn)
	}
	if f, ok := p.writes[fn]; ok {
		return f
	}
	if p.writes == nil {
		p.writes = map[*types.Func]writeFact{}
	}
	p.writes[fn] = writesUnknown
	f := writesUnknown
	if fd := p.decls[fn]; fd != nil && fd.Body != nil {
		f = p.bodyWrites(fd)
	}
	p.writes[fn] = f
	return f
}

// bodyWrites works out what fd writes (see writeFact): only stores into
// its own variables and, with a pointer receiver, into the receiver's
// fields; only calls of functions that write nothing, or of methods of
// the same receiver that write only it. Anything it cannot follow —
// function values, interfaces, literals, goroutines, channels, append and
// its kin, stores through other pointers — makes it unknown.
func (p *pkgRewriter) bodyWrites(fd *ast.FuncDecl) writeFact {
	info := p.info
	var recv *types.Var
	if fd.Recv != nil && len(fd.Recv.List) == 1 && len(fd.Recv.List[0].Names) == 1 {
		if v, ok := info.Defs[fd.Recv.List[0].Names[0]].(*types.Var); ok && isPointer(v.Type()) && !assigns(info, fd.Body, v) {
			recv = v
		}
	}
	own := func(v *types.Var) bool { // a variable of fd's own: its parameters, results and locals
		return v != nil && v.Pos() >= fd.Pos() && v.Pos() < fd.End() && !v.IsField()
	}
	result := writesNothing
	worse := func(f writeFact) {
		switch {
		case f == writesUnknown:
			result = writesUnknown
		case f == writesReceiver && result == writesNothing:
			result = writesReceiver
		}
	}
	// target classifies a store into e.
	target := func(e ast.Expr) writeFact {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.Ident:
				if x.Name == "_" {
					return writesNothing
				}
				if v, ok := info.Uses[x].(*types.Var); ok && own(v) {
					return writesNothing
				}
				return writesUnknown
			case *ast.SelectorExpr:
				sel := info.Selections[x]
				if sel == nil || sel.Kind() != types.FieldVal {
					return writesUnknown
				}
				if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && recv != nil && info.Uses[id] == recv && len(sel.Index()) == 1 {
					return writesReceiver
				}
				if sel.Indirect() || isPointer(info.TypeOf(x.X)) {
					return writesUnknown
				}
				e = x.X
			case *ast.IndexExpr:
				if _, ok := info.TypeOf(x.X).Underlying().(*types.Array); !ok {
					return writesUnknown
				}
				e = x.X
			case *ast.StarExpr:
				if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && recv != nil && info.Uses[id] == recv {
					return writesReceiver
				}
				return writesUnknown
			default:
				return writesUnknown
			}
		}
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if result == writesUnknown {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.GoStmt, *ast.SendStmt:
			result = writesUnknown
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				result = writesUnknown
			}
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, lhs := range n.Lhs {
					worse(target(lhs))
				}
			}
		case *ast.IncDecStmt:
			worse(target(n.X))
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e != nil {
						worse(target(e))
					}
				}
			}
		case *ast.CallExpr:
			worse(p.callWrites(n, recv, own))
		}
		return true
	})
	return result
}

// callWrites returns what call, in the body of a function whose pointer
// receiver is recv (nil if none) and whose own variables own reports,
// writes (see bodyWrites).
func (p *pkgRewriter) callWrites(call *ast.CallExpr, recv *types.Var, own func(*types.Var) bool) writeFact {
	info := p.info
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return writesNothing // a conversion
	}
	switch callee := calleeObject(info, call.Fun).(type) {
	case *types.Builtin:
		switch callee.Name() {
		case "len", "cap", "min", "max", "complex", "real", "imag", "new", "make", "panic", "print", "println", "recover":
			return writesNothing
		}
		return writesUnknown
	case *types.Func:
		if harmlessFunc(callee) {
			return writesNothing
		}
		switch p.writeFactOf(callee) {
		case writesNothing:
			return writesNothing
		case writesReceiver:
			// A method called on the receiver, or on a variable of the
			// function's own, not promoted through embedded fields
			// (which may be pointers).
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok || info.Selections[sel] == nil || info.Selections[sel].Kind() != types.MethodVal || len(info.Selections[sel].Index()) != 1 {
				return writesUnknown
			}
			switch x := ast.Unparen(sel.X).(type) {
			case *ast.Ident:
				v, _ := info.Uses[x].(*types.Var)
				if v != nil && v == recv {
					return writesReceiver
				}
				// A variable of the function's own, not a pointer, whose
				// address the method takes: it writes that variable.
				if own(v) && !isPointer(v.Type()) {
					return writesNothing
				}
			}
		}
	}
	return writesUnknown
}
