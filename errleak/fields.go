package errleak

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// A resource stored into a field of an object the function made itself
// (l := &loader{}; l.f, err = os.Open(p)) stays in the function's hands
// as long as the object does: a return that drops the object without
// releasing l.f leaks it. The object is its holder: returning the
// holder hands the resource over, and a holder that leaves the function
// (stored, passed on, captured) takes the resource with it.

// homeStores finds the stores of s's resource into a field of a local
// object that does not leave the function, records the field as one of
// s's homes (its loads join s's aliases) and the object's values as its
// holders, and returns those stores: they are no escape.
func (c *checker) homeStores(s *site) map[ssa.Instruction]bool {
	var homes map[ssa.Instruction]bool
	for v := range s.aliases {
		for _, st := range storesOf(v) {
			l := locationOf(st.Addr)
			obj, ok := l.root.(*ssa.Alloc)
			if !ok || len(l.path) == 0 {
				continue
			}
			holders, nested := holderClosure(obj)
			if c.leaves(holders, func(i ssa.Instruction) bool { return nested[i] }, false) {
				continue
			}
			if homes == nil {
				homes = make(map[ssa.Instruction]bool)
			}
			homes[st] = true
			if s.holders == nil {
				s.holders = make(map[ssa.Value]bool)
				s.homeKeys = make(map[string]bool)
			}
			for h := range holders {
				s.holders[h] = true
			}
			key := refKey(st.Addr)
			s.homeKeys["*"+key] = true
			for _, ld := range fieldLoads(obj, key) {
				for a := range aliases(ld) {
					s.aliases[a] = true
				}
			}
		}
	}
	return homes
}

// holderClosure is the values of obj and of the local objects it is
// stored in, transitively (&store{l: l} holds l), and those stores.
func holderClosure(obj *ssa.Alloc) (map[ssa.Value]bool, map[ssa.Instruction]bool) {
	set := make(map[ssa.Value]bool)
	stores := make(map[ssa.Instruction]bool)
	seen := map[*ssa.Alloc]bool{obj: true}
	work := []*ssa.Alloc{obj}
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		for v := range holderValues(a) {
			set[v] = true
			for _, st := range storesOf(v) {
				l := locationOf(st.Addr)
				if outer, ok := l.root.(*ssa.Alloc); ok && len(l.path) > 0 {
					stores[st] = true
					if !seen[outer] {
						seen[outer] = true
						work = append(work, outer)
					}
				}
			}
		}
	}
	return set, stores
}

// storesOf returns the instructions that store v somewhere.
func storesOf(v ssa.Value) []*ssa.Store {
	refs := v.Referrers()
	if refs == nil {
		return nil
	}
	var out []*ssa.Store
	for _, r := range *refs {
		if st, ok := r.(*ssa.Store); ok && st.Val == v {
			out = append(out, st)
		}
	}
	return out
}

// holderValues is a local object's address, its aliases, and the copies
// loaded from it.
func holderValues(obj *ssa.Alloc) map[ssa.Value]bool {
	set := aliases(obj)
	for _, r := range *obj.Referrers() {
		if u, ok := r.(*ssa.UnOp); ok && u.Op == token.MUL {
			for a := range aliases(u) {
				set[a] = true
			}
		}
	}
	return set
}

// fieldLoads are the loads, in obj's function, of the field that key
// names (refKey of its address).
func fieldLoads(obj *ssa.Alloc, key string) []ssa.Value {
	var out []ssa.Value
	for _, b := range obj.Parent().Blocks {
		for _, instr := range b.Instrs {
			u, ok := instr.(*ssa.UnOp)
			if ok && u.Op == token.MUL && refKey(u.X) == key {
				out = append(out, u)
			}
		}
	}
	return out
}

// returnsHolder reports whether ret returns an object s's resource is
// stored in.
func (s *site) returnsHolder(ret *ssa.Return) bool {
	for _, r := range ret.Results {
		if s.holders[strip(r)] {
			return true
		}
	}
	return false
}
