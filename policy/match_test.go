package policy

import (
	"testing"
)

func mustParse(t *testing.T, src string) *Policy {
	t.Helper()
	p, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	return p
}

// The rules are deliberately out of order: precedence must not depend on
// where a rule stands, except to break ties.
const precedencePolicy = `
[[rule]]  # rule 0
packages = ["..."]
mode = "detect"

[[rule]]  # rule 1
packages = ["example.com/x/..."]
mode = "mask"

[[rule]]  # rule 2
packages = ["example.com/x/y/..."]
mode = "off"

[[rule]]  # rule 3
packages = ["example.com/x/y/z"]
mode = "detect"

[[rule]]  # rule 4: as specific as rule 5, and first
packages = ["example.com/t/.../a"]
mode = "mask"

[[rule]]  # rule 5
packages = ["example.com/t/...", "example.com/x/y/zz"]
mode = "detect"

[[rule]]  # rule 6
packages = ["encoding/...", "strings", "net..."]
mode = "detect"

[[rule]]  # rule 7
packages = ["example.com/.../internal/..."]
mode = "off"
`

func TestForPackagePrecedence(t *testing.T) {
	p := mustParse(t, precedencePolicy)
	tests := []struct {
		path     string
		std      bool
		wantRule int // -1: none
		wantMode Mode
	}{
		{"github.com/other/pkg", false, 0, Detect},
		{"example.com/x", false, 1, Mask},           // "a/..." matches a itself
		{"example.com/x/q", false, 1, Mask},         // longer prefix than "..."
		{"example.com/xq", false, 0, Detect},        // "a/..." does not match "ab"
		{"example.com/x/y", false, 2, Off},          // longest prefix
		{"example.com/x/y/w", false, 2, Off},        //
		{"example.com/x/y/z", false, 3, Detect},     // exact beats every wildcard
		{"example.com/x/y/z/deeper", false, 2, Off}, // exact matches only itself
		{"example.com/x/y/zz", false, 5, Detect},    // exact, in a later rule
		{"example.com/t/b/a", false, 4, Mask},       // tie between rules 4 and 5: first wins
		{"example.com/t/b/c", false, 5, Detect},
		{"example.com/q/internal/r", false, 7, Off}, // "example.com/" is longer than "..."
		// Standard library: only patterns that name std.
		{"strings", true, -1, Off}, // named, but never instrumented
		{"bytes", true, -1, Off},   // "..." does not reach std
		{"encoding/json", true, 6, Detect},
		{"encoding", true, 6, Detect},
		{"net/http", true, 6, Detect},
		{"encoding/internal/x", true, 6, Off}, // std internal: never instrumented
		{"bytes", false, 0, Detect},           // not std: "..." matches
	}
	for _, tt := range tests {
		m := p.ForPackage(tt.path, tt.std)
		gotRule := -1
		if m.Rule != nil {
			gotRule = m.Rule.index
		}
		// strings is matched by rule 6 but not instrumentable: the rule is
		// reported, the mode is Off.
		if tt.path == "strings" {
			tt.wantRule = 6
		}
		if gotRule != tt.wantRule || m.Mode != tt.wantMode {
			t.Errorf("ForPackage(%q, std=%t) = rule %d mode %s, want rule %d mode %s", tt.path, tt.std, gotRule, m.Mode, tt.wantRule, tt.wantMode)
		}
	}
}

func TestForPackageNoRule(t *testing.T) {
	p := mustParse(t, "[defaults]\nglobals = true\n[[rule]]\npackages = [\"example.com/a\"]\nmode = \"detect\"\n")
	m := p.ForPackage("example.com/b", false)
	want := Match{Package: "example.com/b", Options: Options{Globals: true, SnapshotBudget: 1_000_000}}
	if m != want {
		t.Errorf("ForPackage(unmatched) = %+v, want %+v", m, want)
	}
	if m.Selects("F") || m.Ignores("F") {
		t.Error("a package without a rule selects or ignores functions")
	}
	if m := Empty().ForPackage("example.com/a", false); m.Mode != Off || m.Rule != nil || m.Options != builtinDefaults {
		t.Errorf("Empty().ForPackage = %+v", m)
	}
	var nilPolicy *Policy
	if m := nilPolicy.ForPackage("example.com/a", false); m.Mode != Off {
		t.Errorf("nil policy: %+v", m)
	}
	var zero Match
	if zero.Mode != Off {
		t.Error("zero Match is not Off")
	}
}

func TestForPackageTestVariants(t *testing.T) {
	p := mustParse(t, "[[rule]]\npackages = [\"example.com/m/vec\"]\nmode = \"mask\"\n")
	tests := []struct {
		path string
		want Mode
	}{
		{"example.com/m/vec", Mask},
		{"example.com/m/vec_test", Mask},
		{"example.com/m/vec [example.com/m/vec.test]", Mask},
		{"example.com/m/vec_test [example.com/m/vec.test]", Mask},
		{"example.com/m/vec.test", Off}, // generated test main
		{"example.com/m/vector", Off},
	}
	for _, tt := range tests {
		if got := p.ForPackage(tt.path, false).Mode; got != tt.want {
			t.Errorf("ForPackage(%q).Mode = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestInstrumentable(t *testing.T) {
	tests := []struct {
		path string
		std  bool
		want bool
	}{
		{"unsafe", true, false},
		{"C", false, false},
		{"runtime", true, false},
		{"runtime/debug", true, false},
		{"internal/abi", true, false},
		{"sync", true, false},
		{"sync/atomic", true, false},
		{"reflect", true, false},
		{"os", true, false},
		{"os/exec", true, true},
		{"syscall", true, false},
		{"errors", true, false},
		{"io", true, false},
		{"io/fs", true, false},
		{"io/ioutil", true, true},
		{"time", true, false},
		{"strconv", true, false},
		{"strings", true, false},
		{"unicode", true, false},
		{"unicode/utf8", true, false},
		{"math", true, false},
		{"math/bits", true, false},
		{"sort", true, false},
		{"slices", true, false},
		{"maps", true, false},
		{"iter", true, false},
		{"cmp", true, false},
		{"path", true, false},
		{"path/filepath", true, false},
		{"vendor/golang.org/x/net/dns/dnsmessage", true, false},
		{"net/http/internal/ascii", true, false},
		{"encoding/json", true, true},
		{"bytes", true, true},
		{"net/http", true, true},
		{"atomicx/rt", false, false},
		{"atomicx/rt/snapshot", true, false},
		{"example.com/m/internal/store", false, true}, // a module's internal packages are user code
		{"example.com/m", false, true},
		{"runtimex", true, true},
		{"osx", false, true},
	}
	for _, tt := range tests {
		if got := Instrumentable(tt.path, tt.std); got != tt.want {
			t.Errorf("Instrumentable(%q, %t) = %t, want %t", tt.path, tt.std, got, tt.want)
		}
	}
}

func TestSelectsAndIgnores(t *testing.T) {
	p := mustParse(t, `
[[rule]]
packages = ["example.com/a"]
mode = "detect"
functions = ["(*Vector).*", "Transfer", "Test*", "Map[...]", "(*Stack).Push", "Stack[...].Len"]
exclude = ["(*Vector).String", "TestMain"]
ignore = ["(*Reader).Read", "(*Vector).Grow"]

[[rule]]
packages = ["example.com/b"]
mode = "mask"
exclude = ["*.String"]

[[rule]]
packages = ["example.com/off"]
mode = "off"
ignore = ["*"]

[[rule]]
packages = ["example.com/lit"]
mode = "detect"
functions = ["Outer.func1", "(*T).*", "init.func2", "Save"]
exclude = ["(*T).M.func1", "Save.*"]
`)
	a, b, off := p.ForPackage("example.com/a", false), p.ForPackage("example.com/b", false), p.ForPackage("example.com/off", false)
	lit := p.ForPackage("example.com/lit", false)
	tests := []struct {
		m       Match
		name    string
		selects bool
		ignores bool
	}{
		{a, "(*Vector).Alloc", true, false},
		{a, "(*Vector).Grow", true, true}, // ignored functions stay selected
		{a, "(*Vector).Alloc.func1", true, false},
		{a, "(*Vector).String", false, false},
		{a, "Vector.Len", false, false}, // value receiver: not (*Vector).*
		{a, "(*VectorX).Alloc", false, false},
		{a, "Transfer", true, false},
		{a, "Transfer2", false, false},
		{a, "TestAlloc", true, false},
		{a, "TestMain", false, false},
		{a, "Map[...]", true, false},
		{a, "Map", true, false},
		{a, "(*Stack[...]).Push", true, false},
		{a, "(*Stack[go.shape.int]).Push", true, false},
		{a, "Stack[...].Len", true, false},
		{a, "Stack.Len", true, false},
		{a, "(*Stack[...]).Pop", false, false},
		{a, "(*Reader).Read", false, true},
		{b, "anything", true, false},
		{b, "(*Vector).Alloc", true, false},
		{b, "Vector.String", false, false},
		{b, "(*Vector).String", false, false},
		{off, "F", false, true}, // Off selects nothing; ignore is separate
		// Function literals go with the functions they are written in.
		{a, "Transfer.func1", true, false},
		{a, "Transfer.func1.2", true, false},
		{a, "Transfer2.func1", false, false},
		{a, "TestMain.func1", false, false},
		{a, "(*Vector).String.func3", false, false},
		{a, "(*Vector).Grow.func1", true, true},
		{a, "(*Reader).Read.func1", false, true},
		{a, "(*Stack[...]).Push.func1", true, false},
		{b, "(*Vector).String.func1", false, false},
		{b, "init.func1", true, false},
		{lit, "Outer.func1", true, false},
		{lit, "Outer.func1.1", true, false},
		{lit, "Outer.func2", false, false},
		{lit, "Outer", false, false},
		{lit, "(*T).M.func1", false, false},
		{lit, "(*T).M.func2", true, false},
		{lit, "init.func3", false, false},
		{lit, "Save.func1", false, false},
	}
	for _, tt := range tests {
		if got := tt.m.Selects(tt.name); got != tt.selects {
			t.Errorf("%s: Selects(%q) = %t, want %t", tt.m.Rule.Packages[0], tt.name, got, tt.selects)
		}
		if got := tt.m.Ignores(tt.name); got != tt.ignores {
			t.Errorf("%s: Ignores(%q) = %t, want %t", tt.m.Rule.Packages[0], tt.name, got, tt.ignores)
		}
	}
}

func TestPackagePatternMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"...", "a", true},
		{"...", "a/b/c", true},
		{"a/...", "a", true},
		{"a/...", "a/b", true},
		{"a/...", "ab", false},
		{"a...", "ab", true},
		{"a...", "a/b", true},
		{"a/.../c", "a/b/c", true},
		{"a/.../c", "a/b/d/c", true},
		{"a/.../c", "a/c", false}, // as in the go command
		{"a/.../c", "a/b/cd", false},
		{"a/...b/...", "a/xb/y", true},
		{"a/...b/...", "a/xb", true},
		{"a/b", "a/b", true},
		{"a/b", "a/b/c", false},
		{"a/b", "a", false},
	}
	for _, tt := range tests {
		pat := compilePkgPattern(tt.pattern, tt.pattern, Position{})
		if got := pat.matches(tt.path, false); got != tt.want {
			t.Errorf("%q matches %q = %t, want %t", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestNamesStd(t *testing.T) {
	tests := map[string]bool{
		"...": false, ".../x": false, "github.com/...": false, "example.com/x": false,
		"encoding/...": true, "strings": true, "net...": true, "x/...": true,
		"e.../x": true, // the dots of "..." are not a domain
	}
	for pattern, want := range tests {
		if got := compilePkgPattern(pattern, pattern, Position{}).namesStd; got != want {
			t.Errorf("namesStd(%q) = %t, want %t", pattern, got, want)
		}
	}
}
