package toolexec

import (
	"bytes"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"go/version"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/errleak"
	"github.com/atomicx/atomicx/instrument"
	"github.com/atomicx/atomicx/internal/gobuild"
	"github.com/atomicx/atomicx/policy"
)

// Config is what the atomicx binary tells the toolexec layer about itself.
type Config struct {
	// Identity returns atomicx's version and a hash of its binary. It is
	// only needed to answer -V=full.
	Identity      func() (string, error)
	RuntimeSource fs.FS // the runtime's source files
	Stdout        io.Writer
	Stderr        io.Writer
	// WrapImporter, if set, wraps the importer that type-checks a
	// package's imports from their export data. The end-to-end tests use
	// it to make that export data unreadable, as a newer toolchain's is,
	// which no real build here can reproduce.
	WrapImporter func(types.Importer) types.Importer
}

// Run carries out one tool invocation and returns the exit code to use.
func Run(cfg Config, cmd Command) int {
	r := &runner{cfg: cfg, cmd: cmd, keyed: os.Getenv(gobuild.KeyedEnv)}
	code, err := r.run()
	if err != nil {
		fmt.Fprintf(cfg.Stderr, "atomicx: %v\n", err)
		if code == 0 {
			code = 2
		}
	}
	return code
}

type runner struct {
	cfg Config
	cmd Command
	pol *policy.Policy
	// keyed is the policy's hash when the go command runs under the
	// front-end (atomicx go, atomicx detect): instrumented packages then
	// carry their own cache key (KeyFlag), and -V=full is the real tool's.
	keyed string
}

func (r *runner) run() (int, error) {
	switch {
	case r.cmd.Tool != ToolCompile && r.cmd.Tool != ToolLink:
		return r.exec(r.cmd.Args)
	case r.cmd.IsVersionQuery():
		return r.version()
	}
	if err := r.loadPolicy(); err != nil {
		return 2, err
	}
	if r.cmd.Tool == ToolCompile {
		collectLess()
		return r.compile()
	}
	return r.link()
}

// collectLess lets a compile's heap grow to compileHeapLimit before the
// collector runs: atomicx lives for one package, whose type-checking
// allocates tens of megabytes that it keeps to the end, and collecting
// them cost a quarter of its processor time, on the path of every
// instrumented package of a build. A user who tunes the collector (GOGC,
// GOMEMLIMIT) keeps the settings.
func collectLess() {
	if userTunesCollector() {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(compileHeapLimit)
}

// userTunesCollector reports whether the user set GOGC or GOMEMLIMIT,
// which atomicx then leaves to their settings, for itself and for the
// compiler.
func userTunesCollector() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// compileHeapLimit is the heap past which a compile collects (see
// collectLess): more than type-checking a large package needs, and little
// against the compiler's own.
const compileHeapLimit = 256 << 20

// compilerHeapFlags returns the flags that give the compiler, on an
// instrumented package, a starting heap scaled to what it compiles. When
// it compiles functions concurrently (-c above 1), the compiler collects
// less until its heap reaches 128 MiB (Go 1.26; earlier compilers start
// from a smaller heap that no flag sets, and get nothing); instrumented
// code makes it allocate about twice what the package as written does,
// and collections cost it a tenth of its processor time. Starting at
// instrumentedStartHeap instead keeps about the collections of the
// package as written. The flag changes neither the compiler's output nor
// its cache key. As with collectLess, a user who tunes the collector
// (GOGC, GOMEMLIMIT, or the flag itself in -gcflags) keeps the settings.
func compilerHeapFlags(cc Compile) []string {
	if userTunesCollector() || cc.Concurrency <= 1 {
		return nil
	}
	if !version.IsValid(cc.GoVersion) || version.Compare(cc.GoVersion, "go1.26") < 0 {
		return nil
	}
	for _, d := range cc.Debug {
		for _, kv := range strings.Split(d, ",") {
			if name, _, _ := strings.Cut(kv, "="); name == "gcstart" {
				return nil
			}
		}
	}
	return []string{fmt.Sprintf("-d=gcstart=%d", instrumentedStartHeap)}
}

// instrumentedStartHeap is the compiler's starting heap on instrumented
// packages, in MiB (see compilerHeapFlags): on bbolt's root package it
// takes a tenth off the compiler's processor time, for a resident size
// of 195 MB at most instead of 127.
const instrumentedStartHeap = 320

// loadPolicy finds the policy the way the go command's working directory
// implies: every tool run of one build finds the same file.
func (r *runner) loadPolicy() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if r.cmd.Tool == ToolLink && linksInOutputDir(ParseLink(r.cmd)) {
		// For -buildmode=c-shared and plugin the go command runs the link
		// in its output directory under $WORK, not in its own directory
		// like every other tool (and the -V=full query): from there no
		// policy is found and the runtime would be left out of the link.
		if d := gobuild.ParentGoDir(); d != "" {
			wd = d
		}
	}
	path, err := policy.Find(wd, os.Getenv)
	if err != nil {
		return err
	}
	r.pol = policy.Empty()
	if path != "" {
		if r.pol, err = policy.Load(path); err != nil {
			return err
		}
	}
	if r.keyed != "" && r.pol.Hash() != r.keyed {
		return fmt.Errorf("the policy %s changed during the build: build again", path)
	}
	return nil
}

// version answers -V=full with the real tool's line plus atomicx's
// identity and the policy's hash; under the front-end, with the real
// tool's line alone, so that every package that is not instrumented
// shares its build cache entries with plain builds.
func (r *runner) version() (int, error) {
	if r.keyed != "" {
		return r.exec(r.cmd.Args)
	}
	var out bytes.Buffer
	c := exec.Command(r.cmd.ToolPath, r.cmd.Args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, &out, r.cfg.Stderr
	if err := c.Run(); err != nil {
		return exitCode(err), nil
	}
	if err := r.loadPolicy(); err != nil {
		return 2, err
	}
	id, err := r.cfg.Identity()
	if err != nil {
		return 2, err
	}
	line, err := VersionLine(out.String(), id+"+policy:"+r.pol.Hash()[:16]+"+rt:"+gobuild.RuntimeCacheID())
	if err != nil {
		return 2, err
	}
	io.WriteString(r.cfg.Stdout, line)
	return 0, nil
}

// compile instruments the package when the policy selects it, and runs
// the compiler.
func (r *runner) compile() (int, error) {
	var key string
	r.cmd.Args, key = takeKey(r.cmd.Args)
	cc := ParseCompile(r.cmd)
	if cc.Package == "" || len(cc.GoFiles) == 0 || cc.Output == "" || cc.ImportCfg == "" {
		return r.exec(r.cmd.Args)
	}
	if isTestMain(cc) {
		return r.compileTestMain(cc, key)
	}
	importPath := packageImportPath(cc)
	match := r.pol.ForPackage(importPath, cc.Std)
	switch match.Mode {
	case policy.Off:
		return r.exec(r.cmd.Args)
	}
	if r.keyed != "" && key == "" {
		// Compiled, the package would be cached under the key of a plain
		// build, and handed to one.
		return 2, fmt.Errorf("package %s is instrumented (%s) but the go command gave it no atomicx build key: "+
			"build with 'atomicx go', or unset %s to key the whole build on atomicx", importPath, match.Mode, gobuild.KeyedEnv)
	}

	archives, err := r.runtime()
	if err != nil {
		return 2, err
	}
	if _, dep := archives[importPath]; dep {
		// policy.Instrumentable names the runtime's dependencies, but the
		// standard library of this build may import others: rewritten,
		// the package would import the runtime that imports it.
		fmt.Fprintf(r.cfg.Stderr, "atomicx: warning: package %s is built as written: the atomicx runtime depends on it\n", importPath)
		return r.exec(r.cmd.Args)
	}
	icfg, err := ReadImportConfig(cc.ImportCfg)
	if err != nil {
		return 2, err
	}
	files, err := readFiles(cc.Files())
	if err != nil {
		return 2, err
	}
	res, err := instrument.Package(files, instrument.Options{
		ImportPath:              cc.Package,
		SourcePath:              importPath,
		GoVersion:               cc.Lang,
		Importer:                r.importer(icfg),
		Sizes:                   types.SizesFor("gc", goarch()),
		RuntimePath:             gobuild.RuntimeImportPath,
		Selects:                 match.Selects,
		Ignored:                 match.Ignores,
		Instrumented:            r.instrumented,
		NeverFails:              match.NeverFails,
		ErrorConstructors:       match.ErrorConstructor,
		Mask:                    match.Mode == policy.Mask,
		Oblivious:               match.Oblivious,
		MasksOutsideLocks:       match.MasksOutsideLocks,
		CallbacksWriteArguments: match.CallbacksWriteArguments,
		UndoFiles:               undoFiles(match),
		Releases:                maskReleases(match),
		Borrows:                 errleak.Borrows,
		ProbeAcquires:           probeAcquires(match),
		Panics:                  match.Options.Panics,
		Globals:                 match.Options.Globals,
		SnapshotBudget:          match.Options.SnapshotBudget,
		Scratch:                 match.Scratch(),
		DoneValues:              match.SuccessErrors(),
	})
	var typeErr *instrument.TypeError
	if errors.As(err, &typeErr) {
		return r.compileUnchecked(importPath, match, typeErr)
	}
	var funcErr *instrument.FuncError
	if errors.As(err, &funcErr) {
		return 2, errors.New(funcErrorMessage(importPath, funcErr))
	}
	if err != nil {
		return 2, fmt.Errorf("instrumenting %s: %w", cc.Package, err)
	}
	if match.Mode == policy.Mask {
		if errs := match.MissingFunctions(res.Declared); len(errs) > 0 {
			return 2, errors.New(strings.Join(errs, "\n"))
		}
		if errs := outsideWriteErrors(match, res.OutsideWrites); len(errs) > 0 {
			return 2, errors.New(strings.Join(errs, "\n"))
		}
		r.reportMasking(res)
	}
	if match.Mode == policy.Detect {
		r.reportOmittedCalls(importPath, res)
	}
	if res.Generated == nil {
		return r.exec(r.cmd.Args) // nothing selected in this package
	}

	dir := filepath.Join(filepath.Dir(cc.Output), "atomicx")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 2, err
	}
	names := make([]string, len(res.Files))
	used := map[string]bool{}
	for i, f := range res.Files {
		names[i] = f.Name
		if !res.Changed[i] {
			continue
		}
		names[i] = uniqueName(dir, filepath.Base(f.Name), used)
		if err := os.WriteFile(names[i], f.Src, 0o666); err != nil {
			return 2, err
		}
	}
	gen := uniqueName(dir, res.Generated.Name, used)
	if err := os.WriteFile(gen, generatedSource(res.Generated, res.Files, filepath.Dir(cc.Output)), 0o666); err != nil {
		return 2, err
	}
	var last []string
	if res.GeneratedInit != nil {
		name := uniqueName(dir, res.GeneratedInit.Name, used)
		if err := os.WriteFile(name, generatedSource(res.GeneratedInit, res.Files, filepath.Dir(cc.Output)), 0o666); err != nil {
			return 2, err
		}
		last = append(last, name)
	}
	icfg.AddMissing(archives)
	cfgPath := filepath.Join(dir, "importcfg")
	if err := os.WriteFile(cfgPath, icfg.Bytes(), 0o666); err != nil {
		return 2, err
	}
	// The site table goes first and the init function last: see
	// instrument.Result.
	args := append(compilerHeapFlags(cc), cc.WithFiles(names, []string{gen}, last, cfgPath)...)

	var stderr bytes.Buffer
	code, err := r.execCapture(args, &stderr)
	if code == 0 || err != nil {
		r.cfg.Stderr.Write(stderr.Bytes())
		return code, err
	}
	// The instrumented package does not compile. If the original does
	// not either, the user sees the compiler on the original; else it is
	// atomicx's fault, and the user needs to know how to get past it.
	if code, err := r.execCapture(r.cmd.Args, io.Discard); code != 0 || err != nil {
		return r.exec(r.cmd.Args)
	}
	fmt.Fprintf(r.cfg.Stderr, "atomicx: instrumenting package %s produced code that does not compile:\n%s", importPath, stderr.Bytes())
	fmt.Fprintf(r.cfg.Stderr, "atomicx: %s\n", blameHint(importPath, res.Functions, stderr.String()))
	return code, nil
}

// compileUnchecked builds a selected package that atomicx could not
// type-check. It compiles the package as written first: when the compiler
// fails too, the package is wrong and the user sees the compiler's own
// messages, nothing more. When the compiler succeeds, the package has lost
// its instrumentation: a warning says so, or, where the policy asks for it
// (mask rules by default), the build stops.
func (r *runner) compileUnchecked(importPath string, match policy.Match, typeErr *instrument.TypeError) (int, error) {
	var out bytes.Buffer
	code, err := r.execCapture(r.cmd.Args, &out)
	r.cfg.Stderr.Write(out.Bytes())
	if code != 0 || err != nil {
		return code, err
	}
	lost := "instrumentation"
	if match.Mode == policy.Mask {
		lost = "masking"
	}
	reason := typeCheckReason(typeErr)
	if hint := r.newerToolchainHint(); hint != "" {
		reason += "\n\t" + hint
	}
	if !match.FailsOnTypeCheckFailure() {
		fmt.Fprintf(r.cfg.Stderr, "atomicx: warning: package %s is built without %s: atomicx cannot type-check it: %s\n", importPath, lost, reason)
		return 0, nil
	}
	where := "the rule for " + importPath
	if match.Rule != nil {
		where = "the rule at " + match.Rule.Pos.String()
	}
	return 2, fmt.Errorf("cannot type-check package %s, so it would be built without %s: %s\n"+
		"\tto build it without %s anyway, set on_type_check_failure = \"warn\" in %s",
		importPath, lost, reason, lost, where)
}

// typeCheckReason is the first type-checking error, and how many more
// there are.
func typeCheckReason(e *instrument.TypeError) string {
	switch len(e.Errors) {
	case 0:
		return "type errors"
	case 1:
		return e.Errors[0].Error()
	}
	return fmt.Sprintf("%v (and %d more)", e.Errors[0], len(e.Errors)-1)
}

// newerToolchainHint explains a type-checking failure by the toolchain,
// when this build's is newer than the one atomicx was built with: atomicx
// type-checks with its own go/types, which may not read the export data
// or the language of a later Go.
func (r *runner) newerToolchainHint() string {
	var out bytes.Buffer
	if code, err := r.execCapture([]string{"-V"}, &out); code != 0 || err != nil {
		return ""
	}
	return toolchainHint(out.String(), runtime.Version())
}

// toolchainHint compares the Go version a tool's -V line names with the
// one atomicx was built with; "" unless the tool's is the newer language.
func toolchainHint(toolLine, atomicxVersion string) string {
	tool, self := goVersionIn(toolLine), goVersionIn(atomicxVersion)
	if tool == "" || self == "" || version.Compare(version.Lang(tool), version.Lang(self)) <= 0 {
		return ""
	}
	return fmt.Sprintf("this build uses %s, but atomicx was built with %s, whose go/types may not read what %s compiles: "+
		"rebuild and reinstall atomicx with %s", tool, self, tool, tool)
}

// goVersionIn returns the first Go version in s: "go1.26.8" from a release
// toolchain's "compile version go1.26.8", "go1.27" from a development
// toolchain's "devel go1.27-0a1b2c3 ..."; "" if there is none.
func goVersionIn(s string) string {
	for _, f := range strings.Fields(s) {
		if v, _, _ := strings.Cut(f, "-"); version.IsValid(v) {
			return v
		}
	}
	return ""
}

// reportMasking tells the user, at build time, what masking could not do
// for the functions the policy selects: skipped ones, functions that can
// only fail by panicking, and shapes the rollback handles partly.
func (r *runner) reportMasking(res *instrument.Result) {
	for _, s := range res.Skipped {
		fmt.Fprintf(r.cfg.Stderr, "%s: atomicx: warning: %s is not masked: it %s\n", s.Pos, s.Name, s.Reason)
	}
	for _, n := range res.Notes {
		kind := "warning"
		if n.Cost {
			kind = "note"
		}
		fmt.Fprintf(r.cfg.Stderr, "%s: atomicx: %s: %s\n", n.Pos, kind, n.Message)
	}
}

// outsideWriteErrors returns, for each function that a mask rule selects
// and that writes outside memory without the rule's outside_writes
// listing it, a "file:line:col: message" that says where it writes, why
// it is not masked, and what to do.
func outsideWriteErrors(match policy.Match, writes []instrument.OutsideWrite) []string {
	var errs []string
	for _, w := range writes {
		if match.MasksOutsideWrites(w.Name) {
			continue
		}
		hint := match.OutsideWritesHint(w.Name)
		if !w.Undo && undoableCall(w.Call) {
			hint = fmt.Sprintf("%s; to undo its writes to files with its memory, write %s", hint, match.UndoFilesHint(w.Name))
		}
		errs = append(errs, fmt.Sprintf("%s: %s", w.Pos, outsideWriteMessage(w, hint)))
	}
	return errs
}

// undoableCall reports whether a write outside memory is one that
// undo_files can undo.
func undoableCall(callee string) bool {
	switch callee {
	case "(*os.File).Write", "(*os.File).WriteString", "(*os.File).WriteAt", "(*os.File).ReadFrom", "(*os.File).Truncate":
		return true
	}
	return false
}

// undoFiles is the instrumentation's UndoFiles: nil unless the
// package's mask rule lists undo_files.
func undoFiles(match policy.Match) func(string) bool {
	if !match.UndoesAnyFiles() {
		return nil
	}
	return match.UndoesFiles
}

// outsideWriteMessage says why a function that writes outside memory is
// not masked, and what to do; hint says how to mask it anyway.
func outsideWriteMessage(w instrument.OutsideWrite, hint string) string {
	through := ""
	if len(w.Via) > 0 {
		through = " through " + strings.Join(w.Via, ", ")
	}
	if w.Undo {
		return fmt.Sprintf("%s is selected for masking with its writes to files undone, but it writes outside memory where undo_files does not reach: %s at %s:%d:%d%s; "+
			"a write is undone only through an *os.File's Write, WriteString, WriteAt, ReadFrom or Truncate called in a statement of its own "+
			"(not a return, a defer or a larger expression) on a variable or field\n"+
			"\trepair it so that it writes last or undoes that write on failure, or exclude it from the rule; "+
			"to mask its memory anyway, write %s",
			w.Name, w.Call, filepath.Base(w.CallPos.Filename), w.CallPos.Line, w.CallPos.Column, through, hint)
	}
	return fmt.Sprintf("%s is selected for masking, but it writes outside memory: %s at %s:%d:%d%s; "+
		"a rollback of memory cannot undo that, and would leave memory and the file out of step\n"+
		"\trepair it so that it writes last or undoes its writes on failure, or exclude it from the rule; "+
		"to mask its memory anyway, write %s",
		w.Name, w.Call, filepath.Base(w.CallPos.Filename), w.CallPos.Line, w.CallPos.Column, through, hint)
}

// noteOmitted starts the build's note that says which calls of
// error-returning functions in a detect build are not injection points;
// the campaign finds these notes in its builds' output by it.
const noteOmitted = "atomicx: note: "

// reportOmittedCalls tells the user, at build time, how many calls of
// error-returning functions a detect build of the package did not make
// injection points, and why: the campaign never injects a fault there.
// Those that cannot fail, and the error constructors, whose entries are
// not points either, are counted apart from those the rewrite could not
// reach. The note is part of the compiler's output, which the go command
// keeps with the package in its build cache and shows again on a cache
// hit.
func (r *runner) reportOmittedCalls(importPath string, res *instrument.Result) {
	if note := omittedNote(importPath, res); note != "" {
		fmt.Fprintln(r.cfg.Stderr, note)
	}
}

// omittedNote is reportOmittedCalls's note, or "" when nothing was left
// out.
func omittedNote(importPath string, res *instrument.Result) string {
	omitted := 0
	for _, n := range res.OmittedCalls {
		omitted += n
	}
	if omitted == 0 && len(res.Constructors) == 0 {
		return ""
	}
	keys := make([]string, 0, len(res.OmittedCalls))
	for reason := range res.OmittedCalls {
		keys = append(keys, reason)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := res.OmittedCalls[keys[i]], res.OmittedCalls[keys[j]]
		return a > b || a == b && keys[i] < keys[j]
	})
	reasons := make([]string, len(keys))
	for i, k := range keys {
		reasons[i] = fmt.Sprintf("%d %s", res.OmittedCalls[k], k)
	}
	note := fmt.Sprintf("%s%s: %d of %d calls of error-returning functions are not injection points", noteOmitted, importPath, omitted, omitted+res.CallPoints)
	if omitted > 0 {
		note += ": " + strings.Join(reasons, ", ")
	}
	if n := len(res.Constructors); n > 0 {
		const shown = 4
		names := res.Constructors[:min(n, shown)]
		more := ""
		if n > shown {
			more = fmt.Sprintf(" and %d more", n-shown)
		}
		what := "nor are the entries of %d error constructors"
		if n == 1 {
			what = "nor is the entry of %d error constructor"
		}
		note += fmt.Sprintf("; "+what+" (%s%s)", n, strings.Join(names, ", "), more)
	}
	return note
}

// generatedSource returns the generated file's source, headed by a //line
// directive that places it in the package's directory. Its real path is in
// the object directory under $WORK, which -trimpath only strips when it is
// not inside the package's directory: when it is (TMPDIR under the module,
// as in testscript), the random go-build directory name ended up in the
// binary and -trimpath builds were not reproducible. The package's
// directory is taken from its first file outside objdir (cgo output lives
// in objdir); without one the file is left as it is.
func generatedSource(gen *instrument.File, files []instrument.File, objdir string) []byte {
	src := gen.Src
	for _, f := range files {
		dir := filepath.Dir(f.Name)
		if rel, err := filepath.Rel(objdir, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // in objdir
		}
		line := "//line " + filepath.Join(dir, gen.Name) + ":1\n"
		return append([]byte(line), src...)
	}
	return src
}

// blameHint names the functions that compiler errors point into, and how
// to leave them out.
func blameHint(pkg string, fns []instrument.Function, compilerOut string) string {
	var blamed []string
	for _, fn := range fns {
		if strings.Contains(compilerOut, fmt.Sprintf("%s:%d:", fn.Pos.Filename, fn.Pos.Line)) ||
			strings.Contains(compilerOut, fmt.Sprintf("%s:%d:", filepath.Base(fn.Pos.Filename), fn.Pos.Line)) {
			blamed = append(blamed, fn.Name)
		}
	}
	return excludeHint(pkg, blamed)
}

// funcErrorMessage reports a function that atomicx failed to rewrite.
func funcErrorMessage(pkg string, e *instrument.FuncError) string {
	msg := fmt.Sprintf("instrumenting package %s: %v\n\t%s", pkg, e, excludeHint(pkg, []string{e.Func}))
	if e.Stack != "" {
		msg += "\n" + e.Stack
	}
	return msg
}

// excludeHint says how to build past atomicx's failure to instrument the
// named functions of pkg (none: the ones at the positions printed).
func excludeHint(pkg string, names []string) string {
	what := "the function at the positions above"
	example := "(*T).Method"
	if len(names) > 0 {
		what = strings.Join(names, ", ")
		example = names[0]
	}
	return fmt.Sprintf("this is a bug in atomicx; please report it. To build anyway, leave %s out: add exclude = [%q] to the rule for %s in atomicheck.toml", what, example, pkg)
}

// link adds the runtime to the link's import configuration when the
// policy instruments anything.
func (r *runner) link() (int, error) {
	l := ParseLink(r.cmd)
	if !instrumentsAnything(r.pol) || l.ImportCfg == "" {
		return r.exec(r.cmd.Args)
	}
	archives, err := r.runtime()
	if err != nil {
		return 2, err
	}
	icfg, err := ReadImportConfig(l.ImportCfg)
	if err != nil {
		return 2, err
	}
	if icfg.AddMissing(archives) == 0 {
		return r.exec(r.cmd.Args)
	}
	cfgPath := l.ImportCfg + ".atomicx"
	if err := os.WriteFile(cfgPath, icfg.Bytes(), 0o666); err != nil {
		return 2, err
	}
	var stderr bytes.Buffer
	code, err := r.execCapture(l.WithImportCfg(cfgPath), &stderr)
	r.cfg.Stderr.Write(stderr.Bytes())
	if code != 0 && strings.Contains(stderr.String(), "fingerprint mismatch") {
		fmt.Fprintf(r.cfg.Stderr, "atomicx: the runtime was built with other flags than this build's packages; "+
			"pass build flags (-race, -gcflags=all=..., -tags, -trimpath) on the go command line or in GOFLAGS, and report this if they are there\n")
	}
	return code, err
}

// linksInOutputDir reports whether the go command runs this link in the
// directory of its output, which it does when -o is a bare file name.
func linksInOutputDir(l Link) bool {
	return l.Output != "" && filepath.Base(l.Output) == l.Output
}

// instrumented reports whether the policy instruments a function of
// another package, whose entry is then an injection point of its own.
func (r *runner) instrumented(pkgPath, name string) bool {
	// Standard library paths have no dot in their first element.
	first, _, _ := strings.Cut(pkgPath, "/")
	m := r.pol.ForPackage(pkgPath, !strings.Contains(first, "."))
	return m.Mode == policy.Detect && m.Selects(name)
}

// instrumentsAnything reports whether some rule of the policy turns
// instrumentation on, so that a link may need the runtime.
func instrumentsAnything(p *policy.Policy) bool {
	for _, rule := range p.Rules {
		if rule.Mode != policy.Off {
			return true
		}
	}
	return false
}

// packageImportPath returns the import path of the package being
// compiled. The compiler's -p is "main" for every main package, so the go
// command's TOOLEXEC_IMPORTPATH is used where it is set; for test builds
// it reads "p [p.test]".
func packageImportPath(cc Compile) string {
	if p := os.Getenv("TOOLEXEC_IMPORTPATH"); p != "" {
		p, _, _ = strings.Cut(p, " ")
		return p
	}
	return cc.Package
}

func isTestMain(cc Compile) bool {
	for _, f := range cc.Files() {
		switch filepath.Base(f) {
		case "_testmain.go", "_testmain.cover.go":
			return true
		}
	}
	return false
}

func readFiles(names []string) ([]instrument.File, error) {
	files := make([]instrument.File, len(names))
	for i, n := range names {
		abs, err := filepath.Abs(n)
		if err != nil {
			return nil, err
		}
		src, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		files[i] = instrument.File{Name: abs, Src: src}
	}
	return files, nil
}

func uniqueName(dir, base string, used map[string]bool) string {
	name := base
	for i := 1; used[name]; i++ {
		name = fmt.Sprintf("%d_%s", i, base)
	}
	used[name] = true
	return filepath.Join(dir, name)
}

func goarch() string {
	if a := os.Getenv("GOARCH"); a != "" {
		return a
	}
	return "amd64"
}

// importer is what type-checks a package's imports: the export data its
// import configuration lists, through Config.WrapImporter if set.
func (r *runner) importer(icfg *ImportConfig) types.Importer {
	imp := newImporter(icfg)
	if r.cfg.WrapImporter != nil {
		imp = r.cfg.WrapImporter(imp)
	}
	return imp
}

// newImporter reads the export data of the packages an importcfg lists.
func newImporter(cfg *ImportConfig) types.Importer {
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := cfg.PackageFile[path]
		if !ok {
			return nil, fmt.Errorf("package %s is not in the import configuration", path)
		}
		return os.Open(file)
	}
	return mappedImporter{imp: importer.ForCompiler(token.NewFileSet(), "gc", lookup), importMap: cfg.ImportMap}
}

// mappedImporter applies the importcfg's importmap (vendored packages)
// before importing.
type mappedImporter struct {
	imp       types.Importer
	importMap map[string]string
}

func (m mappedImporter) Import(path string) (*types.Package, error) {
	if actual, ok := m.importMap[path]; ok {
		path = actual
	}
	return m.imp.Import(path)
}

// exec runs the real tool with the go command's standard streams.
func (r *runner) exec(args []string) (int, error) {
	return r.runTool(args, r.cfg.Stdout, r.cfg.Stderr)
}

// execCapture runs the real tool with both its output streams going to
// out: the compiler prints its diagnostics on standard output, and the go
// command shows the two together anyway.
func (r *runner) execCapture(args []string, out io.Writer) (int, error) {
	return r.runTool(args, out, out)
}

func (r *runner) runTool(args []string, stdout, stderr io.Writer) (int, error) {
	c := exec.Command(r.cmd.ToolPath, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, stdout, stderr
	err := c.Run()
	if err == nil {
		return 0, nil
	}
	if code := exitCode(err); code > 0 {
		return code, nil
	}
	return 2, fmt.Errorf("running %s: %w", r.cmd.Tool, err)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if c := ee.ExitCode(); c > 0 {
			return c
		}
		return 1
	}
	return -1
}

// maskReleases returns what the failing masked calls of a package
// release (instrument.Options.Releases): nothing outside mask builds.
func maskReleases(m policy.Match) map[string]instrument.Release {
	if m.Mode != policy.Mask {
		return nil
	}
	out := map[string]instrument.Release{}
	for name, r := range errleak.MaskReleases(m.Leaks()) {
		out[name] = instrument.Release{Resource: r.Resource, Field: r.Field, Method: r.Method, Others: r.Others}
	}
	return out
}

// probeAcquires returns the acquisitions whose resources a detect build
// probes (policy.Match.ProbeAcquires), as instrument.Options wants them:
// by position, each with its is_closed method or "".
func probeAcquires(m policy.Match) map[string]string {
	list := m.ProbeAcquires()
	if len(list) == 0 {
		return nil
	}
	set := make(map[string]string, len(list))
	for _, entry := range list {
		pos, isClosed := policy.SplitProbe(entry)
		set[pos] = isClosed
	}
	return set
}
