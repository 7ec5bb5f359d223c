package m

import (
	"bytes"
	"errors"
	"io/fs"
	"reflect"
	"sync"
	"testing"
)

var errBad = errors.New("bad")

type Table struct {
	last string
	hist []int
}

// Reads calls functions of the standard library that only read what
// their arguments reach, and errors.As into a variable of its own: the
// undo log records its one store.
func (t *Table) Reads(v reflect.Value, b []byte, err error) error {
	var pe *fs.PathError
	if v.Kind() == reflect.Map && bytes.Equal(b, []byte("x")) && errors.As(err, &pe) {
		t.last = pe.Path
	}
	return errBad
}

var pool sync.Pool

// Give hands a buffer of its object to a sync.Pool: a rollback would give
// it back to the object while the pool hands it to another. The undo log
// does not take Put for harmless.
func (t *Table) Give() error {
	pool.Put(t.hist)
	t.hist = nil
	return errBad
}

// Expect is a test helper outside a _test.go file: what it does to t is
// the test's bookkeeping, which no rollback restores.
func (t *Table) Expect(tb testing.TB, want string) {
	tb.Helper()
	if t.last != want {
		t.last = want
		tb.Fatalf("last = %q, want %q", t.last, want)
	}
}

// Less's literal writes nothing: masked, it costs nothing.
func Less[T int | string]() func(a, b T) bool {
	return func(a, b T) bool { return a < b }
}

// byName's literal hands its arguments to methods the build does not
// see: what they reach is recorded before its return statement.
var byName = func(a, b interface{ Name() string }) bool {
	return a.Name() < b.Name()
}
