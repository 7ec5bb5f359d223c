package rt

import (
	"os"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The event log is shared by every process of a campaign: each event is
// one line written with one write call on a file opened for appending, so
// lines from concurrent processes never interleave, and a process killed
// mid-run loses nothing it had logged.
var eventLog struct {
	sync.Mutex
	f      *os.File
	failed bool
}

func writeLine(b []byte) {
	eventLog.Lock()
	defer eventLog.Unlock()
	if eventLog.failed || config.logPath == "" || batchRun.over.Load() {
		return
	}
	if eventLog.f == nil {
		f, err := os.OpenFile(config.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			eventLog.failed = true
			os.Stderr.WriteString("atomicx: cannot open the event log: " + err.Error() + "\n")
			return
		}
		eventLog.f = f
		for _, p := range config.problems {
			f.Write(event("problem").str("message", p).end())
		}
	}
	eventLog.f.Write(b)
}

// verdictEvent is the outcome of one failed call.
type verdictEvent struct {
	site     *Site
	verdict  string // atomic, non-atomic, unknown
	reason   string // why unknown
	diff     difference
	failure  string // error or panic
	err      error
	chain    uint64
	injected bool
	first    bool // the first non-atomic call of its chain
	masked   bool // rolled back after the verdict (ATOMICX_MASK)
	// For a masked call: how many of its writes to files were undone
	// (ATOMICX_UNDO_FILES), and why its writes outside memory were not
	// all undone.
	undoneWrites int
	notUndone    string
	call         uint64 // which call of its function, for a sampled-out call; 0 otherwise
	// Where the call ran, for calls placed in a chain: its goroutine and
	// its entry number among all calls (0 when not known).
	gid, seq uint64
	end      int // line of the return, or of the panic, that ended the call; 0 if unknown
	// callback names, for a non-atomic call that changed nothing itself,
	// the callback its change came through (see callbacks.go); unsplit
	// says that the call made too many callbacks to be told apart from
	// them.
	callback string
	unsplit  bool
}

func writeVerdict(v *verdictEvent) {
	e := event("verdict").str("site", v.site.ID).str("func", v.site.Func).str("pos", v.site.Pos).
		strIf("in", v.site.In). // a function literal: what it is written in
		str("verdict", v.verdict).str("failure", v.failure).strIf("reason", v.reason)
	if v.call != 0 {
		e.num("call", v.call)
	}
	if v.verdict == "non-atomic" {
		e.str("path", v.diff.Path).str("before", v.diff.Before).str("after", v.diff.After).
			str("changes", v.diff.Changes.String()).strIf("callback", v.callback)
		if v.unsplit {
			e.boolean("callbacks_unsplit", true)
		}
	}
	if v.err != nil {
		e.str("error", truncate(errorText(v.err), 200))
	}
	e.boolean("injected", v.injected).num("chain", v.chain).boolean("first", v.first)
	if v.seq != 0 {
		e.num("g", v.gid).num("seq", v.seq)
	}
	if v.masked {
		e.boolean("masked", true)
		if v.undoneWrites > 0 {
			e.num("undone_writes", uint64(v.undoneWrites))
		}
		e.strIf("not_undone", v.notUndone)
	}
	if v.end > 0 {
		e.num("end", uint64(v.end))
	}
	if v.seq != 0 {
		if w, ok := outsideWriteSince(v.gid, v.seq); ok {
			e.str("wrote", w.callee()).strIf("wrote_to", w.to).str("wrote_at", w.site.Pos)
		}
	}
	writeLine(e.end())
}

// writeFail logs a failed call that was not snapshotted: which call of
// its function it was, for a later run to snapshot; for a call past the
// calls a profile run numbers, "beyond_call" and that number instead
// (see campaignSettings.numbered).
func writeFail(c *Call, failure string) {
	e := event("fail").str("site", c.site.ID).str("func", c.site.Func).str("pos", c.site.Pos)
	if n := c.number(); n != 0 {
		e.num("call", n)
	} else {
		e.num("beyond_call", campaign.numbered)
	}
	e.str("failure", failure)
	if campaign.tracksCalls && campaign.profile == 0 && injected.fired.Load() {
		// Which goroutine: a call of the same function in progress on
		// another goroutine has a number of the injection's stack too.
		e.num("g", goroutineID())
	}
	writeLine(e.end())
}

// writeInjection logs an injected fault. In a run that tracks calls
// (see campaignSettings.tracksCalls) it also logs its goroutine (g) and
// the calls in progress on its stack ("stack", as a reach event's), by
// this run's own numbers: what the "fail" events that follow are to be
// matched with.
func writeInjection(s *Site, f *InjectedFault, chain, gid uint64, stack string) {
	fault := "error"
	if f.Panic {
		fault = "panic"
	}
	kind := "entry"
	if s.Kind == CallSite {
		kind = "call"
	}
	e := event("inject").str("site", s.ID).str("func", s.Func).str("pos", s.Pos).strIf("in", s.In)
	e.str("kind", kind).str("fault", fault).num("occurrence", f.Occurrence).num("chain", chain)
	if campaign.tracksCalls {
		e.num("g", gid).strIf("stack", stack)
	}
	writeLine(e.end())
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// jsonLine builds one JSON object by hand: encoding/json would pull a
// large part of the standard library into every instrumented program.
type jsonLine struct{ b []byte }

func event(kind string) *jsonLine {
	l := &jsonLine{b: make([]byte, 0, 256)}
	l.b = append(l.b, `{"event":`...)
	l.b = appendJSONString(l.b, kind)
	l.b = append(l.b, `,"pid":`...)
	l.b = strconv.AppendInt(l.b, int64(os.Getpid()), 10)
	return l
}

func (l *jsonLine) key(k string) {
	l.b = append(l.b, ',')
	l.b = appendJSONString(l.b, k)
	l.b = append(l.b, ':')
}

func (l *jsonLine) str(k, v string) *jsonLine {
	l.key(k)
	l.b = appendJSONString(l.b, v)
	return l
}

// strIf is str when v is set: a key most events lack.
func (l *jsonLine) strIf(k, v string) *jsonLine {
	if v == "" {
		return l
	}
	return l.str(k, v)
}

func (l *jsonLine) num(k string, v uint64) *jsonLine {
	l.key(k)
	l.b = strconv.AppendUint(l.b, v, 10)
	return l
}

func (l *jsonLine) boolean(k string, v bool) *jsonLine {
	l.key(k)
	l.b = strconv.AppendBool(l.b, v)
	return l
}

func (l *jsonLine) end() []byte { return append(l.b, '}', '\n') }

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
