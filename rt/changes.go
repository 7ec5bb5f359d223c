package rt

import (
	"reflect"
	"strings"
	"unsafe"
)

// This file says what kind of state a difference is in (see changes):
// which types are streams, and which fields the policy declares scratch.

// isStreamType reports whether values of type t hold the position of a
// stream: one of the standard library's in-memory readers and writers,
// or an interface with a method of io.Reader, io.ByteReader,
// io.RuneReader or io.Writer, whose dynamic value is the stream itself.
func isStreamType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		switch t.PkgPath() {
		case "bytes":
			return t.Name() == "Buffer" || t.Name() == "Reader"
		case "strings":
			return t.Name() == "Reader" || t.Name() == "Builder"
		case "bufio":
			return t.Name() == "Reader" || t.Name() == "Writer" || t.Name() == "Scanner"
		}
	case reflect.Interface:
		for _, name := range [...]string{"Read", "Write", "ReadByte", "ReadRune"} {
			if m, ok := t.MethodByName(name); ok && isStreamMethod(name, m.Type) {
				return true
			}
		}
	}
	return false
}

var (
	byteSliceType = reflect.TypeFor[[]byte]()
	errorType     = reflect.TypeFor[error]()
)

// isStreamMethod reports whether an interface method of that name has the
// signature io gives it.
func isStreamMethod(name string, ft reflect.Type) bool {
	if ft.NumOut() < 2 || ft.Out(ft.NumOut()-1) != errorType {
		return false
	}
	switch name {
	case "Read", "Write":
		return ft.NumIn() == 1 && ft.In(0) == byteSliceType && ft.NumOut() == 2 && ft.Out(0).Kind() == reflect.Int
	case "ReadByte":
		return ft.NumIn() == 0 && ft.NumOut() == 2 && ft.Out(0).Kind() == reflect.Uint8
	case "ReadRune":
		return ft.NumIn() == 0 && ft.NumOut() == 3 && ft.Out(0).Kind() == reflect.Int32
	}
	return false
}

// scratchSet holds the fields a site's policy declares scratch.
type scratchSet struct {
	// fields maps the name of a struct type (without type arguments) to
	// the names of its scratch fields.
	fields map[string][]string
}

// parseScratch reads a site's Scratch list: "T.f,U.g". It returns nil
// when the list names no field.
func parseScratch(list string) *scratchSet {
	fields := map[string][]string{}
	for _, entry := range strings.Split(list, ",") {
		typ, field, ok := strings.Cut(strings.TrimSpace(entry), ".")
		if ok && typ != "" && field != "" {
			fields[typ] = append(fields[typ], field)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return &scratchSet{fields: fields}
}

// scratch returns the site's scratch fields, parsed at the first call
// that compares a snapshot.
func (s *Site) scratch() *scratchSet {
	if s.Scratch == "" {
		return nil
	}
	if set := (*scratchSet)(s.scratchSet.load()); set != nil {
		return set
	}
	set := parseScratch(s.Scratch)
	if set == nil {
		set = &scratchSet{}
	}
	s.scratchSet.store(unsafe.Pointer(set))
	return set
}

// scratchFields returns, for a struct plan, which of its fields (in the
// order of pl.fields) are scratch, or nil when none is. It is computed
// at each call, as plans are shared by every snapshot and scratch sets
// are per site: only sites with scratch fields pay for it.
func (s *snapshot) scratchFields(pl *typePlan) []bool {
	if s.scratch == nil || len(s.scratch.fields) == 0 || pl.kind != reflect.Struct {
		return nil
	}
	name, _, _ := strings.Cut(pl.typ.Name(), "[")
	names := s.scratch.fields[name]
	if name == "" || len(names) == 0 {
		return nil
	}
	var mask []bool
	for i, f := range pl.fields {
		for _, n := range names {
			if f.name == n {
				if mask == nil {
					mask = make([]bool, len(pl.fields))
				}
				mask[i] = true
			}
		}
	}
	return mask
}
