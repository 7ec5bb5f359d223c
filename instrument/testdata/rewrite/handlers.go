package handlers

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

var ErrEmpty = errors.New("empty")

type parseError struct{ line int }

func (e *parseError) Error() string { return "parse error at line " + strconv.Itoa(e.line) }

func load(name string) ([]byte, error) { return os.ReadFile(name) }

// Propagate: the region's callee is instrumented (no call site), the arm
// returns the error.
func Propagate(name string) ([]byte, error) {
	data, err := load(name)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// Chain: a call site with an errors.Is, an == and an err != nil arm.
func Chain(name string) int {
	n := 0
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		n = -1
	} else if err == io.EOF {
		println("eof")
	} else if err != nil {
		panic(err)
	}
	_ = f
	return n
}

// InInit: the assignment in the if's header; errors.As with a pointer to
// a struct, then the error translated.
func InInit(s string) (int, error) {
	var pe *parseError
	if n, err := strconv.Atoi(s); errors.As(err, &pe) {
		return 0, ErrEmpty
	} else if err != nil {
		return n, nil
	}
	return 1, nil
}

// Local: the sentinel is a local variable: not injectable.
func Local(name string) error {
	mine := ErrEmpty
	_, err := load(name)
	if err == mine {
		return nil
	}
	return err
}

// Switches: a switch without tag, then a type switch.
func Switches(name string) (int, error) {
	switch _, err := load(name); {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, err
	}
	_, err := os.Open(name)
	switch e := err.(type) {
	case *parseError:
		return e.line, nil
	case *fs.PathError:
		return 0, e
	}
	return 1, nil
}

// Guarded: a deferred recover handler that turns a panic into an error.
func Guarded(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	f()
	return nil
}

// Kinds: a type switch whose cases do not use the typed value: the
// switch can be widened (rt.WidenSwitch).
func Kinds(name string) int {
	_, err := os.Open(name)
	switch err.(type) {
	case nil:
		return 0
	case *parseError:
		return 1
	case *fs.PathError:
		return 2
	}
	return 3
}

// Nested: checks of the same error inside the err != nil arm are arms of
// the same region; the err != nil arm logs their pink usages.
func Nested(name string) (int, error) {
	_, err := os.Open(name)
	if err != nil {
		if err == io.EOF {
			return 0, nil
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return -1, nil
		}
		return 0, err
	}
	return 1, nil
}

// Tagged: a switch on the error; default is an err != nil arm, nil being
// a case of its own.
func Tagged(name string) (int, error) {
	_, err := os.Open(name)
	switch err {
	case nil:
		return 1, nil
	case io.EOF:
		return 0, nil
	default:
		return -1, err
	}
}
