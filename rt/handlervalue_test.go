package rt

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
)

// structErr is an error held by value, with its cause in an exported
// field.
type structErr struct {
	Op  string
	Err error
}

func (e structErr) Error() string { return e.Op + ": " + e.Err.Error() }

// hiddenErr keeps its cause in an unexported field, which is left alone.
type hiddenErr struct{ err error }

func (e *hiddenErr) Error() string { return "hidden" }

func TestHandlerValueFilled(t *testing.T) {
	h := &Handler{ID: "example.com/m.F#handler:f.go:3:2", Pos: "example.com/m/f.go:3:2"}
	shared := &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}
	for _, tt := range []struct {
		name   string
		target error
		// cause reads the field that must hold an injected error after
		// the fault is made; nil when none must be set.
		cause func(error) error
		same  bool // the fault is target itself
	}{
		{"pointer to a struct", new(fs.PathError), func(e error) error { return e.(*fs.PathError).Err }, true},
		{"strconv.NumError", new(strconv.NumError), func(e error) error { return e.(*strconv.NumError).Err }, true},
		{"os.SyscallError", new(os.SyscallError), func(e error) error { return e.(*os.SyscallError).Err }, true},
		{"struct value, copied", structErr{}, func(e error) error { return e.(structErr).Err }, false},
		{"a set field is kept", shared, nil, true},
		{"unexported field", new(hiddenErr), nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := HandlerValue(h, tt.target)
			if tt.same && got != tt.target {
				t.Errorf("HandlerValue returned %#v, want the target itself", got)
			}
			msg := got.Error() // must not panic
			if tt.cause == nil {
				if tt.target == shared && shared.Err != fs.ErrNotExist {
					t.Errorf("a value's set error field changed to %v", shared.Err)
				}
				return
			}
			var f *InjectedFault
			if !errors.As(tt.cause(got), &f) || f.Site != h.ID {
				t.Errorf("the error field holds %v, want the handler's injected error", tt.cause(got))
			}
			if !strings.Contains(msg, "atomicx: injected error at "+h.ID) {
				t.Errorf("Error() = %q, want it to name the injected error", msg)
			}
		})
	}
	t.Run("errors.As arm", func(t *testing.T) {
		err := HandlerAs(h, new(fs.PathError))
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			t.Fatalf("errors.As(%v, *fs.PathError) is false", err)
		}
		if pe.Err == nil {
			t.Errorf("the constructed PathError's Err is nil")
		}
		_ = err.Error() // the fault's message reads the wrapped value's: must not panic
	})
}
