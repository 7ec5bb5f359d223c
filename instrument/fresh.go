package instrument

import (
	"go/ast"
	"go/token"
	gotypes "go/types"
)

// Fresh memory. A masked call that fills memory it allocated itself
// (key := make(Key, n); key[i] = …; e := &Err{}; e.pos = …) and returns
// it, in its results or in the error it fails with, must not have those
// stores written back: what the memory held before is nothing (it did
// not exist at entry, and a checkpoint at entry would not have held it),
// and the caller gets what the call built. The undo log records no store
// into a local variable's own fresh memory: a variable of the function's
// body whose every assignment is an allocation (make, new, a composite
// literal or its address, nil, an append to itself, or another such
// variable) and whose address is never taken. A store that reaches further, through a pointer the
// fresh memory holds, is recorded as any other, except into a fresh
// field: a slice or map field of a fresh struct pointer whose every value
// is an allocation (e := &Err{List: make([]T, 0, n)}; e.List =
// append(e.List, x); e.Seen[k] = true), the pointer used for nothing but
// its fields, == and return, so that no call can put other memory there.

// freshVars returns the local variables of body that only ever hold
// memory the function allocated: each is assigned allocations, or the
// values of other such variables, and nothing else.
func freshVars(info *gotypes.Info, body *ast.BlockStmt) map[*gotypes.Var]bool {
	values := map[*gotypes.Var][]ast.Expr{}
	spoilt := map[*gotypes.Var]bool{}
	local := func(e ast.Expr) *gotypes.Var {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		v, ok := info.ObjectOf(id).(*gotypes.Var)
		if !ok || v.Pos() < body.Pos() || v.Pos() >= body.End() {
			return nil
		}
		return v
	}
	spoil := func(e ast.Expr) {
		if v := local(e); v != nil {
			spoilt[v] = true
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				v := local(l)
				switch {
				case v == nil:
				case len(n.Lhs) == len(n.Rhs) && (n.Tok == token.ASSIGN || n.Tok == token.DEFINE):
					values[v] = append(values[v], n.Rhs[i])
				default:
					spoilt[v] = true
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				v := local(id)
				switch {
				case v == nil:
				case len(n.Values) == 0:
					values[v] = append(values[v], nil) // the zero value
				case len(n.Values) == len(n.Names):
					values[v] = append(values[v], n.Values[i])
				default:
					spoilt[v] = true
				}
			}
		case *ast.RangeStmt:
			spoil(n.Key)
			if n.Value != nil {
				spoil(n.Value)
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				spoil(n.X)
			}
		}
		return true
	})
	// A variable declared otherwise (a type switch's, a select's
	// receive) has no values here, and is not fresh.
	fresh := map[*gotypes.Var]bool{}
	for v := range values {
		if !spoilt[v] {
			fresh[v] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for v := range fresh {
			for _, e := range values[v] {
				if !allocation(info, e, v, fresh) {
					delete(fresh, v)
					changed = true
					break
				}
			}
		}
	}
	return fresh
}

// freshField names field f of the struct that fresh pointer variable v
// points at.
type freshField struct{ v, f *gotypes.Var }

// freshFields returns the fields of fresh struct pointers (see freshVars)
// that only ever hold memory the function allocated: each variable is
// assigned only &T{…} or new(T), and is used for nothing but selecting
// its fields, comparing it and returning it; the field's address is never
// taken, and every value it is given — in the composite literals and in
// assignments to it — is an allocation, an append to or reslice of the
// field itself, or a fresh variable.
func freshFields(info *gotypes.Info, body *ast.BlockStmt, fresh map[*gotypes.Var]bool) map[freshField]bool {
	owner := func(e ast.Expr) *gotypes.Var {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		v, ok := info.ObjectOf(id).(*gotypes.Var)
		if !ok || !fresh[v] {
			return nil
		}
		return v
	}
	// field returns the fresh variable and the field that e selects, a
	// direct field of the struct the variable points at.
	field := func(e ast.Expr) (freshField, bool) {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return freshField{}, false
		}
		selection := info.Selections[sel]
		v := owner(sel.X)
		if v == nil || selection == nil || selection.Kind() != gotypes.FieldVal || len(selection.Index()) != 1 {
			return freshField{}, false
		}
		f, ok := selection.Obj().(*gotypes.Var)
		return freshField{v, f}, ok
	}
	values := map[freshField][]ast.Expr{}
	spoilt := map[*gotypes.Var]bool{}
	spoiltField := map[freshField]bool{}
	// literal adds the field values of &T{…} or new(T), assigned to v.
	literal := func(v *gotypes.Var, e ast.Expr) {
		if e == nil {
			return // var e *T: nil
		}
		if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
			if b, ok := calleeObject(info, call.Fun).(*gotypes.Builtin); ok && b.Name() == "new" {
				return // zero fields
			}
		}
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if _, isNil := info.ObjectOf(id).(*gotypes.Nil); isNil {
				return
			}
		}
		addr, ok := ast.Unparen(e).(*ast.UnaryExpr)
		if !ok || addr.Op != token.AND {
			spoilt[v] = true
			return
		}
		lit, ok := ast.Unparen(addr.X).(*ast.CompositeLit)
		if !ok {
			spoilt[v] = true
			return
		}
		st, ok := info.TypeOf(lit).Underlying().(*gotypes.Struct)
		if !ok {
			spoilt[v] = true
			return
		}
		for i, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if key, ok := kv.Key.(*ast.Ident); ok {
					if f, ok := info.ObjectOf(key).(*gotypes.Var); ok {
						values[freshField{v, f}] = append(values[freshField{v, f}], kv.Value)
					}
				}
				continue
			}
			if i < st.NumFields() {
				f := st.Field(i)
				values[freshField{v, f}] = append(values[freshField{v, f}], elt)
			}
		}
	}
	// allowed marks the uses of fresh variables that cannot store into
	// their fields: a field selection, a comparison, a return, the left
	// of an assignment to the variable.
	allowed := map[*ast.Ident]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			s := info.Selections[n]
			if s != nil && s.Kind() == gotypes.FieldVal {
				if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
					allowed[id] = true
				}
			}
			if ff, ok := field(n.X); ok && s != nil && s.Kind() == gotypes.MethodVal {
				spoiltField[ff] = true // x.f.m() may take &x.f
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				for _, e := range []ast.Expr{n.X, n.Y} {
					if id, ok := ast.Unparen(e).(*ast.Ident); ok {
						allowed[id] = true
					}
				}
			}
		case *ast.ReturnStmt:
			for _, e := range n.Results {
				if id, ok := ast.Unparen(e).(*ast.Ident); ok {
					allowed[id] = true
				}
			}
		case *ast.UnaryExpr:
			if ff, ok := field(n.X); ok && n.Op == token.AND {
				spoiltField[ff] = true
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if v := owner(l); v != nil {
					allowed[ast.Unparen(l).(*ast.Ident)] = true
					if len(n.Lhs) == len(n.Rhs) {
						literal(v, n.Rhs[i])
					}
					continue
				}
				ff, ok := field(l)
				switch {
				case !ok:
				case len(n.Lhs) == len(n.Rhs) && n.Tok == token.ASSIGN:
					values[ff] = append(values[ff], n.Rhs[i])
				default:
					spoiltField[ff] = true
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				v := owner(id)
				if v == nil {
					continue
				}
				allowed[id] = true
				if len(n.Values) == len(n.Names) {
					literal(v, n.Values[i])
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if ff, ok := field(e); ok {
					spoiltField[ff] = true
				}
			}
		case *ast.Ident:
			// Uses are seen after their parents, which mark them.
			if v := owner(n); v != nil && !allowed[n] {
				spoilt[v] = true
			}
		}
		return true
	})
	out := map[freshField]bool{}
	for ff, vs := range values {
		if spoilt[ff.v] || spoiltField[ff] || !pointsToStruct(ff.v.Type()) {
			continue
		}
		ok := true
		for _, e := range vs {
			if !fieldAllocation(info, e, ff, fresh, field) {
				ok = false
				break
			}
		}
		out[ff] = ok
	}
	return out
}

// pointsToStruct reports whether t is a pointer to a struct.
func pointsToStruct(t gotypes.Type) bool {
	p, ok := t.Underlying().(*gotypes.Pointer)
	if !ok {
		return false
	}
	_, ok = p.Elem().Underlying().(*gotypes.Struct)
	return ok
}

// fieldAllocation reports whether e, given to field ff, is memory
// allocated right there, a fresh variable, or an append to or reslice of
// the field itself.
func fieldAllocation(info *gotypes.Info, e ast.Expr, ff freshField, fresh map[*gotypes.Var]bool, field func(ast.Expr) (freshField, bool)) bool {
	same := func(x ast.Expr) bool {
		got, ok := field(x)
		return ok && got == ff
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.SliceExpr:
		return same(x.X)
	case *ast.CallExpr:
		if b, ok := calleeObject(info, x.Fun).(*gotypes.Builtin); ok && b.Name() == "append" {
			return same(x.Args[0])
		}
	}
	return allocation(info, e, nil, fresh)
}

// allocation reports whether e, assigned to v, is memory allocated right
// there (make, new, a composite literal or its address, nil, the zero
// value when e is nil), an append to v itself, or a fresh variable.
func allocation(info *gotypes.Info, e ast.Expr, v *gotypes.Var, fresh map[*gotypes.Var]bool) bool {
	if e == nil {
		return true
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		_, ok := ast.Unparen(e.X).(*ast.CompositeLit)
		return e.Op == token.AND && ok
	case *ast.Ident:
		switch o := info.ObjectOf(e).(type) {
		case *gotypes.Nil:
			return true
		case *gotypes.Var:
			return fresh[o]
		}
	case *ast.CallExpr:
		b, ok := calleeObject(info, e.Fun).(*gotypes.Builtin)
		if !ok {
			return false
		}
		switch b.Name() {
		case "make", "new":
			return true
		case "append":
			o, ok := ast.Unparen(e.Args[0]).(*ast.Ident)
			return ok && (info.ObjectOf(o) == v || allocation(info, o, v, fresh))
		}
	}
	return false
}

// inFresh reports whether lhs is a location in memory that the function
// allocated itself and reached without going through a pointer that
// memory holds: an element of a fresh slice, a field of a fresh struct
// pointer, *p of a fresh pointer, and the arrays and struct fields inside
// them.
func (u *undoScan) inFresh(lhs ast.Expr) bool {
	info := u.fe.p.info
	switch e := ast.Unparen(lhs).(type) {
	case *ast.IndexExpr:
		switch t := info.TypeOf(e.X).Underlying().(type) {
		case *gotypes.Slice, *gotypes.Map:
			return u.freshValue(e.X)
		case *gotypes.Array:
			return u.inFresh(e.X)
		case *gotypes.Pointer:
			_, isArray := t.Elem().Underlying().(*gotypes.Array)
			return isArray && u.freshIdent(e.X)
		}
	case *ast.SelectorExpr:
		sel := info.Selections[e]
		if sel == nil || sel.Kind() != gotypes.FieldVal {
			return false
		}
		if isPointer(info.TypeOf(e.X)) {
			return len(sel.Index()) == 1 && u.freshIdent(e.X)
		}
		return !sel.Indirect() && u.inFresh(e.X)
	case *ast.StarExpr:
		return u.freshIdent(e.X)
	}
	return false
}

// freshValue reports whether e is a fresh variable or a fresh field (see
// freshFields): a slice or map the function allocated, whose elements a
// rollback leaves as the call wrote them.
func (u *undoScan) freshValue(e ast.Expr) bool {
	if u.freshIdent(e) {
		return true
	}
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	selection := u.fe.p.info.Selections[sel]
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok || selection == nil || selection.Kind() != gotypes.FieldVal || len(selection.Index()) != 1 || !u.freshIdent(id) {
		return false
	}
	v, _ := u.fe.p.info.ObjectOf(id).(*gotypes.Var)
	f, _ := selection.Obj().(*gotypes.Var)
	if u.freshFields == nil {
		u.freshFields = freshFields(u.fe.p.info, u.fe.body, u.fresh)
	}
	return u.freshFields[freshField{v, f}]
}

// freshIdent reports whether e names a fresh variable (see freshVars).
func (u *undoScan) freshIdent(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := u.fe.p.info.ObjectOf(id).(*gotypes.Var)
	if !ok {
		return false
	}
	if u.fresh == nil {
		u.fresh = freshVars(u.fe.p.info, u.fe.body)
	}
	return u.fresh[v]
}

// Fresh memory that outlives the call. What a call the undo log records
// (a clone of the package's function, or one the build does not rewrite,
// recorded by what its operands reach) writes into fresh memory is
// recorded too, as the callee cannot tell it fresh, and a failure writes
// it back. That is harmless while the memory dies with the call, and
// wrong when it lives on: a plan built through its methods and kept in a
// package-level cache, or returned, would be emptied under the cache.
// A function that hands such memory to a recorded call keeps its whole
// checkpoint, which never held it. Not seen: a callee that publishes
// what it was handed.

// publishedFresh returns the fresh variable (see freshVars) that one of
// call's writable operands is rooted at and whose memory outlives the
// call (see outliving), or nil.
func (u *undoScan) publishedFresh(call *ast.CallExpr, fn *gotypes.Func) *gotypes.Var {
	for _, o := range u.writableOperands(call, fn) {
		id := rootIdent(o.expr)
		if id == nil || !u.freshIdent(id) {
			continue
		}
		if u.outlive == nil {
			u.outlive = outliving(u.fe.p, u.fe.body, u.fe.sig, u.fresh)
		}
		if v, _ := u.fe.p.info.ObjectOf(id).(*gotypes.Var); u.outlive[v] {
			return v
		}
	}
	return nil
}

// rootIdent is the variable an operand is rooted at: x of x, &x.f,
// x.f[i], *x.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// outliving returns the fresh variables of body, the body of a function
// of signature sig, whose memory may outlive the call: each use of them
// that is not a field selection, an index, a dereference, a range, a
// comparison, its declaration or assignment (an append to itself too),
// an operand of len, cap, copy, delete, clear or of the package's
// functions
// (which a masked call runs as a clone), or a result other than an error
// of the function's own return statements (beside a failure, which is
// what rolls back, a result other than its error is no answer) may hand
// the memory on: an error, an assignment to other memory, a composite
// literal, a send, a call of another package's function.
func outliving(p *pkgRewriter, body *ast.BlockStmt, sig *gotypes.Signature, fresh map[*gotypes.Var]bool) map[*gotypes.Var]bool {
	info := p.info
	stays := map[*ast.Ident]bool{}
	mark := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			stays[id] = true
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its returns are its own
		case *ast.ReturnStmt:
			if sig == nil || len(n.Results) != sig.Results().Len() {
				break
			}
			for i, e := range n.Results {
				if !gotypes.Identical(sig.Results().At(i).Type(), errorType) {
					mark(e)
				}
			}
		}
		return true
	})
	out := map[*gotypes.Var]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if s := info.Selections[n]; s != nil && s.Kind() == gotypes.FieldVal {
				mark(n.X)
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				mark(n.X)
				mark(n.Y)
			}
		case *ast.IndexExpr:
			mark(n.X)
		case *ast.StarExpr:
			mark(n.X)
		case *ast.RangeStmt:
			mark(n.X)
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, ok := ast.Unparen(l).(*ast.Ident)
				if !ok {
					continue
				}
				v, ok := info.ObjectOf(id).(*gotypes.Var)
				if !ok || !fresh[v] {
					continue
				}
				stays[id] = true
				// v = append(v, …) grows v's own memory.
				if len(n.Lhs) == len(n.Rhs) {
					if call, ok := ast.Unparen(n.Rhs[i]).(*ast.CallExpr); ok && len(call.Args) > 0 {
						if b, ok := calleeObject(info, call.Fun).(*gotypes.Builtin); ok && b.Name() == "append" {
							if a, ok := ast.Unparen(call.Args[0]).(*ast.Ident); ok && info.ObjectOf(a) == v {
								stays[a] = true
							}
						}
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				stays[id] = true
			}
		case *ast.CallExpr:
			if b, ok := calleeObject(info, n.Fun).(*gotypes.Builtin); ok {
				switch b.Name() {
				case "len", "cap", "copy", "delete", "clear":
					for _, a := range n.Args {
						mark(a)
					}
				case "append":
					if n.Ellipsis.IsValid() {
						mark(n.Args[len(n.Args)-1]) // its elements are copied
					}
				}
				break
			}
			fn, _ := calleeObject(info, n.Fun).(*gotypes.Func)
			if fn == nil {
				break
			}
			if fd := p.decls[fn.Origin()]; fd == nil || fd.Body == nil {
				break
			}
			for _, a := range n.Args {
				mark(a)
			}
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				if s := info.Selections[sel]; s != nil && s.Kind() == gotypes.MethodVal {
					mark(sel.X)
				}
			}
		case *ast.Ident:
			// Uses are seen after their parents, which mark them.
			if v, ok := info.ObjectOf(n).(*gotypes.Var); ok && fresh[v] && !stays[n] {
				out[v] = true
			}
		}
		return true
	})
	return out
}
