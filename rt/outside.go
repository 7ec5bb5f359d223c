package rt

import (
	"os"
	"strings"
	"sync"
)

// Writes outside memory.
//
// A failed call that wrote to a file, a connection or another process
// before failing changed something that a rollback of its object graph
// cannot undo: masking it would put memory and the file out of step (a
// log whose index is rolled back while the entry stays on disk). Each
// call site, in instrumented code, of a function that writes outside
// memory ((*os.File).Write, os.Rename, (*exec.Cmd).Start, a net.Conn's
// Write, ...; the instrument package lists them) tells the runtime when
// it runs, and the verdict of every failed call of the same goroutine
// entered before it names the first such write: "wrote", "wrote_to" and
// "wrote_at" in its verdict event.

// outsideWrite is a call site that wrote outside memory, as a goroutine
// met it: first and last are the entry numbers (callSeq) of the latest
// call entered anywhere when it first and last ran, so that a call
// entered at seq saw it run inside it when last >= seq.
type outsideWrite struct {
	site        *Site
	to          string // the file's name, or ""
	first, last uint64
}

// maxOutsideWrites bounds what one goroutine keeps: past it, the oldest
// are forgotten, and a call entered long ago names a later write than its
// first (a write all the same).
const maxOutsideWrites = 16

// maxOutsideGoroutines bounds the goroutines kept: a program that writes
// from many short-lived goroutines forgets them all at once past it.
const maxOutsideGoroutines = 4096

var outsideWrites struct {
	sync.Mutex
	byGID map[uint64][]outsideWrite
}

// WroteOutside tells the runtime that the call at s, which writes outside
// memory, is about to run: f is the *os.File it writes to, when the call
// is one of its methods, or nil; name is the file or directory the call
// names, when that is known, or "". It does nothing unless the run
// compares failed calls: small enough to be inlined, it costs a write
// made while atomicx is not driving the program two loads.
func WroteOutside(s *Site, f *os.File, name string) {
	if config.logPath == "" || campaign.noSnapshots {
		return
	}
	wroteOutside(s, f, name)
}

// wroteOutside is WroteOutside in a run that compares failed calls.
func wroteOutside(s *Site, f *os.File, name string) {
	if f != nil {
		name = f.Name()
	}
	noteOutsideWrite(goroutineID(), s, name, callSeq.Load())
}

// noteOutsideWrite records that goroutine gid ran the write at s, to
// name, when seq was the latest entry number.
func noteOutsideWrite(gid uint64, s *Site, name string, seq uint64) {
	outsideWrites.Lock()
	defer outsideWrites.Unlock()
	if outsideWrites.byGID == nil || len(outsideWrites.byGID) >= maxOutsideGoroutines {
		outsideWrites.byGID = map[uint64][]outsideWrite{}
	}
	ws := outsideWrites.byGID[gid]
	for i := range ws {
		if ws[i].site == s && ws[i].to == name {
			// A loop of writes: the first names them all.
			ws[i].last = seq
			return
		}
	}
	if len(ws) == maxOutsideWrites {
		ws = append(ws[:0], ws[1:]...)
	}
	outsideWrites.byGID[gid] = append(ws, outsideWrite{site: s, to: name, first: seq, last: seq})
}

// outsideWriteSince returns the first write outside memory that goroutine
// gid ran inside the call it entered at seq, or false.
func outsideWriteSince(gid, seq uint64) (outsideWrite, bool) {
	outsideWrites.Lock()
	defer outsideWrites.Unlock()
	var first outsideWrite
	found := false
	for _, w := range outsideWrites.byGID[gid] {
		if w.last >= seq && (!found || w.first < first.first) {
			first, found = w, true
		}
	}
	return first, found
}

// callee is the function a call site's ID names: "(*os.File).Write" of
// "example.com/m.F#call:(*os.File).Write#1".
func (w outsideWrite) callee() string {
	_, rest, ok := strings.Cut(w.site.ID, "#call:")
	if !ok {
		return w.site.ID
	}
	if i := strings.LastIndex(rest, "#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}
