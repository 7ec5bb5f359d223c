package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// Undoing writes to files.
//
// A function of the policy's undo_files (Options.UndoFiles) is masked
// with its writes to regular files undone when it fails (see the
// runtime's FileUndo): its prologue starts a journal of the goroutine's
// writes, ended by a deferred call that undoes them on failure, and every
// call of an *os.File's Write, WriteString, WriteAt, ReadFrom or Truncate
// in the package's functions is preceded by rt.FileWriting, which reads
// what the undo needs just before the write runs. The calls it precedes
// must let it name the file and the range written without running
// anything twice: the call is a statement of its own (an expression
// statement, an assignment, or the init of an if statement), its
// receiver a variable or a field chain of type *os.File, and the range's
// arguments (the data, the offset, the size) are read again only when
// reading them has no effect, or else the range runs to the end of the
// file. Any other write outside memory in such a function (a rename, a
// file written through a call the build cannot precede) still stops the
// build unless outside_writes lists it.
//
// A detection build journals the same calls through rt.WroteFile,
// which its injection points call where they call rt.WroteOutside for
// other writes: a detection run with ATOMICX_UNDO_FILES undoes them.

// fileUndoName is the local variable that holds a masked call's undo.
const fileUndoName = "_atx_fu"

// fileWriteMethods are the methods of *os.File whose writes the runtime
// can undo.
var fileWriteMethods = map[string]bool{"Write": true, "WriteString": true, "WriteAt": true, "ReadFrom": true, "Truncate": true}

// fileUndoWrap returns, for a function of undo_files, the start of its
// journal and the deferred undo; "" for others. Put before the
// checkpoints' deferred restores, it runs after them; the releases of
// the resources the call acquired are deferred before it, so that a
// file the call opened is still open when its writes are undone.
func (fe *funcEdits) fileUndoWrap(siteRef string) string {
	if !fe.undoesFiles() {
		return ""
	}
	return fmt.Sprintf("%[1]s := %[2]s.UndoFiles(); defer %[1]s.End(%[3]s, &%[4]s, %[5]s); ", fileUndoName, rtName, siteRef, doneName, fe.errArg())
}

// undoesFiles reports a function of undo_files: its writes to regular
// files go back with its memory.
func (fe *funcEdits) undoesFiles() bool {
	return fe.lit == nil && fe.p.opts.UndoFiles != nil && fe.p.opts.UndoFiles(fe.name)
}

// fileWriteRange returns the arguments of rt.FileWriting and rt.WroteFile
// that say where a call of an *os.File's method writes ("-1" at the
// file's offset; "-1" bytes up to the end), and false when the call is
// not one whose write the runtime can undo or its receiver cannot be
// read again.
func (p *pkgRewriter) fileWriteRange(call *ast.CallExpr, text func(ast.Expr) string) (recv, at, n string, ok bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", "", "", false
	}
	fn, ok := calleeObject(p.info, call.Fun).(*types.Func)
	if !ok || fn.FullName() != "(*os.File)."+fn.Name() || !fileWriteMethods[fn.Name()] {
		return "", "", "", false
	}
	if !isOSFile(p.info.TypeOf(sel.X)) || !fieldChain(p.info, sel.X) {
		return "", "", "", false
	}
	length := func(arg ast.Expr) string {
		if !p.readsWithoutEffect(arg) {
			return "-1"
		}
		return "int64(len(" + text(arg) + "))"
	}
	offset := func(arg ast.Expr) string {
		if !p.readsWithoutEffect(arg) {
			return "0" // somewhere: from the start
		}
		return "int64(" + text(arg) + ")"
	}
	at, n = "-1", "-1"
	switch {
	case fn.Name() == "Write" && len(call.Args) == 1, fn.Name() == "WriteString" && len(call.Args) == 1:
		n = length(call.Args[0])
	case fn.Name() == "WriteAt" && len(call.Args) == 2:
		at = offset(call.Args[1])
		if p.readsWithoutEffect(call.Args[1]) {
			n = length(call.Args[0])
		}
	case fn.Name() == "Truncate" && len(call.Args) == 1:
		at = offset(call.Args[0])
	case fn.Name() == "ReadFrom":
	default:
		return "", "", "", false
	}
	return text(sel.X), at, n, true
}

// readsWithoutEffect reports whether evaluating e again does nothing but
// read: names, constants, fields, indexes, slices and operators on them,
// conversions, len and cap.
func (p *pkgRewriter) readsWithoutEffect(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return p.readsWithoutEffect(e.X)
	case *ast.SelectorExpr:
		if _, ok := p.info.Uses[e.Sel].(*types.Var); !ok {
			_, ok = p.info.Uses[e.Sel].(*types.Const)
			return ok
		}
		if id, ok := e.X.(*ast.Ident); ok {
			if _, ok := p.info.Uses[id].(*types.PkgName); ok {
				return true
			}
		}
		return p.readsWithoutEffect(e.X)
	case *ast.StarExpr:
		return p.readsWithoutEffect(e.X)
	case *ast.BinaryExpr:
		return p.readsWithoutEffect(e.X) && p.readsWithoutEffect(e.Y)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && p.readsWithoutEffect(e.X)
	case *ast.IndexExpr:
		return p.readsWithoutEffect(e.X) && p.readsWithoutEffect(e.Index)
	case *ast.SliceExpr:
		for _, x := range []ast.Expr{e.X, e.Low, e.High, e.Max} {
			if x != nil && !p.readsWithoutEffect(x) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		if len(e.Args) != 1 || !p.readsWithoutEffect(e.Args[0]) {
			return false
		}
		if tv, ok := p.info.Types[e.Fun]; ok && tv.IsType() {
			return true
		}
		id, ok := ast.Unparen(e.Fun).(*ast.Ident)
		if !ok {
			return false
		}
		b, ok := p.info.Uses[id].(*types.Builtin)
		return ok && (b.Name() == "len" || b.Name() == "cap")
	}
	return false
}

// fileWriteHooks returns the calls in a function's body (its literals
// included) that rt.FileWriting can precede, each with the statement
// before which it goes: a call that is the whole of an expression
// statement, of the right-hand side of an assignment, or of either as an
// if statement's init, in a statement list.
func (p *pkgRewriter) fileWriteHooks(body *ast.BlockStmt) map[*ast.CallExpr]ast.Stmt {
	hooks := map[*ast.CallExpr]ast.Stmt{}
	callOf := func(s ast.Stmt) *ast.CallExpr {
		switch s := s.(type) {
		case *ast.ExprStmt:
			c, _ := ast.Unparen(s.X).(*ast.CallExpr)
			return c
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 {
				c, _ := ast.Unparen(s.Rhs[0]).(*ast.CallExpr)
				return c
			}
		}
		return nil
	}
	list := func(stmts []ast.Stmt) {
		for _, s := range stmts {
			c := callOf(s)
			if is, ok := s.(*ast.IfStmt); ok && is.Init != nil {
				c = callOf(is.Init)
			}
			if c == nil {
				continue
			}
			if _, _, _, ok := p.fileWriteRange(c, func(ast.Expr) string { return "" }); ok {
				hooks[c] = s
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			list(n.List)
		case *ast.CaseClause:
			list(n.Body)
		case *ast.CommClause:
			list(n.Body)
		}
		return true
	})
	return hooks
}

// insertFileWriteHooks inserts, in a masking build of a package whose
// rule lists undo_files, rt.FileWriting before each call of fd that the
// runtime can journal, whether fd is masked or not: a masked function's
// callees write on its goroutine, inside its journal.
func (p *pkgRewriter) insertFileWriteHooks(fd *ast.FuncDecl, tf *token.File, src []byte, edits *editList) {
	hooks := p.fileWriteHooks(fd.Body)
	text := func(e ast.Expr) string { return string(src[tf.Offset(e.Pos()):tf.Offset(e.End())]) }
	for call, s := range hooks {
		recv, at, n, _ := p.fileWriteRange(call, text)
		off := tf.Offset(s.Pos())
		edits.insert(off, fmt.Sprintf("%s.FileWriting(%s, %s, %s); ", rtName, recv, at, n)+lineDirective(p.fset, tf, off))
	}
}

// undoableCalls returns the calls of a function's body that undo_files
// undoes: outsideWriteOf skips them in the functions it lists.
func (p *pkgRewriter) undoableCalls(fd *ast.FuncDecl) map[*ast.CallExpr]ast.Stmt {
	if p.undoable == nil {
		p.undoable = map[*ast.FuncDecl]map[*ast.CallExpr]ast.Stmt{}
	}
	h, ok := p.undoable[fd]
	if !ok {
		h = p.fileWriteHooks(fd.Body)
		if unsupported(fd) != "" || fd.Recv == nil && (fd.Name.Name == "init" || fd.Name.Name == "_") {
			h = nil // left as written: no hook precedes its writes
		}
		p.undoable[fd] = h
	}
	return h
}
