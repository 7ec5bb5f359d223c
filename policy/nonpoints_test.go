package policy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDeclaredParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"not a list", `never_fail = "(*example.com/m.W).Write"`, []string{
			`1:14: never_fail must be an array of strings, e.g. never_fail = ["..."], not a string`,
		}},
		{"not strings", `error_constructors = ["example.com/m.wrap", 3]`, []string{
			`1:45: error_constructors must hold only strings, not an integer`,
		}},
		{"no package path", `never_fail = ["Write", "(*W).Write", "(*example.com/m.W).Write"]`, []string{
			`1:15: never_fail: "Write" is not a function or method with its package path, of the form "path/pkg.Func" or "(*path/pkg.Type).Method"`,
			`1:24: never_fail: "(*W).Write" is not a function or method with its package path, of the form "path/pkg.Func" or "(*path/pkg.Type).Method"`,
		}},
		{"misspelt", `never_fails = []`, []string{
			`1:1: unknown key "never_fails" at top level (known keys: version, defaults, rule, leak, never_fail, error_constructors); did you mean "never_fail"?`,
		}},
		{"in a rule", "[[rule]]\npackages = [\"./...\"]\nmode = \"detect\"\nerror_constructors = [\"example.com/m.wrap\"]", []string{
			`4:1: unknown key "error_constructors" in [[rule]]: it is a top-level key, written before the first table`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrorLines(t, "declared.toml", tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeclaredMatch(t *testing.T) {
	p, err := Parse(filepath.Join("testdata", "declared.toml"), []byte(`
never_fail = ["(*example.com/m.Log).Write", "(*example.com/m.Stack[...]).Push"]
error_constructors = ["example.com/m/errs.Wrap", "(example.com/m.Code).Err"]
[[rule]]
packages = ["example.com/..."]
mode = "detect"
`))
	if err != nil {
		t.Fatal(err)
	}
	m := p.ForPackage("example.com/other", false)
	tests := []struct {
		name               string
		never, constructor bool
	}{
		{"(*example.com/m.Log).Write", true, false},
		{"(*example.com/m.Stack[T]).Push", true, false},
		{"(example.com/m.Log).Write", false, false},
		{"example.com/m/errs.Wrap", false, true},
		{"(example.com/m.Code).Err", false, true},
		{"example.com/m/errs.Wrapf", false, false},
	}
	for _, tt := range tests {
		if got := m.NeverFails(tt.name); got != tt.never {
			t.Errorf("NeverFails(%q) = %t, want %t", tt.name, got, tt.never)
		}
		if got := m.ErrorConstructor(tt.name); got != tt.constructor {
			t.Errorf("ErrorConstructor(%q) = %t, want %t", tt.name, got, tt.constructor)
		}
	}
	if Empty().ForPackage("example.com/m", false).NeverFails("(*example.com/m.Log).Write") {
		t.Error("the empty policy declares a function that never fails")
	}
}

func TestDeclaredHash(t *testing.T) {
	const rule = "[[rule]]\npackages = [\"example.com/...\"]\nmode = \"detect\"\n"
	parse := func(src string) *Policy {
		t.Helper()
		p, err := Parse(filepath.Join("testdata", "declared.toml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := parse(rule)
	never := parse(`never_fail = ["(*example.com/m.Log).Write"]` + "\n" + rule)
	constructor := parse(`error_constructors = ["(*example.com/m.Log).Write"]` + "\n" + rule)
	reordered := parse(`never_fail = ["example.com/m.B", "example.com/m.A"]` + "\n" + rule)
	ordered := parse(`never_fail = ["example.com/m.A", "example.com/m.B"]` + "\n" + rule)
	hashes := map[string]string{}
	for name, p := range map[string]*Policy{"base": base, "never": never, "constructor": constructor} {
		for _, h := range []string{p.Hash(), p.ForPackage("example.com/m", false).Hash()} {
			if prev, dup := hashes[h]; dup {
				t.Errorf("%s and %s hash alike", prev, name)
			}
			hashes[h] = name
		}
	}
	if reordered.Hash() != ordered.Hash() {
		t.Error("the order of never_fail changes the hash")
	}
	// A package left alone does not depend on the lists.
	if base.ForPackage("other.org/x", false).Hash() != never.ForPackage("other.org/x", false).Hash() {
		t.Error("never_fail changes the hash of a package the policy leaves off")
	}
}

func TestUnusedDeclared(t *testing.T) {
	p, err := Parse(filepath.Join("testdata", "declared.toml"), []byte(`never_fail = [
  "(*example.com/m.Log).Write",
  "(*example.com/m.Log).Wrte",
  "gopkg.in/yaml.v3.Marshal",
]
error_constructors = ["example.com/gone.Wrap", "(example.com/m.Code).Err"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"example.com/gone", "example.com/m", "gopkg.in/yaml", "gopkg.in/yaml.v3"}, p.DeclaredPackages()); diff != "" {
		t.Errorf("DeclaredPackages (-want +got):\n%s", diff)
	}
	pkgs := map[string][]string{
		"example.com/m":    {"(*Log).Write", "Code.Err"},
		"gopkg.in/yaml.v3": {"Unmarshal"},
	}
	path := filepath.Join("testdata", "declared.toml")
	want := []string{
		path + `:3:3: never_fail name "(*example.com/m.Log).Wrte" matches no function of package example.com/m; did you mean "(*example.com/m.Log).Write"?`,
		path + `:4:3: never_fail name "gopkg.in/yaml.v3.Marshal" matches no function of package gopkg.in/yaml.v3`,
		path + `:6:23: error_constructors name "example.com/gone.Wrap" matches no function: its package is not among the packages built`,
	}
	if diff := cmp.Diff(want, p.UnusedDeclared(pkgs)); diff != "" {
		t.Errorf("UnusedDeclared (-want +got):\n%s", diff)
	}
}

func TestFullName(t *testing.T) {
	for _, tt := range []struct{ path, name, want string }{
		{"example.com/m", "(*T).M", "(*example.com/m.T).M"},
		{"example.com/m", "T.M", "(example.com/m.T).M"},
		{"gopkg.in/ini.v1", "Load", "gopkg.in/ini.v1.Load"},
	} {
		if got := fullName(tt.path, tt.name); got != tt.want {
			t.Errorf("fullName(%q, %q) = %q, want %q", tt.path, tt.name, got, tt.want)
		}
		for _, split := range splitFullName(tt.want) {
			if split[0] == tt.path && split[1] != tt.name {
				t.Errorf("splitFullName(%q) gives %q in %s, want %q", tt.want, split[1], tt.path, tt.name)
			}
		}
	}
}

// parseErrorLines parses src as the policy file testdata/NAME, which must
// fail, and returns its error's lines without the file's path.
func parseErrorLines(t *testing.T, name, src string) []string {
	t.Helper()
	path := filepath.Join("testdata", name)
	_, err := Parse(path, []byte(src))
	if err == nil {
		t.Fatal("Parse succeeded")
	}
	var got []string
	for _, line := range strings.Split(err.Error(), "\n") {
		got = append(got, strings.TrimPrefix(line, path+":"))
	}
	return got
}
