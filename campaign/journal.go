package campaign

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/atomicx/atomicx/rt/arm"
)

// JournalVersion is the version of the journal's record format. Version
// 2 added the calls in progress to profile runs' reach events: an
// experiment planned from a version 1 profile would snapshot nothing.
// Version 3: a recheck masks the non-atomic functions that ran inside a
// failed call (it masked the first non-atomic call of a failure chain),
// and verdicts say where their call ran (g, seq), which telling which
// calls ran inside which needs. The "plan" record came without a new
// version: every version 3 record means what it meant, and a journal
// without one reads as before (an older atomicx skips the line as a
// problem, and its reports do not name the plan).
const JournalVersion = 3

// Record is one line of the journal: the campaign's header, or a
// finished profile run or experiment. Its JSON form is one object: the
// fields of recordLine, then the keys of QuestionData.
type Record struct {
	V        int     // the journal's format, JournalVersion
	Kind     string  // "campaign" (the header), "plan", "profile", "natural" (verdicts of the profile's failures), "experiment" or "recheck"
	Campaign *Header // the header: what the campaign ran and where
	Plan     string  // "plan" records: the ID of the plan made from the profile runs (see ReadJournal)
	Package  string
	Test     string
	Exec     string // program workload: the script that ran
	Binary   string // program workload: the instrumented binary
	// Arming is what the run armed, as far as it tells runs apart (Key):
	// the injection, the only calls snapshotted, the functions rolled
	// back (a recheck's, or a failure-oblivious function's atomic
	// variant) and those made failure-oblivious. Its other fields are
	// set by the engine when it runs the record (the log, the profile),
	// or by the question in the run's environment (PlannedRun.Env), and
	// a record does not keep them.
	Arming arm.Arming
	Status string // pass, fail, timeout, absorbed, crash, error: see Passed and the other outcomes
	Fired  bool   // the armed fault was injected
	Millis int64
	Output string // the end of the output of a run that went wrong
	Died   string // a crash's first "panic: " or "fatal error: " line, which Output may have lost
	Events []json.RawMessage
	// Stacks are the goroutines of a test binary stopped at its time
	// limit ("timeout"), from the dump it wrote when asked to quit, or
	// of one the runtime stopped as deadlocked ("crash").
	Stacks []GoroutineStack

	// Began is when the run started and Session when the detect command
	// that ran it started, both in Unix milliseconds: the report's wall
	// time. 0 in journals that predate them.
	Began   int64
	Session int64

	// Batched says that the run was one of a batch: experiments of one
	// test that one process ran in turn (see Planner.InProcess). Fresh
	// says that it ran in a process of its own after a batch had run it,
	// to confirm or replace what the batch found: a fresh record stands
	// for the batched one of the same key, which a journal may hold too
	// (ReadJournal keeps the fresh one).
	Batched, Fresh bool
	// FellBack marks a fresh run of a test whose batched runs a fresh
	// process did not confirm: each of its experiments ran again, a
	// process each.
	FellBack bool

	// QuestionData is the question's own data about the run, a JSON
	// object that the question encodes and decodes with a type of its
	// own (perturbation's stack of the point, for one); the engine keeps
	// it as it is. On the journal's line its keys are the record's own.
	QuestionData json.RawMessage
}

// recordLine is a Record as a journal line has it, the question's data
// aside: the arming's fields are keys of the record.
type recordLine struct {
	V          int               `json:"v"`
	Kind       string            `json:"kind"`
	Campaign   *Header           `json:"campaign,omitempty"`
	Plan       string            `json:"plan,omitempty"`
	Package    string            `json:"pkg"`
	Test       string            `json:"test"`
	Exec       string            `json:"exec,omitempty"`
	Binary     string            `json:"binary,omitempty"`
	Site       string            `json:"site,omitempty"`       // Arming.Inject.Site
	Occurrence uint64            `json:"occurrence,omitempty"` // Arming.Inject.Occurrence
	Fault      string            `json:"fault,omitempty"`      // Arming.Inject.Fault
	Snapshot   string            `json:"snapshot,omitempty"`   // Arming.SnapshotCalls
	Mask       string            `json:"mask,omitempty"`       // Arming.Mask, "SITE;SITE"
	Status     string            `json:"status"`
	Fired      bool              `json:"fired,omitempty"`
	Millis     int64             `json:"ms"`
	Output     string            `json:"output,omitempty"`
	Died       string            `json:"died,omitempty"`
	Events     []json.RawMessage `json:"events,omitempty"`
	Stacks     []GoroutineStack  `json:"stacks,omitempty"`
	Began      int64             `json:"began,omitempty"`
	Session    int64             `json:"session,omitempty"`
	Always     bool              `json:"always,omitempty"`    // Arming.Inject.Always
	Oblivious  string            `json:"oblivious,omitempty"` // Arming.Oblivious, "SITE;SITE"
	Batched    bool              `json:"batched,omitempty"`
	Fresh      bool              `json:"fresh,omitempty"`
	FellBack   bool              `json:"fell_back,omitempty"`
}

var recordLineKeys = jsonKeys[recordLine]()

// MarshalJSON writes the record as one object, the question's data last.
func (r Record) MarshalJSON() ([]byte, error) {
	a := r.Arming
	if a.Log != "" || a.Profile != 0 || a.StopAbsorbed || a.Snapshots != "" || a.UndoFiles != nil || a.Widen != nil ||
		a.Route != nil || a.RouteUnrouted || a.ListAsWritten {
		return nil, fmt.Errorf("a %s record of %s %s keeps the injection, the calls snapshotted, the functions masked and the failure-oblivious ones of its arming, and no other setting", r.Kind, r.Package, r.Test)
	}
	line := recordLine{V: r.V, Kind: r.Kind, Campaign: r.Campaign, Plan: r.Plan, Package: r.Package, Test: r.Test, Exec: r.Exec, Binary: r.Binary,
		Site: a.Inject.Site, Occurrence: a.Inject.Occurrence, Fault: a.Inject.Fault, Snapshot: a.SnapshotCalls, Mask: strings.Join(a.Mask, ";"),
		Status: r.Status, Fired: r.Fired, Millis: r.Millis, Output: r.Output, Died: r.Died, Events: r.Events, Stacks: r.Stacks,
		Began: r.Began, Session: r.Session, Always: a.Inject.Always, Oblivious: strings.Join(a.Oblivious, ";"), Batched: r.Batched, Fresh: r.Fresh, FellBack: r.FellBack}
	return marshalWithQuestion(&line, r.QuestionData, recordLineKeys)
}

// UnmarshalJSON reads a record written by MarshalJSON; the keys that
// are not the record's own are the question's data.
func (r *Record) UnmarshalJSON(b []byte) error {
	var line recordLine
	data, err := unmarshalWithQuestion(b, &line, recordLineKeys)
	if err != nil {
		return err
	}
	*r = Record{V: line.V, Kind: line.Kind, Campaign: line.Campaign, Plan: line.Plan, Package: line.Package, Test: line.Test, Exec: line.Exec, Binary: line.Binary,
		Arming: arm.Arming{Inject: arm.Injection{Site: line.Site, Occurrence: line.Occurrence, Fault: line.Fault, Always: line.Always},
			SnapshotCalls: line.Snapshot, Mask: arm.SplitIDs(line.Mask), Oblivious: arm.SplitIDs(line.Oblivious)},
		Status: line.Status, Fired: line.Fired, Millis: line.Millis, Output: line.Output, Died: line.Died, Events: line.Events, Stacks: line.Stacks,
		Began: line.Began, Session: line.Session, Batched: line.Batched, Fresh: line.Fresh, FellBack: line.FellBack, QuestionData: data}
	return nil
}

// The outcomes of a run (Record.Status). "crash" is a binary that died
// without a test verdict: a fatal error, os.Exit, a panic on a goroutine
// of its own, a signal. A test that panics has a verdict, "fail": the
// testing package reports the failure before the panic stops the
// binary. Journals written before "crash" existed record crashes as
// "fail".
const (
	Passed   = "pass"     // the test passed; a program workload exited 0
	Failed   = "fail"     // the test failed; a program workload exited non-zero
	Hung     = "timeout"  // killed at the time limit
	Absorbed = "absorbed" // ended early once the injected failure stopped propagating: no test verdict
	Crashed  = "crash"    // the binary died without a test verdict
	NotRun   = "error"    // the run could not be started
)

// Key identifies the work a record stands for, so that a resumed campaign
// skips it.
func (r *Record) Key() string {
	if r.Kind == "campaign" || r.Kind == "plan" {
		return r.Kind
	}
	if r.Kind == "profile" || r.Kind == "natural" {
		return r.Kind + "\x00" + r.Package + "\x00" + r.Test
	}
	inj := r.Arming.Inject
	key := fmt.Sprintf("experiment\x00%s\x00%s\x00%s\x00%d\x00%s", r.Package, r.Test, inj.Site, inj.Occurrence, inj.Fault)
	mask := strings.Join(r.Arming.Mask, ";")
	if r.Kind == "recheck" {
		return "recheck" + key[len("experiment"):] + "\x00" + mask
	}
	if inj.Always {
		key += "\x00always"
	}
	if len(r.Arming.Oblivious) > 0 {
		key += "\x00oblivious\x00" + strings.Join(r.Arming.Oblivious, ";") + "\x00" + mask
	}
	return key
}

// Journal appends records to a file, one JSON line each, each written
// with one call so that a kill never leaves half a record behind another.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// OpenJournal opens (creating if needed) the journal at path for appending.
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	return &Journal{f: f, path: path}, nil
}

// Append writes one record.
func (j *Journal) Append(r *Record) error {
	// The caller's record is left as it is, also when the write fails
	// (atomicx's own campaign found Append non-atomic when it set r.V).
	rec := *r
	rec.V = JournalVersion
	// MarshalJSON's own line is compact already: json.Marshal would only
	// scan it, events and all, twice more.
	b, err := rec.MarshalJSON()
	if err != nil {
		return err
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("writing the journal %s: %w", j.path, err)
	}
	return nil
}

// Close closes the journal.
func (j *Journal) Close() error { return j.f.Close() }

// Problem is a journal line that could not be read.
type Problem struct {
	Path string
	Line int
	Err  error
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: skipped: %v", p.Path, p.Line, p.Err)
}

// OldRecordError is a record of an older journal format, written by an
// older atomicx: its work cannot be resumed.
type OldRecordError struct{ Version int }

func (e OldRecordError) Error() string {
	return fmt.Sprintf("a version %d record, written by an older atomicx (this one writes version %d): run the campaign again without -resume", e.Version, JournalVersion)
}

// ReadJournal reads every record of a journal. Lines that are not valid
// records (a truncated last line after a kill, an edit by hand) are
// reported as problems and skipped; a missing journal has no records.
//
// A "plan" record names the plan made from the journal's profile runs
// once the planning ends: it is appended rather than written into the
// header, which would mean writing the whole journal again. ReadJournal
// folds it into the header (Header.Plan, the last such record winning)
// and leaves it out of the records, so that its readers see the header
// that journals whose header names the plan have.
func ReadJournal(path string) ([]*Record, []Problem, error) {
	return (&journalReader{path: path}).read()
}

// A journalReader reads a journal again and again as runs append to it:
// each read parses only the lines appended since the last, so that a
// campaign that reads its journal between rounds does not pay for the
// whole journal each time. A journal that got shorter (written anew) is
// read from its start.
type journalReader struct {
	path  string
	size  int64 // bytes read, up to the end of the last whole line
	line  int   // lines read
	lines journalLines
}

// journalLines is what a journal's lines said, read in order.
type journalLines struct {
	recs     []*Record
	problems []Problem
	hdr      *Header // the first campaign record's
	plan     string  // the last plan record's, and its line
	planLine int
}

// add is line n of the journal at path, without its newline.
func (j *journalLines) add(path string, n int, line []byte) {
	rec, plan, err := parseJournalLine(line)
	switch {
	case err != nil:
		j.problems = append(j.problems, Problem{Path: path, Line: n, Err: err})
	case plan != "":
		j.plan, j.planLine = plan, n
	default:
		if rec.Kind == "campaign" && j.hdr == nil {
			j.hdr = rec.Campaign
		}
		j.recs = append(j.recs, rec)
	}
}

func (jr *journalReader) read() ([]*Record, []Problem, error) {
	f, err := os.Open(jr.path)
	if errors.Is(err, fs.ErrNotExist) {
		*jr = journalReader{path: jr.path}
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, nil, err
	} else if fi.Size() < jr.size {
		*jr = journalReader{path: jr.path}
	}
	if _, err := f.Seek(jr.size, io.SeekStart); err != nil {
		return nil, nil, err
	}
	// Lines are kept once they end: a last line without its newline (a
	// run's record being written, or cut by a kill) is read each time,
	// into a copy.
	got := jr.lines
	r := bufio.NewReaderSize(f, 1<<20)
	var readErr error
	for n := jr.line + 1; ; n++ {
		b, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer (a profile run's events):
			// gathered in a slice of its own.
			long := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxJournalLine {
				b, err = r.ReadSlice('\n')
				long = append(long, b...)
			}
			if len(long) > maxJournalLine {
				err = fmt.Errorf("line %d is longer than %d bytes", n, maxJournalLine)
			}
			b = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			readErr = fmt.Errorf("reading %s: %w", jr.path, err)
			break
		}
		if err != nil { // the last line, without its newline
			if line := bytes.TrimSuffix(b, []byte("\n")); len(line) > 0 {
				got.recs, got.problems = slices.Clone(got.recs), slices.Clone(got.problems)
				got.add(jr.path, n, line)
			}
			break
		}
		if line := bytes.TrimSuffix(b, []byte("\n")); len(line) > 0 {
			jr.lines.add(jr.path, n, line)
		}
		got = jr.lines
		jr.size += int64(len(b))
		jr.line = n
	}
	problems := slices.Clone(got.problems)
	if got.plan != "" {
		if got.hdr != nil {
			got.hdr.Plan = got.plan
		} else {
			problems = append(problems, Problem{Path: jr.path, Line: got.planLine, Err: errors.New("a plan record in a journal without a header")})
		}
	}
	return withoutReplaced(slices.Clone(got.recs)), problems, readErr
}

// maxJournalLine bounds a journal line: a run's record keeps at most
// maxRunEvents of its events.
const maxJournalLine = 64 << 20

// parseJournalLine reads one line of a journal: a record, or the ID of
// a plan record (see ReadJournal), or why the line is not one.
func parseJournalLine(b []byte) (*Record, string, error) {
	var r Record
	// Not json.Unmarshal, which would scan the line twice more before
	// handing it to the record's own reader.
	if err := r.UnmarshalJSON(b); err != nil {
		return nil, "", err
	}
	if r.V > 0 && r.V < JournalVersion {
		return nil, "", OldRecordError{Version: r.V}
	}
	if r.V != JournalVersion || (r.Kind != "campaign" && r.Kind != "plan" && r.Kind != "profile" && r.Kind != "natural" && r.Kind != "experiment" && r.Kind != "recheck") {
		return nil, "", fmt.Errorf("not a version %d record", JournalVersion)
	}
	if r.Kind == "campaign" && r.Campaign == nil {
		return nil, "", errors.New("a campaign record without its header")
	}
	if r.Kind == "plan" {
		if r.Plan == "" {
			return nil, "", errors.New("a plan record without the plan's ID")
		}
		return nil, r.Plan, nil
	}
	return &r, "", nil
}

// withoutReplaced leaves out of recs the batched records that a fresh one
// of the same key, journaled later, replaces (see Record.Fresh).
func withoutReplaced(recs []*Record) []*Record {
	fresh := map[string]int{}
	for i, r := range recs {
		if r.Fresh {
			fresh[r.Key()] = i
		}
	}
	if len(fresh) == 0 {
		return recs
	}
	kept := recs[:0]
	for i, r := range recs {
		if j, ok := fresh[r.Key()]; ok && r.Batched && !r.Fresh && i < j {
			continue
		}
		kept = append(kept, r)
	}
	return kept
}
