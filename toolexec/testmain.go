package toolexec

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/atomicx/atomicx/internal/gobuild"
	"github.com/atomicx/atomicx/policy"
)

// testMainFile is the name of the file in which the go command declares a
// test binary's tests.
const testMainFile = "_testmain.go"

// compileTestMain compiles the main package of a test binary with each of
// its tests handed to the runtime (rt.RunTest), so that a campaign can
// run many experiments of a test in one process: one per run of the test
// (see rt's batch runs). A test binary that is not run for a batch runs
// its tests as written: the wrapper returns them unwrapped.
//
// Only a build whose policy detects (a campaign's) needs it: a masking
// build's test binary holds no campaign machinery. Under the front-end
// only a test main that has a build key of its own is
// rewritten, which is the case when the package under test is
// instrumented (the go command gives the test main that package's
// compiler flags): another one would be cached under the key of a plain
// build, importing a runtime that a plain link lacks.
func (r *runner) compileTestMain(cc Compile, key string) (int, error) {
	if !detectsAnything(r.pol) || r.keyed != "" && key == "" {
		return r.exec(r.cmd.Args)
	}
	files := cc.Files()
	at := -1
	for i, f := range files {
		if filepath.Base(f) == testMainFile {
			at = i
		}
	}
	if at < 0 {
		return r.exec(r.cmd.Args)
	}
	src, err := os.ReadFile(files[at])
	if err != nil {
		return 2, err
	}
	wrapped, err := wrapTests(src, gobuild.RuntimeImportPath)
	if err != nil {
		return 2, fmt.Errorf("test main of %s: %w", packageImportPath(cc), err)
	}
	if wrapped == nil {
		return r.exec(r.cmd.Args) // no tests
	}
	archives, err := r.runtime()
	if err != nil {
		return 2, err
	}
	icfg, err := ReadImportConfig(cc.ImportCfg)
	if err != nil {
		return 2, err
	}
	icfg.AddMissing(archives)
	dir := filepath.Join(filepath.Dir(cc.Output), "atomicx")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 2, err
	}
	name := filepath.Join(dir, testMainFile)
	if err := os.WriteFile(name, wrapped, 0o666); err != nil {
		return 2, err
	}
	cfgPath := filepath.Join(dir, "importcfg")
	if err := os.WriteFile(cfgPath, icfg.Bytes(), 0o666); err != nil {
		return 2, err
	}
	files[at] = name
	return r.exec(cc.WithFiles(files, nil, nil, cfgPath))
}

// detectsAnything reports whether some rule of the policy detects.
func detectsAnything(p *policy.Policy) bool {
	for _, rule := range p.Rules {
		if rule.Mode == policy.Detect {
			return true
		}
	}
	return false
}

// wrapTests rewrites a test main's source so that each function of its
// tests list goes through a wrapper, declared at the end of the file, that
// runs it through the runtime's RunTest in a batch run; nil when the list
// is empty. The runtime is imported from rtPath. The rewrite inserts text
// on the lines where the go command wrote the list, so that positions
// stay as they were, and uses nothing newer than the oldest language
// version a module may declare.
func wrapTests(src []byte, rtPath string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, testMainFile, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	testing := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"testing"` {
			testing = "testing"
			if imp.Name != nil {
				testing = imp.Name.Name
			}
		}
	}
	if testing == "" || testing == "_" || testing == "." {
		return nil, nil
	}
	type insertion struct {
		off  int
		text string
	}
	var ins []insertion
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || vs.Names[0].Name != "tests" || len(vs.Values) != 1 {
				continue
			}
			list, ok := vs.Values[0].(*ast.CompositeLit)
			if !ok {
				continue
			}
			for _, e := range list.Elts {
				test, ok := e.(*ast.CompositeLit)
				if !ok || len(test.Elts) != 2 {
					return nil, fmt.Errorf("tests list at %s: want {name, function}", fset.Position(e.Pos()))
				}
				fn := test.Elts[1]
				ins = append(ins, insertion{fset.Position(fn.Pos()).Offset, wrapperName + "("},
					insertion{fset.Position(fn.End()).Offset, ")"})
			}
		}
	}
	if len(ins) == 0 {
		return nil, nil
	}
	// The import goes on the package clause's line.
	ins = append(ins, insertion{fset.Position(f.Name.End()).Offset, "; import " + rtName + " " + strconv.Quote(rtPath)})
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].off < ins[j].off })
	var b bytes.Buffer
	last := 0
	for _, in := range ins {
		b.Write(src[last:in.off])
		b.WriteString(in.text)
		last = in.off
	}
	b.Write(src[last:])
	fmt.Fprintf(&b, wrapperSource, wrapperName, testing, rtName)
	return b.Bytes(), nil
}

// The names under which a rewritten test main imports the runtime and
// declares its wrapper: names that no generated test main declares.
const (
	rtName      = "_atomicx_rt"
	wrapperName = "_atomicx_test"
)

// wrapperSource declares the wrapper (%[1]s) of a test main whose testing
// package is named %[2]s and the runtime %[3]s.
const wrapperSource = `
func %[1]s(f func(*%[2]s.T)) func(*%[2]s.T) {
	if !%[3]s.Batched() {
		return f
	}
	return func(t *%[2]s.T) { %[3]s.RunTest(t, func() { f(t) }) }
}
`
