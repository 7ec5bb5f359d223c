package question

import (
	"testing"

	"github.com/atomicx/atomicx/campaign"
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
		if Of(h) != q {
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
	if Of(&campaign.Header{Question: "nosuch"}) != nil {
		t.Error("a header naming an unknown question is read as a known one")
	}
}
