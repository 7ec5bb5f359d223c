package policy

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestParseErrors holds the exact text of every error Parse reports, one
// testdata file per kind of mistake.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"syntax.toml", []string{
			`3:15: invalid TOML: strings cannot contain newlines`,
		}},
		{"syntax_value.toml", []string{
			`3:8: invalid TOML: expected value but found "detect" instead`,
		}},
		{"unknown_keys.toml", []string{
			`1:1: unknown key "vresion" at top level (known keys: version, defaults, rule, leak, never_fail, error_constructors); did you mean "version"?`,
			`2:1: unknown key "panics" at top level: options go under [defaults] (for every rule) or in a [[rule]]`,
			`3:1: unknown key "mode" at top level: it belongs in a [[rule]] table`,
			`5:1: unknown key "defualts" at top level (known keys: version, defaults, rule, leak, never_fail, error_constructors); did you mean "defaults"?`,
			`9:1: unknown key "snapshot-budget" in [defaults] (known keys: panics, globals, snapshot_budget, on_type_check_failure); did you mean "snapshot_budget"?`,
			`10:1: unknown key "functions" in [defaults]: it belongs in a [[rule]] table`,
			`12:1: [[rule]] has no mode: add mode = "detect" (or "mask", or "off")`,
			`14:1: unknown key "mdoe" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "mode"?`,
			`15:1: unknown key "Mode" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "mode"?`,
			`16:1: unknown key "fuctions" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "functions"?`,
			`17:1: unknown key "options" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure)`,
			`19:1: unknown key "rules" at top level (known keys: version, defaults, rule, leak, never_fail, error_constructors); did you mean "rule"?`,
		}},
		{"types.toml", []string{
			`1:11: version must be the integer 1, not a string`,
			`4:10: panics must be true or false, not a string`,
			`5:11: globals must be true or false, not an integer`,
			`6:19: snapshot_budget must be an integer (the most values one call snapshot may copy), not a float`,
			`9:12: packages must be an array of strings, e.g. packages = ["..."], not a string`,
			`10:8: mode must be a string ("off", "detect" or "mask"), not an integer`,
			`11:13: functions must be an array of strings, e.g. functions = ["..."], not a string`,
			`12:19: exclude must hold only strings, not an integer`,
			`12:22: exclude must hold only strings, not a boolean`,
			`13:10: ignore must be an array of strings, e.g. ignore = ["..."], not a table`,
			`14:10: panics must be true or false, not an integer`,
			`17:30: packages must hold only strings, not an integer`,
			`18:8: mode must be a string ("off", "detect" or "mask"), not an array`,
			`19:19: snapshot_budget must be an integer (the most values one call snapshot may copy), not a string`,
		}},
		{"version.toml", []string{
			`1:11: unsupported version 2: this atomicx reads version 1 (write version = 1, or remove the line)`,
		}},
		{"mode.toml", []string{
			`3:8: unknown mode "detct" (known modes: off, detect, mask); did you mean "detect"?`,
			`7:8: unknown mode "Mask" (known modes: off, detect, mask); did you mean "mask"?`,
			`11:8: unknown mode "instrument" (known modes: off, detect, mask)`,
			`15:8: unknown mode "" (known modes: off, detect, mask)`,
		}},
		{"required.toml", []string{
			`1:1: [[rule]] has no packages: add packages = ["./..."] with the import-path patterns it applies to`,
			`4:1: [[rule]] has no mode: add mode = "detect" (or "mask", or "off")`,
			`8:12: packages is empty: list at least one import-path pattern, e.g. packages = ["./..."]`,
			`10:13: functions is empty, so the rule selects no function: remove the key to select every function, or use mode = "off"`,
		}},
		{"package_patterns.toml", []string{
			`4:3: empty package pattern: write an import path such as "example.com/m/..." or "./..."`,
			`5:3: package pattern "/src/m/..." is a file system path: write an import path, or ./... for the packages under this file's directory`,
			`6:3: package pattern "C:\\src\\m" contains a backslash: import paths use forward slashes`,
			`7:3: package pattern "../sibling/..." leaves the policy file's directory: write the full import path instead`,
			`8:3: package pattern ".." leaves the policy file's directory: write the full import path instead`,
			`9:3: package pattern "github.com/*" contains "*": package patterns use ... as the wildcard, as the go command does (e.g. example.com/m/...)`,
			`10:3: package pattern "example.com//a" has an empty path element: remove the doubled or trailing "/"`,
			`11:3: package pattern "example.com/a/" has an empty path element: remove the doubled or trailing "/"`,
			`12:3: package pattern "example.com/a/../b" has a ".." path element: write the path in clean form`,
			`13:3: package pattern "./." has a "." path element: write the path in clean form`,
			`14:3: package pattern "example.com/a b" contains ' ', which cannot appear in an import path`,
			`15:3: package pattern "example.com/a?" contains '?', which cannot appear in an import path`,
		}},
		{"duplicates.toml", []string{
			`2:51: package pattern "example.com/b" is listed twice in this rule: remove one`,
			`6:30: package pattern "example.com/a/..." is already listed in another rule, at line 2: a pattern may appear in one rule only; remove one, or merge the rules`,
			`10:20: package pattern "github.com/atomicx/atomicx/policy/testdata/errors/x" means the same as "./x" (github.com/atomicx/atomicx/policy/testdata/errors/x) and is listed twice in this rule: remove one`,
		}},
		{"budget.toml", []string{
			`2:19: snapshot_budget must be positive (it is the most values one call snapshot may copy), not 0`,
			`7:19: snapshot_budget must be positive (it is the most values one call snapshot may copy), not -5`,
		}},
		{"function_patterns.toml", []string{
			`5:3: empty function pattern: remove it, or write "*" for every function`,
			`6:3: function pattern "(*Vector" has unbalanced parentheses: write pointer-receiver methods as (*T).Method`,
			`7:3: function pattern "Vector)" has unbalanced parentheses: write pointer-receiver methods as (*T).Method`,
			`8:3: function pattern "(Vector).Len" puts a value receiver in parentheses: write T.Method; only pointer receivers are written (*T).Method`,
			`9:3: function pattern "(*Vector)" names no method: write (*T).Method, or (*T).* for every pointer method`,
			`10:3: function pattern "(*Vector)." names no method: write (*T).Method, or (*T).* for every pointer method`,
			`11:3: function pattern "(*Vector)Len": a dot and a method name must follow the receiver, as in (*T).Method`,
			`12:3: function pattern "Stack[..." has unbalanced brackets: write type parameters as [...], e.g. (*Stack[...]).Push`,
			`13:3: function pattern "Stack]" has unbalanced brackets: write type parameters as [...], e.g. (*Stack[...]).Push`,
			`14:3: function pattern "Vector Len" contains white space: write the name as runtime.Func.Name prints it, e.g. Transfer, Vector.Len or (*Vector).Alloc`,
			`15:3: function pattern "example.com/a.Transfer" contains "/": write the name without its package path, e.g. Transfer, Vector.Len or (*Vector).Alloc`,
			`16:3: function pattern "Vector." has a dot without a name on both sides: write e.g. Transfer, Vector.Len or (*Vector).Alloc`,
			`17:3: function pattern ".Len" has a dot without a name on both sides: write e.g. Transfer, Vector.Len or (*Vector).Alloc`,
			`18:3: function pattern "Outer(*Vector).Len" has misplaced parentheses: only a pointer receiver is parenthesized, as in (*T).Method`,
			`19:3: function pattern "(*a.B).C" has misplaced parentheses: only a pointer receiver is parenthesized, as in (*T).Method`,
			`20:3: function pattern "[...]" has type parameters but no name: write the name before them, e.g. Map[...]`,
			`22:12: function pattern "Vector..Len" has a dot without a name on both sides: write e.g. Transfer, Vector.Len or (*Vector).Alloc`,
			`23:11: function pattern "((*Vector)).Len" has misplaced parentheses: only a pointer receiver is parenthesized, as in (*T).Method`,
		}},
		{"type_check_failure.toml", []string{
			`2:25: on_type_check_failure must be a string ("fail" or "warn"), not a boolean`,
			`7:25: unknown on_type_check_failure "wran" (known values: fail, warn); did you mean "warn"?`,
			`12:25: unknown on_type_check_failure "ignore" (known values: fail, warn)`,
		}},
		{"rule_table.toml", []string{
			`1:1: rule must be an array of tables: write [[rule]], with two brackets, before each rule`,
		}},
		{"rule_scalar.toml", []string{
			`1:8: rule must be an array of tables ([[rule]]), not a string`,
			`2:12: defaults must be a table ([defaults]), not a boolean`,
		}},
		{"scratch.toml", []string{
			`1:1: unknown key "scratch" at top level: it belongs in a [[rule]] table`,
			`4:1: unknown key "scratch" in [defaults]: it belongs in a [[rule]] table`,
			`9:1: unknown key "scrach" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "scratch"?`,
			`14:11: scratch must be an array of strings, e.g. scratch = ["..."], not a string`,
			`20:3: scratch path "buf" is not a type and a field: e.g. "(*Decoder).buf" or "Decoder.buf"`,
			`21:3: scratch path "(*Decoder.buf" has unbalanced parentheses: write (*T).field, e.g. "(*Decoder).buf" or "Decoder.buf"`,
			`22:3: scratch path "(*Decoder).state.buf" goes through several fields: name the type that declares the last one, e.g. "(*Decoder).buf" or "Decoder.buf"`,
			`23:3: scratch path "codec.Decoder.buf" goes through several fields: name the type that declares the last one, e.g. "(*Decoder).buf" or "Decoder.buf"`,
			`24:3: scratch path "example.com/c.Decoder.buf" goes through several fields: name the type that declares the last one, e.g. "(*Decoder).buf" or "Decoder.buf"`,
			`25:3: scratch path "Decoder." is not a type and a field: e.g. "(*Decoder).buf" or "Decoder.buf"`,
			`26:3: scratch path "Decoder.b-f": "b-f" is not a field name, e.g. "(*Decoder).buf" or "Decoder.buf"`,
			`27:3: scratch must hold only strings, not an integer`,
			`33:1: scratch has no effect in a rule with mode = "mask": only detection compares object graphs; remove it, or move it to the package's detect rule`,
		}},
		{"oblivious.toml", []string{
			`4:1: oblivious has no effect in a rule with mode = "detect": failures are swallowed in masking builds only; remove it, or move it to the package's mask rule`,
			`9:13: oblivious must be an array of strings, e.g. oblivious = ["..."], not a string`,
			`10:21: function pattern "(*Store.Put" has unbalanced parentheses: write pointer-receiver methods as (*T).Method`,
			`10:36: oblivious_atomic must hold only strings, not an integer`,
			`15:1: unknown key "obliviuos" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "oblivious"?`,
			`20:1: mask_outside_locks has no effect in a rule with mode = "detect": it says which functions masking builds mask although they take locks; remove it, or move it to the package's mask rule`,
			`25:22: mask_outside_locks must be an array of strings, e.g. mask_outside_locks = ["..."], not a string`,
			`26:1: unknown key "mask_outside_lock" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "mask_outside_locks"?`,
			`31:1: outside_writes has no effect in a rule with mode = "detect": only masking builds roll back; remove it, or move it to the package's mask rule`,
			`36:18: outside_writes must be an array of strings, e.g. outside_writes = ["..."], not a string`,
			`37:1: unknown key "outside_write" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "outside_writes"?`,
			`42:1: undo_files has no effect in a rule with mode = "detect": only masking builds roll back; remove it, or move it to the package's mask rule`,
			`47:14: undo_files must be an array of strings, e.g. undo_files = ["..."], not a string`,
			`48:1: unknown key "undo_file" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "undo_files"?`,
			`53:1: callbacks_write_arguments has no effect in a rule with mode = "detect": it says how masking builds record the calls of function values; remove it, or move it to the package's mask rule`,
			`58:29: callbacks_write_arguments must be an array of strings, e.g. callbacks_write_arguments = ["..."], not a string`,
			`59:1: unknown key "callbacks_write_argument" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "callbacks_write_arguments"?`,
		}},
		{"inline.toml", []string{
			`3:50: unknown key "fnuctions" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, callbacks_write_arguments, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "functions"?`,
			`4:42: unknown mode "masked" (known modes: off, detect, mask)`,
			`5:3: each rule must be a table, not a string`,
			`7:23: panics must be true or false, not a string`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "errors", tt.file)
			p, err := Load(path)
			if err == nil {
				t.Fatalf("Load(%s) = %+v, want errors", path, p)
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Load(%s) error is %T, want ErrorList: %v", path, err, err)
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = path + ":" + w
			}
			if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if len(list) != len(want) {
				t.Errorf("ErrorList has %d entries, Error() %d lines", len(list), len(want))
			}
		})
	}
}

// TestParseRelativeWithoutModule needs a directory with no go.mod above
// it, which only a temporary directory can provide.
func TestParseRelativeWithoutModule(t *testing.T) {
	dir := t.TempDir()
	if m := findModule(dir); m.err == nil {
		t.Skipf("a go.mod above %s (module %s) makes this test meaningless", dir, m.path)
	}
	path := filepath.Join(dir, "atomicheck.toml")
	src := "[[rule]]\npackages = [\"example.com/a\", \"./...\", \".\"]\nmode = \"detect\"\n"
	_, err := Parse(path, []byte(src))
	want := path + `:2:30: package pattern "./..." is relative, but there is no go.mod in the policy file's directory or above: write the full import path instead` + "\n" +
		path + `:2:39: package pattern "." is relative, but there is no go.mod in the policy file's directory or above: write the full import path instead`
	if err == nil || err.Error() != want {
		t.Errorf("Parse error:\n%v\nwant:\n%s", err, want)
	}

	// Without relative patterns the module does not matter.
	p, err := Parse(path, []byte("[[rule]]\npackages = [\"example.com/a\"]\nmode = \"detect\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.ModulePath != "" {
		t.Errorf("ModulePath = %q, want none", p.ModulePath)
	}
}

func TestParseModule(t *testing.T) {
	p, err := Load(filepath.Join("testdata", "mod", "atomicheck.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Policy{
		Path:       filepath.Join("testdata", "mod", "atomicheck.toml"),
		ModulePath: "example.com/m",
		Rules: []Rule{
			{
				Pos:       Position{p.Path, 7, 1},
				Packages:  []string{"./...", "github.com/spf13/afero/..."},
				Mode:      Detect,
				Functions: []string{"(*Vector).Alloc", "Transfer"},
				Exclude:   []string{"String", "(*Vector).*"},
				Ignore:    []string{"(*Reader).Read"},
				Options:   Options{Panics: true, Globals: true, SnapshotBudget: 500},
			},
			{
				Pos:      Position{p.Path, 15, 1},
				Packages: []string{"./vec", "."},
				Mode:     Mask,
				Options:  Options{Globals: true, SnapshotBudget: 5000},
			},
			{
				Pos:      Position{p.Path, 20, 1},
				Packages: []string{"./internal/..."},
				Mode:     Off,
				Options:  Options{Globals: true, SnapshotBudget: 500},
			},
		},
	}
	if diff := cmp.Diff(want, p, cmpopts.IgnoreUnexported(Policy{}, Rule{})); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	var resolved []string
	for _, r := range p.Rules {
		for _, pat := range r.packages {
			resolved = append(resolved, pat.resolved)
		}
	}
	wantResolved := []string{"example.com/m/...", "github.com/spf13/afero/...", "example.com/m/vec", "example.com/m", "example.com/m/internal/..."}
	if diff := cmp.Diff(wantResolved, resolved); diff != "" {
		t.Errorf("resolved patterns (-want +got):\n%s", diff)
	}

	// Relative patterns are relative to the policy file's directory, which
	// is the module root only when the file sits beside go.mod.
	sub, err := Load(filepath.Join("testdata", "mod", "sub", "atomicheck.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if sub.ModulePath != "example.com/m" {
		t.Errorf("sub: ModulePath = %q, want example.com/m", sub.ModulePath)
	}
	if got := sub.Rules[0].packages[0].resolved; got != "example.com/m/sub/..." {
		t.Errorf("sub: ./... resolved to %q, want example.com/m/sub/...", got)
	}
	if got := sub.Rules[0].packages[1].resolved; got != "example.com/m/sub" {
		t.Errorf("sub: . resolved to %q, want example.com/m/sub", got)
	}
}

func TestParseValidForms(t *testing.T) {
	tests := []struct {
		name, src string
		want      []Rule
	}{
		{"empty file", "", nil},
		{"comments only", "# nothing yet\n\n", nil},
		{"version only", "version = 1\n", nil},
		{"defaults apply", `
[defaults]
panics = true
snapshot_budget = 7
[[rule]]
packages = ["example.com/a"]
mode = "detect"
[[rule]]
packages = ["example.com/b"]
mode = "mask"
panics = false
globals = true
`, []Rule{
			{Packages: []string{"example.com/a"}, Mode: Detect, Options: Options{Panics: true, SnapshotBudget: 7}},
			{Packages: []string{"example.com/b"}, Mode: Mask, Options: Options{Globals: true, SnapshotBudget: 7}},
		}},
		{"on_type_check_failure", `
[defaults]
on_type_check_failure = "warn"
[[rule]]
packages = ["example.com/a"]
mode = "mask"
[[rule]]
packages = ["example.com/b"]
mode = "detect"
on_type_check_failure = "fail"
`, []Rule{
			{Packages: []string{"example.com/a"}, Mode: Mask, Options: Options{SnapshotBudget: 1_000_000, OnTypeCheckFailure: TypeCheckFailureWarn}},
			{Packages: []string{"example.com/b"}, Mode: Detect, Options: Options{SnapshotBudget: 1_000_000, OnTypeCheckFailure: TypeCheckFailureFail}},
		}},
		{"built-in defaults", "[[rule]]\npackages = [\"example.com/a\"]\nmode = \"off\"\n", []Rule{
			{Packages: []string{"example.com/a"}, Mode: Off, Options: Options{SnapshotBudget: 1_000_000}},
		}},
		{"scratch", `
[[rule]]
packages = ["example.com/a"]
mode = "detect"
scratch = ["(*Decoder).buf", "Encoder.buf", "(*List[T]).tmp"]
`, []Rule{
			{Packages: []string{"example.com/a"}, Mode: Detect, Scratch: []string{"(*Decoder).buf", "Encoder.buf", "(*List[T]).tmp"}, Options: Options{SnapshotBudget: 1_000_000}},
		}},
		{"inline tables and dotted keys", `
defaults.globals = true
rule = [
  { packages = ["example.com/a"], mode = "detect", exclude = [] },
  { packages = ["example.com/b/..."], mode = "mask", functions = ["*"] },
]
`, []Rule{
			{Packages: []string{"example.com/a"}, Mode: Detect, Exclude: []string{}, Options: Options{Globals: true, SnapshotBudget: 1_000_000}},
			{Packages: []string{"example.com/b/..."}, Mode: Mask, Functions: []string{"*"}, Options: Options{Globals: true, SnapshotBudget: 1_000_000}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("p.toml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.Rules, cmpopts.IgnoreUnexported(Rule{}), cmpopts.IgnoreFields(Rule{}, "Pos")); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	path := filepath.Join("testdata", "no-such-policy.toml")
	_, err := Load(path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(%s) = %v, want an fs.ErrNotExist", path, err)
	}
	if want := path + ": cannot read policy file: no such file or directory"; err.Error() != want {
		t.Errorf("Load error = %q, want %q", err, want)
	}
}

func TestModulePath(t *testing.T) {
	tests := []struct{ gomod, want string }{
		{"module example.com/m\n", "example.com/m"},
		{"// comment\nmodule example.com/m // trailing\n\ngo 1.26\n", "example.com/m"},
		{"module \"example.com/quoted\"\n", "example.com/quoted"},
		{"module `example.com/raw`\n", "example.com/raw"},
		{"module (\n\texample.com/block\n)\n", "example.com/block"},
		{"go 1.26\n", ""},
		{"modules example.com/m\n", ""},
	}
	for _, tt := range tests {
		if got := modulePath([]byte(tt.gomod)); got != tt.want {
			t.Errorf("modulePath(%q) = %q, want %q", tt.gomod, got, tt.want)
		}
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{Off: "off", Detect: "detect", Mask: "mask", 9: "Mode(9)"} {
		if got := m.String(); got != want {
			t.Errorf("Mode(%d).String() = %q, want %q", m, got, want)
		}
	}
	if got := (Position{"a.toml", 3, 7}).String(); got != "a.toml:3:7" {
		t.Errorf("Position.String() = %q", got)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"packages", "mode", "functions", "exclude", "ignore", "panics", "globals", "snapshot_budget"}
	tests := map[string]string{
		"mdoe": "mode", "MODE": "mode", "pakages": "packages", "excludes": "exclude",
		"ignored": "ignore", "global": "globals", "snapshotbudget": "snapshot_budget",
		"color": "", "x": "", "options": "",
	}
	for got, want := range tests {
		if s := suggest(got, known); s != want {
			t.Errorf("suggest(%q) = %q, want %q", got, s, want)
		}
	}
}

// TestLocate checks positions in TOML forms the policy tests do not use.
func TestLocate(t *testing.T) {
	src := "\ufeff" + `a = "x" # c
"quoted.key" = 'y'
b.c.d = """
multi "" line
"""
[t . 'u']
e = [ 1,
  [2, 3], # inner
  {f = 4} ]
[[arr]]
g = 1
[arr.sub]
h = "\"" 
[[arr]]
g = 2
`
	l := locate("f", src)
	tests := []struct {
		path     tomlPath
		key, val string
	}{
		{tomlPath{"a"}, "f:1:1", "f:1:5"},
		{tomlPath{"quoted.key"}, "f:2:1", "f:2:16"},
		{tomlPath{"b"}, "f:3:1", "f:3:1"},
		{tomlPath{"b", "c", "d"}, "f:3:5", "f:3:9"},
		{tomlPath{"t", "u"}, "f:6:1", "f:6:1"},
		{tomlPath{"t", "u", "e"}, "f:7:1", "f:7:5"},
		{tomlPath{"t", "u", "e", "#2", "f"}, "f:9:4", "f:9:8"},
		{tomlPath{"arr", "#0", "g"}, "f:11:1", "f:11:5"},
		{tomlPath{"arr", "#0", "sub", "h"}, "f:13:1", "f:13:5"},
		{tomlPath{"arr", "#1"}, "f:14:1", "f:14:1"},
		{tomlPath{"arr", "#1", "g"}, "f:15:1", "f:15:5"},
		{tomlPath{"arr", "#1", "nope"}, "f:14:1", "f:14:1"}, // falls back to the table
	}
	for _, tt := range tests {
		if got := l.keyPos(tt.path).String(); got != tt.key {
			t.Errorf("keyPos(%q) = %s, want %s", tt.path, got, tt.key)
		}
		if got := l.valuePos(tt.path).String(); got != tt.val {
			t.Errorf("valuePos(%q) = %s, want %s", tt.path, got, tt.val)
		}
	}
	if got := l.elemPos(tomlPath{"t", "u", "e"}, 1).String(); got != "f:8:3" {
		t.Errorf("elemPos(e, 1) = %s, want f:8:3", got)
	}
}
