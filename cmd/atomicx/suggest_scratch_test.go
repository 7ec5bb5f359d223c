package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scratchJournal: three of Decoder's four caller-visible non-atomic
// methods first differ at d.buf (readByte, which only consumes input,
// does not count); Encoder's buf is the first difference of one method of
// two; Table's tmp of one method only. Log's lastIndex is the first
// difference of both its methods, but one of them wrote to a file first.
const scratchJournal = `{"v":3,"kind":"profile","pkg":"example.com/codec","test":"TestDecode","status":"pass","ms":1,"events":[` +
	`{"event":"verdict","func":"example.com/codec.(*Decoder).Decode","pos":"example.com/codec/dec.go:10:20","verdict":"non-atomic","failure":"error","path":"d.buf","before":"nil","after":"len=5","chain":1,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Decoder).decodeMap","pos":"example.com/codec/dec.go:20:20","verdict":"non-atomic","failure":"error","path":"d.buf[0]","before":"0","after":"7","chain":2,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Decoder[...]).header","pos":"example.com/codec/dec.go:30:20","verdict":"non-atomic","failure":"error","path":"d.buf","before":"nil","after":"len=1","chain":3,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Decoder).readByte","pos":"example.com/codec/dec.go:40:20","verdict":"non-atomic","failure":"error","path":"d.buf","before":"nil","after":"len=1","changes":"stream","chain":4,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Decoder).Reset","pos":"example.com/codec/dec.go:45:20","verdict":"non-atomic","failure":"error","path":"*d.out","before":"nil","after":"len=1","chain":9,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Encoder).Encode","pos":"example.com/codec/enc.go:10:20","verdict":"non-atomic","failure":"error","path":"e.buf","before":"nil","after":"len=1","chain":5,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Encoder).Flush","pos":"example.com/codec/enc.go:20:20","verdict":"non-atomic","failure":"error","path":"*e.out","before":"nil","after":"len=1","chain":6,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.Table.Put","pos":"example.com/codec/table.go:5:17","verdict":"non-atomic","failure":"error","path":"t.tmp","before":"nil","after":"len=1","chain":7,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Log).Write","pos":"example.com/codec/log.go:10:16","verdict":"non-atomic","failure":"error","path":"l.lastIndex","before":"1","after":"2","wrote":"(*os.File).Write","wrote_to":"log.seg","wrote_at":"example.com/codec/log.go:12:3","chain":10,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.(*Log).Truncate","pos":"example.com/codec/log.go:20:16","verdict":"non-atomic","failure":"error","path":"l.lastIndex","before":"2","after":"1","chain":11,"first":true},` +
	`{"event":"verdict","func":"example.com/codec.Decode.func1","pos":"example.com/codec/dec.go:50:9","verdict":"non-atomic","failure":"error","path":"d.buf","before":"nil","after":"len=1","chain":8,"first":true}]}
`

func TestPolicySuggestScratch(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(scratchJournal), 0o666); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runSuggest(t, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	parseSuggestion(t, out)
	for _, want := range []string{
		"# (*Decoder).buf: the first difference of 3 of the 4 caller-visible non-atomic methods of its type.\n",
		"# the detect rule of example.com/codec, and its changes are reported after the others:\n#   scratch = [\"(*Decoder).buf\"]\n",
		"d.buf: nil → len=1 (natural error in TestDecode; 1 of 1 failed calls, only stream)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("suggestion lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"(*Encoder).buf\"", "Table.tmp\"", "(*Log).lastIndex\""} {
		if strings.Contains(out, not) {
			t.Errorf("suggestion proposes %s:\n%s", not, out)
		}
	}
}

func TestReceiverTypeAndFirstField(t *testing.T) {
	for _, tt := range []struct {
		rel, typ string
		ptr, ok  bool
	}{
		{"(*Decoder).Decode", "Decoder", true, true},
		{"(*List[...]).Push", "List", true, true},
		{"Table.Put", "Table", false, true},
		{"Decode", "", false, false},
		{"Decode.func1", "", false, false}, // a closure, not a method
		{"T.func", "T", false, true},
		{"(*Decoder).Decode.func1", "", false, false},
	} {
		typ, ptr, ok := receiverType(tt.rel)
		if typ != tt.typ || ptr != tt.ptr || ok != tt.ok {
			t.Errorf("receiverType(%q) = %q, %t, %t; want %q, %t, %t", tt.rel, typ, ptr, ok, tt.typ, tt.ptr, tt.ok)
		}
	}
	for _, tt := range []struct{ path, root, field string }{
		{"d.buf", "d", "buf"},
		{"d.buf[3].x", "d", "buf"},
		{"d.r.(*bytes.Reader).i", "d", "r"},
		{"*v", "", ""},
		{"(*d.p).x", "", ""},
		{"m[\"k\"]", "", ""},
	} {
		root, field, ok := firstField(tt.path)
		if root != tt.root || field != tt.field || ok != (tt.root != "") {
			t.Errorf("firstField(%q) = %q, %q, %t", tt.path, root, field, ok)
		}
	}
}
