package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLeak(t *testing.T) {
	src := `
[[leak.resource]]
name = "pool connection"
acquire = ["example.com/pool.Get", "(*example.com/pool.Pool).Get"]
release = ["Close", "example.com/pool.Put"]
on_rollback = true
is_closed = "IsClosed"

[[leak.resource]]
name = "span"
acquire = ["(example.com/trace.Tracer).Start"]
release = ["()", "Span.End"]
`
	p, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []LeakResource{
		{Pos: Position{File: "p.toml", Line: 2, Col: 1}, Name: "pool connection",
			Acquire: []string{"example.com/pool.Get", "(*example.com/pool.Pool).Get"},
			Release: []string{"Close", "example.com/pool.Put"}, OnRollback: true, IsClosed: "IsClosed"},
		{Pos: Position{File: "p.toml", Line: 9, Col: 1}, Name: "span",
			Acquire: []string{"(example.com/trace.Tracer).Start"},
			Release: []string{"()", "Span.End"}},
	}
	if diff := cmp.Diff(want, p.Leaks); diff != "" {
		t.Errorf("leaks (-want +got):\n%s", diff)
	}
}

// Both spellings of a function name the same function, and a release
// may be a method the resource is passed to.
func TestParseLeakSpellings(t *testing.T) {
	src := `
[[leak.resource]]
name = "pool connection"
acquire = ["example.com/pool.(*Pool).Get", "example.com/pool.Pool.Take", "(*example.com/pool.Pool).Get", "example.com/pool.Get"]
release = ["example.com/pool.(*Pool).Put", "(*example.com/pool.Pool).Put", "(example.com/pool.Ring).Put", "gopkg.in/pool%2ev1.(*Pool).Put"]
`
	p, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []LeakResource{{Pos: Position{File: "p.toml", Line: 2, Col: 1}, Name: "pool connection",
		Acquire: []string{"(*example.com/pool.Pool).Get", "(example.com/pool.Pool).Take", "(*example.com/pool.Pool).Get", "example.com/pool.Get"},
		Release: []string{"(*example.com/pool.Pool).Put", "(*example.com/pool.Pool).Put", "(example.com/pool.Ring).Put", "(*gopkg.in/pool.v1.Pool).Put"},
	}}
	if diff := cmp.Diff(want, p.Leaks); diff != "" {
		t.Errorf("leaks (-want +got):\n%s", diff)
	}
}

func TestTypesFuncName(t *testing.T) {
	tests := map[string]string{
		"example.com/p.(*Pool).Get":            "(*example.com/p.Pool).Get",
		"example.com/p.Pool.Get":               "(example.com/p.Pool).Get",
		"(*example.com/p.Pool).Get":            "(*example.com/p.Pool).Get",
		"(example.com/p.Pool).Get":             "(example.com/p.Pool).Get",
		"example.com/p.Get":                    "example.com/p.Get",
		"os.Open":                              "os.Open",
		"os.(*File).Close":                     "(*os.File).Close",
		"gopkg.in/yaml%2ev3.(*Decoder).Decode": "(*gopkg.in/yaml.v3.Decoder).Decode",
		"gopkg.in/ini.v1.Load":                 "gopkg.in/ini.v1.Load", // a dotted last element: read as a function
	}
	for in, want := range tests {
		if got := TypesFuncName(in); got != want {
			t.Errorf("TypesFuncName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseLeakErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown key", `
[[leak.resource]]
name = "conn"
acquire = ["example.com/pool.Get"]
release = ["Close"]
relase = ["Put"]
`, []string{
			`p.toml:6:1: unknown key "relase" in [[leak.resource]] (known keys: name, acquire, release, on_rollback, is_closed); did you mean "release"?`,
		}},
		{"is_closed not a method name", `
[[leak.resource]]
name = "conn"
acquire = ["example.com/pool.Get"]
release = ["Close"]
is_closed = "!IsOpen"
`, []string{
			`p.toml:6:13: is_closed must name a method of the resource, of type func() bool, true once it is released (is_closed = "IsClosed"), not "!IsOpen"`,
		}},
		{"is_closed not a string", `
[[leak.resource]]
name = "conn"
acquire = ["example.com/pool.Get"]
release = ["Close"]
is_closed = true
`, []string{
			`p.toml:6:13: is_closed must name a method of the resource, of type func() bool, true once it is released (is_closed = "IsClosed"), not a boolean`,
		}},
		{"on_rollback not a bool", `
[[leak.resource]]
name = "conn"
acquire = ["example.com/pool.Get"]
release = ["Close"]
on_rollback = "yes"
`, []string{
			`p.toml:6:15: on_rollback must be true or false, not a string`,
		}},
		{"unknown key in [leak]", `
[leak]
resources = []
`, []string{
			`p.toml:3:1: unknown key "resources" in [leak] (known keys: resource); did you mean "resource"?`,
		}},
		{"single brackets", `
[leak.resource]
name = "conn"
`, []string{
			`p.toml:2:1: leak.resource must be an array of tables: write [[leak.resource]], with two brackets, before each resource`,
		}},
		{"malformed table", `
[[leak.resource]]
name = 3
acquire = "example.com/pool.Get"
release = ["Close", "(Close", 7]

[[leak.resource]]
acquire = ["pool.Get(", "(*pool.Pool).Get"]
release = []
`, []string{
			`p.toml:3:8: name must be a non-empty string, not an integer`,
			`p.toml:4:11: acquire must be an array of strings, e.g. acquire = ["..."], not a string`,
			`p.toml:5:21: release: "(Close" is not a name of the form "Method", "Field.Method", "()", "path/pkg.Func" or "(*path/pkg.Type).Method" (called with the resource as an argument)`,
			`p.toml:5:31: release must hold only strings, not an integer`,
			`p.toml:7:1: [[leak.resource]] has no name: add name = "..." saying what the resource is`,
			`p.toml:8:12: acquire: "pool.Get(" is not a name of the form "path/pkg.Func", "(*path/pkg.Type).Method" or "path/pkg.(*Type).Method"`,
			`p.toml:9:11: release is empty: list at least one name of the form "Method", "Field.Method", "()", "path/pkg.Func" or "(*path/pkg.Type).Method" (called with the resource as an argument)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p.toml", []byte(tt.src))
			if err == nil {
				t.Fatal("Parse succeeded, want errors")
			}
			got := strings.Split(err.Error(), "\n")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLeakHashes checks that a [[leak.resource]] edit changes the
// policy's hash and the key of masked packages, whose failing calls
// release those resources, and not the key of the others.
func TestLeakHashes(t *testing.T) {
	const rules = `
[[rule]]
packages = ["example.com/m/masked"]
mode = "mask"

[[rule]]
packages = ["example.com/m/detected"]
mode = "detect"
`
	const leak = `
[[leak.resource]]
name = "conn"
acquire = ["example.com/pool.Get"]
release = ["Close"]
`
	without, err := Parse("p.toml", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	with, err := Parse("p.toml", []byte(rules+leak))
	if err != nil {
		t.Fatal(err)
	}
	if without.Hash() == with.Hash() {
		t.Error("a [[leak.resource]] table does not change the policy's hash")
	}
	tests := []struct {
		pkg      string
		wantSame bool
	}{
		{"example.com/m/masked", false},
		{"example.com/m/detected", true},
		{"example.com/m/other", true},
	}
	for _, tt := range tests {
		a, b := without.ForPackage(tt.pkg, false), with.ForPackage(tt.pkg, false)
		if same := a.Hash() == b.Hash(); same != tt.wantSame {
			t.Errorf("%s: same hash with and without the table: %t, want %t", tt.pkg, same, tt.wantSame)
		}
		if got := len(b.Leaks()); (got > 0) == tt.wantSame {
			t.Errorf("%s: Leaks() has %d tables", tt.pkg, got)
		}
	}
}
