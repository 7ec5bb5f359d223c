package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
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
		{Kind: "experiment", Package: "example.com/m", Test: "TestA", Arming: arm.Arming{Inject: arm.Injection{Site: "example.com/m.F#entry", Occurrence: 2, Fault: "error"}}, Status: "fail", Fired: true},
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
