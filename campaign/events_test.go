package campaign

import (
	"os"
	"strings"
	"testing"
)

// TestReadEventsBounded: a run's events are read up to maxRunEvents
// bytes; a line cut there is dropped.
func TestReadEventsBounded(t *testing.T) {
	path := t.TempDir() + "/events.jsonl"
	line := `{"event":"fail","site":"m.F#entry","call":1}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 100)), 0o666); err != nil {
		t.Fatal(err)
	}
	if got := len(readEvents(path, eventsBound("experiment"))); got != 100 {
		t.Errorf("read %d events, want all 100", got)
	}
	defer func(n int64) { maxRunEvents = n }(maxRunEvents)
	maxRunEvents = int64(10*len(line) + len(line)/2)
	if got := len(readEvents(path, eventsBound("experiment"))); got != 10 {
		t.Errorf("read %d events under a bound of 10.5 lines, want 10", got)
	}
	maxRunEvents = 32 << 20
	defer func(n int64) { maxArmedRunEvents = n }(maxArmedRunEvents)
	maxArmedRunEvents = int64(20 * len(line))
	if got := len(readEvents(path, eventsBound("experiment"))); got != 20 {
		t.Errorf("an armed run kept %d events under a bound of 20 lines, want 20", got)
	}
	if got := len(readEvents(path, eventsBound("profile"))); got != 100 {
		t.Errorf("a profile run kept %d events, want all 100", got)
	}
}

func TestMayBeEvent(t *testing.T) {
	tests := []struct {
		raw, kind string
		want      bool
	}{
		{`{"event":"verdict","site":"m.F#entry"}`, "verdict", true},
		{`{"event":"verdicts","site":"m.F#entry"}`, "verdict", false},
		{`{"event":"inject","site":"m.F#entry"}`, "verdict", false},
		{`{"pid":1,"event":"verdict"}`, "verdict", true},
		{`{"event":"handler","error":"the \"event\":\"verdict\" text"}`, "verdict", false},
		{`{"event":"verdict"`, "verdict", true},
		{`{"event":"verdict`, "verdict", false},
		{``, "verdict", false},
	}
	for _, tt := range tests {
		if got := MayBeEvent([]byte(tt.raw), tt.kind); got != tt.want {
			t.Errorf("MayBeEvent(%s, %q) = %v, want %v", tt.raw, tt.kind, got, tt.want)
		}
	}
}
