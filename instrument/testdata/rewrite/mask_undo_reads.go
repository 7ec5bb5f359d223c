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
	last  string
	hist  []int
	names []string
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

// Decorate sets the path of the error it found: the report of the
// failure, which no rollback takes back. The store is not recorded.
func (t *Table) Decorate(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = t.last
	}
	return err
}

// Keys fills memory it allocated, then fails with it: only the store
// into its table is recorded. A rollback that wrote back the others
// would empty what it returns.
func (t *Table) Keys(parts []string) ([]string, map[string]int, error) {
	keys := make([]string, len(parts))
	for i, p := range parts {
		keys[i] = p
	}
	var more []string
	more = append(more, "x")
	copy(more, keys)
	seen := map[string]int{}
	seen["a"] = 1
	delete(seen, "b")
	pair := new([2]int)
	pair[0] = len(more)
	alias := keys
	alias[0] = "y"
	t.hist = append(t.hist, pair[0])
	return keys, seen, errBad
}

// Report is the error Fields fills.
type Report struct {
	Lines []string
	Seen  map[string]bool
}

func (r *Report) Error() string { return "report" }

// batch is no error: stores into its fields are recorded unless fresh.
type batch struct{ hist []int }

// Fields fills the slice and map fields of an error it allocated, then
// fails with it: only its stores into its table and the appends to a
// field given the table's slice are recorded, and those into the fields
// of an object handed to a call, which may give them other memory. A
// rollback that wrote back the others would empty what it returns.
func (t *Table) Fields(parts []string) error {
	r := &Report{Lines: make([]string, 0, len(parts)), Seen: map[string]bool{}}
	b := new(batch)
	b.hist = t.hist
	for _, p := range parts {
		r.Lines = append(r.Lines, p)
		r.Seen[p] = true
		b.hist = append(b.hist, len(p))
	}
	r.Lines = r.Lines[:len(r.Lines)]
	h := &Report{}
	fill(h)
	h.Lines = append(h.Lines, "h")
	t.last = r.Lines[0]
	return r
}

func fill(r *Report) {}

// Paths hands memory it allocated to a function of the package, whose
// clone records what it writes there, then ranges over it, indexes and
// grows it, and returns it beside its error: none of that lets the
// memory outlive a failure, and the undo log stays.
func (t *Table) Paths(n int) ([]string, error) {
	names := make([]string, n)
	t.last = join(names)
	for i := range names {
		names[i] = "p"
	}
	names = append(names, "q")
	return names, errBad
}

// Publish hands memory it allocated to the same function, then keeps it
// in its table, where a rollback of what the clone recorded would change
// it under the table: it keeps its whole checkpoint.
func (t *Table) Publish(n int) error {
	names := make([]string, n)
	t.last = join(names)
	t.names = names
	return errBad
}

func join(names []string) string {
	names[0] = "x"
	return names[0]
}

// Decode sets what a reflect.Value addresses and the entries of the map
// one holds: each setter's variable or entry is recorded, in a loop too.
func (t *Table) Decode(v reflect.Value, m reflect.Value, keys []string) error {
	v.SetInt(3)
	for i, k := range keys {
		m.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(i))
		v.Field(i).Set(reflect.ValueOf(k))
	}
	t.last = "decoded"
	return errBad
}
