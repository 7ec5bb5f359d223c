package question

import (
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// TestRegistry: every question is known by its name, as a plan names it,
// and by its header, as a journal names it; one question, detect, is
// the one a header naming none asks.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	unnamed := 0
	for _, q := range All() {
		if q.Name == "" || seen[q.Name] {
			t.Errorf("question %q: a name is given once", q.Name)
		}
		seen[q.Name] = true
		if Named(q.Name) != q {
			t.Errorf("Named(%q) is not the question: a plan naming it could not be run", q.Name)
		}
		h := &campaign.Header{Question: q.Name}
		if q.Unnamed {
			unnamed++
			h.Question = ""
		}
		if Of(h, nil) != q {
			t.Errorf("the header of a campaign asking %s does not name it", q.Name)
		}
	}
	if unnamed != 1 || All()[0].Name != "detect" || !All()[0].Unnamed {
		t.Errorf("%d questions leave their headers unnamed; want detect's only, first", unnamed)
	}
	for _, name := range []string{"", "nosuch"} {
		if Named(name) != nil {
			t.Errorf("Named(%q) is a question", name)
		}
	}
	if Of(&campaign.Header{Question: "nosuch"}, nil) != nil {
		t.Error("a header naming an unknown question is read as a known one")
	}
}

// TestOfJournal: a journal whose header names no question is detect's,
// unless its runs are another question's that recognizes them (a
// handlers campaign's journal from before headers named questions); a
// header naming a question wins over the records.
func TestOfJournal(t *testing.T) {
	handlerRun := &campaign.Record{Kind: "experiment", Arming: arm.Arming{Inject: arm.Injection{Site: "m.F#handler:f.go:1:2", Fault: "handler"}}}
	detectRun := &campaign.Record{Kind: "experiment", Arming: arm.Arming{Inject: arm.Injection{Site: "m.F#entry", Occurrence: 1, Fault: "error"}}}
	tests := []struct {
		name string
		h    *campaign.Header
		recs []*campaign.Record
		want string
	}{
		{"no header, detect's runs", nil, []*campaign.Record{detectRun}, "detect"},
		{"no header, no runs", nil, nil, "detect"},
		{"a header naming none, handler runs", &campaign.Header{}, []*campaign.Record{handlerRun}, "handlers"},
		{"no header, handler runs", nil, []*campaign.Record{handlerRun}, "handlers"},
		{"a header naming perturb", &campaign.Header{Question: "perturb"}, []*campaign.Record{handlerRun}, "perturb"},
	}
	for _, tt := range tests {
		q := Of(tt.h, tt.recs)
		if q == nil || q.Name != tt.want {
			t.Errorf("%s: %v, want %s", tt.name, q, tt.want)
		}
	}
}
