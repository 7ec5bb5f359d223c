package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// Twins. The compiler never inlines a function that contains a defer
// statement, even one that never runs, so the deferred comparison of the
// instrumented prologue would cost every small function of a selected
// package its inlining, in every run, armed or not. A small leaf function
// (one that calls nothing but builtins and conversions, so that its only
// injection point is its own entry) is therefore split in two:
//
//   - the function keeps its name, its signature and its body, preceded by
//     one test: when the runtime is enabled it returns what its twin
//     returns. Nothing armed, the test is all it costs, and it stays
//     inlinable, with the same frames, positions and runtime.Caller
//     answers as without atomicx;
//   - its twin, appended to the file with the positions of the original,
//     is the instrumented function: injection point, snapshot, deferred
//     comparison. Armed, the body runs in the twin, whose frames show the
//     twin's name (Site.Frame), one frame deeper.
//
// Larger functions are not inlined once they call the twin (a call that
// is not inlined costs 57 of the inliner's budget of 80), and functions
// that call others have call sites to instrument: both keep the single
// instrumented body, whose unarmed cost is one branch and a deferred call
// that is not made.

// twinPrefix starts the name of a function's twin.
const twinPrefix = "_atx_"

// maxTwinNodes bounds the syntax nodes of a body worth splitting: a
// function whose own cost plus the call of its twin exceeds the
// inliner's budget is not inlined either way.
const maxTwinNodes = 24

// twinnable reports whether fe, a declared function, is split into a
// function and its instrumented twin.
func (fe *funcEdits) twinnable() bool {
	fd := fe.decl
	if fd == nil || fe.p.opts.Mask || fd.Name.Name == "main" {
		return false
	}
	if tp := fd.Type.TypeParams; tp != nil {
		for _, f := range tp.List {
			for _, n := range f.Names {
				if n.Name == "_" {
					return false // cannot be passed on to the twin
				}
			}
		}
	}
	leaf, nodes := fe.leaf()
	return leaf && nodes <= maxTwinNodes
}

// leaf reports whether the function calls nothing but builtins and
// conversions (so that no injection point is reached while a call of it is
// in progress), and counts the syntax nodes of its body.
func (fe *funcEdits) leaf() (leaf bool, nodes int) {
	leaf = true
	ast.Inspect(fe.body, func(n ast.Node) bool {
		if !leaf || n == nil {
			return false
		}
		nodes++
		switch n := n.(type) {
		case *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt, *ast.SelectStmt, *ast.LabeledStmt:
			leaf = false
		case *ast.CallExpr:
			leaf = fe.builtinOrConversion(n)
		case *ast.RangeStmt:
			// Ranging over a function calls it, with the loop's body as
			// a function of its own.
			if tv, ok := fe.p.info.Types[n.X]; !ok || isFunc(tv.Type) {
				leaf = false
			}
		}
		return leaf
	})
	return leaf, nodes
}

// builtinOrConversion reports calls that are not calls of functions: type
// conversions, and builtins other than recover, which no inlinable
// function may call.
func (fe *funcEdits) builtinOrConversion(call *ast.CallExpr) bool {
	tv, ok := fe.p.info.Types[call.Fun]
	if !ok {
		return false
	}
	if tv.IsType() {
		return true
	}
	if !tv.IsBuiltin() {
		return false
	}
	fun := ast.Unparen(call.Fun)
	id, ok := fun.(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := fe.p.info.Uses[id].(*types.Builtin)
	return ok && b.Name() != "recover"
}

// twinName is the identifier of the function's twin.
func (fe *funcEdits) twinName() string { return twinPrefix + fe.decl.Name.Name }

// twinFrame is the relative name of the twin's frames, as the runtime
// names them: the function's with its last identifier replaced.
func (fe *funcEdits) twinFrame() string {
	name := fe.decl.Name.Name
	i := strings.LastIndex(fe.name, name)
	if i < 0 {
		return ""
	}
	return fe.name[:i] + fe.twinName() + fe.name[i+len(name):]
}

// twin splits the function. instrumented holds the edits that make its
// instrumented body (signature edits first, sig of them); they become the
// twin, appended at the end of the file, while the function itself gets
// the signature edits and a prologue that calls the twin.
func (fe *funcEdits) twin(edits *editList, instrumented []edit, sig int) error {
	fd := fe.decl
	start, end := fe.off(fd.Pos()), fe.off(fd.End())
	twin := editList{edits: append([]edit(nil), instrumented...)}
	twin.replace(fe.off(fd.Name.Pos()), fe.off(fd.Name.End()), fe.twinName())
	sorted, err := twin.sorted()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(lineDirective(fe.p.fset, fe.tf, start))
	last := start
	for _, e := range sorted {
		if e.start < start || e.end > end {
			return fmt.Errorf("a rewrite of the function reaches outside it, at byte %d", e.start)
		}
		b.Write(fe.src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(fe.src[last:end])
	b.WriteString("\n")

	edits.edits = append(edits.edits, instrumented[:sig]...)
	lbrace := fe.off(fe.body.Lbrace) + 1
	edits.insert(lbrace, fmt.Sprintf(" if %s.On { %s }; ", rtName, fe.twinCall())+lineDirective(fe.p.fset, fe.tf, lbrace))
	edits.insert(len(fe.src), b.String())
	return nil
}

// twinCall is the statement that hands a call over to the twin.
func (fe *funcEdits) twinCall() string {
	fd := fe.decl
	args := fe.roots
	callee := fe.twinName()
	if fd.Recv != nil {
		callee = args[0] + "." + callee
		args = args[1:]
	}
	if tp := fd.Type.TypeParams; tp != nil && len(tp.List) > 0 {
		var names []string
		for _, f := range tp.List {
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
		}
		callee += "[" + strings.Join(names, ", ") + "]"
	}
	list := strings.Join(args, ", ")
	if params := fd.Type.Params.List; len(params) > 0 {
		if _, ok := params[len(params)-1].Type.(*ast.Ellipsis); ok {
			list += "..."
		}
	}
	call := callee + "(" + list + ")"
	if res := fd.Type.Results; res == nil || len(res.List) == 0 {
		return call + "; return"
	}
	return "return " + call
}

// isFunc reports a function type. A type parameter may stand for one: it
// counts as one.
func isFunc(t types.Type) bool {
	if _, ok := t.(*types.TypeParam); ok {
		return true
	}
	_, ok := t.Underlying().(*types.Signature)
	return ok
}
