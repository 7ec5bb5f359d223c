package coverage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProfile(t *testing.T) {
	blocks, err := ParseProfile(strings.NewReader("mode: atomic\n" +
		"example.com/m/f.go:3.20,5.3 2 1\n" +
		"example.com/m/f.go:3.20,5.3 2 4\n" + // concatenated: counts add
		"example.com/m/my file.go:7.2,7.9 1 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{File: "example.com/m/f.go", Start: Position{3, 20}, End: Position{5, 3}, Statements: 2, Count: 5},
		{File: "example.com/m/my file.go", Start: Position{7, 2}, End: Position{7, 9}, Statements: 1, Count: 0},
	}
	if d := cmp.Diff(want, blocks); d != "" {
		t.Errorf("blocks (-want +got):\n%s", d)
	}
	for _, bad := range []string{"example.com/m/f.go:3.20 2 1", "f.go:3.x,4.1 1 1", "f.go:3.1,4.1 one 1"} {
		if _, err := ParseProfile(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseProfile(%q): no error", bad)
		}
	}
}

// TestBuild: a function F whose error check the tests never take and an
// injected fault does, a function G that only the tests run, a deferred
// literal in H that runs only with a fault, and a block in a file the
// sources lack.
func TestBuild(t *testing.T) {
	const tests = `mode: atomic
example.com/m/f.go:3.14,5.16 2 3
example.com/m/f.go:5.16,7.3 1 0
example.com/m/f.go:8.2,8.12 1 3
example.com/m/f.go:11.14,13.2 2 1
example.com/m/f.go:15.14,16.15 1 0
example.com/m/f.go:16.15,18.3 1 0
example.com/m/other.go:1.1,2.2 4 0
`
	const all = `mode: atomic
example.com/m/f.go:3.14,5.16 2 9
example.com/m/f.go:5.16,7.3 1 2
example.com/m/f.go:8.2,8.12 1 7
example.com/m/f.go:11.14,13.2 2 1
example.com/m/f.go:15.14,16.15 1 1
example.com/m/f.go:16.15,18.3 1 1
example.com/m/other.go:1.1,2.2 4 0
`
	src := Sources{"example.com/m/f.go": {
		Package: "example.com/m",
		Functions: []FuncExtent{
			{Name: "example.com/m.F", Start: Position{3, 1}, End: Position{9, 2}},
			{Name: "example.com/m.G", Start: Position{11, 1}, End: Position{13, 2}},
			{Name: "example.com/m.H", Start: Position{15, 1}, End: Position{19, 2}},
		},
		ErrorPaths: []Region{
			{Start: Position{5, 16}, End: Position{7, 3}, Kind: KindErrorCheck},
			{Start: Position{16, 15}, End: Position{18, 3}, Kind: KindDeferred},
		},
		// The error check's block begins at its brace, on line 5; its
		// statement on line 6.
		Statements: []Position{{3, 20}, {5, 2}, {6, 3}, {8, 2}},
	}}
	tb, err := ParseProfile(strings.NewReader(tests))
	if err != nil {
		t.Fatal(err)
	}
	ab, err := ParseProfile(strings.NewReader(all))
	if err != nil {
		t.Fatal(err)
	}
	m := Build(tb, ab, src)
	want := &Model{
		Total: Counts{Statements: 12, Tests: 5, WithInjection: 8, ErrorPath: 2, ErrorPathTests: 0, ErrorPathWithInjection: 2},
		Packages: []*Package{{
			ImportPath: "example.com/m",
			Counts:     Counts{Statements: 12, Tests: 5, WithInjection: 8, ErrorPath: 2, ErrorPathTests: 0, ErrorPathWithInjection: 2},
			Functions: []*Function{
				{Name: "example.com/m.F", Pos: "example.com/m/f.go:3", file: "example.com/m/f.go", line: 3,
					Counts:       Counts{Statements: 4, Tests: 3, WithInjection: 4, ErrorPath: 1, ErrorPathWithInjection: 1},
					NewlyCovered: []Span{{File: "example.com/m/f.go", Line: 6, EndLine: 7, Statements: 1, ErrorPath: KindErrorCheck}}},
				{Name: "example.com/m.G", Pos: "example.com/m/f.go:11", file: "example.com/m/f.go", line: 11,
					Counts: Counts{Statements: 2, Tests: 2, WithInjection: 2}},
				{Name: "example.com/m.H", Pos: "example.com/m/f.go:15", file: "example.com/m/f.go", line: 15,
					Counts: Counts{Statements: 2, WithInjection: 2, ErrorPath: 1, ErrorPathWithInjection: 1},
					NewlyCovered: []Span{
						{File: "example.com/m/f.go", Line: 15, EndLine: 16, Statements: 1},
						{File: "example.com/m/f.go", Line: 16, EndLine: 18, Statements: 1, ErrorPath: KindDeferred},
					}},
				{Name: "", file: "example.com/m/other.go", Counts: Counts{Statements: 4}},
			},
		}},
	}
	if d := cmp.Diff(want, m, cmp.AllowUnexported(Function{})); d != "" {
		t.Errorf("model (-want +got):\n%s", d)
	}
	if g := m.Total.Gained(); g != 3 {
		t.Errorf("Gained() = %d, want 3", g)
	}
}

// TestErrorPathOfInnermost: a block in a recover check inside a deferred
// literal is of the inner kind.
func TestErrorPathOfInnermost(t *testing.T) {
	regions := []Region{
		{Start: Position{10, 14}, End: Position{15, 3}, Kind: KindDeferred},
		{Start: Position{11, 30}, End: Position{13, 4}, Kind: KindRecover},
	}
	tests := []struct {
		b    Block
		want string
	}{
		{Block{Start: Position{11, 3}, End: Position{11, 30}}, KindDeferred},
		{Block{Start: Position{11, 30}, End: Position{13, 4}}, KindRecover},
		{Block{Start: Position{16, 2}, End: Position{16, 9}}, ""},
	}
	for _, tt := range tests {
		if got := errorPathOf(regions, tt.b); got != tt.want {
			t.Errorf("errorPathOf(%v) = %q, want %q", tt.b, got, tt.want)
		}
	}
}
