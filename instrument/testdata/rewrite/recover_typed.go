package m

import (
	"errors"
	"io/fs"
)

// ParseError is the value Parse's handler takes.
type ParseError struct{ Line int }

func (p ParseError) Error() string { return "parse error" }

// Parse takes the panics of type ParseError and panics again with the
// others: armed, its handler gets a ParseError.
func Parse(s string) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			if pe, ok := r.(ParseError); ok {
				err = pe
				return
			}
			panic(r)
		}
	}()
	if s == "" {
		panic(ParseError{Line: 1})
	}
	return len(s), nil
}

// Open switches on the recovered value: the first case with a value to
// make is a pointer to a struct.
func Open(name string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *fs.PathError:
				err = e
			default:
				panic(r)
			}
		}
	}()
	if name == "" {
		return errors.New("no name")
	}
	return nil
}
