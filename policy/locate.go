package policy

import (
	"sort"
	"strconv"
	"strings"
)

// The TOML decoder reports positions for syntax errors only: its MetaData
// records one position per dotted key name, so the "mode" of the third
// [[rule]] overwrites that of the first, and none of it is exported. Errors
// about values (a misspelt mode in rule 3, a bad pattern in the second
// element of an array) need the position of that very key or element, so
// the locator below walks the source once more and records them.
//
// It runs only on text the decoder has already accepted, so it may assume
// well-formed TOML. It must still never panic or loop on anything, because
// a wrong guess costs only a less precise position.

// location is where a key and its value were written.
type location struct {
	key   int   // byte offset of the key (of the "[" of a table header)
	value int   // byte offset of the value (equal to key for tables)
	elems []int // byte offsets of the elements, when the value is an array
}

// A tomlPath names a value in the document. Each element of an array of
// tables ([[rule]] or rule = [{...}]) adds an index segment "#0", "#1", ...
// after the array's own segment, so ("rule", "#2", "mode") is the mode of
// the third rule.
type tomlPath []string

func (p tomlPath) key() string { return strings.Join(p, "\x00") }

func (p tomlPath) child(seg string) tomlPath {
	q := make(tomlPath, len(p), len(p)+1)
	copy(q, p)
	return append(q, seg)
}

func indexSeg(i int) string { return "#" + strconv.Itoa(i) }

// locations maps tomlPath.key() to where it was written, and turns byte
// offsets into positions.
type locations struct {
	file       string
	locs       map[string]*location
	lineStarts []int // byte offset at which each line begins
}

// position converts a byte offset into a Position in the file.
func (l *locations) position(off int) Position {
	line := sort.Search(len(l.lineStarts), func(i int) bool { return l.lineStarts[i] > off }) - 1
	if line < 0 {
		line = 0
	}
	return Position{File: l.file, Line: line + 1, Col: off - l.lineStarts[line] + 1}
}

// lookup finds the location of path, or of its nearest recorded ancestor,
// so that an error always has some position.
func (l *locations) lookup(path tomlPath) *location {
	for n := len(path); n > 0; n-- {
		if loc, ok := l.locs[path[:n].key()]; ok {
			return loc
		}
	}
	return &location{}
}

func (l *locations) keyPos(path tomlPath) Position { return l.position(l.lookup(path).key) }

func (l *locations) valuePos(path tomlPath) Position {
	loc, ok := l.locs[path.key()]
	if !ok {
		return l.keyPos(path)
	}
	return l.position(loc.value)
}

func (l *locations) elemPos(path tomlPath, i int) Position {
	loc, ok := l.locs[path.key()]
	if !ok || i >= len(loc.elems) {
		return l.valuePos(path)
	}
	return l.position(loc.elems[i])
}

// locate records where every key, value and array element of src is.
func locate(file, src string) *locations {
	// The decoder skips a UTF-8 byte order mark before counting columns; do
	// the same so that both agree on positions.
	src = strings.TrimPrefix(src, "\ufeff")
	sc := &scanner{
		src:    src,
		locs:   make(map[string]*location),
		arrays: make(map[string]int),
	}
	sc.document()
	ls := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			ls = append(ls, i+1)
		}
	}
	return &locations{file: file, locs: sc.locs, lineStarts: ls}
}

type scanner struct {
	src    string
	i      int
	locs   map[string]*location
	arrays map[string]int // tomlPath.key() of each array of tables -> elements seen
	table  tomlPath       // the table that key = value lines belong to
}

func (s *scanner) eof() bool { return s.i >= len(s.src) }

func (s *scanner) peek(off int) byte {
	if s.i+off < len(s.src) {
		return s.src[s.i+off]
	}
	return 0
}

// record remembers the first place a path is written; later mentions of an
// implicit table (a.b = 1; a.c = 2) keep the first.
func (s *scanner) record(path tomlPath, key, value int) *location {
	k := path.key()
	if loc, ok := s.locs[k]; ok {
		return loc
	}
	loc := &location{key: key, value: value}
	s.locs[k] = loc
	return loc
}

func (s *scanner) document() {
	for {
		s.skipTrivia()
		if s.eof() {
			return
		}
		start := s.i
		switch {
		case s.peek(0) == '[' && s.peek(1) == '[':
			s.header(true)
		case s.peek(0) == '[':
			s.header(false)
		default:
			s.keyValue(s.table)
		}
		if s.i == start { // unexpected text: skip the line rather than loop
			s.skipLine()
		}
	}
}

// header reads [a.b] or [[a.b]] and makes it the current table.
func (s *scanner) header(array bool) {
	start := s.i
	if array {
		s.i += 2
	} else {
		s.i++
	}
	segs, offs := s.key()
	s.skipSpace()
	if array {
		if s.peek(0) == ']' && s.peek(1) == ']' {
			s.i += 2
		}
	} else if s.peek(0) == ']' {
		s.i++
	}
	if len(segs) == 0 {
		return
	}
	var path tomlPath
	for k, seg := range segs {
		path = path.child(seg)
		last := k == len(segs)-1
		if !last {
			s.record(path, offs[k], offs[k])
			// [a.b] after [[a]] means b inside the latest element of a.
			if n := s.arrays[path.key()]; n > 0 {
				path = path.child(indexSeg(n - 1))
			}
			continue
		}
		s.record(path, start, start)
		if array {
			n := s.arrays[path.key()]
			s.arrays[path.key()] = n + 1
			path = path.child(indexSeg(n))
			s.record(path, start, start)
		}
	}
	s.table = path
}

// keyValue reads key = value inside table.
func (s *scanner) keyValue(table tomlPath) {
	segs, offs := s.key()
	if len(segs) == 0 {
		return
	}
	s.skipSpace()
	if s.peek(0) != '=' {
		return
	}
	s.i++
	s.skipSpace()
	path := table
	for k, seg := range segs {
		path = path.child(seg)
		if k < len(segs)-1 {
			s.record(path, offs[k], offs[k])
		}
	}
	loc := s.record(path, offs[len(offs)-1], s.i)
	s.value(path, loc)
}

// value skips one value, recording the elements of arrays and the keys of
// inline tables.
func (s *scanner) value(path tomlPath, loc *location) {
	switch c := s.peek(0); {
	case c == '"' || c == '\'':
		s.str()
	case c == '[':
		s.i++
		for n := 0; ; n++ {
			s.skipTrivia()
			if s.eof() {
				return
			}
			if s.peek(0) == ']' {
				s.i++
				return
			}
			start := s.i
			if loc != nil {
				loc.elems = append(loc.elems, start)
			}
			elem := path.child(indexSeg(n))
			s.value(elem, s.record(elem, start, start))
			s.skipTrivia()
			if s.peek(0) == ',' {
				s.i++
			} else if s.i == start {
				s.skipLine() // not an element: give up on this array
				return
			}
		}
	case c == '{':
		s.i++
		for {
			s.skipTrivia()
			if s.eof() {
				return
			}
			if s.peek(0) == '}' {
				s.i++
				return
			}
			start := s.i
			s.keyValue(path)
			s.skipTrivia()
			if s.peek(0) == ',' {
				s.i++
			} else if s.i == start {
				s.skipLine()
				return
			}
		}
	default: // number, boolean or date-time: runs up to a delimiter
		for !s.eof() && !strings.ContainsRune(",]}#\n", rune(s.peek(0))) {
			s.i++
		}
	}
}

// key reads a possibly dotted key and returns its parts (unquoted) and the
// offset of each part.
func (s *scanner) key() (segs []string, offs []int) {
	for {
		s.skipSpace()
		start := s.i
		var seg string
		switch s.peek(0) {
		case '"', '\'':
			seg = unquote(s.str())
		default:
			for !s.eof() && isBareKeyByte(s.peek(0)) {
				s.i++
			}
			seg = s.src[start:s.i]
		}
		if s.i == start {
			return segs, offs
		}
		segs = append(segs, seg)
		offs = append(offs, start)
		s.skipSpace()
		if s.peek(0) != '.' {
			return segs, offs
		}
		s.i++
	}
}

func isBareKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// str skips a string of any of the four TOML kinds and returns its source
// text, quotes included.
func (s *scanner) str() string {
	start := s.i
	q := s.peek(0)
	multi := s.peek(1) == q && s.peek(2) == q
	if multi {
		s.i += 3
	} else {
		s.i++
	}
	for !s.eof() {
		c := s.peek(0)
		switch {
		case c == '\\' && q == '"':
			s.i += 2
			continue
		case c == '\n' && !multi:
			return s.src[start:s.i] // unterminated: cannot happen in valid TOML
		case c == q && !multi:
			s.i++
			return s.src[start:s.i]
		case c == q && s.peek(1) == q && s.peek(2) == q:
			// A multi-line string may end with up to two quotes of its
			// own before the closing three.
			n := 3
			for n < 5 && s.peek(n) == q {
				n++
			}
			s.i += n
			return s.src[start:min(s.i, len(s.src))]
		}
		s.i++
	}
	s.i = len(s.src)
	return s.src[start:]
}

func (s *scanner) skipSpace() {
	for !s.eof() && (s.peek(0) == ' ' || s.peek(0) == '\t' || s.peek(0) == '\r') {
		s.i++
	}
}

// skipTrivia skips white space, newlines and comments.
func (s *scanner) skipTrivia() {
	for !s.eof() {
		switch s.peek(0) {
		case ' ', '\t', '\r', '\n':
			s.i++
		case '#':
			s.skipLine()
		default:
			return
		}
	}
}

func (s *scanner) skipLine() {
	for !s.eof() && s.peek(0) != '\n' {
		s.i++
	}
	if !s.eof() {
		s.i++
	}
}

// unquote returns the value of a quoted key. Only single-line strings can
// be keys.
func unquote(q string) string {
	if len(q) < 2 {
		return q
	}
	if q[0] == '\'' {
		return q[1 : len(q)-1]
	}
	body := q[1 : len(q)-1]
	if !strings.Contains(body, `\`) {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 >= len(body) {
			b.WriteByte(body[i])
			continue
		}
		i++
		switch body[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte('\x1b')
		case 'x', 'u', 'U':
			n := 2
			switch body[i] {
			case 'u':
				n = 4
			case 'U':
				n = 8
			}
			if i+n < len(body) {
				if v, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += n
					continue
				}
			}
			b.WriteByte(body[i])
		default: // \" and \\ and anything the decoder accepts that we do not know
			b.WriteByte(body[i])
		}
	}
	return b.String()
}
