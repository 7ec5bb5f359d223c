package policy

import (
	"path/filepath"
	"slices"
	"testing"
)

func parseOblivious(t *testing.T, rule string) *Policy {
	t.Helper()
	p, err := Parse(filepath.Join("testdata", "hash", "x.toml"), []byte("[[rule]]\npackages = [\"example.com/a\"]\nmode = \"mask\"\n"+rule))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOblivious(t *testing.T) {
	p := parseOblivious(t, `functions = ["(*Store).Flush"]
oblivious = ["(*Store).Put", "Load*"]
oblivious_atomic = ["(*Store[...]).Write", "(*Store).Flush"]
`)
	m := p.ForPackage("example.com/a", false)
	for _, tt := range []struct {
		name              string
		oblivious, atomic bool
	}{
		{"(*Store).Put", true, false},
		{"LoadAll", true, false},
		{"(*Store[...]).Write", true, true},
		{"(*Store).Write", true, true},
		{"(*Store).Flush", true, true},
		{"(*Store).Put.func1", false, false}, // a literal by its own name only
		{"Save", false, false},
	} {
		oblivious, atomic := m.Oblivious(tt.name)
		if oblivious != tt.oblivious || atomic != tt.atomic {
			t.Errorf("Oblivious(%q) = %t, %t; want %t, %t", tt.name, oblivious, atomic, tt.oblivious, tt.atomic)
		}
	}
	// Another package, or a package built as written: nothing is.
	if ob, _ := p.ForPackage("example.com/b", false).Oblivious("(*Store).Put"); ob {
		t.Error("a package without a rule has failure-oblivious functions")
	}
}

func TestObliviousMissing(t *testing.T) {
	p := parseOblivious(t, `oblivious = ["(*Store).Put", "Lod", "Load*"]
oblivious_atomic = ["(*Store).Writ"]
`)
	m := p.ForPackage("example.com/a", false)
	got := m.MissingFunctions([]string{"(*Store).Put", "(*Store).Write", "Load"})
	want := []string{
		`testdata/hash/x.toml:4:30: function "Lod" is not declared in package example.com/a, so it is not failure-oblivious; did you mean "Load"?`,
		`testdata/hash/x.toml:5:21: function "(*Store).Writ" is not declared in package example.com/a, so it is not atomic failure-oblivious; did you mean "(*Store).Write"?`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("MissingFunctions =\n%q\nwant\n%q", got, want)
	}
}

func TestObliviousHash(t *testing.T) {
	base := parseOblivious(t, "")
	plain := parseOblivious(t, `oblivious = ["F"]`)
	atomic := parseOblivious(t, `oblivious_atomic = ["F"]`)
	empty := parseOblivious(t, `oblivious = []`)
	hashes := map[string]string{}
	for name, p := range map[string]*Policy{"none": base, "oblivious": plain, "oblivious_atomic": atomic, "empty list": empty} {
		for _, h := range []string{p.Hash(), p.ForPackage("example.com/a", false).Hash()} {
			if other, dup := hashes[h]; dup {
				t.Errorf("%s and %s have the same hash", name, other)
			}
			hashes[h] = name
		}
	}
	// The build key of a package without the lists does not change.
	if got, want := base.ForPackage("example.com/b", false).Hash(), plain.ForPackage("example.com/b", false).Hash(); got != want {
		t.Error("the hash of a package the rule does not cover changed with oblivious")
	}
}

func TestObliviousUnused(t *testing.T) {
	p := parseOblivious(t, `oblivious = ["(*Store).Put", "Gone*"]
oblivious_atomic = ["(*Store).Add"]
`)
	got := p.Unused(map[string][]string{"example.com/a": {"(*Store).Put", "(*Store).Get"}})
	want := []string{
		`testdata/hash/x.toml:4:30: oblivious pattern "Gone*" matches no function in the packages of this rule`,
		`testdata/hash/x.toml:5:21: oblivious_atomic pattern "(*Store).Add" matches no function in the packages of this rule`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Unused =\n%q\nwant\n%q", got, want)
	}
}

func TestMaskOutsideLocks(t *testing.T) {
	p := parseOblivious(t, `mask_outside_locks = ["(*Reg).Rename", "Put*", "(*Reg).Renam"]
`)
	m := p.ForPackage("example.com/a", false)
	for name, want := range map[string]bool{
		"(*Reg).Rename":       true,
		"PutAll":              true,
		"(*Reg[...]).Rename":  true,
		"(*Reg).Rename.func1": false,
		"(*Reg).Move":         false,
	} {
		if got := m.MasksOutsideLocks(name); got != want {
			t.Errorf("MasksOutsideLocks(%q) = %t, want %t", name, got, want)
		}
	}
	if p.ForPackage("example.com/b", false).MasksOutsideLocks("(*Reg).Rename") {
		t.Error("a package without a rule masks outside its locks")
	}
	got := m.MissingFunctions([]string{"(*Reg).Rename", "PutAll"})
	want := []string{`testdata/hash/x.toml:4:48: function "(*Reg).Renam" is not declared in package example.com/a, so it is not masked outside its locks; did you mean "(*Reg).Rename"?`}
	if !slices.Equal(got, want) {
		t.Errorf("MissingFunctions =\n%q\nwant\n%q", got, want)
	}
	if plain := parseOblivious(t, ""); plain.Hash() == p.Hash() || plain.ForPackage("example.com/a", false).Hash() == m.Hash() {
		t.Error("mask_outside_locks leaves the policy's hash as it was")
	}
}

func TestCallbacksWriteArguments(t *testing.T) {
	p := parseOblivious(t, `callbacks_write_arguments = ["items.find", "(*Tree).Ascend*", "(*Tree).Walkk"]
`)
	m := p.ForPackage("example.com/a", false)
	for name, want := range map[string]bool{
		"items.find":              true,
		"items[...].find":         true,
		"(*Tree[...]).AscendLess": true,
		"(*Tree).Walk":            false,
		"find":                    false,
	} {
		if got := m.CallbacksWriteArguments(name); got != want {
			t.Errorf("CallbacksWriteArguments(%q) = %t, want %t", name, got, want)
		}
	}
	if p.ForPackage("example.com/b", false).CallbacksWriteArguments("items.find") {
		t.Error("a package without a rule takes its callbacks to write their arguments only")
	}
	got := m.MissingFunctions([]string{"items.find", "(*Tree).AscendLess", "(*Tree).Walk"})
	want := []string{`testdata/hash/x.toml:4:63: function "(*Tree).Walkk" is not declared in package example.com/a, so it is not masked with its function values taken to write only what their arguments reach; did you mean "(*Tree).Walk"?`}
	if !slices.Equal(got, want) {
		t.Errorf("MissingFunctions =\n%q\nwant\n%q", got, want)
	}
	if plain := parseOblivious(t, ""); plain.Hash() == p.Hash() || plain.ForPackage("example.com/a", false).Hash() == m.Hash() {
		t.Error("callbacks_write_arguments leaves the policy's hash as it was")
	}
}
