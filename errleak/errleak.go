package errleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// Analyzer reports resources left open on a path to a return.
var Analyzer = &analysis.Analyzer{
	Name: "errleak",
	Doc: `report resources not released on an error path

errleak follows each resource a function acquires (files, connections,
HTTP response bodies, database/sql rows, statements and transactions,
context cancel functions, locks, tickers and timers, started commands,
signal notifications, compressed readers, and the [[leak.resource]]
tables of atomicheck.toml) along every path of the function, and reports
a return reached while the resource is still open, with the branches taken.
A line with //nolint:errleak or //atomicx:ignore is not reported, nor is
a function whose declaration line or doc comment has one.`,
	Requires:   []*analysis.Analyzer{buildssa.Analyzer},
	Run:        run,
	FactTypes:  []analysis.Fact{new(ReturnsOpen), new(ReleasesArgs), new(Ownership), new(LeavesInReceiver)},
	ResultType: reflect.TypeOf(new(Stats)),
}

// ReturnsOpen is the fact that a function returns, as its result Result,
// a resource its callers must release.
type ReturnsOpen struct {
	Resource string
	Release  []string
	Result   int
	IsClosed string // the resource's Resource.IsClosed
}

func (*ReturnsOpen) AFact() {}

func (f *ReturnsOpen) String() string {
	return fmt.Sprintf("returns an open %s (result %d; release: %s)", f.Resource, f.Result, strings.Join(f.Release, " or "))
}

// Stats is the analyzer's result for one package: how many findings it
// reported, and how many it did not report because of each filter. A
// filtered finding is one acquire and one return it reaches open (a
// deferred release in a loop counts once).
type Stats struct {
	Reported int
	Removed  map[string]int // by filter: see the filter constants
	// Findings are the reported paths to a return, as data (deferred
	// releases in loops are reported, not listed).
	Findings []Finding
}

// The filters, as Stats.Removed counts them.
const (
	FilterNilCheck   = "nil check"       // the resource was compared with nil on the path
	FilterEscape     = "escape"          // stored, sent, captured or passed on
	FilterReturned   = "returned"        // the return hands it to the caller
	FilterSuppressed = "suppressed"      // //nolint:errleak or //atomicx:ignore
	FilterExit       = "exit"            // the path ends in os.Exit, log.Fatal and the like
	FilterStateCap   = "state cap"       // too many states in one block: paths dropped
	FilterBorrowed   = "released first"  // released before acquired: the caller's, given back
	FilterCollected  = "timer collected" // a timer or ticker in Go 1.23 code: collected once unreferenced
	FilterHeld       = "held for caller" // a lock held at every successful return, released elsewhere
)

// maxStates bounds the distinct obligation states kept per block.
const maxStates = 64

func run(pass *analysis.Pass) (any, error) {
	resources, err := resourcesFor(pass)
	if err != nil {
		return nil, err
	}
	c := &checker{
		pass:         pass,
		acquires:     make(map[string]*Resource),
		summaries:    make(map[*ssa.Function]*ReturnsOpen),
		argSummaries: make(map[*ssa.Function][]ArgRelease),
		ownership:    make(map[*ssa.Function][]ParamUse),
		ignored:      suppressedLines(pass),
		stats:        &Stats{Removed: make(map[string]int)},
	}
	specs := make(map[string]bool)
	for i := range resources {
		for _, r := range resources[i].Release {
			if !specs[r] {
				specs[r] = true
				c.releaseSpecs = append(c.releaseSpecs, r)
				c.parsedSpecs = append(c.parsedSpecs, parseRelease(r))
			}
		}
		for _, name := range resources[i].Acquire {
			if _, dup := c.acquires[name]; !dup {
				c.acquires[name] = &resources[i]
			}
		}
	}
	funcs := pass.ResultOf[buildssa.Analyzer].(*buildssa.SSA).SrcFuncs
	c.funcs = funcs

	// The functions that release what their callers hand them.
	for _, fn := range funcs {
		if rels := c.argReleases(fn); len(rels) > 0 {
			if obj, ok := fn.Object().(*types.Func); ok {
				pass.ExportObjectFact(obj, &ReleasesArgs{Releases: rels})
			}
		}
	}

	c.exportOwnership()
	c.receiverSummaries()

	// A function of this package that returns an open resource is an
	// acquire for its callers here as much as in other packages: find
	// them first, to a fixed point (bounded: chains are short).
	for round := 0; round < 8; round++ {
		changed := false
		for _, fn := range funcs {
			if c.summarize(fn) {
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for fn, f := range c.summaries {
		pass.ExportObjectFact(fn.Object(), f)
	}
	for _, fn := range funcs {
		c.check(fn)
	}
	return c.stats, nil
}

type checker struct {
	pass      *analysis.Pass
	acquires  map[string]*Resource // by types.Func.FullName
	summaries map[*ssa.Function]*ReturnsOpen
	ignored   *suppressions
	stats     *Stats

	releaseSpecs []string                       // every Resource.Release entry, once
	parsedSpecs  []release                      // releaseSpecs parsed
	argSummaries map[*ssa.Function][]ArgRelease // see argReleases
	funcs        []*ssa.Function                // the package's functions
	fieldRelease map[string]map[*ssa.Function]bool
	literals     map[*ast.FuncLit]funcname.Literal // the package's, named when first needed
	ownership    map[*ssa.Function][]ParamUse      // see paramUse; nil while being computed
	// leftInReceiver are the package's methods that leave a resource in
	// their receiver on an error return (see receiverSummaries).
	leftInReceiver map[*ssa.Function]*LeavesInReceiver
}

// A site is one acquiring call in a function, and what the analysis
// knows of its resource.
type site struct {
	c        *checker
	call     *ssa.Call
	callee   string
	res      *Resource
	releases []release
	value    ssa.Value          // the resource; nil when the call's result is dropped
	errVal   ssa.Value          // the call's error result, if it has one
	errAddrs map[ssa.Value]bool // where errVal is stored (a captured err)
	aliases  map[ssa.Value]bool
	escapes  bool
	// homeKeys are the fields of local objects the resource is stored
	// in (refKey of a load of each), holders those objects (see
	// homeStores).
	homeKeys map[string]bool
	holders  map[ssa.Value]bool
	// field, for the call of a method that leaves the resource in its
	// receiver (see receiverSite), is the receiver's field; value is then
	// the receiver, the object the calling function made.
	field string
}

// calleeName is the full name of the function or method c calls, "" for
// a call of a function value.
func calleeName(c *ssa.CallCommon) (string, *ssa.Function) {
	if c.IsInvoke() {
		return c.Method.FullName(), nil
	}
	fn := c.StaticCallee()
	if fn == nil {
		return "", nil
	}
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	if obj, ok := fn.Object().(*types.Func); ok {
		return obj.FullName(), fn
	}
	return "", fn
}

// sites finds the acquiring calls of fn.
func (c *checker) sites(fn *ssa.Function) []*site {
	var out []*site
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			name, callee := calleeName(call.Common())
			res := c.acquires[name]
			if res == nil && callee != nil {
				res = c.fromFact(callee)
			}
			if res == nil && callee != nil {
				if f := c.receiverFact(callee); f != nil {
					if s := c.receiverSite(call, name, f, nil); s != nil {
						out = append(out, s)
					}
				}
				continue
			}
			if res == nil {
				continue
			}
			s := &site{c: c, call: call, callee: name, res: res}
			for _, r := range res.Release {
				s.releases = append(s.releases, parseRelease(r))
			}
			s.value, s.errVal = resourceValue(call, res.value)
			s.aliases = aliases(strip(s.value)) // Notify's chan<- is the caller's chan
			if s.value != nil {
				s.aliases[s.value] = true
			}
			s.errAddrs = storedAt(s.errVal)
			s.escapes = escapes(s)
			out = append(out, s)
		}
	}
	return out
}

// fromFact turns a callee's ReturnsOpen into a resource.
func (c *checker) fromFact(callee *ssa.Function) *Resource {
	f := c.summaries[callee]
	if f == nil {
		obj := callee.Object()
		if obj == nil || obj.Pkg() == nil {
			return nil
		}
		f = new(ReturnsOpen)
		if obj.Pkg() == c.pass.Pkg || !c.pass.ImportObjectFact(obj, f) {
			return nil
		}
	}
	r := &Resource{Name: f.Resource, Release: f.Release, IsClosed: f.IsClosed, value: fmt.Sprintf("result%d", f.Result)}
	for _, b := range builtin {
		if b.collected && b.Name == r.Name {
			r.collected = true // a timer from a pool is a timer
		}
	}
	return r
}

// summarize records whether fn returns one of its resources open, and
// reports whether that is new.
func (c *checker) summarize(fn *ssa.Function) bool {
	obj, ok := fn.Object().(*types.Func)
	if !ok || obj.Pkg() != c.pass.Pkg || c.summaries[fn] != nil {
		return false
	}
	for _, s := range c.sites(fn) {
		if s.field != "" {
			continue // the object holds it, not a result
		}
		if deferredRelease(fn, s) {
			continue // returned closed: the caller owes nothing
		}
		for _, b := range fn.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok {
				continue
			}
			if i := returnedAt(s, ret); i >= 0 {
				c.summaries[fn] = &ReturnsOpen{Resource: s.res.Name, Release: s.res.Release, Result: i, IsClosed: s.res.IsClosed}
				return true
			}
		}
	}
	return false
}

// deferredRelease reports whether fn defers a release of s's resource:
// fn then returns it released, as a test helper that defers
// resp.Body.Close and returns resp does.
func deferredRelease(fn *ssa.Function, s *site) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if d, ok := instr.(*ssa.Defer); ok && deferReleases(s, d) {
				return true
			}
		}
	}
	return false
}

// returnedAt is the index of the result of ret that is s's resource, or -1.
func returnedAt(s *site, ret *ssa.Return) int {
	for i, r := range ret.Results {
		if s.aliases[strip(r)] {
			return i
		}
	}
	return -1
}

// resourceValue finds the resource and the error result of an acquiring
// call, as ref (Resource.value) says.
func resourceValue(call *ssa.Call, ref string) (value, errVal ssa.Value) {
	com := call.Common()
	sig := com.Signature()
	results := sig.Results()
	result := func(i int) ssa.Value {
		if i >= results.Len() {
			return nil
		}
		if results.Len() == 1 {
			return call
		}
		for _, r := range *call.Referrers() {
			if e, ok := r.(*ssa.Extract); ok && e.Index == i {
				return e
			}
		}
		return nil
	}
	if n := results.Len(); n > 0 && isError(results.At(n-1).Type()) {
		errVal = result(n - 1)
	}
	kind, index := valueRef(ref)
	if kind == "" {
		kind = "recv"
		for i := 0; i < results.Len(); i++ {
			if !isError(results.At(i).Type()) {
				kind, index = "result", i
				break
			}
		}
	}
	switch kind {
	case "result":
		return result(index), errVal
	case "recv":
		if com.IsInvoke() {
			return com.Value, errVal
		}
		if sig.Recv() != nil && len(com.Args) > 0 {
			return com.Args[0], errVal
		}
	case "arg":
		if sig.Recv() != nil {
			index++
		}
		if index < len(com.Args) {
			return com.Args[index], errVal
		}
	}
	return nil, errVal
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// aliases is v and the values that are v under another type, merged
// with others by a phi, or loaded back from a local variable it was
// stored in (a variable captured by a closure lives in memory). Those
// variables are in the result too.
func aliases(v ssa.Value) map[ssa.Value]bool {
	set := make(map[ssa.Value]bool)
	if v == nil {
		return set
	}
	work := []ssa.Value{v}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if set[v] {
			continue
		}
		set[v] = true
		if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
			// Loaded from a local variable (ch, captured by a closure,
			// lives in one): the variable and what else it holds.
			if a, ok := u.X.(*ssa.Alloc); ok && !set[a] {
				set[a] = true
				for _, ar := range *a.Referrers() {
					switch ar := ar.(type) {
					case *ssa.UnOp:
						if ar.Op == token.MUL {
							work = append(work, ar)
						}
					case *ssa.Store:
						if ar.Addr == a {
							work = append(work, ar.Val)
						}
					}
				}
			}
		}
		refs := v.Referrers()
		if refs == nil {
			continue
		}
		for _, r := range *refs {
			switch r := r.(type) {
			case *ssa.Phi, *ssa.ChangeType, *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.Convert:
				work = append(work, r.(ssa.Value))
			case *ssa.TypeAssert:
				if !r.CommaOk {
					work = append(work, r)
				}
			case *ssa.Store:
				if a, ok := r.Addr.(*ssa.Alloc); ok && r.Val == v && !set[a] {
					set[a] = true
					for _, ar := range *a.Referrers() {
						if u, ok := ar.(*ssa.UnOp); ok && u.Op == token.MUL {
							work = append(work, u)
						}
					}
				}
			}
		}
	}
	return set
}

// onlyDeferred reports whether a closure is only ever deferred.
func onlyDeferred(mc *ssa.MakeClosure) bool {
	for _, r := range *mc.Referrers() {
		if d, ok := r.(*ssa.Defer); !ok || d.Call.Value != mc {
			return false
		}
	}
	return true
}

// localOnly reports whether a variable is used only by loads, stores and
// closures that are deferred: storing the resource there keeps it in the
// function's hands.
func localOnly(a *ssa.Alloc) bool {
	for _, r := range *a.Referrers() {
		switch r := r.(type) {
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return false
			}
		case *ssa.Store:
			if r.Addr != a {
				return false
			}
		case *ssa.MakeClosure:
			if !onlyDeferred(r) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// storedAt is the addresses v is stored to: an err variable captured by
// a closure, or a named result, lives in memory rather than in a register.
func storedAt(v ssa.Value) map[ssa.Value]bool {
	if v == nil || v.Referrers() == nil {
		return nil
	}
	var addrs map[ssa.Value]bool
	for _, r := range *v.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Val == v {
			if addrs == nil {
				addrs = make(map[ssa.Value]bool)
			}
			addrs[st.Addr] = true
		}
	}
	return addrs
}

// isErrOf reports whether v is s's error result, directly or loaded back
// from where it was stored.
func isErrOf(v ssa.Value, s *site) bool {
	if s.errVal == nil {
		return false
	}
	if v == s.errVal {
		return true
	}
	u, ok := v.(*ssa.UnOp)
	return ok && u.Op == token.MUL && s.errAddrs[u.X]
}

// strip removes conversions that keep the value.
func strip(v ssa.Value) ssa.Value {
	for {
		switch x := v.(type) {
		case *ssa.ChangeType:
			v = x.X
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeInterface:
			v = x.X
		case *ssa.Convert:
			v = x.X
		default:
			return v
		}
	}
}

// refKey names the memory location v addresses when it is built only of
// field selections and loads from one SSA value, so that the &s.mu of
// Lock and the &s.mu of Unlock, two SSA values, are one resource. "" for
// a constant.
func refKey(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.FieldAddr:
		if k := refKey(v.X); k != "" {
			return fmt.Sprintf("%s.%d", k, v.Field)
		}
		return ""
	case *ssa.Field:
		if k := refKey(v.X); k != "" {
			return fmt.Sprintf("%s.%d", k, v.Field)
		}
		return ""
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if k := refKey(v.X); k != "" {
				return "*" + k
			}
			return ""
		}
	case *ssa.Global:
		return "G" + v.Object().Pkg().Path() + "." + v.Name()
	case *ssa.Const, *ssa.Function:
		return ""
	}
	// Any other value is a register, a parameter or a variable: one name
	// in the function for one value.
	return "V" + v.Name()
}

// sameRef reports whether v is s's resource.
func sameRef(v ssa.Value, s *site) bool {
	if s.value == nil || v == nil {
		return false
	}
	v = strip(v)
	if s.aliases[v] {
		return true
	}
	k := refKey(v)
	return k != "" && (k == refKey(strip(s.value)) || s.homeKeys[k])
}

// escapes reports whether s's resource leaves the function's hands:
// stored, sent, captured, or passed to a function that keeps it. A method
// called on the resource, or on a field of it, is not an escape, nor is
// the acquiring call itself or a release.
func escapes(s *site) bool {
	homes := s.c.homeStores(s)
	return s.c.leaves(s.aliases, func(instr ssa.Instruction) bool {
		if call, ok := instr.(ssa.CallInstruction); ok {
			return call.Common() == s.call.Common() || releases(s, call.Common())
		}
		return homes[instr]
	}, false)
}

// borrowers are standard library functions that use a reader or writer
// passed to them and keep no reference to it when they return: passing a
// resource to one is not an escape, so io.ReadAll(f) before a return
// that forgets f.Close is still reported.
var borrowers = map[string]bool{
	"io.ReadAll": true, "io.Copy": true, "io.CopyBuffer": true, "io.CopyN": true,
	"io.ReadFull": true, "io.ReadAtLeast": true, "io.WriteString": true,
	"fmt.Fprint": true, "fmt.Fprintf": true, "fmt.Fprintln": true,
	"fmt.Fscan": true, "fmt.Fscanf": true, "fmt.Fscanln": true,
	"encoding/binary.Read": true, "encoding/binary.Write": true,
}

// calledMethod returns the method a call calls and its receiver: an
// interface method, or a concrete method (callee) called statically;
// "" and nil for other calls.
func calledMethod(call *ssa.CallCommon, callee *ssa.Function) (string, ssa.Value) {
	switch {
	case call.IsInvoke():
		return call.Method.Name(), call.Value
	case callee != nil && callee.Signature.Recv() != nil && len(call.Args) > 0:
		return callee.Name(), call.Args[0]
	}
	return "", nil
}

// releases reports whether call releases s's resource.
func releases(s *site, call *ssa.CallCommon) bool {
	name, callee := calleeName(call)
	method, recv := calledMethod(call, callee)
	for _, r := range s.releases {
		switch {
		case r.call:
			if !call.IsInvoke() && sameRef(call.Value, s) {
				return true
			}
		case r.fn != "":
			if name == r.fn {
				for _, a := range call.Args {
					if sameRef(a, s) {
						return true
					}
				}
			}
		case method == r.method && r.field == "":
			if sameRef(recv, s) {
				return true
			}
		case method == r.method:
			if x := fieldOf(strip(recv), r.field); x != nil && sameRef(x, s) {
				return true
			}
		}
	}
	return s.c.releasesThrough(s, call)
}

// fieldOf returns X when v is X.name (loaded through a pointer or not).
func fieldOf(v ssa.Value, name string) ssa.Value {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		if fa, ok := u.X.(*ssa.FieldAddr); ok && fieldName(fa.X.Type(), fa.Field) == name {
			return fa.X
		}
	}
	if f, ok := v.(*ssa.Field); ok && fieldName(f.X.Type(), f.Field) == name {
		return f.X
	}
	return nil
}

func fieldName(t types.Type, i int) string {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if st, ok := t.Underlying().(*types.Struct); ok && i < st.NumFields() {
		return st.Field(i).Name()
	}
	return ""
}

// deferReleases reports whether a deferred call releases s: a release
// itself, or a closure that captures the resource.
func deferReleases(s *site, d *ssa.Defer) bool {
	if releases(s, d.Common()) {
		return true
	}
	if mc, ok := d.Call.Value.(*ssa.MakeClosure); ok {
		for _, b := range mc.Bindings {
			if s.aliases[b] || sameRef(b, s) {
				return true
			}
		}
	}
	return false
}

// noReturn lists the calls after which a function does not return: the
// process ends, or the goroutine does (running defers).
var noReturn = map[string]bool{
	"os.Exit": true, "log.Fatal": true, "log.Fatalf": true, "log.Fatalln": true,
	"(*log.Logger).Fatal": true, "(*log.Logger).Fatalf": true, "(*log.Logger).Fatalln": true,
	"log.Panic": true, "log.Panicf": true, "log.Panicln": true,
	"(*log.Logger).Panic": true, "(*log.Logger).Panicf": true, "(*log.Logger).Panicln": true,
	"runtime.Goexit":            true,
	"(*testing.common).FailNow": true, "(*testing.common).Fatal": true, "(*testing.common).Fatalf": true,
	"(*testing.common).SkipNow": true, "(*testing.common).Skip": true, "(*testing.common).Skipf": true,
}

// suppressions are the places a suppression comment covers: lines with
// //nolint:errleak (or a bare //nolint) or //atomicx:ignore, and whole
// function declarations whose doc comment or first line has one, as
// golangci-lint reads a nolint on a declaration.
type suppressions struct {
	lines map[string]bool // "file:line"
	decls [][2]token.Pos  // [start, end) of suppressed declarations
}

func suppressedLines(pass *analysis.Pass) *suppressions {
	sup := &suppressions{lines: make(map[string]bool)}
	for _, f := range pass.Files {
		for _, g := range f.Comments {
			for _, cm := range g.List {
				if !suppresses(cm.Text) {
					continue
				}
				p := pass.Fset.Position(cm.Pos())
				sup.lines[fmt.Sprintf("%s:%d", p.Filename, p.Line)] = true
			}
		}
	}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			p := pass.Fset.Position(fd.Pos())
			if sup.lines[fmt.Sprintf("%s:%d", p.Filename, p.Line)] || docSuppresses(fd.Doc) {
				sup.decls = append(sup.decls, [2]token.Pos{fd.Pos(), fd.End()})
			}
		}
	}
	return sup
}

// docSuppresses reports whether a doc comment has a suppression line.
func docSuppresses(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, cm := range doc.List {
		if suppresses(cm.Text) {
			return true
		}
	}
	return false
}

func suppresses(text string) bool {
	text = strings.TrimSpace(strings.TrimPrefix(text, "//"))
	if strings.HasPrefix(text, "atomicx:ignore") {
		return true
	}
	rest, ok := strings.CutPrefix(text, "nolint")
	if !ok {
		return false
	}
	if rest == "" || rest[0] == ' ' {
		return true
	}
	if rest[0] != ':' {
		return false
	}
	list, _, _ := strings.Cut(rest[1:], " ")
	for _, name := range strings.Split(list, ",") {
		if name == "errleak" || name == "all" {
			return true
		}
	}
	return false
}

func (c *checker) suppressed(pos token.Pos) bool {
	for _, d := range c.ignored.decls {
		if d[0] <= pos && pos < d[1] {
			return true
		}
	}
	p := c.pass.Fset.Position(pos)
	return c.ignored.lines[fmt.Sprintf("%s:%d", p.Filename, p.Line)]
}
