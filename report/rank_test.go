package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

// rankJournal is a campaign over a codec: Decode leaves the caller's value
// half done (and, first in its walk, its scratch buffer grown), readByte
// only consumes input, grow only touches the scratch buffer, and Flush
// is seen once changing scratch and once the caller's output.
const rankJournal = `
{"v":3,"kind":"profile","pkg":"example.com/codec","test":"TestDecode","status":"pass","events":[
 {"event":"verdict","func":"example.com/codec.(*Decoder).grow","pos":"example.com/codec/dec.go:10:20","verdict":"non-atomic","failure":"error","path":"d.buf","before":"nil","after":"len=5","changes":"scratch","chain":1,"first":true},
 {"event":"verdict","func":"example.com/codec.(*Decoder).readByte","pos":"example.com/codec/dec.go:20:20","verdict":"non-atomic","failure":"error","path":"d.r.(*bytes.Reader).i","before":"0","after":"2","changes":"stream","chain":2,"first":true},
 {"event":"verdict","func":"example.com/codec.(*Decoder).Decode","pos":"example.com/codec/dec.go:30:20","verdict":"non-atomic","failure":"error","path":"d.buf","before":"nil","after":"len=5","changes":"scratch","chain":3,"first":true},
 {"event":"verdict","func":"example.com/codec.(*Decoder).Decode","pos":"example.com/codec/dec.go:30:20","verdict":"non-atomic","failure":"error","path":"*v","before":"nil","after":"map[len=0]","changes":"caller-visible","chain":4},
 {"event":"verdict","func":"example.com/codec.(*Encoder).Flush","pos":"example.com/codec/enc.go:5:20","verdict":"non-atomic","failure":"error","path":"e.buf","before":"nil","after":"len=1","changes":"scratch","chain":5,"first":true},
 {"event":"verdict","func":"example.com/codec.(*Encoder).Flush","pos":"example.com/codec/enc.go:5:20","verdict":"non-atomic","failure":"error","path":"e.out","before":"0","after":"1","chain":6,"first":true},
 {"event":"verdict","func":"example.com/codec.(*Encoder).Reset","pos":"example.com/codec/enc.go:15:20","verdict":"non-atomic","failure":"error","path":"e.w.(*bytes.Buffer).buf","before":"len=0","after":"len=3","changes":"stream","chain":7}]}
`

func rankReport(t *testing.T) *Report {
	t.Helper()
	var recs []*campaign.Record
	for _, line := range strings.Split(strings.TrimSpace(strings.ReplaceAll(rankJournal, "\n ", " ")), "\n") {
		var r campaign.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("fixture: %v", err)
		}
		recs = append(recs, &r)
	}
	return Classify(recs, nil)
}

func TestVisibility(t *testing.T) {
	r := rankReport(t)
	tests := []struct {
		fn, verdict, visibility, path string
	}{
		// The most visible change wins, and is the evidence, although the
		// call that showed it was not the first non-atomic one.
		{"(*Decoder).Decode", Pure, CallerVisible, "*v"},
		{"(*Encoder).Flush", Pure, CallerVisible, "e.out"}, // an event without "changes" is caller-visible
		{"(*Decoder).readByte", Pure, Stream, "d.r.(*bytes.Reader).i"},
		{"(*Decoder).grow", Pure, Scratch, "d.buf"},
		{"(*Encoder).Reset", Dependent, Stream, "e.w.(*bytes.Buffer).buf"},
	}
	for _, tt := range tests {
		f := r.Functions["example.com/codec."+tt.fn]
		if f == nil {
			t.Errorf("%s: missing", tt.fn)
			continue
		}
		if f.Verdict != tt.verdict || f.Visibility != tt.visibility || f.Evidence.Path != tt.path || f.Evidence.Changes != tt.visibility {
			t.Errorf("%s: %s, %s, evidence %s (%s); want %s, %s, %s", tt.fn, f.Verdict, f.Visibility, f.Evidence.Path, f.Evidence.Changes, tt.verdict, tt.visibility, tt.path)
		}
	}
	want := []string{"(*Decoder).Decode", "(*Encoder).Flush", "(*Decoder).readByte", "(*Encoder).Reset", "(*Decoder).grow"}
	var got []string
	for _, name := range r.Findings {
		got = append(got, shortName(name))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("findings in order %v, want %v", got, want)
	}

	// Only non-atomic functions have a visibility.
	var buf bytes.Buffer
	if err := WriteJSON(&buf, fixtureReport(t)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"visibility": "caller-visible"`); n != 3 {
		t.Errorf("JSON of the fixture has %d caller-visible functions, want 3:\n%s", n, buf.String())
	}
	if strings.Count(buf.String(), `"visibility"`) != 3 {
		t.Errorf("a function that is not non-atomic has a visibility:\n%s", buf.String())
	}
}

func TestRankText(t *testing.T) {
	var buf bytes.Buffer
	WriteText(&buf, rankReport(t), nil, false)
	out := buf.String()
	for _, want := range []string{
		"pure non-atomic (4):\nexample.com/codec/dec.go:30:20: (*Decoder).Decode: pure non-atomic: *v: nil → map[len=0]",
		"\n2 more findings touch only stream position / scratch / nil versus empty: (*Decoder).readByte (stream), (*Decoder).grow (scratch)\n",
		"dependent non-atomic (1):\n1 more finding touches only stream position / scratch / nil versus empty: (*Encoder).Reset (stream)\n",
		"non-atomic functions by what they changed: 2 caller-visible, 2 only stream position, 1 only scratch, 0 only nil versus empty\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "d.r.(*bytes.Reader).i") || strings.Contains(out, "(*Decoder).grow: ") {
		t.Errorf("a folded finding is shown in full:\n%s", out)
	}
	if i, j := strings.Index(out, "(*Encoder).Flush: pure"), strings.Index(out, "2 more findings"); i < 0 || j < i {
		t.Errorf("the fold comes before a caller-visible finding:\n%s", out)
	}
}

func TestRankSARIF(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, rankReport(t), nil, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					LogicalLocations []struct{ FullyQualifiedName string }
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, res := range log.Runs[0].Results {
		got = append(got, shortName(res.Locations[0].LogicalLocations[0].FullyQualifiedName)+"="+res.Level)
		if res.Level == "note" && !strings.Contains(res.Message.Text, "changed only") {
			t.Errorf("note without its reason: %s", res.Message.Text)
		}
	}
	want := "(*Decoder).Decode=error (*Encoder).Flush=error (*Decoder).readByte=note (*Encoder).Reset=note (*Decoder).grow=note"
	if strings.Join(got, " ") != want {
		t.Errorf("results %v\nwant    %s", got, want)
	}
}

func TestRankHTML(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, rankReport(t), nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	checkWellFormed(t, out)
	fold := strings.Index(out, `<details class="folded"><summary>3 more findings touch only stream position / scratch / nil versus empty</summary>`)
	end := strings.LastIndex(out, "</details>")
	if fold < 0 || end < fold {
		t.Fatalf("no fold for the stream and scratch findings:\n%s", out)
	}
	for _, fn := range []string{"(*Decoder).Decode", "(*Encoder).Flush"} {
		if i := strings.Index(out, `</span>`+fn+` <span class="verdict`); i < 0 || i > fold {
			t.Errorf("%s is not before the fold", fn)
		}
	}
	for _, fn := range []string{"(*Decoder).readByte", "(*Encoder).Reset", "(*Decoder).grow"} {
		if i := strings.Index(out, `</span>`+fn+` <span class="verdict`); i < fold || i > end {
			t.Errorf("%s is not in the fold", fn)
		}
	}
	if !strings.Contains(out, "<code>d.buf</code>: <code>nil</code> → <code>len=5</code> (only scratch)") {
		t.Errorf("the folded finding does not say what it changed")
	}
}
