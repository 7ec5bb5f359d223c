package rt

import (
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/atomicx/atomicx/rt/arm"
)

// Undoing a failed call's writes to regular files.
//
// A masked function that appends to a file, advances an index, then fails
// in Sync gets its index rolled back while the bytes stay in the file:
// memory and disk are out of step. For the functions the policy lists in
// undo_files, each write through an instrumented call site of an
// *os.File method (Write, WriteString, WriteAt, ReadFrom, Truncate) is
// journaled just before it runs: the file's size and offset, and the
// bytes the write may overwrite, read back first. When the masked call
// fails, its writes are undone last first, so that the earliest saved
// bytes win: overwritten ranges get their bytes back, the file is
// truncated back to the size it had before the call's first write, and
// the offset is reset.
//
// A write is undone only where that is sound: the file must be a regular
// file (not a pipe, socket, terminal or device), open without O_APPEND —
// the flag exists so that several writers, other processes among them,
// can append to one file, and truncating it back could drop their
// records, which nothing in this process can see — and readable where
// the write overwrites bytes that were there. Otherwise the write is
// journaled as one that cannot be undone, with the reason: the other
// writes are undone, the memory rolled back, and a detection run logs why
// the file was not. Writes by other goroutines, by code that is not
// instrumented, or through an interface are not seen.
//
// A masking build journals on the goroutine of a masked call in
// progress (UndoFiles, FileWriting): nested masked calls share one
// journal, each undoing what was written since it began. A detection run
// with ATOMICX_UNDO_FILES journals every write of the instrumented call
// sites (WroteFile), numbered as outside writes are (callSeq), and undoes
// those a rolled-back call made (see undoFilesSince).

// fileWrite is one write to a file, as journaled just before it ran.
type fileWrite struct {
	f            *os.File
	size, offset int64  // the file's size and offset before the write
	at           int64  // where saved was read from
	saved        []byte // the bytes the write may overwrite, as they were
	seq          uint64 // detection: the latest entry number when it ran
	problem      string // why it cannot be undone; "" when it can
}

// fileJournal is one goroutine's journaled writes.
type fileJournal struct {
	writes []fileWrite
	frames int    // masked calls in progress that undo their writes
	lost   uint64 // detection: writes up to this entry number were dropped
}

// maxFileWrites bounds the writes one goroutine keeps in a detection run:
// past it, the oldest are dropped, and a call entered before them cannot
// be undone.
const maxFileWrites = 4096

var fileJournals struct {
	sync.Mutex
	open  atomic.Int32 // frames open in all goroutines
	byGID map[uint64]*fileJournal
	// lost: in a detection run, when too many goroutines wrote (see
	// maxOutsideGoroutines), the journals were dropped at that entry
	// number.
	lost uint64
}

// FileUndo is a masked call's undo of its file writes: made at entry by
// UndoFiles, ended by End, deferred so that it runs after the rollback of
// memory and before the release of the resources the call acquired (a
// file it opened must still be open to be undone).
type FileUndo struct {
	j    *fileJournal
	gid  uint64
	mark int
}

// UndoFiles starts journaling the writes to files that the calling
// goroutine makes through instrumented call sites, until End.
func UndoFiles() FileUndo {
	gid := goroutineID()
	fileJournals.Lock()
	defer fileJournals.Unlock()
	if fileJournals.byGID == nil {
		fileJournals.byGID = map[uint64]*fileJournal{}
	}
	j := fileJournals.byGID[gid]
	if j == nil {
		j = &fileJournal{}
		fileJournals.byGID[gid] = j
	}
	j.frames++
	fileJournals.open.Add(1)
	return FileUndo{j: j, gid: gid, mark: len(j.writes)}
}

// End runs when the masked call of s ends (done and errp as for
// Checkpoint.Rollback): on failure, the writes made since UndoFiles are
// undone; on success they stay in the journal of an enclosing masked
// call, whose failure undoes them too.
func (u FileUndo) End(s *Site, done *bool, errp *error) {
	if u.j == nil {
		return
	}
	failed := s.failed(errp) || !*done && Unwinding(s.Func)
	fileJournals.Lock()
	j := u.j
	var ws []fileWrite
	if failed {
		ws = j.writes[u.mark:]
		j.writes = j.writes[:u.mark:u.mark]
	}
	j.frames--
	if j.frames == 0 {
		delete(fileJournals.byGID, u.gid)
	}
	fileJournals.open.Add(-1)
	fileJournals.Unlock()
	undoWrites(ws)
}

// FileWriting journals, in a masking build, a write to f about to run on
// a goroutine inside a masked call that undoes its writes: at is where
// it writes (-1: at the file's offset), n how many bytes (-1: not known,
// up to the end of the file). Elsewhere it costs a load.
func FileWriting(f *os.File, at, n int64) {
	if fileJournals.open.Load() == 0 {
		return
	}
	fileWriting(f, at, n)
}

func fileWriting(f *os.File, at, n int64) {
	gid := goroutineID()
	fileJournals.Lock()
	j := fileJournals.byGID[gid]
	fileJournals.Unlock()
	if j == nil || f == nil {
		return // no masked call of this goroutine; or a write that fails at once
	}
	w := journalWrite(f, at, n)
	fileJournals.Lock()
	j.writes = append(j.writes, w)
	fileJournals.Unlock()
}

// WroteFile is WroteOutside for a write to f, a call that FileWriting
// journals in a masking build (at and n as there): in a detection run
// with ATOMICX_UNDO_FILES, it also journals the write, so that a
// rolled-back call's writes can be undone.
func WroteFile(s *Site, f *os.File, at, n int64) {
	if config.logPath == "" || campaign.noSnapshots {
		return
	}
	wroteOutside(s, f, "")
	if campaign.undoFiles != nil && f != nil {
		journalWriteOf(goroutineID(), f, at, n, callSeq.Load())
	}
}

// journalWriteOf journals, in a detection run, goroutine gid's write to f
// when seq was the latest entry number.
func journalWriteOf(gid uint64, f *os.File, at, n int64, seq uint64) {
	w := journalWrite(f, at, n)
	w.seq = seq
	fileJournals.Lock()
	defer fileJournals.Unlock()
	if fileJournals.byGID == nil || len(fileJournals.byGID) >= maxOutsideGoroutines {
		if fileJournals.byGID != nil {
			fileJournals.lost = seq
		}
		fileJournals.byGID = map[uint64]*fileJournal{}
	}
	j := fileJournals.byGID[gid]
	if j == nil {
		j = &fileJournal{}
		fileJournals.byGID[gid] = j
	}
	if len(j.writes) == maxFileWrites {
		j.lost = j.writes[0].seq
		j.writes = append(j.writes[:0], j.writes[1:]...)
	}
	j.writes = append(j.writes, w)
}

// undoFilesSince undoes, in a detection run, the writes that goroutine
// gid made inside the call it entered at seq, a call of s rolled back
// (ATOMICX_MASK). It returns how many writes it undid, and why the files
// were not all brought back ("" when they were, or nothing was written).
func undoFilesSince(s *Site, gid, seq uint64) (undone int, problem string) {
	if seq == 0 {
		return 0, "" // no entry number: no write was placed either
	}
	if !campaign.undoFiles[s.ID] {
		if w, ok := outsideWriteSince(gid, seq); ok {
			to := w.to
			if to == "" {
				to = "what it wrote outside memory"
			}
			return 0, "memory rolled back, " + to + " not: " + arm.EnvUndoFiles + " does not name the function (" + w.callee() + " at " + w.site.Pos + ")"
		}
		return 0, ""
	}
	fileJournals.Lock()
	var ws []fileWrite
	lost := fileJournals.lost >= seq
	if j := fileJournals.byGID[gid]; j != nil {
		lost = lost || j.lost >= seq
		i := len(j.writes)
		for i > 0 && j.writes[i-1].seq >= seq {
			i--
		}
		ws = append(ws, j.writes[i:]...)
		j.writes = j.writes[:i]
	}
	fileJournals.Unlock()
	problem = undoWrites(ws)
	if lost && problem == "" {
		problem = "too many writes to journal: the first ones were not undone"
	}
	if problem == "" {
		if w, ok := unjournaledWriteSince(gid, seq); ok {
			problem = "memory rolled back, but " + w.callee() + " at " + w.site.Pos + " cannot be undone"
		}
	}
	return len(ws), problem
}

// unjournaledWriteSince returns a write outside memory that goroutine gid
// ran inside the call it entered at seq and that WroteFile does not
// journal (a rename, a write to a connection), or false.
func unjournaledWriteSince(gid, seq uint64) (outsideWrite, bool) {
	outsideWrites.Lock()
	defer outsideWrites.Unlock()
	for _, w := range outsideWrites.byGID[gid] {
		if w.last >= seq && !journaledWrite(w) {
			return w, true
		}
	}
	return outsideWrite{}, false
}

// journaledWrite reports whether an outside write is one that WroteFile
// journals.
func journaledWrite(w outsideWrite) bool {
	switch w.callee() {
	case "(*os.File).Write", "(*os.File).WriteString", "(*os.File).WriteAt", "(*os.File).ReadFrom", "(*os.File).Truncate":
		return true
	}
	return false
}

// journalWrite reads what undoing a write to f at at of n bytes needs
// (see FileWriting), or why it cannot be undone.
func journalWrite(f *os.File, at, n int64) fileWrite {
	w := fileWrite{f: f}
	fi, err := f.Stat()
	switch {
	case err != nil:
		w.problem = "cannot stat " + f.Name() + ": " + err.Error()
		return w
	case !fi.Mode().IsRegular():
		w.problem = f.Name() + " is not a regular file (" + fi.Mode().Type().String() + ")"
		return w
	}
	if appends, err := appendMode(f); err != nil || appends {
		w.problem = f.Name() + " is open with O_APPEND: other writers may append to it, and truncating it back could drop what they wrote"
		if err != nil {
			w.problem = "cannot tell whether " + f.Name() + " is open with O_APPEND: " + err.Error()
		}
		return w
	}
	w.size = fi.Size()
	if w.offset, err = f.Seek(0, io.SeekCurrent); err != nil {
		w.problem = "cannot read the offset of " + f.Name() + ": " + err.Error()
		return w
	}
	if at < 0 {
		at = w.offset
	}
	end := w.size
	if n >= 0 && at+n < end {
		end = at + n
	}
	w.at = at
	if at < end {
		w.saved = make([]byte, end-at)
		if _, err := f.ReadAt(w.saved, at); err != nil {
			w.saved = nil
			w.problem = "cannot read back the " + strconv.FormatInt(end-at, 10) + " bytes of " + f.Name() + " the write overwrites: " + err.Error()
		}
	}
	return w
}

// undoWrites undoes ws, last first, and returns why it could not undo
// them all ("" when it did). Each write gives back the bytes it
// overwrote and the size and offset the file had before it, so that the
// first write's state is the one left.
func undoWrites(ws []fileWrite) (problem string) {
	note := func(p string) {
		if problem == "" {
			problem = p
		}
	}
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if w.problem != "" {
			note(w.problem)
			continue
		}
		if len(w.saved) > 0 {
			if _, err := w.f.WriteAt(w.saved, w.at); err != nil {
				note("cannot write back " + w.f.Name() + ": " + err.Error())
				continue
			}
		}
		if err := w.f.Truncate(w.size); err != nil {
			note("cannot truncate " + w.f.Name() + " back: " + err.Error())
			continue
		}
		if _, err := w.f.Seek(w.offset, io.SeekStart); err != nil {
			note("cannot reset the offset of " + w.f.Name() + ": " + err.Error())
		}
	}
	return problem
}
