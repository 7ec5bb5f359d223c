package instrument

import (
	"errors"
	"go/token"
	"testing"
)

// An overlap in this package's tests is a bug in a rewrite: panic.
func init() { panicOnOverlap = true }

func TestEditListApply(t *testing.T) {
	const src = "func f() { return x }"
	type op struct {
		start, end int
		text       string
		rank       int // insertOutside's
	}
	tests := []struct {
		name    string
		ops     []op
		want    string
		overlap bool
	}{
		{name: "none", want: src},
		{name: "insert", ops: []op{{10, 10, " P;", 0}}, want: "func f() { P; return x }"},
		{name: "inserts at one offset keep their order", ops: []op{{10, 10, "A", 0}, {10, 10, "B", 0}}, want: "func f() {AB return x }"},
		{name: "replace", ops: []op{{11, 19, "R", 0}}, want: "func f() { R }"},
		{name: "insert at the start of a replacement, made before", ops: []op{{11, 11, "I", 0}, {11, 19, "R", 0}}, want: "func f() { IR }"},
		{name: "insert at the start of a replacement, made after", ops: []op{{11, 19, "R", 0}, {11, 11, "I", 0}}, want: "func f() { IR }"},
		{name: "insert at the end of a replacement", ops: []op{{11, 19, "R", 0}, {19, 19, "I", 0}}, want: "func f() { RI }"},
		{name: "adjacent replacements", ops: []op{{11, 17, "A", 0}, {17, 19, "B", 0}}, want: "func f() { AB }"},
		{name: "insert inside a replacement", ops: []op{{11, 19, "R", 0}, {15, 15, "I", 0}}, overlap: true},
		{name: "replacements that cross", ops: []op{{11, 17, "A", 0}, {16, 19, "B", 0}}, overlap: true},
		{name: "replacement inside another", ops: []op{{5, 21, "A", 0}, {11, 17, "B", 0}, {18, 19, "C", 0}}, overlap: true},
		{name: "two replacements of one range", ops: []op{{11, 19, "A", 0}, {11, 19, "B", 0}}, overlap: true},
		{name: "an insertion outside the others goes before them, made after", ops: []op{{11, 11, "A", 0}, {11, 11, "<", -1}}, want: "func f() { <Areturn x }"},
		{name: "an insertion outside the others goes after them, made before", ops: []op{{19, 19, ">", 1}, {19, 19, "B", 0}}, want: "func f() { return xB> }"},
		{name: "brackets around a rewrite of a statement", ops: []op{{11, 11, "(", -1}, {19, 19, ")", 1}, {11, 11, "[", 0}, {19, 19, "]", 0}}, want: "func f() { ([return x]) }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l editList
			for _, o := range tt.ops {
				switch {
				case o.rank != 0:
					l.insertOutside(o.start, o.text, o.rank)
				case o.start == o.end:
					l.insert(o.start, o.text)
				default:
					l.replace(o.start, o.end, o.text)
				}
			}
			got, err := withoutOverlapPanic(func() ([]byte, error) { return l.apply([]byte(src)) })
			var oe *overlapError
			switch {
			case tt.overlap && !errors.As(err, &oe):
				t.Fatalf("apply = %q, %v; want an overlap error", got, err)
			case !tt.overlap && err != nil:
				t.Fatalf("apply: %v", err)
			case !tt.overlap && string(got) != tt.want:
				t.Errorf("apply = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEditListOverlapPanicsInTests checks that an overlap panics where
// panicOnOverlap is set, as it is in this package's tests.
func TestEditListOverlapPanicsInTests(t *testing.T) {
	var l editList
	l.replace(0, 4, "A")
	l.replace(2, 6, "B")
	defer func() {
		if _, ok := recover().(*overlapError); !ok {
			t.Errorf("apply with overlapping edits did not panic with an *overlapError")
		}
	}()
	l.apply([]byte("abcdefgh"))
}

// TestEditListCheckSince checks the test file() makes after each
// function's rewrite: only the edits made since, which lie inside the
// function, are compared.
func TestEditListCheckSince(t *testing.T) {
	var l editList
	l.replace(20, 30, "A") // an earlier function's
	before := len(l.edits)
	l.insert(40, "P")
	l.replace(42, 50, "R")
	if _, err := withoutOverlapPanic(func() ([]byte, error) { return nil, l.checkSince(before) }); err != nil {
		t.Fatalf("checkSince of disjoint edits: %v", err)
	}
	l.replace(45, 48, "S")
	_, err := withoutOverlapPanic(func() ([]byte, error) { return nil, l.checkSince(before) })
	fe := &FuncError{Func: "(*T).M", Pos: token.Position{Filename: "/src/p/p.go", Line: 3, Column: 6}, Err: err}
	var oe *overlapError
	if !errors.As(fe, &oe) {
		t.Fatalf("checkSince of overlapping edits = %v, want an *overlapError inside the FuncError", err)
	}
	if got, want := fe.Error(), `/src/p/p.go:3:6: (*T).M: overlapping rewrites of the source: bytes 42-50 replaced by "R", and bytes 45-48 by "S"`; got != want {
		t.Errorf("FuncError = %q, want %q", got, want)
	}
}

// withoutOverlapPanic runs f with overlaps reported as errors, as in a
// build.
func withoutOverlapPanic(f func() ([]byte, error)) ([]byte, error) {
	defer func(old bool) { panicOnOverlap = old }(panicOnOverlap)
	panicOnOverlap = false
	return f()
}
