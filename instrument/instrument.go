package instrument

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
)

// Options says how to instrument one package.
type Options struct {
	ImportPath  string         // the package's path as the linker knows it (compile -p; "main" for commands)
	SourcePath  string         // its import path, for positions; "" means ImportPath
	GoVersion   string         // language version (compile -lang); "" means the newest
	Importer    types.Importer // export data of the package's imports
	Sizes       types.Sizes    // of the target; nil means gc/amd64
	RuntimePath string         // import path of the atomicx runtime

	// Selects reports whether a function, named as runtime.Func.Name()
	// does relative to its package ("(*Vector).Alloc"), is instrumented.
	// nil selects every function.
	Selects func(name string) bool
	// Ignored functions are instrumented but never injected into nor
	// reported: they are known to be non-atomic on purpose.
	Ignored func(name string) bool

	// Instrumented reports whether a function of another package (named
	// by its package path and relative name) is instrumented, so that a
	// call of it needs no call-site injection point: its entry is one.
	// nil means none is.
	Instrumented func(pkgPath, name string) bool

	// NeverFails and ErrorConstructors report, by types.Func.FullName
	// ("(*example.com/m.Log).Write", "example.com/m.wrap"), the functions
	// and methods that the policy says never fail (their error is always
	// nil) and those that build the error they return: calls of either
	// are not injection points, nor are the entries of either when they
	// are the package's own (see nonpoints.go). nil means none.
	NeverFails        func(fullName string) bool
	ErrorConstructors func(fullName string) bool

	// Mask wraps the selected functions so that a failing call rolls its
	// object graph back (release builds), instead of instrumenting them
	// for detection: no injection point, no event, no call into the
	// runtime but the checkpoint and the rollback.
	Mask bool
	// Oblivious reports, in a masking build, whether a function (named as
	// Selects names it) is failure-oblivious: a failed call returns a nil
	// error and a panic through it is recovered. atomic says it is
	// rolled back first, whether Selects it or not. nil means none is.
	Oblivious func(name string) (oblivious, atomic bool)
	// MasksOutsideLocks reports, in a masking build, whether a function
	// that takes a lock other than by opening with the lock idiom, calls
	// a function that does, or runs as a goroutine is masked all the
	// same (the policy's mask_outside_locks). nil means none is.
	MasksOutsideLocks func(name string) bool
	// CallbacksWriteArguments reports, in a masking build, whether the
	// function values a function calls are taken to write only what
	// their arguments reach (the policy's callbacks_write_arguments), so
	// that its undo log records that instead of the function keeping
	// its whole checkpoint. nil means for none.
	CallbacksWriteArguments func(name string) bool
	// checkpointsOnly gives every masked function the checkpoint at
	// entry, undo log or not: the tests of the generated checkpoints use
	// it on functions that the undo log would take.
	checkpointsOnly bool
	// UndoFiles reports, in a masking build, whether a function (named
	// as Selects names it) is masked with its writes to regular files
	// undone (see fileundo.go); nil when the package's rule lists none.
	UndoFiles func(name string) bool

	// Releases are the acquire functions and methods, by their full
	// names (types.Func.FullName: "os.Open", "(*net.Dialer).Dial"),
	// whose resources a failing masked call releases after its
	// rollback, and how. Borrows reports whether a function only
	// borrows a resource passed to it (io.ReadAll). See Release.
	Releases map[string]Release
	Borrows  func(fullName string) bool

	// ProbeAcquires are the acquire calls, by the position of their
	// opening parenthesis as sites give it (import path/file.go:line:col),
	// whose resources a detect build probes for openness when their
	// function returns an error (see rt.Probes): the findings that
	// atomicx vet -confirm confirms. The value is the resource's method
	// that tells whether it is closed, from its [[leak.resource]] table
	// (func() bool), or "" to leave the probe to the runtime.
	ProbeAcquires map[string]string

	Panics         bool // may inject panics, not only errors
	Globals        bool // snapshots include the package-level variables
	SnapshotBudget int  // values a snapshot may copy; 0 means the runtime's default
	// Scratch lists the fields whose changes are scratch, not
	// caller-visible, as the runtime reads them ("T.f", see rt.Site).
	Scratch []string
	// DoneValues are the errors that mean "done", not "failed", for
	// every function of the package, beyond io.EOF and those of the
	// standard library that a function's contract gives (see done.go), as
	// "path.Name" (a rule's success_errors): a call that returns one is
	// not a failure, neither rolled back nor reported.
	DoneValues []string
}

// File is a Go source file of the package.
type File struct {
	Name string // the name the compiler knows it by (an absolute path)
	Src  []byte
}

// Function is an instrumented function.
type Function struct {
	Name string         // relative runtime.Func.Name() form: (*Vector).Alloc
	Pos  token.Position // of its name, in user terms
}

// Note is something the user should know about how a function was
// rewritten, reported at build time.
type Note struct {
	Name    string
	Pos     token.Position
	Message string
	// Cost says that the note is about what masking the function costs,
	// not about what it rolls back: a note, not a warning.
	Cost bool
}

// Skipped is a function that was selected but is left as it is.
type Skipped struct {
	Name   string
	Pos    token.Position
	Reason string
}

// Result is the instrumented package.
type Result struct {
	Files   []File // in input order; rewritten ones have new Src and Changed set
	Changed []bool
	// Generated holds the site table and helpers; nil when nothing was
	// instrumented. It is compiled before the package's files: the
	// package's variables whose initializers refer to instrumented code
	// depend on the site table, and as the first variable declared it is
	// initialized first, which leaves the package's own initialization
	// order as it is without atomicx.
	Generated *File
	// GeneratedInit holds the init function that gives the sites the
	// package's variables (Options.Globals) and the policy's done values
	// (Options.DoneValues), or is nil. It is compiled after the
	// package's files, so that their init functions keep their numbers
	// (init.0, init.1) in stack frames.
	GeneratedInit *File
	Functions     []Function
	Skipped       []Skipped
	Notes         []Note
	// Declared names every function and method declared in the package's
	// non-test files, instrumented or not ("(*Vector).Alloc").
	Declared []string
	// CallPoints counts the call sites made injection points, and
	// OmittedCalls the other calls of error-returning functions in
	// instrumented code, by the reason they are not points.
	CallPoints   int
	OmittedCalls map[string]int
	// Constructors names the selected functions that are error
	// constructors (see errorConstructors), whose entries are not
	// injection points: a detect build leaves them as written.
	Constructors []string
	// OutsideWrites are, in a masking build, the selected functions that
	// write outside memory (see outside.go), in source order.
	OutsideWrites []OutsideWrite
}

// TypeError means the package does not type-check. atomicx then compiles
// it unchanged, so that the user sees the compiler's own message.
type TypeError struct{ Errors []error }

func (e *TypeError) Error() string {
	if len(e.Errors) == 0 {
		return "type errors"
	}
	return e.Errors[0].Error()
}

// Package instruments the functions of a package that opts selects.
func Package(files []File, opts Options) (_ *Result, err error) {
	fset := token.NewFileSet()
	parsed := make([]*ast.File, len(files))
	for i, f := range files {
		af, err := parser.ParseFile(fset, f.Name, f.Src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, &TypeError{Errors: []error{err}}
		}
		parsed[i] = af
	}
	info := &types.Info{
		Types:  map[ast.Expr]types.TypeAndValue{},
		Defs:   map[*ast.Ident]types.Object{},
		Uses:   map[*ast.Ident]types.Object{},
		Scopes: map[ast.Node]*types.Scope{},
		// Whether a method call's receiver is a pointer (the undo log).
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		// The typed variable of each case of a type switch (handlers).
		Implicits: map[ast.Node]types.Object{},
	}
	var typeErrs []error
	conf := types.Config{
		Importer:  opts.Importer,
		Sizes:     opts.Sizes,
		GoVersion: opts.GoVersion,
		Error:     func(err error) { typeErrs = append(typeErrs, err) },
		// cgo output declares functions that are implemented in C or
		// assembly and linked by name.
		IgnoreFuncBodies: false,
	}
	pkg, _ := conf.Check(opts.ImportPath, fset, parsed, info)
	if len(typeErrs) > 0 {
		return nil, &TypeError{Errors: typeErrs}
	}

	p := &pkgRewriter{opts: opts, fset: fset, info: info, pkg: pkg, omitted: map[string]int{}, literals: funcname.Literals(parsed, info)}
	defer func() {
		if v := recover(); v != nil {
			err = p.crashed(v)
		}
	}()
	p.results, p.params = signatureVars(parsed, info)
	p.caseVars = map[*types.Var]bool{}
	for n, obj := range info.Implicits {
		if v, ok := obj.(*types.Var); ok {
			if _, ok := n.(*ast.CaseClause); ok {
				p.caseVars[v] = true
			}
		}
	}
	p.ownFuncFields = funcFieldsSetByPackage(parsed, files, info, pkg)
	p.decls, p.costs, p.handOvers = map[*types.Func]*ast.FuncDecl{}, map[*ast.FuncDecl]int{}, map[handOver]bool{}
	p.selectorNames = map[*ast.Ident]bool{}
	p.sources, p.syntax = map[*token.File][]byte{}, map[*token.File]*ast.File{}
	for i, f := range parsed {
		if skipFile(files[i].Name) {
			continue
		}
		tf := fset.File(f.Pos())
		p.sources[tf], p.syntax[tf] = files[i].Src, f
		ast.Inspect(f, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				p.selectorNames[se.Sel] = true
			}
			return true
		})
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
					p.decls[fn] = fd
				}
			}
		}
	}
	p.errorConstructors()
	p.retried = p.retriedErrors() // its warnings come before the functions' notes
	res := &Result{Files: make([]File, len(files)), Changed: make([]bool, len(files))}
	for i, f := range files {
		res.Files[i] = f
		if skipFile(f.Name) {
			continue
		}
		src, changed, err := p.file(parsed[i], f.Src)
		if err != nil {
			return nil, err
		}
		if changed {
			res.Files[i] = File{Name: f.Name, Src: src}
			res.Changed[i] = true
		}
	}
	res.Functions, res.Skipped, res.Notes, res.Declared = p.functions, p.skipped, p.notes, p.declared
	res.OmittedCalls = p.omitted
	res.Constructors = p.constructorsLeft
	res.OutsideWrites = p.outsideWrites
	for _, s := range p.sites {
		if s.call {
			res.CallPoints++
		}
	}
	if len(p.sites) > 0 || len(p.asWritten) > 0 {
		var err error
		res.Generated, res.GeneratedInit, err = p.generated(parsed)
		if err != nil {
			return nil, fmt.Errorf("instrument %s: %w", p.pkg.Path(), err)
		}
	}
	return res, nil
}

// skipFile reports files whose functions are never instrumented: tests
// (the workload, not the subject) and cgo's own glue.
func skipFile(name string) bool {
	base := filepath.Base(name)
	return strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "_cgo_") || base == "_testmain.go"
}

// Identifiers the rewrite introduces. The prefix keeps them apart from
// user identifiers.
const (
	rtName    = "_atxrt"
	sitesName = "_atx_sites"
	doneName  = "_atx_done"
	callName  = "_atx_c"
	// obliviousName is the rt.Oblivious of a call of an atomic
	// failure-oblivious function in a masking build.
	obliviousName = "_atx_ob"
)

// oblivious reports whether a masking build makes the function
// failure-oblivious.
func (p *pkgRewriter) oblivious(name string) bool {
	if !p.opts.Mask || p.opts.Oblivious == nil {
		return false
	}
	ob, _ := p.opts.Oblivious(name)
	return ob
}

// site is one entry of the generated site table.
type site struct {
	id, fn, pos, roots string
	call               bool   // a call site, not a function entry
	literal            bool   // the entry of a function literal
	in                 string // for the sites of a function literal: what it is written in
	noSnapshot         string // why calls are never snapshotted, or ""
	canError           bool
	ignored            bool
	ends               []int32    // lines of the statements that end a call normally (see doneAt)
	frame              string     // the name of the frames of its instrumented body, when not fn (see twin)
	leaf               bool       // the function calls nothing but builtins (see funcEdits.leaf)
	gate               string     // the variable that its function tests to hand over to its twin, or "" (see rt.Site.Gate)
	done               doneErrors // the standard errors beyond io.EOF that mean done for the function (see funcEdits.doneErrors)
}

type pkgRewriter struct {
	opts      Options
	fset      *token.FileSet
	info      *types.Info
	pkg       *types.Package
	sites     []site
	handlers  []handler // the arms of error checks (see handlers.go)
	functions []Function
	// asWritten are the functions left as written (leavesNoChange), which
	// the generated file lists for the reports (see rt.AsWritten).
	asWritten []asWritten
	skipped   []Skipped
	notes     []Note
	omitted   map[string]int // calls that are not injection points, by reason
	// constructors are the package's error constructors (see
	// errorConstructors), and constructorsLeft the names of those
	// selected that a detect build leaves as written.
	constructors     map[*types.Func]bool
	constructorsLeft []string
	declared         []string
	literals         map[*ast.FuncLit]funcname.Literal
	// current is the function being rewritten, which a crash names.
	current struct {
		name string
		pos  token.Position
	}
	results       map[*types.Var]bool           // the named results of every function, literals' included
	params        map[*types.Var]bool           // the parameters of every function, literals' included
	caseVars      map[*types.Var]bool           // the variables of type switches' cases
	ownFuncFields map[*types.Var]bool           // fields of func type that the package sets to its own code (see funcFieldsSetByPackage)
	decls         map[*types.Func]*ast.FuncDecl // the functions declared in the files instrumented
	retried       []string                      // the errors the package's code retries on (see retriedErrors)
	costs         map[*ast.FuncDecl]int         // estimated inlining costs (see inlineCost)
	handOvers     map[handOver]bool             // the hand-over helpers the twins use
	selectorNames map[*ast.Ident]bool           // the names after the dot of selectors
	lockers       map[*types.Func]bool          // functions that take a lock (see locks), once asked
	goLits        map[*ast.FuncLit]token.Pos    // literals run as goroutines, and where (see goroutineLits), once asked
	inPlace       map[*ast.FuncLit]bool         // literals called in place (see inPlaceLits), once asked
	accessors     map[*types.Func]bool          // the package's functions known to be accessors or not (see accessor)
	boundLits     map[*types.Var]*funcBinding   // the variables bound to literals called in place by name (see calledByName)
	calledParams  map[paramKey]bool             // the parameters known to be only called or not (see paramOnlyCalled)
	ends          map[*types.Func]string        // functions that always panic or exit (see funcEnds), once asked
	savers        map[string][]fieldCopy        // generated checkpoint code, by type name
	wholeSaver    bool                          // the generic whole-value checkpoint is used
	copyKinds     uint8                         // bit k: a per-type checkpoint copies a field of copyKind k
	graphs        *graphGen                     // generated checkpoints of linked structures, or nil
	genUsed       map[string]bool               // generic helpers that the graph checkpoints call
	// tail holds the functions hoisted out of the file being rewritten
	// (see hoist), and top is a position of its file scope.
	tail []string
	top  token.Pos
	// outsideWrites are the selected functions of a masking build that
	// write outside memory, and outsideMemo what outsideWriteOf found of
	// each function it looked at (see outside.go).
	outsideWrites []OutsideWrite
	outsideMemo   [2]map[*ast.FuncDecl]*outsideWrite // without, and with, the writes undo_files undoes
	// undoClones are the functions that masked functions call with their
	// undo log (see undo.go); fileNow and srcNow the file being
	// rewritten, to whose tail their clones go.
	undoClones map[*types.Func]*undoClone
	fileNow    *token.File
	srcNow     []byte
	// astNow is the syntax of the file being rewritten, and imports the
	// imports that the clones in its tail need and it lacks, by name.
	astNow  *ast.File
	imports map[string]string
	// cloned are the clones written, in order.
	cloned []*undoClone
	// sources and syntax are the package's files, by token.File: a clone
	// of a function of another file is made from that file's text.
	sources map[*token.File][]byte
	syntax  map[*token.File]*ast.File
	// undoable are, by function, the calls whose writes undo_files
	// undoes (see undoableCalls).
	undoable map[*ast.FuncDecl]map[*ast.CallExpr]ast.Stmt
	// writes are the write facts of the package's functions, once asked,
	// and imported those of the packages it imports, by package (see
	// facts.go).
	writes   map[*types.Func]writeFact
	imported map[*types.Package]map[string]writeFact
	// exported are the functions whose clones the package hands out,
	// and importedClones those that the packages it imports hand out,
	// by package and fact key (see crossclone.go).
	exported       map[*types.Func]bool
	importedClones map[*types.Package]map[string]bool
}

// file rewrites one file; changed is false when it has nothing to
// instrument. A rewrite that goes wrong is a *FuncError.
func (p *pkgRewriter) file(f *ast.File, src []byte) (out []byte, changed bool, err error) {
	var edits editList
	tf := p.fset.File(f.Pos())
	p.tail, p.top = nil, f.Name.Pos()
	p.fileNow, p.srcNow, p.astNow, p.imports = tf, src, f, nil
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			// Literals in package-level initializers.
			if err := p.literalsIn(gd, tf, src, &edits); err != nil {
				return nil, false, err
			}
			continue
		}
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := p.funcName(fd)
		p.declared = append(p.declared, name)
		if fd.Body == nil {
			continue // implemented in assembly or C
		}
		pos := p.fset.Position(fd.Name.Pos())
		reason := unsupported(fd)
		if reason == "" {
			// The literals of a function with a directive are left alone
			// with it: they are compiled as part of it.
			if err := p.literalsIn(fd.Body, tf, src, &edits); err != nil {
				return nil, false, err
			}
		}
		if fd.Recv == nil && (fd.Name.Name == "init" || fd.Name.Name == "_") {
			continue
		}
		if p.opts.Mask && p.opts.UndoFiles != nil && reason == "" {
			p.insertFileWriteHooks(fd, tf, src, &edits)
		}
		if p.opts.Selects != nil && !p.opts.Selects(name) && !p.oblivious(name) {
			continue
		}
		if reason != "" {
			p.skipped = append(p.skipped, Skipped{Name: name, Pos: pos, Reason: reason})
			continue
		}
		p.current.name, p.current.pos = name, pos
		if p.opts.Mask {
			p.noteOutsideWrite(fd, name, pos)
		}
		if err := p.rewriteFunc(p.declEdits(tf, src, fd, name), &edits); err != nil {
			return nil, false, err
		}
		p.current.name = ""
	}
	if p.opts.Mask {
		if err := p.exportClones(f); err != nil {
			return nil, false, err
		}
	}
	if len(p.tail) > 0 {
		edits.insert(len(src), strings.Join(p.tail, ""))
	}
	if edits.empty() {
		return src, false, nil
	}
	// The runtime import goes on the package clause's line, so no line
	// moves; a file whose rewrite only calls generated functions (masking
	// with generated checkpoints) does not use it.
	if edits.mention(rtName + ".") {
		edits.insert(tf.Offset(f.Name.End()), fmt.Sprintf("; import %s %q", rtName, p.opts.RuntimePath))
	}
	for _, name := range slices.Sorted(maps.Keys(p.imports)) {
		edits.insert(tf.Offset(f.Name.End()), fmt.Sprintf("; import %s %q", name, p.imports[name]))
	}
	out, err = edits.apply(src)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", tf.Name(), err)
	}
	header := fmt.Sprintf("//line %s:1:1\n", tf.Name())
	return append([]byte(header), out...), true, nil
}

// rewriteFunc rewrites one function into edits; a function it cannot
// rewrite is skipped, with the reason.
func (p *pkgRewriter) rewriteFunc(fe *funcEdits, edits *editList) error {
	if rewriteHook != nil {
		rewriteHook(fe.name)
	}
	// Both kinds are left as written, and listed for the reports: no
	// failure of theirs can leave a change.
	left := asWritten{fn: funcname.Join(p.opts.ImportPath, fe.name), pos: p.sitePos(p.fset.Position(fe.namePos)), decl: fe.decl}
	if fe.leavesNoChange() {
		p.asWritten = append(p.asWritten, left)
		return nil
	}
	if fe.errorConstructor() {
		p.constructorsLeft = append(p.constructorsLeft, fe.name)
		p.asWritten = append(p.asWritten, left)
		return nil
	}
	pos := p.fset.Position(fe.namePos)
	before, hoisted, imports, cloned := len(edits.edits), len(p.tail), maps.Clone(p.imports), len(p.cloned)
	if err := fe.rewrite(edits); err != nil {
		edits.edits = edits.edits[:before]
		p.tail, p.imports = p.tail[:hoisted], imports
		// The clones its rewrite wrote went with the tail.
		for _, c := range p.cloned[cloned:] {
			c.written = false
		}
		p.cloned = p.cloned[:cloned]
		p.skipped = append(p.skipped, Skipped{Name: fe.name, Pos: pos, Reason: err.Error()})
		return nil
	}
	if err := edits.checkSince(before); err != nil {
		return &FuncError{Func: fe.name, Pos: pos, Err: err}
	}
	p.functions = append(p.functions, Function{Name: fe.name, Pos: pos})
	return nil
}

// rewriteHook, when set (by tests), is called before each function is
// rewritten.
var rewriteHook func(name string)

// crashed turns a panic of the rewrite into an error that names the
// function being rewritten, so that the user learns which one to leave
// out, with the stack for a report.
func (p *pkgRewriter) crashed(v any) error {
	stack := string(debug.Stack())
	if p.current.name == "" {
		return fmt.Errorf("instrument %s: atomicx crashed: %v\n%s", p.pkg.Path(), v, stack)
	}
	return &FuncError{Func: p.current.name, Pos: p.current.pos, Err: fmt.Errorf("atomicx crashed: %v", v), Stack: stack}
}

// literalsIn rewrites the function literals in n, at every depth, that
// the policy selects. Each is a function of its own (see funcEdits); the
// rewrite of the function around it leaves it alone.
func (p *pkgRewriter) literalsIn(n ast.Node, tf *token.File, src []byte, edits *editList) error {
	var err error
	ast.Inspect(n, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok || err != nil {
			return err == nil
		}
		name, ok := p.literals[lit]
		if !ok {
			return true // in code the compiler never names: nothing to match frames with
		}
		p.declared = append(p.declared, name.Name)
		if p.selectsLiteral(lit) {
			p.current.name, p.current.pos = name.Name, p.fset.Position(lit.Pos())
			err = p.rewriteFunc(p.litEdits(tf, src, lit, name), edits)
			p.current.name = ""
		}
		return true
	})
	return err
}

// funcName returns the name of a declared function relative to its
// package, as the runtime names it.
func (p *pkgRewriter) funcName(fd *ast.FuncDecl) string {
	if fn, ok := p.info.Defs[fd.Name].(*types.Func); ok {
		return funcname.Relative(fn)
	}
	return funcname.Decl(fd, nil) // "_" and init functions have no object
}

// unsupported says why a function cannot be instrumented, or "".
func unsupported(fd *ast.FuncDecl) string {
	if fd.Doc == nil {
		return ""
	}
	for _, c := range fd.Doc.List {
		text := c.Text
		if !strings.HasPrefix(text, "//go:") {
			continue
		}
		directive, _, _ := strings.Cut(strings.TrimPrefix(text, "//"), " ")
		switch directive {
		case "go:noinline", "go:fix", "go:inline":
		default:
			// nosplit, norace, nocheckptr, linkname, uintptrescapes,
			// systemstack...: the function makes promises about its
			// stack or its code that added calls would break.
			return "has a //" + directive + " directive"
		}
	}
	return ""
}

// generated returns the file holding the site table and, when the sites
// watch the package's variables, the file of the init function that adds
// them.
func (p *pkgRewriter) generated(files []*ast.File) (sites, init *File, err error) {
	f := &genFile{p: p}
	if gates := p.gates(); gates != nil {
		f.add(gates)
	}
	if len(p.sites) > 0 {
		f.add(p.siteTable()...)
	}
	if len(p.asWritten) > 0 {
		f.add(p.asWrittenTable())
	}
	if len(p.handlers) > 0 {
		f.add(p.handlerTable())
	}
	// The graph checkpoints are written first: they say which helpers
	// the savers' section declares.
	graph, err := p.graphs.write()
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	p.writeHandOvers(&b)
	p.writeSavers(&b)
	b.WriteString(graph)
	b.WriteString(p.writesFacts())
	if p.graphs != nil {
		f.types = p.graphs.types
	}
	if err := f.parseDecls(b.String()); err != nil {
		return nil, nil, err
	}
	src, err := f.print()
	if err != nil {
		return nil, nil, err
	}
	sites = &File{Name: "_atomicx_sites.go", Src: src}
	var g strings.Builder
	inits := p.opts.Globals && p.writeGlobals(&g, files)
	pkgs := p.writeDoneValues(&g)
	if inits || len(pkgs) > 0 {
		f := &genFile{p: p, pkgs: pkgs}
		if err := f.parseDecls(g.String()); err != nil {
			return nil, nil, err
		}
		src, err := f.print()
		if err != nil {
			return nil, nil, err
		}
		init = &File{Name: "_atomicx_init.go", Src: src}
	}
	return sites, init, nil
}

// writeGlobals adds the package-level variables to every site, from an
// init function: a package variable initializer may call an instrumented
// function, and referring to the variables from the site table itself
// would make an initialization cycle.
func (p *pkgRewriter) writeGlobals(b *strings.Builder, files []*ast.File) bool {
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if n.Name != "_" {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return false
	}
	display := make([]string, len(names))
	addrs := make([]string, len(names))
	for i, n := range names {
		display[i] = p.pkg.Name() + "." + n
		addrs[i] = "&" + n
	}
	fmt.Fprintf(b, "\nfunc init() {\n\tg := &%s.Globals{Names: %q, Addrs: func() []any { return []any{%s} }}\n", rtName, strings.Join(display, ","), strings.Join(addrs, ", "))
	fmt.Fprintf(b, "\tfor i := range %s {\n\t\t%s[i].Globals = g\n\t}\n}\n", sitesName, sitesName)
	return true
}

// errorType is the predeclared error interface.
var errorType = types.Universe.Lookup("error").Type()

// lineDirective returns a /*line*/ comment that gives the text following
// it the position that offset off has in the user's file.
func lineDirective(fset *token.FileSet, tf *token.File, off int) string {
	pos := fset.Position(tf.Pos(off))
	if pos.Column == 0 {
		// After a //line directive without a column (as goyacc writes)
		// columns are unknown, and a directive may not say column 0.
		return "/*line " + pos.Filename + ":" + strconv.Itoa(pos.Line) + "*/"
	}
	return "/*line " + pos.Filename + ":" + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column) + "*/"
}

var errNewline = errors.New("a return statement spans lines between its keyword and its first result")

// signatureVars returns the named results and the parameters of the
// functions and function literals of files.
func signatureVars(files []*ast.File, info *types.Info) (results, params map[*types.Var]bool) {
	results, params = map[*types.Var]bool{}, map[*types.Var]bool{}
	add := func(vars map[*types.Var]bool, fields *ast.FieldList) {
		if fields == nil {
			return
		}
		for _, field := range fields.List {
			for _, id := range field.Names {
				if v, ok := info.Defs[id].(*types.Var); ok {
					vars[v] = true
				}
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ft, ok := n.(*ast.FuncType); ok {
				add(results, ft.Results)
				add(params, ft.Params)
			}
			return true
		})
	}
	return results, params
}
