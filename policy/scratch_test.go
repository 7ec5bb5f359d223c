package policy

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnknownScratch(t *testing.T) {
	path := filepath.Join("testdata", "scratch.toml")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]map[string][]string{
		"example.com/m/codec": {"Decoder": {"buf", "r", "Reader"}, "Encoder": {"w"}},
		"example.com/m/list":  {"List": {"head", "tmp"}},
		"example.com/other":   {"Decoder": {"r"}},
		"example.com/none":    {"Nowhere": {"x"}}, // no rule takes it
	}
	want := []string{
		path + `:4:30: scratch path "Decoder.bfu": type Decoder has no field bfu; did you mean "buf"?`,
		path + `:4:45: scratch path "(*Decodr).buf": no struct type Decodr is declared in the packages of this rule; did you mean "Decoder"?`,
		path + `:4:62: scratch path "Encoder.buf": type Encoder has no field buf`,
		path + `:4:95: scratch path "Nowhere.x": no struct type Nowhere is declared in the packages of this rule`,
		path + `:9:12: scratch path "(*Decoder).buf": type Decoder has no field buf`,
	}
	if diff := cmp.Diff(want, p.UnknownScratch(types)); diff != "" {
		t.Errorf("UnknownScratch (-want +got):\n%s", diff)
	}
	if got := Empty().UnknownScratch(types); len(got) != 0 {
		t.Errorf("Empty().UnknownScratch = %v", got)
	}
}

func TestMatchScratch(t *testing.T) {
	src := `
[[rule]]
packages = ["example.com/a"]
mode = "detect"
scratch = ["(*Decoder).buf", "Encoder.buf", "Decoder.buf", "(*List[T]).tmp"]

[[rule]]
packages = ["example.com/b"]
mode = "mask"

[[rule]]
packages = ["example.com/c"]
mode = "detect"
`
	p, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pkg  string
		want []string
	}{
		{"example.com/a", []string{"Decoder.buf", "Encoder.buf", "List.tmp"}},
		{"example.com/a_test", []string{"Decoder.buf", "Encoder.buf", "List.tmp"}},
		{"example.com/b", nil},
		{"example.com/c", nil},
		{"example.com/d", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, p.ForPackage(tt.pkg, false).Scratch()); diff != "" {
			t.Errorf("%s: Scratch (-want +got):\n%s", tt.pkg, diff)
		}
	}

	// The list is in the hash (the site tables hold it); its order and
	// spelling are not.
	same := `
[[rule]]
packages = ["example.com/a"]
mode = "detect"
scratch = ["List.tmp", "Encoder.buf", "(*Decoder).buf"]

[[rule]]
packages = ["example.com/b"]
mode = "mask"

[[rule]]
packages = ["example.com/c"]
mode = "detect"
`
	q, err := Parse("p.toml", []byte(same))
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash() != q.Hash() {
		t.Error("reordered and respelt scratch list changed the hash")
	}
	r, err := Parse("p.toml", []byte(src[:len(src)-len("mode = \"detect\"\n")]+"mode = \"detect\"\nscratch = [\"X.y\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash() == r.Hash() {
		t.Error("a new scratch path left the hash unchanged")
	}
}
