package instrument

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// Writes outside memory.
//
// A function that writes to a file, a connection or another process
// before it fails changed something that no rollback of its object graph
// undoes: masked, its memory goes back to the state at entry while the
// file keeps the bytes, and the two are out of step (a log's index rolled
// back, its entry still on disk). Detection records such writes (each
// call site of one, made an injection point, tells the runtime when it
// runs: rt.WroteOutside), so that the reports and policy suggest say so;
// a masking build refuses a function that makes one, found statically
// (see outsideWriteOf), unless the policy's outside_writes lists it.
//
// The calls counted are those of the standard library that change what
// lies outside the process's memory: an *os.File's writes, Truncate,
// Chmod and Chown; os.WriteFile, Create, CreateTemp, Rename, Remove,
// RemoveAll, Mkdir, MkdirAll, MkdirTemp, Symlink, Link, Truncate, Chmod,
// Chown, Lchown, Chtimes and OpenFile with O_CREATE or O_TRUNC (or flags
// not known at build time), and their io/ioutil forms; the writes of the
// net package's connections; an *exec.Cmd's Start, Run, Output and
// CombinedOutput; an *os.Process's Kill and Signal. (*os.File).Sync
// writes nothing that a write before it did not: it is not counted. A
// write through an interface (an io.Writer that holds a file) or through
// a function of a package that is not compiled by the same build is not
// seen.

// osFileWrites are the methods of *os.File that change the file.
var osFileWrites = map[string]bool{"Write": true, "WriteAt": true, "WriteString": true, "ReadFrom": true, "Truncate": true, "Chmod": true, "Chown": true}

// outsidePathArg gives, for the functions of package os and io/ioutil
// that change the file system, which argument names the path changed.
var outsidePathArg = map[string]int{
	"os.WriteFile": 0, "os.Create": 0, "os.CreateTemp": 0, "os.OpenFile": 0,
	"os.Rename": 0, "os.Remove": 0, "os.RemoveAll": 0, "os.Truncate": 0,
	"os.Mkdir": 0, "os.MkdirAll": 0, "os.MkdirTemp": 0,
	"os.Symlink": 1, "os.Link": 1,
	"os.Chmod": 0, "os.Chown": 0, "os.Lchown": 0, "os.Chtimes": 0,
	"io/ioutil.WriteFile": 0, "io/ioutil.TempFile": 0, "io/ioutil.TempDir": 0,
}

// outsideMethods are the other methods that act outside the process, by
// their full names.
var outsideMethods = map[string]bool{
	"(*os/exec.Cmd).Start": true, "(*os/exec.Cmd).Run": true, "(*os/exec.Cmd).Output": true, "(*os/exec.Cmd).CombinedOutput": true,
	"(*os.Process).Kill": true, "(*os.Process).Signal": true,
}

// writesOutside reports whether a call writes outside memory, and
// returns the callee as calleeName names it.
func (p *pkgRewriter) writesOutside(call *ast.CallExpr) (string, bool) {
	fn, ok := calleeObject(p.info, call.Fun).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	name := calleeName(p.fset, fn, call.Fun)
	full := fn.FullName()
	recv := fn.Type().(*types.Signature).Recv()
	switch {
	case recv != nil && full == "(*os.File)."+fn.Name():
		return name, osFileWrites[fn.Name()]
	case recv != nil && fn.Pkg().Path() == "net":
		return name, strings.HasPrefix(fn.Name(), "Write") || fn.Name() == "ReadFrom"
	case outsideMethods[full]:
		return name, true
	case full == "os.OpenFile":
		return name, p.openCreates(call)
	}
	_, ok = outsidePathArg[full]
	return name, ok
}

// openCreates reports whether an os.OpenFile call may create or truncate
// its file: its flags hold O_CREATE or O_TRUNC, or are not a constant.
func (p *pkgRewriter) openCreates(call *ast.CallExpr) bool {
	if len(call.Args) < 2 {
		return true
	}
	flags := p.info.Types[call.Args[1]].Value
	if flags == nil {
		return true
	}
	fn := calleeObject(p.info, call.Fun).(*types.Func)
	for _, name := range []string{"O_CREATE", "O_TRUNC"} {
		c, ok := fn.Pkg().Scope().Lookup(name).(*types.Const)
		if !ok {
			return true
		}
		if constant.Compare(constant.BinaryOp(flags, token.AND, c.Val()), token.NEQ, constant.MakeInt64(0)) {
			return true
		}
	}
	return false
}

// wroteOutside returns the statement that tells the runtime that the call,
// just made the injection point at sites[idx], writes outside memory
// (rt.WroteOutside), or "" when it does not. The file is the receiver,
// for an *os.File's methods, or the path argument, when either can be
// read again without effect.
func (fe *funcEdits) wroteOutside(call *ast.CallExpr, idx int) string {
	if _, ok := fe.p.writesOutside(call); !ok {
		return ""
	}
	if recv, at, n, ok := fe.p.fileWriteRange(call, func(e ast.Expr) string { return fe.text(e) }); ok {
		// A write the runtime can undo: journaled too (see fileundo.go).
		return fmt.Sprintf("%s.WroteFile(&%s[%d], %s, %s, %s); ", rtName, sitesName, idx, recv, at, n)
	}
	file, name := "nil", `""`
	fn := calleeObject(fe.p.info, call.Fun).(*types.Func)
	if fn.Type().(*types.Signature).Recv() != nil {
		if expr, t, _, ok := fe.receiverOf(call); ok && isOSFile(t) {
			file = expr
		}
	} else if i, ok := outsidePathArg[fn.FullName()]; ok && i < len(call.Args) {
		arg := call.Args[i]
		if tv := fe.p.info.Types[arg]; tv.Value != nil && tv.Value.Kind() == constant.String {
			name = tv.Value.ExactString()
		} else if fieldChain(fe.p.info, arg) && types.Identical(fe.p.info.TypeOf(arg), types.Typ[types.String]) {
			name = fe.text(arg)
		}
	}
	return fmt.Sprintf("%s.WroteOutside(&%s[%d], %s, %s); ", rtName, sitesName, idx, file, name)
}

// isOSFile reports whether t is *os.File.
func isOSFile(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	named, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "os" && named.Obj().Name() == "File"
}

// OutsideWrite is a function selected for masking that writes outside
// memory: it, or a function of its package that it calls, calls one of
// the functions that writesOutside counts.
type OutsideWrite struct {
	Name string         // the function, as Function names it
	Pos  token.Position // of its name
	// Call is the callee that writes ("(*os.File).Write"), at CallPos.
	Call    string
	CallPos token.Position
	// Via are the functions of the package through which the function
	// reaches the call, outermost first; empty when it makes the call
	// itself.
	Via []string
	// Undo says that the policy's undo_files lists the function: the
	// call is one its undo does not reach.
	Undo bool
}

// outsideWrite is what outsideWriteOf found of a function: the first
// call that writes outside memory, in source order, and the functions
// on the way to it.
type outsideWrite struct {
	call string
	pos  token.Pos
	via  []string
}

// outsideWriteOf returns the first call that writes outside memory that
// a function makes, in its own body and its function literals, or
// through the functions and methods of the package that it calls by
// name, or nil. A call through an interface or a function value, or of
// another package's function, is not followed: what it runs is not
// known when the package is compiled.
//
// With undo set, the writes that undo_files undoes are skipped (see
// undoableCalls): what is left is what no undo reaches.
func (p *pkgRewriter) outsideWriteOf(fd *ast.FuncDecl, undo bool) *outsideWrite {
	if p.outsideMemo[0] == nil {
		p.outsideMemo = [2]map[*ast.FuncDecl]*outsideWrite{{}, {}}
	}
	return p.outsideWriteIn(fd, map[*ast.FuncDecl]bool{}, undo)
}

func (p *pkgRewriter) outsideWriteIn(fd *ast.FuncDecl, visiting map[*ast.FuncDecl]bool, undo bool) *outsideWrite {
	memo := p.outsideMemo[0]
	if undo {
		memo = p.outsideMemo[1]
	}
	if w, ok := memo[fd]; ok {
		return w
	}
	if fd.Body == nil || visiting[fd] {
		return nil // a recursion: its other calls are looked at where it started
	}
	visiting[fd] = true
	var found *outsideWrite
	var callees []*ast.CallExpr
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found != nil {
			return found == nil
		}
		if name, ok := p.writesOutside(call); ok {
			if undo && p.undoableCalls(fd)[call] != nil {
				return true
			}
			found = &outsideWrite{call: name, pos: call.Lparen}
			return false
		}
		callees = append(callees, call)
		return true
	})
	for _, call := range callees {
		if found != nil {
			break
		}
		fn, ok := calleeObject(p.info, call.Fun).(*types.Func)
		if !ok {
			continue
		}
		decl := p.decls[fn]
		if decl == nil {
			continue
		}
		if w := p.outsideWriteIn(decl, visiting, undo); w != nil {
			found = &outsideWrite{call: w.call, pos: w.pos, via: append([]string{p.funcName(decl)}, w.via...)}
		}
	}
	delete(visiting, fd)
	if found != nil || len(visiting) == 0 {
		// Inside a recursion, "none" may only mean that the rest of the
		// cycle is being looked at: not kept.
		memo[fd] = found
	}
	return found
}

// noteOutsideWrite records, in a masking build, that a selected function
// writes outside memory.
func (p *pkgRewriter) noteOutsideWrite(fd *ast.FuncDecl, name string, pos token.Position) {
	undo := p.opts.UndoFiles != nil && p.opts.UndoFiles(name)
	w := p.outsideWriteOf(fd, undo)
	if w == nil {
		return
	}
	p.outsideWrites = append(p.outsideWrites, OutsideWrite{Name: name, Pos: pos, Call: w.call, CallPos: p.fset.Position(w.pos), Via: w.via, Undo: undo})
}
