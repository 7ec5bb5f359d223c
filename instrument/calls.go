package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
)

// Call sites as injection points.
//
// A call, in instrumented code, of a function that returns an error is an
// injection point: an injected fault makes the call yield zero values and
// the injected error without the callee running, while the callee
// expression and the arguments are evaluated as in the original. The call
//
//	f(a, b)
//
// becomes
//
//	_atx_call_2_1(&_atx_sites[K], f)(a, b)
//
// where _atx_call_2_1 is a generic helper of the generated file, inferred
// from f alone (so that arguments keep Go's assignability rules), that
// returns a function of f's type which asks the runtime before calling f.
// The helper is small enough to be inlined with the function it returns,
// so a build with the runtime disabled pays a branch, no allocation.

// callShape identifies a generic call helper: parameter count, result
// count (the last being error) and whether the callee is variadic.
type callShape struct {
	params, results int
	variadic        bool
}

func (c callShape) name() string {
	n := fmt.Sprintf("_atx_call_%d_%d", c.params, c.results)
	if c.variadic {
		n += "_v"
	}
	return n
}

// rewriteCalls makes each eligible call in the function's body, function
// literals included, an injection point. It returns the sites, whose
// indices in the site table start at first.
func (fe *funcEdits) rewriteCalls(edits *editList, first int) []site {
	if !fe.p.genericsAllowed() {
		return nil
	}
	var sites []site
	seen := map[string]int{} // callee name -> calls of it so far
	ast.Inspect(fe.decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		shape, callee, ok := fe.callPoint(call)
		if !ok {
			return true
		}
		seen[callee]++
		idx := first + len(sites)
		pos := fe.p.fset.Position(call.Lparen)
		fn := funcname.Join(fe.p.opts.ImportPath, fe.name)
		sites = append(sites, site{
			id:       fmt.Sprintf("%s#call:%s#%d", fn, callee, seen[callee]),
			fn:       fn,
			pos:      fe.p.sitePos(pos),
			call:     true,
			canError: true,
			ignored:  fe.p.opts.Ignored != nil && fe.p.opts.Ignored(fe.name),
		})
		if fe.p.callHelpers == nil {
			fe.p.callHelpers = map[callShape]bool{}
		}
		fe.p.callHelpers[shape] = true
		funStart, funEnd := fe.off(call.Fun.Pos()), fe.off(call.Fun.End())
		edits.insert(funStart, fmt.Sprintf("%s(&%s[%d], %s", shape.name(), sitesName, idx, lineDirective(fe.p.fset, fe.tf, funStart)))
		edits.insert(funEnd, ")"+lineDirective(fe.p.fset, fe.tf, funEnd))
		return true
	})
	return sites
}

// callPoint decides whether call is an injection point, and returns the
// helper it needs and the callee's name for the site ID.
func (fe *funcEdits) callPoint(call *ast.CallExpr) (callShape, string, bool) {
	info := fe.p.info
	tv, ok := info.Types[call.Fun]
	if !ok || tv.IsType() || tv.IsBuiltin() {
		return callShape{}, "", false
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok || sig.Results().Len() == 0 || sig.TypeParams().Len() > 0 {
		return callShape{}, "", false
	}
	last := sig.Results().At(sig.Results().Len() - 1).Type()
	if !types.Identical(last, errorType) {
		return callShape{}, "", false
	}
	obj := calleeObject(info, call.Fun)
	if fn, ok := obj.(*types.Func); ok {
		// A generic function called with inferred type arguments cannot be
		// passed as a value without writing them out.
		if fs, ok := fn.Type().(*types.Signature); ok && fs.TypeParams().Len() > 0 {
			if _, explicit := ast.Unparen(call.Fun).(*ast.IndexExpr); !explicit {
				if _, explicit := ast.Unparen(call.Fun).(*ast.IndexListExpr); !explicit {
					return callShape{}, "", false
				}
			}
		}
		if fe.p.isInstrumented(fn) {
			return callShape{}, "", false // its entry is an injection point already
		}
	}
	if fn, ok := obj.(*types.Func); ok && constructsErrors(fn) {
		return callShape{}, "", false
	}
	shape := callShape{params: sig.Params().Len(), results: sig.Results().Len(), variadic: sig.Variadic()}
	return shape, calleeName(fe.p.fset, obj, call.Fun), true
}

// calleeObject returns the function or variable a call expression names,
// or nil for other expressions.
func calleeObject(info *types.Info, fun ast.Expr) types.Object {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return info.Uses[f]
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			return sel.Obj()
		}
		return info.Uses[f.Sel]
	case *ast.IndexExpr:
		return calleeObject(info, f.X)
	case *ast.IndexListExpr:
		return calleeObject(info, f.X)
	}
	return nil
}

// calleeName names a callee in a site ID: os.Open, (*os.File).Close,
// (io.Reader).Read, or the expression's text for function values.
func calleeName(fset *token.FileSet, obj types.Object, fun ast.Expr) string {
	if fn, ok := obj.(*types.Func); ok {
		sig := fn.Type().(*types.Signature)
		if recv := sig.Recv(); recv != nil {
			// A receiver declared through an alias is named after the
			// type it denotes, as the runtime names the method.
			t := types.Unalias(recv.Type())
			ptr := ""
			if p, ok := t.(*types.Pointer); ok {
				t, ptr = types.Unalias(p.Elem()), "*"
			}
			name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
			if i := strings.Index(name, "["); i >= 0 {
				name = name[:i] + "[...]"
			}
			return "(" + ptr + name + ")." + fn.Name()
		}
		if fn.Pkg() != nil {
			return fn.Pkg().Name() + "." + fn.Name()
		}
		return fn.Name()
	}
	if _, ok := ast.Unparen(fun).(*ast.FuncLit); ok {
		return "func-literal"
	}
	return strings.ReplaceAll(types.ExprString(fun), " ", "")
}

// constructsErrors reports functions whose error result is what they
// make, not a failure (errors.New, fmt.Errorf): injecting there gives the
// caller an error where it already gets one, an experiment that can show
// nothing.
func constructsErrors(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() + "." + fn.Name() {
	case "errors.New", "errors.Join", "fmt.Errorf":
		return true
	}
	return false
}

// isInstrumented reports whether fn's entry is itself an injection point.
func (p *pkgRewriter) isInstrumented(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() != nil {
		if _, isIface := sig.Recv().Type().Underlying().(*types.Interface); isIface {
			return false // an interface method: any implementation may run
		}
	}
	name := funcname.Relative(fn)
	if fn.Pkg() == p.pkg {
		return p.opts.Selects == nil || p.opts.Selects(name)
	}
	return p.opts.Instrumented != nil && p.opts.Instrumented(fn.Pkg().Path(), name)
}

// genericsAllowed reports whether the package's language version lets the
// generated call helpers be generic.
func (p *pkgRewriter) genericsAllowed() bool {
	return p.langAtLeast(goGenerics)
}

// writeCallHelpers writes the generic helpers the package's call sites use.
func (p *pkgRewriter) writeCallHelpers(b *strings.Builder) {
	shapes := make([]callShape, 0, len(p.callHelpers))
	for s := range p.callHelpers {
		shapes = append(shapes, s)
	}
	sort.Slice(shapes, func(i, j int) bool { return shapes[i].name() < shapes[j].name() })
	for _, s := range shapes {
		var tparams, params, args, results, zeros []string
		for i := 0; i < s.params; i++ {
			tparams = append(tparams, fmt.Sprintf("A%d", i))
			t := fmt.Sprintf("A%d", i)
			arg := fmt.Sprintf("a%d", i)
			if s.variadic && i == s.params-1 {
				t = "..." + t
				arg += "..."
			}
			params = append(params, fmt.Sprintf("a%d %s", i, t))
			args = append(args, arg)
		}
		for i := 0; i < s.results-1; i++ {
			tparams = append(tparams, fmt.Sprintf("R%d", i))
			results = append(results, fmt.Sprintf("R%d", i))
			zeros = append(zeros, fmt.Sprintf("r%d", i))
		}
		results = append(results, "error")
		var ptypes []string
		for _, prm := range params {
			ptypes = append(ptypes, strings.SplitN(prm, " ", 2)[1])
		}
		ftype := fmt.Sprintf("func(%s) (%s)", strings.Join(ptypes, ", "), strings.Join(results, ", "))
		tp := ""
		if len(tparams) > 0 {
			tp = "[" + strings.Join(tparams, ", ") + " any]"
		}
		fmt.Fprintf(b, "\nfunc %s%s(s *%s.Site, f %s) %s {\n", s.name(), tp, rtName, ftype, ftype)
		fmt.Fprintf(b, "\treturn func(%s) (%s) {\n", strings.Join(params, ", "), strings.Join(results, ", "))
		fmt.Fprintf(b, "\t\tif %s.Enabled() {\n\t\t\tif e := %s.Inject(s); e != nil {\n", rtName, rtName)
		if len(zeros) > 0 {
			for i, z := range zeros {
				fmt.Fprintf(b, "\t\t\t\tvar %s R%d\n", z, i)
			}
			fmt.Fprintf(b, "\t\t\t\treturn %s, e\n", strings.Join(zeros, ", "))
		} else {
			fmt.Fprintf(b, "\t\t\t\treturn e\n")
		}
		fmt.Fprintf(b, "\t\t\t}\n\t\t}\n\t\treturn f(%s)\n\t}\n}\n", strings.Join(args, ", "))
	}
}
