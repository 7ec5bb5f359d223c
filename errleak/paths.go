package errleak

import (
	"fmt"
	"go/token"
	"go/version"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

// Obligation states, one byte per site: the low bits count the open
// acquisitions (0, 1, or 2 for "more than one"), nilBit says that the
// resource was found nil on the path, deferBit that a deferred call will
// release it at the return, whatever is acquired after the defer.
const (
	countMask = 3
	nilBit    = 4
	deferBit  = 8
	// borrowBit: the path released the resource before acquiring it, as
	// a function does that lets go of its caller's lock for a while.
	borrowBit = 16
	// acquiredBit: the path acquired the resource.
	acquiredBit = 32
)

// A step is a branch taken on a path.
type step struct {
	pos  token.Pos
	cond bool      // the condition held
	test ssa.Value // the condition
}

type pathState struct {
	open  []byte // by site index
	path  []step
	since []int // by site index: len(path) at its last acquire
}

// check walks the paths of fn and reports the returns reached with an
// obligation open.
func (c *checker) check(fn *ssa.Function) {
	if len(fn.Blocks) == 0 {
		return
	}
	sites := c.sites(fn)
	if len(sites) == 0 {
		return
	}
	c.walk(fn, sites, false).heldForCaller()
}

// walk walks the paths of fn for sites. In summary mode it reports and
// counts nothing: it notes, in leftOpen, the sites open at a return of an
// error (see leftOnError).
func (c *checker) walk(fn *ssa.Function, sites []*site, summary bool) *walk {
	bySite := make(map[*ssa.Call]int, len(sites))
	for i, s := range sites {
		bySite[s.call] = i
	}
	w := &walk{c: c, fn: fn, sites: sites, bySite: bySite,
		seen:     make([]map[string]bool, len(fn.Blocks)),
		reported: make(map[int]bool),
		held:     make(map[int][]heldReturn),
		freedOK:  make(map[int]bool),
		protocol: make(map[int]bool),
		counted:  make(map[string]bool),
		conds:    correlated(fn),
		collects: version.Compare(c.goVersion(fn), "go1.23") >= 0,
		summary:  summary,
		leftOpen: make(map[int]bool),
	}
	for i, s := range sites {
		w.protocol[i] = c.handedOver(fn, s)
	}
	if !summary {
		c.deferInLoops(fn, sites)
	}
	// The state holds one byte per site, then one per correlated
	// condition: 0 not seen yet, 1 held, 2 did not.
	w.push(fn.Blocks[0], &pathState{open: make([]byte, len(sites)+len(w.conds)), since: make([]int, len(sites))})
	for len(w.queue) > 0 {
		item := w.queue[0]
		w.queue = w.queue[1:]
		w.block(item.b, item.st)
	}
	return w
}

type walk struct {
	c        *checker
	fn       *ssa.Function
	sites    []*site
	bySite   map[*ssa.Call]int
	seen     []map[string]bool // by block index: the states queued
	queue    []queued
	collects bool            // Go 1.23 or later: unreferenced timers are collected
	reported map[int]bool    // sites already reported
	counted  map[string]bool // filter, site, exit: counted once
	conds    map[string]int  // correlated conditions: index after the sites

	// Locks on the caller's objects still held at a successful return,
	// reported at the end unless the function holds them at every
	// successful return (see heldForCaller).
	held     map[int][]heldReturn
	freedOK  map[int]bool // released before some successful return
	protocol map[int]bool // by site: a lock a function may hand to its caller

	summary  bool         // see checker.walk
	leftOpen map[int]bool // summary mode: sites open at a return of an error
}

type heldReturn struct {
	path []step
	r    *ssa.Return
}

type queued struct {
	b  *ssa.BasicBlock
	st *pathState
}

func (w *walk) push(b *ssa.BasicBlock, st *pathState) {
	seen := w.seen[b.Index]
	if seen == nil {
		seen = make(map[string]bool)
		w.seen[b.Index] = seen
	}
	key := string(st.open)
	if seen[key] {
		return
	}
	if len(seen) >= maxStates {
		w.count(FilterStateCap, -1, b.Index)
		return
	}
	seen[key] = true
	w.queue = append(w.queue, queued{b, st})
}

func (w *walk) block(b *ssa.BasicBlock, in *pathState) {
	open := append([]byte(nil), in.open...)
	since := in.since
	for _, instr := range b.Instrs {
		switch instr := instr.(type) {
		case *ssa.Call:
			name, _ := calleeName(instr.Common())
			if noReturn[name] {
				w.exit(open, FilterExit, instr.Pos())
				return
			}
			for i, s := range w.sites {
				if releases(s, instr.Common()) {
					if open[i]&countMask == 0 && open[i]&deferBit == 0 {
						open[i] |= borrowBit
					}
					open[i] &= deferBit | borrowBit | acquiredBit
				}
			}
			if i, ok := w.bySite[instr]; ok {
				open[i] = open[i]&(deferBit|borrowBit|acquiredBit) | min(open[i]&countMask+1, 2)
				if w.protocol[i] {
					open[i] |= acquiredBit // kept only where it is needed: it splits states
				}
				since = append([]int(nil), since...)
				since[i] = len(in.path)
			}
		case *ssa.Go:
			// A goroutine that releases the resource takes it over.
			for i, s := range w.sites {
				if releases(s, instr.Common()) {
					open[i] &= deferBit | borrowBit | acquiredBit
				}
			}
		case *ssa.Defer:
			for i, s := range w.sites {
				if deferReleases(s, instr) {
					open[i] |= deferBit
				}
			}
		case *ssa.Panic:
			if reportPanics && !w.summary {
				w.panicked(open, in.path, since, instr)
			}
			return
		case *ssa.Return:
			w.ret(open, in.path, since, instr)
			return
		}
	}
	last := b.Instrs[len(b.Instrs)-1]
	iff, ok := last.(*ssa.If)
	if !ok {
		for _, succ := range b.Succs {
			w.push(succ, &pathState{open: open, path: in.path, since: since})
		}
		return
	}
	ci, correlated := w.conds[condKey(iff.Cond)]
	for k, succ := range b.Succs {
		holds := k == 0
		next := w.refine(append([]byte(nil), open...), iff.Cond, holds)
		if correlated {
			outcome := byte(2 - k)
			if seen := open[len(w.sites)+ci]; seen != 0 && seen != outcome {
				continue // the same condition went the other way before
			}
			next[len(w.sites)+ci] = outcome
		}
		path := in.path
		if pos := iff.Cond.Pos(); pos.IsValid() {
			path = append(path[:len(path):len(path)], step{pos: pos, cond: holds, test: iff.Cond})
		}
		w.push(succ, &pathState{open: next, path: path, since: since})
	}
}

// condKey names a condition by the location it reads, for a load of a
// field or variable or its comparison with a constant: "" otherwise.
func condKey(cond ssa.Value) string {
	switch c := cond.(type) {
	case *ssa.UnOp:
		if c.Op == token.MUL {
			return refKey(c)
		}
	case *ssa.BinOp:
		if k, ok := c.Y.(*ssa.Const); ok {
			if x := condKey(c.X); x != "" {
				return x + c.Op.String() + k.String()
			}
		}
	}
	return ""
}

// correlated finds the conditions that a function tests more than once,
// on a location it never writes: "if s.locking { mu.Lock() } ...
// if s.locking { mu.Unlock() }" takes both branches the same way.
func correlated(fn *ssa.Function) map[string]int {
	count := make(map[string]int)
	written := make(map[string]bool)
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch instr := instr.(type) {
			case *ssa.If:
				if k := condKey(instr.Cond); k != "" {
					count[k]++
				}
			case *ssa.Store:
				written["*"+refKey(instr.Addr)] = true
			}
		}
	}
	conds := make(map[string]int)
	keys := make([]string, 0, len(count))
	for k, n := range count {
		if n > 1 && !writtenBy(k, written) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i == 8 {
			break // bound the states
		}
		conds[k] = i
	}
	return conds
}

// writtenBy reports whether a condition reads a location that is written.
func writtenBy(cond string, written map[string]bool) bool {
	for w := range written {
		if strings.HasPrefix(cond, w) {
			return true
		}
	}
	return false
}

// refine applies what a branch on cond tells: an acquiring call's error
// found non-nil means it acquired nothing; a resource found nil needs no
// release.
func (w *walk) refine(open []byte, cond ssa.Value, holds bool) []byte {
	bin, ok := cond.(*ssa.BinOp)
	if !ok || (bin.Op != token.EQL && bin.Op != token.NEQ) {
		return open
	}
	v := bin.X
	if isNil(v) {
		v = bin.Y
	} else if !isNil(bin.Y) {
		return open
	}
	isNilHere := holds == (bin.Op == token.EQL)
	for i, s := range w.sites {
		switch {
		case isErrOf(v, s):
			if !isNilHere && open[i]&countMask > 0 {
				open[i]--
			}
		case sameRef(v, s):
			if isNilHere && open[i]&countMask > 0 {
				open[i] |= nilBit
			}
		}
	}
	return open
}

func isNil(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// exit counts the obligations open where a path ends without a return.
func (w *walk) exit(open []byte, filter string, pos token.Pos) {
	for i := range w.sites {
		if open[i]&countMask > 0 && open[i]&deferBit == 0 {
			w.count(filter, i, int(pos))
		}
	}
}

func (w *walk) count(filter string, site, where int) {
	if w.summary {
		return
	}
	key := fmt.Sprintf("%s/%d/%d", filter, site, where)
	if !w.counted[key] {
		w.counted[key] = true
		w.c.stats.Removed[filter]++
	}
}

// ret reports the obligations open at a return, with the branches taken
// since the acquire, or counts the filter that removes each.
func (w *walk) ret(open []byte, path []step, since []int, r *ssa.Return) {
	success := successful(w.fn, r)
	if w.summary {
		for i := range w.sites {
			if !success && open[i]&countMask > 0 && open[i]&(deferBit|nilBit|borrowBit) == 0 {
				w.leftOpen[i] = true
			}
		}
		return
	}
	for i, s := range w.sites {
		if open[i]&countMask == 0 || open[i]&deferBit != 0 {
			if success && open[i]&acquiredBit != 0 {
				w.freedOK[i] = true
			}
			continue
		}
		switch {
		case success && s.res.errorPaths:
			continue
		case open[i]&nilBit != 0:
			w.count(FilterNilCheck, i, int(r.Pos()))
		case open[i]&borrowBit != 0:
			w.count(FilterBorrowed, i, int(r.Pos()))
		case s.escapes:
			w.count(FilterEscape, i, int(r.Pos()))
		case returnedAt(s, r) >= 0 || s.returnsHolder(r):
			w.count(FilterReturned, i, int(r.Pos()))
		case s.res.collected && w.collects:
			w.count(FilterCollected, i, int(r.Pos()))
		case w.c.suppressed(s.call.Pos()):
			w.count(FilterSuppressed, i, int(r.Pos()))
		case success && w.protocol[i]:
			w.held[i] = append(w.held[i], heldReturn{path[since[i]:], r})
		case !w.reported[i]:
			w.reported[i] = true
			w.report(s, path[since[i]:], r)
		}
	}
}

// panicked reports the locks held where a path panics (with -panics):
// a caller that recovers goes on with the lock taken, and the next Lock
// blocks forever.
func (w *walk) panicked(open []byte, path []step, since []int, p *ssa.Panic) {
	for i, s := range w.sites {
		if !s.res.lock || open[i]&countMask == 0 || open[i]&(deferBit|nilBit|borrowBit) != 0 || w.reported[i] {
			continue
		}
		if w.c.suppressed(s.call.Pos()) {
			w.count(FilterSuppressed, i, int(p.Pos()))
			continue
		}
		w.reported[i] = true
		w.report(s, path[since[i]:], p)
	}
}

// report reports s open at end, a return or (with -panics) a panic.
func (w *walk) report(s *site, path []step, end ssa.Instruction) {
	fset := w.c.pass.Fset
	what, where := "return", "at the end of the function"
	if _, ok := end.(*ssa.Panic); ok {
		what = "panic"
	}
	retPos := end.Pos()
	if retPos.IsValid() {
		where = fmt.Sprintf("at line %d", fset.Position(retPos).Line)
	} else if syn := w.fn.Syntax(); syn != nil {
		retPos = syn.End() - 1
	}
	var related []analysis.RelatedInformation
	var branches []string
	for _, st := range path {
		taken := "false"
		if st.cond {
			taken = "true"
		}
		line := fset.Position(st.pos).Line
		branches = append(branches, fmt.Sprintf("%d (%s)", line, taken))
		related = append(related, analysis.RelatedInformation{Pos: st.pos, Message: "condition " + taken})
	}
	if retPos.IsValid() {
		related = append(related, analysis.RelatedInformation{Pos: retPos, Message: fmt.Sprintf("%ss with the %s open", what, s.res.Name)})
	}
	msg := fmt.Sprintf("%s from %s is not released (%s) on the path to the %s %s", s.res.Name, shortName(s.callee), strings.Join(s.res.Release, " or "), what, where)
	if s.field != "" {
		msg = fmt.Sprintf("%s left in field %s by %s on its error is not released (%s) on the path to the %s %s", s.res.Name, s.field, shortName(s.callee), strings.Join(s.res.Release, " or "), what, where)
	}
	if len(branches) > 0 {
		msg += "; branches at lines " + strings.Join(branches, ", ")
	}
	w.c.stats.Reported++
	w.c.pass.Report(analysis.Diagnostic{Pos: s.call.Pos(), Message: msg, Related: related})
	f := Finding{Pos: s.call.Pos(), Func: w.c.runtimeName(w.fn), Return: retPos, IsClosed: s.res.IsClosed}
	if what == "return" {
		f.Opening = openingFailure(path) // a panic path is not confirmed: the runtime probes at returns
	}
	if retPos.IsValid() {
		f.ReturnLine = fset.Position(retPos).Line
	}
	w.c.stats.Findings = append(w.c.stats.Findings, f)
}

// shortName drops the directories of the import path in a full name:
// "(*net/http.Client).Do" becomes "(*http.Client).Do".
func shortName(full string) string {
	dot := strings.LastIndex(full, ".")
	if dot < 0 {
		return full
	}
	head, tail := full[:dot], full[dot:]
	if i := strings.LastIndex(head, "/"); i >= 0 {
		j := strings.LastIndexAny(head[:i], "(*") + 1
		head = head[:j] + head[i+1:]
	}
	return head + tail
}

// deferInLoops reports deferred releases inside a loop: they run when the
// function returns, not at the end of each iteration.
func (c *checker) deferInLoops(fn *ssa.Function, sites []*site) {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			d, ok := instr.(*ssa.Defer)
			if !ok {
				continue
			}
			for _, s := range sites {
				if !releases(s, d.Common()) || !inCycle(b) {
					continue
				}
				if c.suppressed(d.Pos()) {
					c.stats.Removed[FilterSuppressed]++
					break
				}
				c.stats.Reported++
				c.pass.Report(analysis.Diagnostic{Pos: d.Pos(), Message: fmt.Sprintf(
					"deferred release of the %s from %s in a loop runs only when the function returns, not at the end of each iteration",
					s.res.Name, shortName(s.callee))})
				break
			}
		}
	}
}

// inCycle reports whether b can reach itself.
func inCycle(b *ssa.BasicBlock) bool {
	seen := make(map[*ssa.BasicBlock]bool)
	work := append([]*ssa.BasicBlock(nil), b.Succs...)
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if x == b {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		work = append(work, x.Succs...)
	}
	return false
}

// goVersion is the Go version fn is written for: its module's, or its
// file's when the file says less (a //go:build line) or the module is
// unknown; "" when neither is known. Since Go 1.23 a timer or ticker that
// nothing references is garbage collected, stopped or not, in programs
// whose main module says go 1.23 or later, and a module that says so can
// only be built into such programs.
func (c *checker) goVersion(fn *ssa.Function) string {
	pos := fn.Pos()
	for p := fn.Parent(); p != nil; p = p.Parent() {
		pos = p.Pos()
	}
	file := ""
	for _, f := range c.pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			file = c.pass.TypesInfo.FileVersions[f]
		}
	}
	mod := c.pass.Pkg.GoVersion()
	if mod == "" || file != "" && version.Compare(file, mod) < 0 {
		return file
	}
	return mod
}

// successful reports whether r returns success: a nil error as the last
// result, or anything from a function without an error result.
func successful(fn *ssa.Function, r *ssa.Return) bool {
	res := fn.Signature.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return true
	}
	return isNil(strip(storedBefore(r, r.Results[len(r.Results)-1])))
}

// storedBefore is v, or when v loads a result variable (as a function
// with defers returns), the value stored there last before r in its block.
func storedBefore(r *ssa.Return, v ssa.Value) ssa.Value {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return v
	}
	instrs := r.Block().Instrs
	for i := len(instrs) - 1; i >= 0; i-- {
		if st, ok := instrs[i].(*ssa.Store); ok && st.Addr == u.X {
			return st.Val
		}
	}
	return v
}

// heldForCaller decides on the locks held at successful returns: a
// function that holds a lock of its caller's object at every successful
// return, and whose package releases it elsewhere, hands it to its
// caller on purpose (a transaction that keeps the database locked until
// it ends): counted, not reported. Otherwise the first such return is
// reported.
func (w *walk) heldForCaller() {
	for i := range w.sites {
		held := w.held[i]
		if len(held) == 0 || w.reported[i] {
			continue
		}
		if w.freedOK[i] {
			w.reported[i] = true
			w.report(w.sites[i], held[0].path, held[0].r)
			continue
		}
		for _, h := range held {
			w.count(FilterHeld, i, int(h.r.Pos()))
		}
	}
}
