package m

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
)

func name() string {
	pc, _, _, _ := runtime.Caller(1)
	return runtime.FuncForPC(pc).Name()
}

// IfChain: a region checked by an if-chain, then a literal, which keeps
// its name F.func1.
func IfChain(p string) (string, error) {
	_, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", err
	} else if err == io.EOF {
		return "", nil
	}
	f := func() string { return name() }
	return f(), nil
}

// LocalType: the arms' faults would name a type declared in the
// function: not injectable, and the literal after keeps its name.
func LocalType(p string) string {
	type localError struct{ error }
	var le *localError
	_, err := os.Open(p)
	if errors.As(err, &le) {
		return "local"
	}
	g := func() string { return name() }
	return g()
}

// LocalCase: a type switch whose case before the widened one names a
// type declared in the function: that one is not widened.
func LocalCase(p string) string {
	type localError struct{ error }
	_, err := os.Open(p)
	switch err.(type) {
	case *localError:
		return "local"
	case *fs.PathError:
		return "path"
	}
	g := func() string { return name() }
	return g()
}

// LocalValue: an arm compares with a value of a type declared in the
// function: not injectable.
func LocalValue(p string) string {
	type localError struct{ error }
	_, err := os.Open(p)
	if err == error(localError{io.EOF}) {
		return "gone"
	}
	g := func() string { return name() }
	return g()
}

type wrapError[T any] struct{ v T }

func (w *wrapError[T]) Error() string { return "wrap" }

// Generic: the errors.As target's type has the type parameter.
func Generic[T any](p string) string {
	var we *wrapError[T]
	_, err := os.Open(p)
	if errors.As(err, &we) {
		return "wrapped"
	}
	h := func() string { return name() }
	return h()
}

// Labeled: a labeled header switch stays as it is.
func Labeled(p string) string {
loop:
	switch _, err := os.Open(p); err {
	case io.EOF:
		break loop
	default:
		return "err"
	}
	k := func() string { return name() }
	return k()
}

// Recovered: a recover handler asserting a type, then literals.
func Recovered() (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			if pe, ok := r.(*fs.PathError); ok {
				err = pe
			}
		}
	}()
	m := func() string { return name() }
	return m(), nil
}
