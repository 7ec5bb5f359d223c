package rt

import (
	"reflect"
	"strings"
	"testing"
)

func TestSiteTable(t *testing.T) {
	table := "efg\texample.com/m.(*V).Alloc#entry\texample.com/m.(*V).Alloc\texample.com/m/v.go:16:18\tv,n\t0\t\t19,22\t\t\texample.com/m.(*V)._atx_Alloc\n" +
		"c\texample.com/m.F#call:strconv.Atoi#1\texample.com/m.F\texample.com/m/v.go:11:22\t\t1000\t\t\t\t\t\n" +
		"pli\texample.com/m.F.func1#entry\texample.com/m.F.func1\texample.com/m/v.go:3:7\t&x\t5\tits roots hold a channel\t4\t(*T).buf\tF\t\n" +
		"w\texample.com/m.G#entry\texample.com/m.G\texample.com/m/v.go:30:6\t\t0\t\t\t\t\t\n" +
		"fg\texample.com/m.H#entry\texample.com/m.H\texample.com/m/v.go:40:6\t\t0\t\t\t\t\texample.com/m._atx_H\n"
	var gateAlloc, gateH bool
	got := SiteTable(5, table, &gateAlloc, &gateH)
	want := []struct {
		ID, Func, Pos, Roots, NoSnapshot, Scratch, In, Frame string
		Kind                                                 SiteKind
		Faults                                               Faults
		Budget                                               int
		Ends                                                 []int32
		Ignored, Literal, Leaf                               bool
		Done                                                 DoneErrors
	}{
		{ID: "example.com/m.(*V).Alloc#entry", Func: "example.com/m.(*V).Alloc", Pos: "example.com/m/v.go:16:18", Roots: "v,n", Frame: "example.com/m.(*V)._atx_Alloc",
			Kind: EntrySite, Faults: FaultError, Ends: []int32{19, 22}, Leaf: true},
		{ID: "example.com/m.F#call:strconv.Atoi#1", Func: "example.com/m.F", Pos: "example.com/m/v.go:11:22", Kind: CallSite, Budget: 1000},
		{ID: "example.com/m.F.func1#entry", Func: "example.com/m.F.func1", Pos: "example.com/m/v.go:3:7", Roots: "&x", NoSnapshot: "its roots hold a channel",
			Scratch: "(*T).buf", In: "F", Kind: EntrySite, Faults: FaultPanic, Budget: 5, Ends: []int32{4}, Ignored: true, Literal: true},
		{ID: "example.com/m.G#entry", Func: "example.com/m.G", Pos: "example.com/m/v.go:30:6", Kind: EntrySite, Done: DoneSkip},
		{ID: "example.com/m.H#entry", Func: "example.com/m.H", Pos: "example.com/m/v.go:40:6", Frame: "example.com/m._atx_H", Kind: EntrySite, Leaf: true},
	}
	for i, want := range []*bool{&gateAlloc, nil, nil, nil, &gateH} {
		if got[i].Gate != want {
			t.Errorf("site %d: gate %p, want %p", i, got[i].Gate, want)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d sites, want %d", len(got), len(want))
	}
	for i, w := range want {
		s := &got[i]
		g := w
		g.ID, g.Func, g.Pos, g.Roots, g.NoSnapshot, g.Scratch, g.In, g.Frame = s.ID, s.Func, s.Pos, s.Roots, s.NoSnapshot, s.Scratch, s.In, s.Frame
		g.Kind, g.Faults, g.Budget, g.Ends, g.Ignored, g.Literal, g.Leaf, g.Done = s.Kind, s.Faults, s.Budget, s.Ends, s.Ignored, s.Literal, s.Leaf, s.Done
		if !reflect.DeepEqual(g, w) {
			t.Errorf("site %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if len(SiteTable(0, "")) != 0 {
		t.Errorf("an empty table has sites")
	}
}

func TestSiteTableMalformed(t *testing.T) {
	ok := "-\tid\tf\tp\t\t0\t\t\t\t\t\n"
	tests := []struct {
		name  string
		n     int
		table string
		gates int
		want  string // in the panic's message
	}{
		{"fewer lines", 2, ok, 0, "2 sites, 1 lines"},
		{"more lines", 1, ok + ok, 0, "more than 1 lines"},
		{"fields", 1, "-\tid\tf\n", 0, "3 fields, want 11"},
		{"flag", 1, strings.Replace(ok, "-", "x", 1), 0, `flag 'x'`},
		{"budget", 1, strings.Replace(ok, "\t0\t", "\tmany\t", 1), 0, `budget "many"`},
		{"end", 1, "-\tid\tf\tp\t\t0\t\t3,x\t\t\t\n", 0, `end "x"`},
		{"gated", 1, "g" + ok[1:], 0, "more gated sites than gates"},
		{"gates", 1, ok, 2, "2 gates more than gated sites"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, tt.want) {
					t.Errorf("panic %v, want one that says %q", r, tt.want)
				}
			}()
			gates := make([]*bool, tt.gates)
			for i := range gates {
				gates[i] = new(bool)
			}
			SiteTable(tt.n, tt.table, gates...)
		})
	}
}

// BenchmarkSiteTable is what reading a package's site table costs at its
// initialization, per site (a composite-literal table costs nothing then,
// but far more to compile).
func BenchmarkSiteTable(b *testing.B) {
	lines := []string{
		"ef\texample.com/m.(*V).Alloc#entry\texample.com/m.(*V).Alloc\texample.com/m/v.go:16:18\tv,n\t0\t\t19,22\t\t\texample.com/m.(*V)._atx_Alloc\n",
		"c\texample.com/m.F#call:strconv.Atoi#1\texample.com/m.F\texample.com/m/v.go:11:22\t\t1000\t\t\t\t\t\n",
	}
	const n = 1000
	var table strings.Builder
	for i := range n {
		table.WriteString(lines[i%len(lines)])
	}
	b.ReportAllocs()
	for b.Loop() {
		SiteTable(n, table.String())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/site")
}
