package campaign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJournalRoundTrip appends records, damages the file the way a kill
// or a hand edit would, and checks that every intact record is read back
// and every damaged line is reported with its line number.
func TestJournalRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := []*Record{
		{Kind: "profile", Package: "example.com/m", Test: "TestA", Status: "pass"},
		{Kind: "experiment", Package: "example.com/m", Test: "TestA", Site: "example.com/m.F#entry", Occurrence: 2, Fault: "error", Status: "fail", Fired: true},
	}
	for _, r := range recs {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":3,"kind":"experiment","pkg":"example.com/m","test":"TestA","site":"x#entry","occ` + "\n") // cut short by a kill
	f.WriteString(`{"v":7,"kind":"profile"}` + "\n")                                                              // another version
	f.WriteString(`{"v":2,"kind":"profile"}` + "\n")                                                              // an older atomicx's
	f.WriteString("\n")
	f.WriteString(`{"v":3,"kind":"profile","pkg":"example.com/m","test":"TestB","status":"pass","ms":3}` + "\n")
	f.Close()

	got, problems, err := ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("read %d records, want 3", len(got))
	}
	if got[1].Key() != recs[1].Key() || got[2].Test != "TestB" {
		t.Errorf("records read back wrong: %+v", got)
	}
	var lines []string
	for _, p := range problems {
		lines = append(lines, p.String())
	}
	want := []string{path + ":3: skipped: ", path + ":4: skipped: not a version 3 record",
		path + ":5: skipped: a version 2 record, written by an older atomicx (this one writes version 3): run the campaign again without -resume"}
	if len(lines) != len(want) {
		t.Fatalf("problems %q, want %d", lines, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, lines[i], want[i])
		}
	}
}

func TestReadJournalMissing(t *testing.T) {
	recs, problems, err := ReadJournal(filepath.Join(t.TempDir(), "none.jsonl"))
	if recs != nil || problems != nil || err != nil {
		t.Errorf("missing journal: %v %v %v", recs, problems, err)
	}
}

// TestExperimentsOf checks the plan made from a profile run: one
// experiment per reached point, occurrence (up to the cap) and allowed
// fault, once each even when the runtime logged a reach twice.
func TestExperimentsOf(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	prof := &Record{Kind: "profile", Package: "p", Test: "T", Events: []json.RawMessage{
		ev(`{"event":"reach","site":"p.F#entry","occurrence":1,"faults":3}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":2,"faults":3}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":2,"faults":3}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":3,"faults":3}`),
		ev(`{"event":"reach","site":"p.G#call:os.Open#1","occurrence":1,"faults":1,"stack":"4@p.G#entry"}`),
		ev(`{"event":"verdict","site":"p.F#entry","func":"p.F"}`),
		ev(`not json`),
	}}
	var got []string
	for _, e := range experimentsOf(prof, 2, true) {
		got = append(got, e.Fault+":"+strings.TrimPrefix(e.Key(), "experiment\x00p\x00T\x00")+":"+e.Snapshot)
	}
	want := []string{
		"error:p.F#entry\x001\x00error:;", "panic:p.F#entry\x001\x00panic:;",
		"error:p.F#entry\x002\x00error:;", "panic:p.F#entry\x002\x00panic:;",
		"error:p.G#call:os.Open#1\x001\x00error:4@p.G#entry",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("plan:\n got %q\nwant %q", got, want)
	}
}

// TestNaturalRunOf checks the rerun planned for a profile run's natural
// failures: each failed call once, at most the cap per function.
func TestNaturalRunOf(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	prof := &Record{Kind: "profile", Package: "p", Test: "T", Events: []json.RawMessage{
		ev(`{"event":"fail","site":"p.F#entry","call":3}`),
		ev(`{"event":"fail","site":"p.G#entry","call":1}`),
		ev(`{"event":"fail","site":"p.F#entry","call":3}`),
		ev(`{"event":"fail","site":"p.F#entry","call":7}`),
		ev(`{"event":"fail","site":"p.F#entry","call":9}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":1}`),
	}}
	got := naturalRunOf(prof, 2)
	if got == nil || got.Kind != "natural" || got.Snapshot != "3@p.F#entry;1@p.G#entry;7@p.F#entry" {
		t.Errorf("natural run = %+v, want the calls 3@p.F, 1@p.G, 7@p.F", got)
	}
	if n := naturalRunOf(&Record{Kind: "profile", Events: prof.Events[5:]}, 2); n != nil {
		t.Errorf("natural run %+v for a profile run without failures", n)
	}
}
