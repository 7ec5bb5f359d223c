package policy

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestHash(t *testing.T) {
	hash := func(name string) string {
		t.Helper()
		p, err := Load(filepath.Join("testdata", "hash", name))
		if err != nil {
			t.Fatal(err)
		}
		return p.Hash()
	}
	base := hash("a.toml")
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(base) {
		t.Fatalf("Hash() = %q, want 64 hex digits", base)
	}
	if got := hash("a.toml"); got != base {
		t.Errorf("Hash is not stable: %s, then %s", base, got)
	}
	if got := hash("reformatted.toml"); got != base {
		t.Errorf("reformatted policy: Hash = %s, want %s (same meaning)", got, base)
	}
	for _, name := range []string{"mode_changed.toml", "rules_swapped.toml", "default_moved.toml", "no_functions.toml"} {
		if got := hash(name); got == base {
			t.Errorf("%s: Hash = %s, the same as a.toml's", name, got)
		}
	}

	// ./... means another package in another module.
	moved, err := Parse(filepath.Join("testdata", "mod", "atomicheck.toml"), []byte(`[[rule]]
packages = ["example.com/a/...", "./..."]
mode = "detect"`))
	if err != nil {
		t.Fatal(err)
	}
	here, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte(`[[rule]]
packages = ["example.com/a/...", "./..."]
mode = "detect"`))
	if err != nil {
		t.Fatal(err)
	}
	if moved.Hash() == here.Hash() {
		t.Error("the same ./... pattern in two modules has one hash")
	}
}

func TestHashEmpty(t *testing.T) {
	// Fixed: change it only with the hash encoding itself.
	const want = "8764b7608fe7f5a727c8b4097e5871705978e46d6252aa3891e1bc0005f8c4e7"
	if got := Empty().Hash(); got != want {
		t.Errorf("Empty().Hash() = %s, want %s", got, want)
	}
	var nilPolicy *Policy
	if got := nilPolicy.Hash(); got != want {
		t.Errorf("nil policy: Hash() = %s, want %s", got, want)
	}
	if got := (&Policy{defaults: builtinDefaults}).Hash(); got != want {
		t.Errorf("a policy with no rules and no module: Hash() = %s, want %s", got, want)
	}
}

func TestMatchHash(t *testing.T) {
	const base = `[[rule]]
packages = ["example.com/a"]
mode = "detect"
functions = ["(*T).Set"]

[[rule]]
packages = ["example.com/b"]
mode = "mask"
functions = ["(*U).Put"]
`
	hashes := func(src string) (a, b string) {
		t.Helper()
		p, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return p.ForPackage("example.com/a", false).Hash(), p.ForPackage("example.com/b", false).Hash()
	}
	a0, b0 := hashes(base)
	if a0 == b0 {
		t.Fatal("two packages under different rules have one hash")
	}
	tests := []struct {
		name         string
		src          string
		aSame, bSame bool
	}{
		{"reformatted", "# comment\n" + base, true, true},
		{"b's functions", strings.Replace(base, `"(*U).Put"`, `"(*U).Put", "(*U).Del"`, 1), true, false},
		{"a's mode", strings.Replace(base, `mode = "detect"`, `mode = "off"`, 1), false, true},
		{"a's options", strings.Replace(base, `functions = ["(*T).Set"]`, "functions = [\"(*T).Set\"]\npanics = true", 1), false, true},
		{"a's exclude", strings.Replace(base, `functions = ["(*T).Set"]`, "functions = [\"(*T).Set\"]\nexclude = [\"(*T).Reset\"]", 1), false, true},
		{"another package in b's rule", strings.Replace(base, `["example.com/b"]`, `["example.com/b", "example.com/c"]`, 1), true, true},
		{"rules swapped", base[strings.Index(base, "\n\n")+2:] + "\n" + base[:strings.Index(base, "\n\n")], true, true},
	}
	for _, tt := range tests {
		a, b := hashes(tt.src)
		if (a == a0) != tt.aSame || (b == b0) != tt.bSame {
			t.Errorf("%s: a's hash unchanged = %t (want %t), b's = %t (want %t)", tt.name, a == a0, tt.aSame, b == b0, tt.bSame)
		}
	}
	p, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	sel := p.ForPackage("example.com/a", false).SelectionHash()
	for _, tt := range []struct {
		name, src string
		same      bool
	}{
		{"options", strings.Replace(base, `functions = ["(*T).Set"]`, "functions = [\"(*T).Set\"]\npanics = true", 1), true},
		{"ignore", strings.Replace(base, `functions = ["(*T).Set"]`, "functions = [\"(*T).Set\"]\nignore = [\"(*T).Set\"]", 1), true},
		{"exclude", strings.Replace(base, `functions = ["(*T).Set"]`, "functions = [\"(*T).Set\"]\nexclude = [\"(*T).Set\"]", 1), false},
		{"mode", strings.Replace(base, `mode = "detect"`, `mode = "mask"`, 1), false},
	} {
		q, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := q.ForPackage("example.com/a", false).SelectionHash(); (got == sel) != tt.same {
			t.Errorf("an edit of a's %s: SelectionHash unchanged = %t, want %t", tt.name, got == sel, tt.same)
		}
	}
	if x := p.ForPackage("example.com/a_test [example.com/a.test]", false).Hash(); x != a0 {
		t.Errorf("external test package: hash %s, want its package's %s", x, a0)
	}
}

// TestMatchHashIn: given the functions a package declares, a function
// pattern of its rule that can match none of them does not count in its
// hashes; one that may (a wildcard, a function literal's name) does, and
// without the functions every pattern does.
func TestMatchHashIn(t *testing.T) {
	const base = `[[rule]]
packages = ["example.com/a", "example.com/b"]
mode = "detect"
exclude = ["(*T).Reset"]
ignore = ["Load"]
`
	fns := Funcs{"(*T).Reset": true, "(*T).Set": true, "Load": true, "Map": true}
	hashes := func(src string) (in, sel, all string) {
		t.Helper()
		p, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		m := p.ForPackage("example.com/a", false)
		return m.HashIn(fns), m.SelectionHashIn(fns), m.Hash()
	}
	in0, sel0, all0 := hashes(base)
	for _, tt := range []struct {
		name, src       string
		inSame, selSame bool // HashIn, SelectionHashIn unchanged
	}{
		{"exclude of another package's function", strings.Replace(base, `"(*T).Reset"]`, `"(*T).Reset", "(*U).Drop"]`, 1), true, true},
		{"ignore of another package's function", strings.Replace(base, `"Load"]`, `"Load", "Store"]`, 1), true, true},
		{"ignore of its function", strings.Replace(base, `"Load"]`, `"Load", "Map"]`, 1), false, true},
		{"exclude of its function", strings.Replace(base, `"(*T).Reset"]`, `"(*T).Reset", "(*T).Set"]`, 1), false, false},
		{"exclude of its generic function", strings.Replace(base, `"(*T).Reset"]`, `"(*T).Reset", "Map[...]"]`, 1), false, false},
		{"a wildcard", strings.Replace(base, `"(*T).Reset"]`, `"(*T).Reset", "(*U).*"]`, 1), false, false},
		{"a function literal", strings.Replace(base, `"(*T).Reset"]`, `"(*T).Reset", "Other.func1"]`, 1), false, false},
		// A functions list, even of none of its functions, selects.
		{"a functions list of another package's", strings.Replace(base, "ignore", "functions = [\"(*U).Drop\"]\nignore", 1), false, false},
	} {
		in, sel, all := hashes(tt.src)
		if in == in0 != tt.inSame || sel == sel0 != tt.selSame {
			t.Errorf("%s: HashIn unchanged = %t (want %t), SelectionHashIn unchanged = %t (want %t)", tt.name, in == in0, tt.inSame, sel == sel0, tt.selSame)
		}
		if all == all0 {
			t.Errorf("%s: Hash, which does not know the functions, unchanged", tt.name)
		}
	}
}
