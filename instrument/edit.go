package instrument

import (
	"bytes"
	"fmt"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// FuncError is a function that atomicx failed to rewrite: a bug in
// atomicx, which the user can get past by leaving the function out.
type FuncError struct {
	Func string         // relative runtime.Func.Name() form: (*Vector).Alloc
	Pos  token.Position // of its name
	Err  error
	// Stack is, when the rewrite crashed, the stack of the panic.
	Stack string
}

func (e *FuncError) Error() string { return fmt.Sprintf("%s: %s: %v", e.Pos, e.Func, e.Err) }
func (e *FuncError) Unwrap() error { return e.Err }

// edit replaces src[start:end] with text; start == end inserts.
type edit struct {
	start, end int
	text       string
	seq        int // order among edits at the same offset
	// rank puts an insertion before (-1) or after (+1) the other
	// insertions at its offset, whatever their order: the brackets
	// around a whole rewritten statement (see insertCallbackHooks).
	rank int
}

// editList collects the edits of one file and applies them at once, so
// that every edit is expressed in offsets of the original source.
type editList struct {
	edits []edit
}

func (l *editList) insert(off int, text string) {
	l.edits = append(l.edits, edit{start: off, end: off, text: text, seq: len(l.edits)})
}

// insertOutside inserts text before every other insertion at off when
// rank is -1, after every other when it is +1.
func (l *editList) insertOutside(off int, text string, rank int) {
	l.edits = append(l.edits, edit{start: off, end: off, text: text, seq: len(l.edits), rank: rank})
}

func (l *editList) replace(start, end int, text string) {
	l.edits = append(l.edits, edit{start: start, end: end, text: text, seq: len(l.edits)})
}

func (l *editList) empty() bool { return len(l.edits) == 0 }

// mention reports whether the text of some edit contains s.
func (l *editList) mention(s string) bool {
	for _, e := range l.edits {
		if strings.Contains(e.text, s) {
			return true
		}
	}
	return false
}

// panicOnOverlap turns an overlap into a panic. The package's tests set
// it: there an overlap is a bug to stop at, with a stack trace, while a
// build reports it as an error that says how to leave the function out.
var panicOnOverlap = false

// overlapError reports two edits that touch the same bytes of the source.
// Making one and dropping the other would produce code that compiles but
// does not do what the rewrite meant, so the rewrite is refused instead.
type overlapError struct{ a, b edit }

func (e *overlapError) Error() string {
	return fmt.Sprintf("overlapping rewrites of the source: bytes %d-%d replaced by %s, and bytes %d-%d by %s",
		e.a.start, e.a.end, clip(e.a.text), e.b.start, e.b.end, clip(e.b.text))
}

func clip(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}

// sorted returns the edits in the order they apply: by offset, then in
// the order they were made. It fails if two of them overlap; insertions
// at the boundaries of a replacement are not overlaps.
func (l *editList) sorted() ([]edit, error) {
	edits := append([]edit(nil), l.edits...)
	sort.SliceStable(edits, func(i, j int) bool {
		a, b := edits[i], edits[j]
		if a.start != b.start {
			return a.start < b.start
		}
		// An insertion at the start of a replacement goes before it,
		// whichever was made first.
		if aIns, bIns := a.start == a.end, b.start == b.end; aIns != bIns {
			return aIns
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return a.seq < b.seq
	})
	var reach edit // the edit that reaches furthest so far
	for i, e := range edits {
		if i > 0 && e.start < reach.end {
			err := &overlapError{a: reach, b: e}
			if panicOnOverlap {
				panic(err)
			}
			return nil, err
		}
		if i == 0 || e.end >= reach.end {
			reach = e
		}
	}
	return edits, nil
}

// checkSince reports whether the edits made since the list had n of them
// overlap one another.
func (l *editList) checkSince(n int) error {
	_, err := (&editList{edits: l.edits[n:]}).sorted()
	return err
}

// apply returns src with every edit made, or an error if two overlap.
func (l *editList) apply(src []byte) ([]byte, error) {
	edits, err := l.sorted()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/4)
	last := 0
	for _, e := range edits {
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	return b.Bytes(), nil
}
