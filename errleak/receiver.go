package errleak

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A method that stores a resource into a field of its receiver and can
// then return an error with it still there leaves the resource to its
// caller: func (l *Log) load() error { l.sfile, err = os.OpenFile(…);
// …; return err }. A caller that made the object itself and drops it on
// that error (l := &Log{}; if err := l.load(); err != nil { return nil,
// err }) leaks the file; one that closes it, or keeps the object
// (returns it, stores it), does not. The method itself is no leak: the
// object is its caller's.

// LeavesInReceiver is the fact that a method can return an error with a
// resource it acquired still in a field of its receiver.
type LeavesInReceiver struct {
	Resource string
	Release  []string
	IsClosed string // the resource's Resource.IsClosed
	Field    string // the receiver's field that holds it
}

func (*LeavesInReceiver) AFact() {}

func (f *LeavesInReceiver) String() string {
	return fmt.Sprintf("leaves an open %s in field %s on an error return (release: %s)", f.Resource, f.Field, strings.Join(f.Release, " or "))
}

// receiverSummaries finds the package's methods that leave a resource in
// their receiver on an error return, and exports their facts. A method
// that calls such a method on its own receiver and returns its error
// leaves the resource too: to a fixed point (bounded: chains are short).
func (c *checker) receiverSummaries() {
	c.leftInReceiver = make(map[*ssa.Function]*LeavesInReceiver)
	for round := 0; round < 8; round++ {
		changed := false
		for _, fn := range c.funcs {
			if _, ok := fn.Object().(*types.Func); !ok || len(fn.Blocks) == 0 || c.leftInReceiver[fn] != nil {
				continue
			}
			if f := c.leftOnError(fn); f != nil {
				c.leftInReceiver[fn] = f
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for fn, f := range c.leftInReceiver {
		c.pass.ExportObjectFact(fn.Object(), f)
	}
}

// leftOnError returns the fact of fn, nil when it leaves nothing in its
// receiver: fn is a method with a pointer receiver and an error result,
// one of its resources is stored into a field of the receiver, goes
// nowhere else, and a path from the acquire reaches a return of an error
// with it not released.
func (c *checker) leftOnError(fn *ssa.Function) *LeavesInReceiver {
	sig := fn.Signature
	res := sig.Results()
	if sig.Recv() == nil || len(fn.Params) == 0 || res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return nil
	}
	if _, ok := fn.Params[0].Type().Underlying().(*types.Pointer); !ok {
		return nil
	}
	recv := fn.Params[0]
	sites := c.sites(fn)
	var kept []*site
	var fields []string
	for _, s := range sites {
		if s.field != "" || s.value == nil {
			continue
		}
		stores := make(map[ssa.Instruction]bool)
		field := ""
		for v := range s.aliases {
			for _, st := range storesOf(v) {
				if fa, ok := st.Addr.(*ssa.FieldAddr); ok && fa.X == recv {
					stores[st] = true
					field = fieldName(recv.Type(), fa.Field)
					if s.homeKeys == nil {
						s.homeKeys = make(map[string]bool)
					}
					s.homeKeys["*"+refKey(fa)] = true
				}
			}
		}
		if field == "" || c.leaves(s.aliases, func(instr ssa.Instruction) bool {
			if call, ok := instr.(ssa.CallInstruction); ok {
				return call.Common() == s.call.Common() || releases(s, call.Common())
			}
			return stores[instr]
		}, true) {
			continue
		}
		s.escapes = false
		kept = append(kept, s)
		fields = append(fields, field)
	}
	// Calls of such methods on fn's own receiver.
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			name, callee := calleeName(call.Common())
			if callee == nil || callee == fn {
				continue
			}
			f := c.receiverFact(callee)
			if f == nil {
				continue
			}
			if s := c.receiverSite(call, name, f, recv); s != nil && !s.escapes {
				kept = append(kept, s)
				fields = append(fields, f.Field)
			}
		}
	}
	if len(kept) == 0 {
		return nil
	}
	w := c.walk(fn, kept, true)
	for i, s := range kept {
		if w.leftOpen[i] {
			return &LeavesInReceiver{Resource: s.res.Name, Release: s.res.Release, IsClosed: s.res.IsClosed, Field: fields[i]}
		}
	}
	return nil
}

// receiverFact returns the LeavesInReceiver fact of callee, nil if none.
func (c *checker) receiverFact(callee *ssa.Function) *LeavesInReceiver {
	if f := c.leftInReceiver[callee]; f != nil {
		return f
	}
	obj := callee.Object()
	if obj == nil || obj.Pkg() == nil || obj.Pkg() == c.pass.Pkg {
		return nil
	}
	f := new(LeavesInReceiver)
	if !c.pass.ImportObjectFact(obj, f) {
		return nil
	}
	return f
}

// receiverSite is the site of a call of a method that leaves a resource
// in its receiver (fact f), when the receiver is an object the calling
// function made: the object holds the resource from the call on, on the
// error path too, and dropping it leaks the resource. nil when the
// receiver is not such an object (a parameter's is the caller's). With
// owner set, the receiver must be owner instead: the calling method's
// own receiver, whose fact is being found (see leftOnError).
func (c *checker) receiverSite(call *ssa.Call, name string, f *LeavesInReceiver, owner ssa.Value) *site {
	com := call.Common()
	if com.IsInvoke() || len(com.Args) == 0 {
		return nil
	}
	recv := com.Args[0]
	switch loc := locationOf(recv); {
	case len(loc.path) > 0:
		return nil
	case owner != nil:
		if loc.root != owner {
			return nil
		}
	default:
		if _, ok := loc.root.(*ssa.Alloc); !ok {
			return nil
		}
	}
	idx := fieldIndex(recv.Type(), f.Field)
	if idx < 0 {
		return nil
	}
	res := &Resource{Name: f.Resource, Release: f.Release, IsClosed: f.IsClosed}
	s := &site{c: c, call: call, callee: name, res: res, field: f.Field, value: recv}
	for _, r := range res.Release {
		s.releases = append(s.releases, parseRelease(r))
	}
	s.aliases = aliases(recv)
	key := fmt.Sprintf("%s.%d", refKey(recv), idx)
	s.homeKeys = map[string]bool{"*" + key: true}
	if obj, ok := locationOf(recv).root.(*ssa.Alloc); ok {
		for _, ld := range fieldLoads(obj, key) {
			for a := range aliases(ld) {
				s.aliases[a] = true
			}
		}
	}
	// No error result: the method's error does not say the resource was
	// not acquired, it is the path the resource is left on.
	if owner != nil {
		// The receiver is the caller's: only where else it goes counts.
		s.escapes = c.leaves(s.aliases, func(instr ssa.Instruction) bool {
			if call, ok := instr.(ssa.CallInstruction); ok {
				return call.Common() == s.call.Common() || releases(s, call.Common())
			}
			return false
		}, false)
		return s
	}
	s.escapes = escapes(s)
	return s
}

// fieldIndex is the index of the field name of the struct t points to,
// -1 if none.
func fieldIndex(t types.Type, name string) int {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if st, ok := t.Underlying().(*types.Struct); ok {
		for i := 0; i < st.NumFields(); i++ {
			if st.Field(i).Name() == name {
				return i
			}
		}
	}
	return -1
}
