package instrument

import (
	"bytes"
	"sort"
)

// edit replaces src[start:end] with text; start == end inserts.
type edit struct {
	start, end int
	text       string
	seq        int // order among edits at the same offset
}

// editList collects the edits of one file and applies them at once, so
// that every edit is expressed in offsets of the original source.
type editList struct {
	edits []edit
}

func (l *editList) insert(off int, text string) {
	l.edits = append(l.edits, edit{start: off, end: off, text: text, seq: len(l.edits)})
}

func (l *editList) replace(start, end int, text string) {
	l.edits = append(l.edits, edit{start: start, end: end, text: text, seq: len(l.edits)})
}

func (l *editList) empty() bool { return len(l.edits) == 0 }

// apply returns src with every edit made. Edits must not overlap, except
// insertions at the boundaries of a replacement.
func (l *editList) apply(src []byte) []byte {
	edits := append([]edit(nil), l.edits...)
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].start != edits[j].start {
			return edits[i].start < edits[j].start
		}
		return edits[i].seq < edits[j].seq
	})
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/4)
	last := 0
	for _, e := range edits {
		if e.start < last {
			continue // overlapping edit: cannot happen for well-formed input
		}
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	return b.Bytes()
}
