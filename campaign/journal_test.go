package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
	"github.com/google/go-cmp/cmp"
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

// TestJournalReaderIncremental reads a journal as a campaign does between
// rounds, while records are appended, one of them cut short for a while:
// each read is what reading the whole file then gives.
func TestJournalReaderIncremental(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	steps := []string{
		`{"v":3,"kind":"campaign","campaign":{"module":"example.com/m"},"pkg":"","test":"","status":"","ms":0}` + "\n" +
			`{"v":3,"kind":"profile","pkg":"example.com/m","test":"TestA","status":"pass","ms":1}` + "\n",
		`{"v":3,"kind":"experiment","pkg":"example.com/m","test":"TestA","site":"m.F#entry","occurrence":1,"fault":"error","status":"fail","ms":0,"batched":true}` + "\n" +
			`{"v":3,"kind":"experiment","pkg":"example.com/m","test":"TestA","site":"m.G#entry","occ`,
		`urrence":1,"fault":"error","status":"pass","ms":0}` + "\n" + `not json` + "\n" + `{"v":3,"kind":"plan","plan":"p1","pkg":"","test":"","status":"","ms":0}` + "\n",
		`{"v":3,"kind":"experiment","pkg":"example.com/m","test":"TestA","site":"m.F#entry","occurrence":1,"fault":"error","status":"pass","ms":0,"fresh":true}` + "\n",
	}
	jr := &journalReader{path: path}
	check := func(step int) {
		t.Helper()
		got, gotProblems, err := jr.read()
		if err != nil {
			t.Fatal(err)
		}
		want, wantProblems, err := ReadJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("after step %d, records (-whole file +incremental):\n%s", step, diff)
		}
		if fmt.Sprint(gotProblems) != fmt.Sprint(wantProblems) {
			t.Errorf("after step %d, problems %v, want %v", step, gotProblems, wantProblems)
		}
	}
	check(-1)
	for i, s := range steps {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
		check(i)
	}
	recs, _, _ := jr.read()
	if len(recs) != 4 || !recs[3].Fresh || HeaderOf(recs).Plan != "p1" {
		t.Errorf("the fresh record does not replace the batched one, or the plan is not in the header: %+v", recs)
	}
	// Written anew, shorter: read from the start.
	os.WriteFile(path, []byte(steps[0]), 0o666)
	check(len(steps))
}

// TestAppendWritesWhatMarshalWrites: Append writes the record's own JSON,
// not passed through json.Marshal, and that is byte for byte what
// json.Marshal writes, escapes and question data included.
func TestAppendWritesWhatMarshalWrites(t *testing.T) {
	rec := &Record{V: JournalVersion, Kind: "experiment", Package: "example.com/m", Test: "TestA",
		Arming: arm.Arming{Inject: arm.Injection{Site: "m.F#call:<a & b>#1", Occurrence: 1, Fault: "error"}},
		Status: "fail", Events: []json.RawMessage{json.RawMessage(`{"event":"verdict","error":"<x> & y"}`)},
		QuestionData: json.RawMessage(`{"extra":"<&>"}`)}
	want, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(rec); err != nil {
		t.Fatal(err)
	}
	j.Close()
	got, _ := os.ReadFile(path)
	if string(got) != string(want)+"\n" {
		t.Errorf("Append wrote\n%s\njson.Marshal writes\n%s", got, want)
	}
}

// TestJournalLongLine: a record longer than the reader's buffer (a
// profile run's events) reads whole, and so does the next one.
func TestJournalLongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	long := &Record{Kind: "profile", Package: "m", Test: "TestLong", Status: "pass", Output: strings.Repeat("x", 3<<20)}
	for _, r := range []*Record{long, {Kind: "profile", Package: "m", Test: "TestShort", Status: "pass"}} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	recs, problems, err := ReadJournal(path)
	if err != nil || len(problems) > 0 {
		t.Fatalf("ReadJournal: %v, problems %v", err, problems)
	}
	if len(recs) != 2 || len(recs[0].Output) != 3<<20 || recs[1].Test != "TestShort" {
		t.Errorf("read %d records back wrong", len(recs))
	}
}
