package errleak

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Ownership is the fact that says, for each parameter of a function that
// can hold a resource (a pointer, an interface or a channel; a receiver
// is not classified: calling a method is using the resource), whether the function releases it, keeps it (stores,
// sends, captures or returns it, or hands it to a function that does) or
// only borrows it (reads it, calls its methods, hands it to borrowers).
// Passing a resource to a borrower is no escape: parse(f), with
// parse(r io.Reader) only reading r, leaves f the caller's to release.
type Ownership struct {
	Params []ParamUse // by parameter; "" for one that cannot hold a resource
}

// A ParamUse is what a function does with a parameter.
type ParamUse string

const (
	ParamBorrowed ParamUse = "borrows"
	ParamKept     ParamUse = "keeps"
	ParamReleased ParamUse = "releases"
)

func (*Ownership) AFact() {}

func (f *Ownership) String() string {
	var parts []string
	for i, u := range f.Params {
		if u != "" {
			parts = append(parts, fmt.Sprintf("%s param %d", u, i))
		}
	}
	return strings.Join(parts, ", ")
}

// wrappers are standard library functions that wrap a reader, writer or
// connection without taking it over: closing the wrapper, when it has a
// Close, does not close what it wraps. The wrapped resource escapes only
// where the wrapper does.
var wrappers = map[string]bool{
	"bufio.NewReader": true, "bufio.NewReaderSize": true, "bufio.NewWriter": true,
	"bufio.NewWriterSize": true, "bufio.NewScanner": true, "bufio.NewReadWriter": true,
	"io.LimitReader": true, "io.TeeReader": true, "io.NewSectionReader": true,
	"io.MultiReader": true, "io.MultiWriter": true, "io.NopCloser": true,
	"io.NewOffsetWriter":      true,
	"compress/gzip.NewReader": true, "compress/gzip.NewWriter": true, "compress/gzip.NewWriterLevel": true,
	"compress/zlib.NewReader": true, "compress/zlib.NewReaderDict": true,
	"compress/zlib.NewWriter": true, "compress/zlib.NewWriterLevel": true,
	"compress/flate.NewReader": true, "compress/flate.NewWriter": true,
	"compress/bzip2.NewReader": true, "compress/lzw.NewReader": true, "compress/lzw.NewWriter": true,
	"archive/tar.NewReader": true, "archive/tar.NewWriter": true,
	"archive/zip.NewReader": true, "archive/zip.NewWriter": true,
	"encoding/csv.NewReader": true, "encoding/csv.NewWriter": true,
	"encoding/json.NewDecoder": true, "encoding/json.NewEncoder": true,
	"encoding/xml.NewDecoder": true, "encoding/xml.NewEncoder": true,
	"encoding/gob.NewDecoder": true, "encoding/gob.NewEncoder": true,
	"encoding/base64.NewDecoder": true, "encoding/base64.NewEncoder": true,
	"encoding/base32.NewDecoder": true, "encoding/base32.NewEncoder": true,
	"encoding/hex.NewDecoder": true, "encoding/hex.NewEncoder": true,
	"encoding/pem.Encode":     true,
	"net/textproto.NewReader": true, "net/textproto.NewWriter": true,
}

// leaves reports whether a value, through any of its aliases (set), leaves
// the function's hands: stored beyond a local variable, sent, captured by
// a closure that is not only deferred, put in a map, started in a
// goroutine, returned (when returns is true), or passed to a function
// that keeps it. Instructions that exempt accepts are not looked at.
func (c *checker) leaves(set map[ssa.Value]bool, exempt func(ssa.Instruction) bool, returns bool) bool {
	for v := range set {
		refs := v.Referrers()
		if refs == nil {
			continue
		}
		for _, r := range *refs {
			if exempt != nil && exempt(r) {
				continue
			}
			switch r := r.(type) {
			case *ssa.Store:
				if a, ok := r.Addr.(*ssa.Alloc); r.Val == v && (!ok || !localOnly(a)) {
					return true
				}
			case *ssa.MakeClosure:
				if !onlyDeferred(r) {
					return true
				}
			case *ssa.MapUpdate, *ssa.Send, *ssa.Go:
				return true
			case *ssa.Return:
				if returns {
					return true
				}
			case ssa.CallInstruction:
				if c.passesOn(r, v) {
					return true
				}
			}
		}
	}
	return false
}

// passesOn reports whether call hands v, as an argument, to a function
// that may keep it: not a builtin, a borrower, a wrapper whose result
// stays in the function's hands, nor a function whose Ownership says it
// borrows that parameter. The receiver of a method is not handed over.
func (c *checker) passesOn(instr ssa.CallInstruction, v ssa.Value) bool {
	call := instr.Common()
	if _, ok := call.Value.(*ssa.Builtin); ok {
		return false
	}
	name, callee := calleeName(call)
	if borrowers[name] {
		return false
	}
	for i, a := range call.Args {
		if a != v {
			continue
		}
		if i == 0 && !call.IsInvoke() && call.Signature().Recv() != nil {
			continue // the receiver of a method
		}
		if wrappers[name] {
			if res, ok := instr.(*ssa.Call); ok && !c.leaves(aliases(wrapperOf(res)), nil, true) {
				continue
			}
			return true
		}
		if callee == nil {
			if mc := closureOf(call.Value); mc != nil {
				callee = mc.Fn.(*ssa.Function)
			}
		}
		if c.paramUse(callee, i) == ParamBorrowed {
			continue
		}
		return true
	}
	return false
}

// wrapperOf is the wrapper a wrapping call returns: its first result.
func wrapperOf(call *ssa.Call) ssa.Value {
	if call.Type() == nil {
		return nil
	}
	if _, ok := call.Type().(*types.Tuple); !ok {
		return call
	}
	for _, r := range *call.Referrers() {
		if e, ok := r.(*ssa.Extract); ok && e.Index == 0 {
			return e
		}
	}
	return nil
}

// paramUse is what fn does with its parameter i: from its Ownership fact
// for a function of another package, computed here for one of this
// package (a call back into a function being computed keeps).
func (c *checker) paramUse(fn *ssa.Function, i int) ParamUse {
	if fn == nil {
		return ParamKept
	}
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	if uses, ok := c.ownership[fn]; ok {
		if uses == nil || i >= len(uses) {
			return ParamKept // being computed, or not known
		}
		return uses[i]
	}
	obj := fn.Object()
	if obj != nil && obj.Pkg() != c.pass.Pkg || fn.Pkg == nil || len(fn.Blocks) == 0 {
		var f Ownership
		if obj != nil && obj.Pkg() != nil && obj.Pkg() != c.pass.Pkg && c.pass.ImportObjectFact(obj, &f) && i < len(f.Params) {
			return f.Params[i]
		}
		return ParamKept
	}
	c.ownership[fn] = nil
	uses := c.paramUses(fn)
	c.ownership[fn] = uses
	if i >= len(uses) {
		return ParamKept
	}
	return uses[i]
}

// paramUses classifies the parameters of fn, a function of this package.
func (c *checker) paramUses(fn *ssa.Function) []ParamUse {
	uses := make([]ParamUse, len(fn.Params))
	released := make(map[ssa.Value]bool)
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			for _, r := range c.releasedBy(call.Common()) {
				if l := locationOf(r.value); len(l.path) == 0 && len(r.path) == 0 {
					released[l.root] = true
				}
			}
		}
	}
	for i, p := range fn.Params {
		switch {
		case i == 0 && fn.Signature.Recv() != nil:
			// A receiver is never handed over: a method called on a
			// resource is a use of it.
		case !canHold(p.Type()):
		case released[p]:
			uses[i] = ParamReleased
		case c.leaves(aliases(p), nil, true):
			uses[i] = ParamKept
		default:
			uses[i] = ParamBorrowed
		}
	}
	return uses
}

// canHold reports whether a value of type t can be a resource: a
// pointer, an interface or a channel.
func canHold(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface, *types.Chan:
		return true
	}
	return false
}

// exportOwnership exports the Ownership of the package's functions that
// borrow a parameter (one that releases it has a ReleasesArgs fact too,
// and one that keeps everything needs none: keeping is what a function
// without a fact is taken to do).
func (c *checker) exportOwnership() {
	for _, fn := range c.funcs {
		obj, ok := fn.Object().(*types.Func)
		if !ok || fn.Origin() != nil {
			continue
		}
		c.paramUse(fn, 0)
		uses := c.ownership[fn]
		for _, u := range uses {
			if u == ParamBorrowed {
				c.pass.ExportObjectFact(obj, &Ownership{Params: uses})
				break
			}
		}
	}
}
