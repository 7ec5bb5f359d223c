package policy

import (
	"slices"
	"testing"
)

func TestMasksOutsideWrites(t *testing.T) {
	p := parseOblivious(t, `outside_writes = ["(*Log).writeBatch", "Save*"]
`)
	m := p.ForPackage("example.com/a", false)
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"(*Log).writeBatch", true},
		{"(*Log[...]).writeBatch", true},
		{"(*Log).writeBatch.func1", true}, // with the function it is written in
		{"SaveAll", true},
		{"(*Log).Write", false},
	} {
		if got := m.MasksOutsideWrites(tt.name); got != tt.want {
			t.Errorf("MasksOutsideWrites(%q) = %t, want %t", tt.name, got, tt.want)
		}
	}
	if p.ForPackage("example.com/b", false).MasksOutsideWrites("(*Log).writeBatch") {
		t.Error("a package without a rule masks outside writes")
	}
	if got, want := m.OutsideWritesHint("(*Log[...]).writeBatch"), `outside_writes = ["(*Log).writeBatch"] in the rule at testdata/hash/x.toml:1:1`; got != want {
		t.Errorf("OutsideWritesHint = %q, want %q", got, want)
	}
	got := m.MissingFunctions([]string{"(*Log).writeBatch", "(*Log).Write"})
	want := []string(nil)
	if !slices.Equal(got, want) {
		t.Errorf("MissingFunctions = %q, want none", got)
	}
	typo := parseOblivious(t, `outside_writes = ["(*Log).writeBach"]
`).ForPackage("example.com/a", false)
	got = typo.MissingFunctions([]string{"(*Log).writeBatch"})
	want = []string{`testdata/hash/x.toml:4:19: function "(*Log).writeBach" is not declared in package example.com/a, so it is not masked despite its writes outside memory; did you mean "(*Log).writeBatch"?`}
	if !slices.Equal(got, want) {
		t.Errorf("MissingFunctions =\n%q\nwant\n%q", got, want)
	}
}

func TestOutsideWritesHash(t *testing.T) {
	base := parseOblivious(t, "")
	listed := parseOblivious(t, `outside_writes = ["F"]`)
	for _, h := range [][2]string{
		{base.Hash(), listed.Hash()},
		{base.ForPackage("example.com/a", false).Hash(), listed.ForPackage("example.com/a", false).Hash()},
	} {
		if h[0] == h[1] {
			t.Error("outside_writes does not change the hash: a build it let through would be found in the cache without it")
		}
	}
	if base.ForPackage("example.com/b", false).Hash() != listed.ForPackage("example.com/b", false).Hash() {
		t.Error("the hash of a package the rule does not cover changed with outside_writes")
	}
}

func TestUndoesFiles(t *testing.T) {
	p := parseOblivious(t, `undo_files = ["(*Log).writeBatch"]
`)
	m := p.ForPackage("example.com/a", false)
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"(*Log).writeBatch", true},
		{"(*Log[...]).writeBatch", true},
		{"(*Log).writeBatch.func1", true}, // with the function it is written in
		{"(*Log).Write", false},
	} {
		if got := m.UndoesFiles(tt.name); got != tt.want {
			t.Errorf("UndoesFiles(%q) = %t, want %t", tt.name, got, tt.want)
		}
	}
	if !m.UndoesAnyFiles() {
		t.Error("UndoesAnyFiles = false for a rule that lists undo_files")
	}
	if other := p.ForPackage("example.com/b", false); other.UndoesFiles("(*Log).writeBatch") || other.UndoesAnyFiles() {
		t.Error("a package without a rule undoes files")
	}
	typo := parseOblivious(t, `undo_files = ["(*Log).writeBach"]
`).ForPackage("example.com/a", false)
	got := typo.MissingFunctions([]string{"(*Log).writeBatch"})
	want := []string{`testdata/hash/x.toml:4:15: function "(*Log).writeBach" is not declared in package example.com/a, so it is not masked with its writes to files undone; did you mean "(*Log).writeBatch"?`}
	if !slices.Equal(got, want) {
		t.Errorf("MissingFunctions =\n%q\nwant\n%q", got, want)
	}
	base, listed := parseOblivious(t, ""), parseOblivious(t, `undo_files = ["F"]`)
	if base.ForPackage("example.com/a", false).Hash() == listed.ForPackage("example.com/a", false).Hash() {
		t.Error("undo_files does not change the package's hash: a build without the undo would be found in the cache")
	}
}
