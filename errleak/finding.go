package errleak

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/atomicx/atomicx/internal/funcname"
	"golang.org/x/tools/go/ssa"
)

// A Finding is a reported path as data, for a driver that does more than
// print it: `atomicx vet -confirm` injects the opening failure and watches
// the function return where the path does. The analyzer's result
// ([Stats]) lists them in the order they were reported.
type Finding struct {
	Pos token.Pos // the acquire: the diagnostic's position
	// Func is the function the path is in, as the runtime names it
	// ("example.com/m.(*T).M", "example.com/m.F.func1").
	Func string
	// Return is the return the path reaches (the end of the function for
	// a return without a statement), and ReturnLine its line; 0 when not
	// known.
	Return     token.Pos
	ReturnLine int
	// Opening is the failure that opens the path, nil when the path has
	// none the analysis can name: the path is not confirmable.
	Opening *OpeningFailure
	// IsClosed is the resource's method that tells whether it is
	// released, from its [[leak.resource]] table; "" when none.
	IsClosed string
}

// An OpeningFailure is the call whose error the path's last error test
// finds non-nil: a fault injected there takes the path.
type OpeningFailure struct {
	Pos token.Pos // the call's opening parenthesis, where injection points are placed
	// Callee is the function called, as the runtime names it; "" for a
	// call of a function value or of an interface method.
	Callee string
}

// openingFailure finds, on a path, the last branch that compares an
// error with nil, and when the path takes its non-nil side, the call
// that returned that error.
func openingFailure(path []step) *OpeningFailure {
	for i := len(path) - 1; i >= 0; i-- {
		bin, ok := path[i].test.(*ssa.BinOp)
		if !ok || bin.Op != token.EQL && bin.Op != token.NEQ {
			continue
		}
		v := bin.X
		if isNil(v) {
			v = bin.Y
		} else if !isNil(bin.Y) {
			continue
		}
		if !isError(v.Type()) {
			continue
		}
		if nonNil := (bin.Op == token.NEQ) == path[i].cond; !nonNil {
			return nil // the last error test found no error
		}
		call := errorCall(v, bin)
		if call == nil {
			return nil
		}
		return &OpeningFailure{Pos: call.Pos(), Callee: calleeRuntimeName(call.Common())}
	}
	return nil
}

// errorCall is the call whose error result v is: directly, or loaded
// from the variable it was stored in last before the test at.
func errorCall(v ssa.Value, at ssa.Instruction) *ssa.Call {
	switch x := strip(v).(type) {
	case *ssa.Call:
		return x
	case *ssa.Extract:
		call, _ := x.Tuple.(*ssa.Call)
		return call
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return nil
		}
		b := at.Block()
		end := len(b.Instrs)
		for i, instr := range b.Instrs {
			if instr == at {
				end = i
			}
		}
		// Back through the block and its single predecessors: a store
		// further away is one of several paths, not this one's.
		for hops := 0; b != nil && hops < 32; hops++ {
			for i := end - 1; i >= 0; i-- {
				if st, ok := b.Instrs[i].(*ssa.Store); ok && st.Addr == x.X {
					return errorCall(st.Val, st)
				}
			}
			if len(b.Preds) != 1 {
				return nil
			}
			b = b.Preds[0]
			end = len(b.Instrs)
		}
	}
	return nil
}

// calleeRuntimeName names the function a call calls as the runtime does,
// "" when it is not known statically.
func calleeRuntimeName(c *ssa.CallCommon) string {
	if c.IsInvoke() {
		return ""
	}
	fn := c.StaticCallee()
	if fn == nil {
		return ""
	}
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	if obj, ok := fn.Object().(*types.Func); ok && obj.Pkg() != nil {
		return funcname.Join(obj.Pkg().Path(), funcname.Relative(obj))
	}
	return ""
}

// runtimeName names fn as the runtime does: a declared function by its
// object, a function literal by the compiler's numbering (see
// funcname.Literals). "" when neither applies.
func (c *checker) runtimeName(fn *ssa.Function) string {
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	if obj, ok := fn.Object().(*types.Func); ok && obj.Pkg() != nil {
		return funcname.Join(obj.Pkg().Path(), funcname.Relative(obj))
	}
	lit, ok := fn.Syntax().(*ast.FuncLit)
	if !ok {
		return ""
	}
	if c.literals == nil {
		c.literals = funcname.Literals(c.pass.Files, c.pass.TypesInfo)
	}
	if l, ok := c.literals[lit]; ok {
		return funcname.Join(c.pass.Pkg.Path(), l.Name)
	}
	return ""
}
