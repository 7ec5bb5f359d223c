package campaign

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/policy"
)

// The runtime (rt) and the programs that drive it (campaign, report, the
// atomicx command) speak through environment variables and JSON event
// lines. rt cannot share constants with them: it is compiled into users'
// programs from its own source, and the atomicx binary does not link it.
// So each side writes the names itself, and this test reads both sides'
// source and checks that they agree.

// Variables named ATOMICX_* that are not read by the runtime, and who
// reads them.
var nonRuntimeVars = map[string]string{
	policy.EnvVar:    "the policy lookup of toolexec and the CLI",
	"ATOMICX_CACHE":  "toolexec: where the runtime is built",
	"ATOMICX_BINARY": "a program workload's script: the instrumented binary",
	// A program workload's oracle (Config.Oracle).
	"ATOMICX_EXIT_STATUS": "the oracle: the script's exit status",
	"ATOMICX_OUTPUT":      "the oracle: the file holding the script's output",
}

// Events and fields that the runtime writes and no program reads, and why.
var unreadEvents = map[string]string{
	"problem": "a malformed setting, for the user who reads the log",
}
var unreadFields = map[string]string{
	"pid":     "tells apart the processes that share one log",
	"message": "of a problem event",
	"fault":   "of an inject event: the campaign knows what it armed",
	"value":   "of an oblivious event: the panic swallowed, for the user who reads the log",
	// Its verdict is today's: the change counts as the call's own.
	"callbacks_unsplit": "of a verdict event: the call made more callbacks than are told apart, for the user who reads the log",
	// A recheck's verdicts are memory's: the files are for the user who
	// replays a masked failure by hand.
	"undone_writes": "of a verdict event rolled back by ATOMICX_MASK: the writes to files ATOMICX_UNDO_FILES undid",
	"not_undone":    "of a verdict event rolled back by ATOMICX_MASK: why its writes outside memory were not undone",
}

func TestRuntimeProtocol(t *testing.T) {
	rtSide := readRuntimeSide(t, filepath.Join("..", "rt"))
	readers := []struct {
		dir  string
		side programSide
	}{
		// The engine and the questions: what arms a run is theirs.
		{".", readProgramSide(t, campaignDirs(t)...)},
		{filepath.Join("..", "report"), readProgramSide(t, filepath.Join("..", "report"))},
		{filepath.Join("..", "cmd", "atomicx"), readProgramSide(t, filepath.Join("..", "cmd", "atomicx"))},
	}
	if len(rtSide.envVars) == 0 || len(rtSide.events) == 0 {
		t.Fatalf("found no environment variables or no events in rt: %+v", rtSide)
	}

	// Every variable a program sets or names is the runtime's, or one
	// that something else reads.
	set := map[string]bool{}
	for _, r := range readers {
		for name, pos := range r.side.envVars {
			set[name] = true
			if !rtSide.envVars[name] && nonRuntimeVars[name] == "" {
				t.Errorf("%s: %s is not an environment variable of rt (rt defines %s)", pos, name, sortedKeys(rtSide.envVars))
			}
		}
		// Values a program gives a variable literally must be ones rt knows.
		for nameValue, pos := range r.side.envValues {
			if _, value, _ := strings.Cut(nameValue, "="); !rtSide.literals[value] {
				t.Errorf("%s: %s: rt's source has no %q: it does not know that value", pos, nameValue, value)
			}
		}
	}
	// Every variable of rt is set by the campaign and documented in the
	// command's help.
	campaignVars, help := readers[0].side.envVars, readers[2].side.envVars
	for name := range rtSide.envVars {
		if _, ok := campaignVars[name]; !ok {
			t.Errorf("rt reads %s, but the campaign never sets it", name)
		}
		if _, ok := help[name]; !ok {
			t.Errorf("rt reads %s, but atomicx help does not document it", name)
		}
	}

	// Every event kind and field a program reads is one rt writes, on an
	// event of a kind the program reads.
	readEvents, readFields := map[string]bool{}, map[string]bool{}
	for _, r := range readers {
		for kind, pos := range r.side.eventKinds {
			readEvents[kind] = true
			if rtSide.events[kind] == nil {
				t.Errorf("%s: reads events %q, which rt never writes (rt writes %s)", pos, kind, sortedKeys(rtSide.events))
			}
		}
		for field, pos := range r.side.eventFields {
			readFields[field] = true
			written := false
			for kind := range r.side.eventKinds {
				written = written || rtSide.events[kind][field]
			}
			if !written {
				t.Errorf("%s: reads the event field %q, which rt writes on no event this package reads (%s)", pos, field, sortedKeys(r.side.eventKinds))
			}
		}
	}
	// And the other way: what rt writes is read, or known to be for people.
	for kind, fields := range rtSide.events {
		if !readEvents[kind] && unreadEvents[kind] == "" {
			t.Errorf("rt writes %q events, which no program reads", kind)
		}
		for field := range fields {
			if !readFields[field] && unreadFields[field] == "" {
				t.Errorf("rt writes the field %q on %q events, which no program reads", field, kind)
			}
		}
	}
}

// runtimeSide is what rt's source says about the protocol.
type runtimeSide struct {
	envVars  map[string]bool            // values of its Env* constants, and names it reads literally
	events   map[string]map[string]bool // event kind -> fields written on it
	literals map[string]bool            // every string literal of its source
}

// readRuntimeSide reads rt's non-test source. An event is written by a
// function that calls event("kind") and adds fields with str, num and
// boolean; every field a function adds is counted for every kind it
// writes. event() itself writes the fields its string literals open.
func readRuntimeSide(t *testing.T, dir string) runtimeSide {
	s := runtimeSide{envVars: map[string]bool{}, events: map[string]map[string]bool{}, literals: map[string]bool{}}
	var common []string // fields every event has
	keyInLiteral := regexp.MustCompile(`"([a-z_]+)":`)
	for _, f := range parseDir(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s.literals[unquote(lit)] = true
			}
			return true
		})
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if strings.HasPrefix(name.Name, "Env") && i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								s.envVars[unquote(lit)] = true
							}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Body == nil {
					continue
				}
				if d.Recv == nil && d.Name.Name == "event" {
					ast.Inspect(d.Body, func(n ast.Node) bool {
						if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							for _, m := range keyInLiteral.FindAllStringSubmatch(unquote(lit), -1) {
								common = append(common, m[1])
							}
						}
						return true
					})
					continue
				}
				var kinds, fields []string
				ast.Inspect(d.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok || len(call.Args) == 0 {
						return true
					}
					lit, ok := call.Args[0].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return true
					}
					switch fn := call.Fun.(type) {
					case *ast.Ident:
						if fn.Name == "event" {
							kinds = append(kinds, unquote(lit))
						}
					case *ast.SelectorExpr:
						switch fn.Sel.Name {
						case "str", "strIf", "num", "boolean":
							fields = append(fields, unquote(lit))
						case "Getenv", "LookupEnv":
							// A variable read without an Env constant
							// is part of the protocol all the same.
							s.envVars[unquote(lit)] = true
						}
					}
					return true
				})
				for _, k := range kinds {
					if s.events[k] == nil {
						s.events[k] = map[string]bool{}
					}
					for _, f := range fields {
						s.events[k][f] = true
					}
				}
			}
		}
	}
	if !slices.Contains(common, "event") {
		t.Fatalf("rt's event() writes no \"event\" field (found %q): the test no longer understands rt's log", common)
	}
	for _, fields := range s.events {
		for _, f := range common {
			fields[f] = true
		}
	}
	return s
}

// programSide is what a program's source says about the protocol, each
// name with the position of one use.
type programSide struct {
	envVars     map[string]token.Position // ATOMICX_* names in string literals
	envValues   map[string]token.Position // "NAME=value" literals with a constant value
	eventKinds  map[string]token.Position // kinds compared with an event's Event field or passed to hasEvent
	eventFields map[string]token.Position // json tags of its event (or Event) struct types
}

var envInLiteral = regexp.MustCompile(`\bATOMICX_[A-Z0-9_]*[A-Z0-9]`)

// campaignDirs are the directories of the engine and of the questions it
// is handed, which plan and read its runs.
func campaignDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "question", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{".", filepath.Join("..", "question")}
	for _, d := range dirs {
		if d := filepath.Dir(d); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// readProgramSide reads the non-test source of the packages in dirs.
func readProgramSide(t *testing.T, dirs ...string) programSide {
	s := programSide{
		envVars: map[string]token.Position{}, envValues: map[string]token.Position{},
		eventKinds: map[string]token.Position{}, eventFields: map[string]token.Position{},
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, dir := range dirs {
		files = append(files, parseDirWith(t, fset, dir)...)
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				v := unquote(n)
				for _, name := range envInLiteral.FindAllString(v, -1) {
					s.envVars[name] = fset.Position(n.Pos())
				}
				// "ATOMICX_STOP=absorbed": a whole value, not a format.
				if name, value, ok := strings.Cut(v, "="); ok && envInLiteral.MatchString(name) && name == envInLiteral.FindString(name) &&
					value != "" && !strings.ContainsAny(value, "%' $") {
					s.envValues[v] = fset.Position(n.Pos())
				}
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					return true
				}
				for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if sel, ok := pair[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Event" {
						if lit, ok := pair[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s.eventKinds[unquote(lit)] = fset.Position(lit.Pos())
						}
					}
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "hasEvent" && len(n.Args) == 2 {
					if lit, ok := n.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s.eventKinds[unquote(lit)] = fset.Position(lit.Pos())
					}
				}
			case *ast.TypeSpec:
				st, ok := n.Type.(*ast.StructType)
				if !ok || n.Name.Name != "event" && n.Name.Name != "Event" {
					return true
				}
				for _, field := range st.Fields.List {
					if field.Tag == nil {
						continue
					}
					tag := reflect.StructTag(unquote(field.Tag)).Get("json")
					if name, _, _ := strings.Cut(tag, ","); name != "" && name != "-" {
						s.eventFields[name] = fset.Position(field.Pos())
					}
				}
			}
			return true
		})
	}
	return s
}

func parseDir(t *testing.T, dir string) []*ast.File {
	return parseDirWith(t, token.NewFileSet(), dir)
}

// parseDirWith parses the non-test Go files of dir.
func parseDirWith(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return files
}

func unquote(lit *ast.BasicLit) string {
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return lit.Value
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// RuntimeLiterals are the string literals of rt's source, for the tests
// of the questions' arming strings (package campaign_test).
func RuntimeLiterals(t *testing.T) map[string]bool {
	return readRuntimeSide(t, filepath.Join("..", "rt")).literals
}
