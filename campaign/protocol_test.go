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
	"github.com/atomicx/atomicx/rt/arm"
)

// The runtime (rt) and the programs that drive it (campaign, report, the
// atomicx command) speak through two channels. The arming of a run is one
// value, arm.Arming, that the engine encodes and the runtime parses: its
// variables are right by construction, and rt/arm's tests check the round
// trip of every field and the messages of malformed settings; the tests
// here check that the engine arms runs through it. The event log is JSON
// lines that rt writes field by field: TestRuntimeProtocol reads both
// sides' source and checks that they agree.

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

// armVars are the names of the arming's variables.
func armVars() map[string]bool {
	full := arm.Arming{
		Log: "l", Inject: arm.Injection{Fault: arm.FaultError, Occurrence: 1, Site: "m.F#entry"}, Profile: 1,
		StopAbsorbed: true, Snapshots: arm.SnapshotsAll, SnapshotCalls: ";", Mask: []string{"m.F#entry"},
		UndoFiles: []string{"m.F#entry"}, Oblivious: []string{"m.F#entry"}, Widen: []string{"m.F#handler:f.go:1:2"},
		Route: []string{"m.F#handler:f.go:1:2"}, ListAsWritten: true, Batch: "b",
	}
	names := map[string]bool{}
	for _, kv := range full.Env() {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	return names
}

// TestArmingVariables: the programs name no ATOMICX_* variable that is
// neither the arming's nor one something else reads, never write an
// arming variable's assignment by hand (arm.Arming.Env does), and atomicx
// help documents every arming variable.
func TestArmingVariables(t *testing.T) {
	vars := armVars()
	if len(vars) != 13 {
		t.Fatalf("the arming has %d variables, want 13: %v", len(vars), sortedKeys(vars))
	}
	for _, dir := range append(campaignDirs(t), filepath.Join("..", "report"), filepath.Join("..", "cmd", "atomicx")) {
		side := readProgramSide(t, dir)
		for name, pos := range side.envVars {
			if !vars[name] && nonRuntimeVars[name] == "" {
				t.Errorf("%s: %s is not a variable of the arming (arm's are %s)", pos, name, sortedKeys(vars))
			}
		}
		for name, pos := range side.envAssigns {
			if vars[name] {
				t.Errorf("%s: %s= written by hand: set it through arm.Arming", pos, name)
			}
		}
	}
	help := readProgramSide(t, filepath.Join("..", "cmd", "atomicx")).envVars
	for name := range vars {
		if _, ok := help[name]; !ok {
			t.Errorf("atomicx help does not document %s", name)
		}
	}
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
	if len(rtSide.events) == 0 {
		t.Fatalf("found no events in rt: %+v", rtSide)
	}
	for _, pos := range rtSide.getenv {
		t.Errorf("%s: rt reads the environment itself: its settings are arm's (arm.Parse)", pos)
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
	events map[string]map[string]bool // event kind -> fields written on it
	getenv []token.Position           // calls of os.Getenv and os.LookupEnv
}

// readRuntimeSide reads rt's non-test source. An event is written by a
// function that calls event("kind") and adds fields with str, num and
// boolean; every field a function adds is counted for every kind it
// writes. event() itself writes the fields its string literals open.
func readRuntimeSide(t *testing.T, dir string) runtimeSide {
	s := runtimeSide{events: map[string]map[string]bool{}}
	var common []string // fields every event has
	keyInLiteral := regexp.MustCompile(`"([a-z_]+)":`)
	fset := token.NewFileSet()
	for _, f := range parseDirWith(t, fset, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv") {
					s.getenv = append(s.getenv, fset.Position(call.Pos()))
				}
			}
			return true
		})
		for _, d := range f.Decls {
			switch d := d.(type) {
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
	envAssigns  map[string]token.Position // ATOMICX_* names of literals that start "NAME="
	eventKinds  map[string]token.Position // kinds compared with an event's Event field or passed to hasEvent
	eventFields map[string]token.Position // json tags of its event struct types (and the engine's Reach)
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
		envVars: map[string]token.Position{}, envAssigns: map[string]token.Position{},
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
				// "ATOMICX_STOP=absorbed", "ATOMICX_MASK=" + list: an
				// assignment written out.
				if name, _, ok := strings.Cut(v, "="); ok && name == envInLiteral.FindString(name) {
					s.envAssigns[name] = fset.Position(n.Pos())
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
				if !ok || n.Name.Name != "event" && n.Name.Name != "Reach" {
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
