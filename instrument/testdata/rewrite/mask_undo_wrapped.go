package m

import (
	"errors"
	"reflect"
	"strings"
)

var errBad = errors.New("bad")

// Unmarshaler is implemented out of the build's sight.
type Unmarshaler interface {
	UnmarshalText(b []byte) error
}

type Decoder struct {
	doc   []byte
	names map[string]int
	buf   []byte
	seen  map[reflect.Type]bool
	msg   strings.Builder
}

// raw and key are no accessors: a record before the statement would
// call them a second time.
func (d *Decoder) raw(from int) []byte {
	from = min(from, len(d.doc))
	return d.doc[from:]
}

func (d *Decoder) key(name string) string {
	name = "k." + name
	return name
}

// Hand calls a method of an interface with an argument that takes a call
// to compute: what the call's operands reach is recorded once that
// argument is computed, within the call.
func (d *Decoder) Hand(u Unmarshaler, from int) error {
	d.names["hand"]++
	return u.UnmarshalText(d.raw(from))
}

// Check calls it in the header of an if.
func (d *Decoder) Check(u Unmarshaler) error {
	if err := u.UnmarshalText(d.doc); err != nil {
		return err
	}
	return nil
}

// Name stores under a key, sets a map entry through reflect under a key,
// and appends a spread, each computed by a call: each is recorded where
// it is computed.
func (d *Decoder) Name(name string, m reflect.Value, v reflect.Value) error {
	d.names[d.key(name)] = len(name)
	m.SetMapIndex(reflect.ValueOf(d.key(name)), v)
	d.buf = append(d.buf, d.raw(1)...)
	return errBad
}

// Grow appends to a slice through reflect in a loop, and deletes from a
// map with a key of an interface type in a deferred call.
func (d *Decoder) Grow(v reflect.Value, t reflect.Type, n int) (reflect.Value, error) {
	d.seen[t] = true
	defer delete(d.seen, t)
	for range n {
		v = reflect.Append(v, reflect.New(t).Elem())
	}
	return v, errBad
}

// Message builds a message in a builder of its own, in a loop: what the
// builder writes the call allocated, and nothing records it.
func (d *Decoder) Message(parts []string) error {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p)
		b.WriteByte(' ')
	}
	d.names[b.String()] = 1
	return errors.New(b.String())
}

// Note writes into a builder of the object's, in a loop: the builder's
// length cannot be rolled back under the strings it returned, and the
// checkpoint stays.
func (d *Decoder) Note(s string) error {
	for range 2 {
		d.msg.WriteString(s)
	}
	return errBad
}

// Into writes into a builder it was handed: the caller's, recorded.
func (d *Decoder) Into(b *strings.Builder, s string) error {
	b.WriteString(s)
	return errBad
}
