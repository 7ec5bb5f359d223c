package instrument

import (
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt"
)

// The site table written as data reads back, with rt.SiteTable, as the
// sites the composite literals declared.
func TestSiteTableData(t *testing.T) {
	sites := []site{
		{id: "m.(*V).Alloc#entry", fn: "m.(*V).Alloc", pos: "m/v.go:16:18", roots: "v,n", canError: true, ends: []int32{19, 22}, frame: "m.(*V)._atx_Alloc", leaf: true},
		{id: "m.F#call:strconv.Atoi#1", fn: "m.F", pos: "m/v.go:11:22", call: true, canError: true},
		{id: "m.F.func1#entry", fn: "m.F.func1", pos: "m/v.go:3:7", roots: "&x", literal: true, in: "F", noSnapshot: "its roots hold a channel", ends: []int32{4}},
		{id: "m.G#entry", fn: "m.G", pos: "m/v.go:30:6", canError: true, ignored: true},
		{id: "m.W#entry", fn: "m.W", pos: "m/w.go:3:6", canError: true, done: doneSkip},
	}
	type want struct {
		kind    rt.SiteKind
		faults  rt.Faults
		scratch string
		done    rt.DoneErrors
	}
	tests := []struct {
		name string
		opts Options
		want []want
	}{
		{"detect", Options{Panics: true, SnapshotBudget: 500, Scratch: []string{"(*T).buf", "U.tmp"}}, []want{
			{rt.EntrySite, rt.FaultError | rt.FaultPanic, "(*T).buf,U.tmp", 0},
			{rt.CallSite, rt.FaultError, "", 0},
			{rt.EntrySite, rt.FaultPanic, "(*T).buf,U.tmp", 0},
			{rt.EntrySite, 0, "(*T).buf,U.tmp", 0},
			{rt.EntrySite, rt.FaultError | rt.FaultPanic, "(*T).buf,U.tmp", rt.DoneSkip},
		}},
		{"mask", Options{Mask: true}, []want{
			{rt.EntrySite, 0, "", 0}, {rt.CallSite, 0, "", 0}, {rt.EntrySite, 0, "", 0}, {rt.EntrySite, 0, "", 0},
			{rt.EntrySite, 0, "", rt.DoneSkip},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pkgRewriter{opts: tt.opts, sites: sites}
			lines, ok := p.siteTableData()
			if !ok {
				t.Fatal("the table cannot be written as data")
			}
			got := rt.SiteTable(len(lines), strings.Join(lines, "\n")+"\n")
			for i, s := range sites {
				g, w := &got[i], tt.want[i]
				if g.ID != s.id || g.Func != s.fn || g.Pos != s.pos || g.Roots != s.roots || g.In != s.in || g.Frame != s.frame ||
					g.NoSnapshot != s.noSnapshot || g.Literal != s.literal || g.Leaf != s.leaf || g.Ignored != s.ignored ||
					g.Budget != tt.opts.SnapshotBudget || !slices.Equal(g.Ends, s.ends) ||
					g.Kind != w.kind || g.Faults != w.faults || g.Scratch != w.scratch || g.Done != w.done {
					t.Errorf("site %d reads back as %+v, from %+v", i, g, s)
				}
			}
		})
	}
	// A field with a tab or a newline cannot be a field of a line: the
	// table is then written as composite literals.
	p := &pkgRewriter{sites: []site{{id: "m.F#entry", fn: "m.F", pos: "m/v.go:1:6", noSnapshot: "a\tb"}}}
	if _, ok := p.siteTableData(); ok {
		t.Error("a field with a tab was written as data")
	}
}
