package errleak

import (
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// ReleasesArgs is the fact that a function releases, on every path to
// its returns, resources its caller hands it: a helper such as
// closeQuietly(f) or a method such as failAndUnlock, which unlocks its
// receiver's mutex. A call of it releases what it is given, as a call of
// the release itself would.
type ReleasesArgs struct {
	Releases []ArgRelease
}

// An ArgRelease is one location a function releases: reached from its
// parameter Param (the receiver first) by Path, released as Release
// says (an entry of Resource.Release, such as "Close" or "Unlock").
type ArgRelease struct {
	Param   int
	Path    []int // from the parameter: loadStep for a load through a pointer, n >= 0 for field n
	Release string
}

// loadStep is the Path step of a load through a pointer.
const loadStep = -1

func (*ReleasesArgs) AFact() {}

func (f *ReleasesArgs) String() string {
	var parts []string
	for _, r := range f.Releases {
		parts = append(parts, fmt.Sprintf("%s of param %d%s", r.Release, r.Param, pathString(r.Path)))
	}
	return "releases " + strings.Join(parts, ", ")
}

func pathString(path []int) string {
	var b strings.Builder
	for _, p := range path {
		if p == loadStep {
			b.WriteString(".*")
		} else {
			b.WriteString("." + strconv.Itoa(p))
		}
	}
	return b.String()
}

// location is a memory location or value named from a root value by
// loads and field selections, as refKey names it.
type location struct {
	root ssa.Value
	path []int
}

// locationOf follows field selections and loads from v to their root.
func locationOf(v ssa.Value) location {
	v = strip(v)
	switch x := v.(type) {
	case *ssa.FieldAddr:
		l := locationOf(x.X)
		return location{l.root, append(l.path, x.Field)}
	case *ssa.Field:
		l := locationOf(x.X)
		return location{l.root, append(l.path, x.Field)}
	case *ssa.UnOp:
		if x.Op == token.MUL {
			l := locationOf(x.X)
			return location{l.root, append(l.path, loadStep)}
		}
	}
	return location{root: v}
}

// extendKey names, as refKey does, the location reached from the one
// key names by path.
func extendKey(key string, path []int) string {
	for _, p := range path {
		if p == loadStep {
			key = "*" + key
		} else {
			key = fmt.Sprintf("%s.%d", key, p)
		}
	}
	return key
}

// A released is a value a call releases, as one Release entry says.
type released struct {
	value   ssa.Value
	path    []int // beyond value: the call releases value reached by path
	release string
}

// releasedBy lists what call releases: directly, as one of the release
// entries of the resources says, or through a function whose summary
// releases an argument (a function of this package or one with a
// ReleasesArgs fact, or a closure, with its captured variables).
func (c *checker) releasedBy(call *ssa.CallCommon) []released {
	var out []released
	name, callee := calleeName(call)
	method, recv := calledMethod(call, callee)
	for k, spec := range c.releaseSpecs {
		r := c.parsedSpecs[k]
		switch {
		case r.call:
			if !call.IsInvoke() && callee == nil && closureOf(call.Value) == nil {
				out = append(out, released{value: call.Value, release: spec})
			}
		case r.fn != "":
			if name == r.fn {
				for i, a := range call.Args {
					if i == 0 && recv != nil && !call.IsInvoke() {
						continue // a method's receiver: the pool, not what goes back to it
					}
					out = append(out, released{value: a, release: spec})
				}
			}
		case method == r.method && r.field == "":
			out = append(out, released{value: recv, release: spec})
		case method == r.method:
			if x := fieldOf(strip(recv), r.field); x != nil {
				out = append(out, released{value: x, release: spec})
			}
		}
	}
	if len(out) > 0 {
		return out // a release itself: what it does inside is its own business
	}
	fn, inputs := c.summaryInputs(call)
	if fn != nil {
		for _, ar := range c.argReleases(fn) {
			if ar.Param < len(inputs) {
				out = append(out, released{value: inputs[ar.Param], path: ar.Path, release: ar.Release})
			}
		}
	}
	return out
}

// summaryInputs is the function call runs whose summary applies, and the
// values its parameters, then its free variables, are bound to.
func (c *checker) summaryInputs(call *ssa.CallCommon) (*ssa.Function, []ssa.Value) {
	if call.IsInvoke() {
		return nil, nil
	}
	if mc := closureOf(call.Value); mc != nil {
		fn := mc.Fn.(*ssa.Function)
		inputs := append([]ssa.Value(nil), call.Args...)
		for _, b := range mc.Bindings {
			inputs = append(inputs, capturedAs(call.Value, mc, b))
		}
		return fn, inputs
	}
	fn := call.StaticCallee()
	if fn == nil {
		return nil, nil
	}
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	return fn, call.Args
}

// closureOf is the closure v is: made here, or loaded from a variable it
// is the only value ever stored to (a local function captured by another
// closure lives in such a variable, which that closure reaches through a
// free variable).
func closureOf(v ssa.Value) *ssa.MakeClosure {
	switch x := v.(type) {
	case *ssa.MakeClosure:
		return x
	case *ssa.UnOp:
		if x.Op == token.MUL {
			return storedClosure(x.X)
		}
	}
	return nil
}

// storedClosure is the one closure ever stored to the variable addr.
func storedClosure(addr ssa.Value) *ssa.MakeClosure {
	switch a := addr.(type) {
	case *ssa.FreeVar:
		if b := bindingOf(a); b != nil {
			return storedClosure(b)
		}
	case *ssa.Alloc:
		var mc *ssa.MakeClosure
		for _, r := range *a.Referrers() {
			st, ok := r.(*ssa.Store)
			if !ok || st.Addr != a {
				continue
			}
			m, ok := st.Val.(*ssa.MakeClosure)
			if !ok || mc != nil {
				return nil
			}
			mc = m
		}
		return mc
	}
	return nil
}

// bindingOf is the value fv is bound to where its closure is made, when
// the closure is made at one place.
func bindingOf(fv *ssa.FreeVar) ssa.Value {
	fn := fv.Parent()
	outer := fn.Parent()
	if outer == nil {
		return nil
	}
	idx := -1
	for i, f := range fn.FreeVars {
		if f == fv {
			idx = i
		}
	}
	var bound ssa.Value
	for _, b := range outer.Blocks {
		for _, instr := range b.Instrs {
			mc, ok := instr.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn || idx < 0 || idx >= len(mc.Bindings) {
				continue
			}
			if bound != nil {
				return nil
			}
			bound = mc.Bindings[idx]
		}
	}
	return bound
}

// capturedAs is b, a binding of mc, as the function that calls the
// closure through v sees it: when that function reached mc through one of
// its free variables, b belongs to the function that made mc, and is
// seen here as the free variable bound to it, if there is one.
func capturedAs(v ssa.Value, mc *ssa.MakeClosure, b ssa.Value) ssa.Value {
	u, ok := v.(*ssa.UnOp)
	if !ok {
		return b
	}
	fv, ok := u.X.(*ssa.FreeVar)
	if !ok || fv.Parent() == mc.Parent() {
		return b
	}
	for _, f := range fv.Parent().FreeVars {
		if bindingOf(f) == b {
			return f
		}
	}
	return b
}

// argReleases is the summary of fn: the locations reached from its
// parameters and free variables that it releases on every path to a
// return, and that it does not acquire itself (a method that locks and
// unlocks its receiver's mutex releases nothing of its caller's).
func (c *checker) argReleases(fn *ssa.Function) []ArgRelease {
	if got, ok := c.argSummaries[fn]; ok {
		return got
	}
	obj := fn.Object()
	if fn.Pkg == nil || obj == nil && fn.Parent() == nil || obj != nil && obj.Pkg() != c.pass.Pkg {
		var f ReleasesArgs
		if obj != nil && obj.Pkg() != nil && obj.Pkg() != c.pass.Pkg && c.pass.ImportObjectFact(obj, &f) {
			c.argSummaries[fn] = f.Releases
			return f.Releases
		}
		c.argSummaries[fn] = nil
		return nil
	}
	c.argSummaries[fn] = nil // a recursive call releases nothing more
	if len(fn.Blocks) == 0 || len(fn.Params) == 0 && len(fn.FreeVars) == 0 {
		return nil
	}
	inputs := make(map[ssa.Value]int)
	for i, p := range fn.Params {
		inputs[p] = i
	}
	for i, fv := range fn.FreeVars {
		inputs[fv] = len(fn.Params) + i
	}

	// The candidates: every location rooted at an input that some
	// instruction releases, with the blocks where it does.
	type candidate struct {
		rel    ArgRelease
		blocks map[*ssa.BasicBlock]bool
	}
	cands := make(map[string]*candidate)
	acquired := make(map[string]bool)
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			com := call.Common()
			if ac, isCall := instr.(*ssa.Call); isCall {
				if name, _ := calleeName(com); c.acquires[name] != nil {
					if v, _ := resourceValue(ac, c.acquires[name].value); v != nil {
						l := locationOf(v)
						if i, ok := inputs[l.root]; ok {
							acquired[strconv.Itoa(i)+pathString(l.path)] = true
						}
					}
				}
			}
			for _, r := range c.releasedBy(com) {
				l := locationOf(r.value)
				i, ok := inputs[l.root]
				if !ok {
					continue
				}
				path := append(append([]int(nil), l.path...), r.path...)
				key := strconv.Itoa(i) + pathString(path) + " " + r.release
				cd := cands[key]
				if cd == nil {
					cd = &candidate{rel: ArgRelease{Param: i, Path: path, Release: r.release}, blocks: make(map[*ssa.BasicBlock]bool)}
					cands[key] = cd
				}
				cd.blocks[b] = true
			}
		}
	}
	var out []ArgRelease
	for _, k := range slices.Sorted(maps.Keys(cands)) {
		cd := cands[k]
		if overlaps(acquired, strconv.Itoa(cd.rel.Param)+pathString(cd.rel.Path)) {
			continue
		}
		if releasedOnEveryPath(fn, cd.blocks, cd.rel, inputs) {
			out = append(out, cd.rel)
		}
	}
	c.argSummaries[fn] = out
	return out
}

// releasedOnEveryPath reports whether every path from fn's entry to a
// return goes through one of the releasing blocks. A path on which the
// released value (a parameter itself) is found nil needs no release.
func releasedOnEveryPath(fn *ssa.Function, releasing map[*ssa.BasicBlock]bool, rel ArgRelease, inputs map[ssa.Value]int) bool {
	seen := make(map[*ssa.BasicBlock]bool)
	work := []*ssa.BasicBlock{fn.Blocks[0]}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[b] || releasing[b] {
			continue
		}
		seen[b] = true
		switch last := b.Instrs[len(b.Instrs)-1].(type) {
		case *ssa.Return:
			return false
		case *ssa.If:
			if k, nilOn := nilTestOf(last.Cond, rel, inputs); k {
				work = append(work, b.Succs[1-nilOn])
				continue
			}
		}
		work = append(work, b.Succs...)
	}
	return true
}

// nilTestOf reports whether cond compares the released parameter with
// nil, and which successor (0 or 1) is taken when it is nil.
func nilTestOf(cond ssa.Value, rel ArgRelease, inputs map[ssa.Value]int) (bool, int) {
	bin, ok := cond.(*ssa.BinOp)
	if !ok || len(rel.Path) != 0 || (bin.Op != token.EQL && bin.Op != token.NEQ) {
		return false, 0
	}
	v := bin.X
	if isNil(v) {
		v = bin.Y
	} else if !isNil(bin.Y) {
		return false, 0
	}
	if i, ok := inputs[strip(v)]; !ok || i != rel.Param {
		return false, 0
	}
	if bin.Op == token.EQL {
		return true, 0
	}
	return true, 1
}

// releasesThrough reports whether call releases s's resource through a
// function's summary, or through a release whose value is reached by a
// path (a closure's captured variable).
func (c *checker) releasesThrough(s *site, call *ssa.CallCommon) bool {
	fn, inputs := c.summaryInputs(call)
	if fn == nil {
		return false
	}
	for _, ar := range c.argReleases(fn) {
		if ar.Param >= len(inputs) || !s.releasedAs(ar.Release) {
			continue
		}
		in := strip(inputs[ar.Param])
		switch {
		case len(ar.Path) == 0 && sameRef(in, s):
			return true
		case len(ar.Path) == 1 && ar.Path[0] == loadStep && s.aliases[in]:
			return true // a variable the resource is stored in
		case s.value != nil && extendKey(refKey(in), ar.Path) == refKey(strip(s.value)):
			return true
		case s.homeKeys[extendKey(refKey(in), ar.Path)]:
			return true // a field of a local object, released by its method
		}
	}
	return false
}

// releasedAs reports whether spec is one of s's releases.
func (s *site) releasedAs(spec string) bool {
	for _, r := range s.res.Release {
		if r == spec {
			return true
		}
	}
	return false
}

// overlaps reports whether a location in set contains loc or lies in it.
func overlaps(set map[string]bool, loc string) bool {
	for l := range set {
		if l == loc || strings.HasPrefix(loc, l+".") || strings.HasPrefix(l, loc+".") {
			return true
		}
	}
	return false
}

// handedOver reports whether s may be a lock fn hands to its caller: a
// resource named by its receiver (a lock), on a field of an object fn's
// caller can reach, that another function of the package releases.
func (c *checker) handedOver(fn *ssa.Function, s *site) bool {
	if s.res.value != "recv" || s.value == nil {
		return false
	}
	fa, ok := strip(s.value).(*ssa.FieldAddr)
	if !ok {
		return false
	}
	switch locationOf(fa).root.(type) {
	case *ssa.Parameter, *ssa.FreeVar, *ssa.Global:
	default:
		return false
	}
	if c.fieldRelease == nil {
		c.fieldRelease = make(map[string]map[*ssa.Function]bool)
		for _, f := range c.funcs {
			for _, b := range f.Blocks {
				for _, instr := range b.Instrs {
					call, ok := instr.(ssa.CallInstruction)
					if !ok {
						continue
					}
					for _, r := range c.releasedBy(call.Common()) {
						if x, ok := strip(r.value).(*ssa.FieldAddr); ok && len(r.path) == 0 {
							k := fieldKey(x) + " " + r.release
							if c.fieldRelease[k] == nil {
								c.fieldRelease[k] = make(map[*ssa.Function]bool)
							}
							c.fieldRelease[k][f] = true
						}
					}
				}
			}
		}
	}
	for _, spec := range s.res.Release {
		for f := range c.fieldRelease[fieldKey(fa)+" "+spec] {
			if f != fn {
				return true
			}
		}
	}
	return false
}

// fieldKey names a field of a struct type.
func fieldKey(fa *ssa.FieldAddr) string {
	return fmt.Sprintf("%s#%d", fa.X.Type(), fa.Field)
}
