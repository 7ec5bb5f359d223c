package rt

import (
	"os"
	"path/filepath"
	"testing"
)

var owSites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.owAppend#entry", Func: "github.com/atomicx/atomicx/rt.owAppend", Pos: "rt/outside_test.go:1:1", Roots: "l,f", Kind: EntrySite, Faults: FaultError, Ends: []int32{101}},
	{ID: "github.com/atomicx/atomicx/rt.owAppend#call:(*os.File).Write#1", Func: "github.com/atomicx/atomicx/rt.owAppend", Pos: "rt/outside_test.go:2:9", Kind: CallSite, Faults: FaultError},
	{ID: "github.com/atomicx/atomicx/rt.owWriteAhead#entry", Func: "github.com/atomicx/atomicx/rt.owWriteAhead", Pos: "rt/outside_test.go:3:1", Roots: "l,f", Kind: EntrySite, Faults: FaultError, Ends: []int32{102}},
}

type owLog struct{ last int }

// owAppend is written the way the rewriter instruments it: when write
// is set, it writes to f through a call site that writes outside memory;
// then it advances l.last and fails.
func owAppend(l *owLog, f *os.File, write bool) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&owSites[0]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&owSites[0], l, f).Exit(&_atx_done, &_atx_r0)
	}
	if write {
		if _atx_e := Inject(&owSites[1]); _atx_e != nil {
			_atx_r0 = _atx_e
			_atx_done = 1
			return
		} else {
			WroteOutside(&owSites[1], f, "")
			f.Write([]byte("entry\n"))
		}
	}
	l.last++
	_atx_r0 = errFull
	_atx_done = 1
	return
}

// owWriteAhead writes through its callee owAppend, then fails.
func owWriteAhead(l *owLog, f *os.File, write bool) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&owSites[2]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&owSites[2], l, f).Exit(&_atx_done, &_atx_r0)
	}
	owAppend(l, f, write)
	_atx_r0 = errFull
	_atx_done = 1
	return
}

// TestWroteOutside checks that the verdict of a failed call names the
// first write outside memory made inside it, by itself or a callee, and
// only inside it.
func TestWroteOutside(t *testing.T) {
	tests := []struct {
		name      string
		before    bool // a write by an earlier call of the goroutine
		write     bool
		wantWrote map[string]bool // by function: its verdict names the write
	}{
		{name: "no write", wantWrote: map[string]bool{"owAppend": false, "owWriteAhead": false}},
		{name: "a write in the call and its callee", write: true, wantWrote: map[string]bool{"owAppend": true, "owWriteAhead": true}},
		{name: "a write before the call is not its own", before: true, wantWrote: map[string]bool{"owAppend": false, "owWriteAhead": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := useRun(t, "", [5]string{"", "", "all", "", ""})
			outsideWrites.Lock()
			outsideWrites.byGID = nil
			outsideWrites.Unlock()
			f, err := os.Create(filepath.Join(t.TempDir(), "segment"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if tt.before {
				owAppend(&owLog{}, f, true)
			}
			resetEventLog()
			os.Remove(logPath)
			if err := owWriteAhead(&owLog{}, f, tt.write); err != errFull {
				t.Fatalf("owWriteAhead = %v, want errFull", err)
			}
			resetEventLog()
			events := readEvents(t, logPath)
			if len(events) != 2 {
				t.Fatalf("%d events, want 2: %v", len(events), events)
			}
			for _, e := range events {
				fn := e["func"].(string)
				fn = fn[len("github.com/atomicx/atomicx/rt."):]
				want := tt.wantWrote[fn]
				if _, got := e["wrote"]; got != want {
					t.Errorf("%s: wrote present = %v, want %v (event: %v)", fn, got, want, e)
					continue
				}
				if !want {
					continue
				}
				if e["wrote"] != "(*os.File).Write" || e["wrote_to"] != f.Name() || e["wrote_at"] != "rt/outside_test.go:2:9" {
					t.Errorf("%s: wrote %v to %v at %v, want (*os.File).Write to %s at rt/outside_test.go:2:9", fn, e["wrote"], e["wrote_to"], e["wrote_at"], f.Name())
				}
			}
		})
	}
}

// TestOutsideWritesKept checks the bounds of what a goroutine keeps: a
// loop of writes is one, and past maxOutsideWrites the oldest go.
func TestOutsideWritesKept(t *testing.T) {
	outsideWrites.Lock()
	outsideWrites.byGID = nil
	outsideWrites.Unlock()
	a, b := &Site{ID: "p.F#call:os.Rename#1"}, &Site{ID: "p.F#call:(*os.File).Write#1"}
	noteOutsideWrite(1, a, "x", 10)
	noteOutsideWrite(1, a, "x", 20)
	noteOutsideWrite(1, b, "y", 30)
	noteOutsideWrite(2, b, "z", 40)
	tests := []struct {
		gid, seq uint64
		want     string // callee and file, "" for none
	}{
		{1, 5, "os.Rename x"},
		{1, 15, "os.Rename x"}, // the loop's later write
		{1, 21, "(*os.File).Write y"},
		{1, 31, ""},
		{2, 5, "(*os.File).Write z"},
		{3, 0, ""},
	}
	for _, tt := range tests {
		w, ok := outsideWriteSince(tt.gid, tt.seq)
		got := ""
		if ok {
			got = w.callee() + " " + w.to
		}
		if got != tt.want {
			t.Errorf("goroutine %d since %d: %q, want %q", tt.gid, tt.seq, got, tt.want)
		}
	}
	for i := range maxOutsideWrites + 1 {
		noteOutsideWrite(3, &Site{ID: "p.F#call:os.Remove#1"}, string(rune('a'+i)), uint64(100+i))
	}
	if w, ok := outsideWriteSince(3, 0); !ok || w.to != "b" {
		t.Errorf("past %d writes, the first kept is %q, want the second, b", maxOutsideWrites, w.to)
	}
}
