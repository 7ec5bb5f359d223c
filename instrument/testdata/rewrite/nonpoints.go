package m

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"strings"
)

type T struct {
	buf bytes.Buffer
	n   int
	err error
}

// Render writes only where writing cannot fail: none of its calls is an
// injection point.
func (t *T) Render(name string) error {
	var sb strings.Builder
	if _, err := sb.WriteString(name); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(&t.buf, "%s=%d", name, t.n); err != nil {
		return err
	}
	if _, err := io.WriteString(&sb, name); err != nil {
		return err
	}
	h := sha256.New()
	if _, err := h.Write([]byte(name)); err != nil {
		return err
	}
	var mh maphash.Hash
	if err := mh.WriteByte(1); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(io.Discard, name); err != nil {
		return err
	}
	t.buf.WriteByte('\n')
	return nil
}

// Emit writes where writing may fail: both calls are injection points.
func (t *T) Emit(w io.Writer, f *os.File) error {
	if _, err := fmt.Fprintf(w, "%d", t.n); err != nil {
		return err
	}
	_, err := f.WriteString("x")
	return err
}

// SyntaxError is the package's error type.
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// newSyntaxError builds its error: a constructor.
func newSyntaxError(line int, msg string) error {
	return &SyntaxError{Line: line, Err: errors.New(strings.TrimSpace(msg))}
}

// errorf builds its error from a constructor of the package.
func (t *T) errorf(format string, args ...any) error {
	return newSyntaxError(t.n, fmt.Sprintf(format, args...))
}

// wrap has nothing to build when there is nothing to wrap.
func wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// join gathers errors into one.
func join(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	var kept []error
	for _, e := range errs {
		if e != nil {
			kept = append(kept, e)
		}
	}
	return errors.Join(kept...)
}

// fail records the error before it returns it: it changes its receiver,
// and is no constructor.
func (t *T) fail(msg string) error {
	t.err = errors.New(msg)
	return t.err
}

// check returns nil when the count is right: its error is a failure.
func (t *T) check(err error) error {
	if t.n > 0 {
		return nil
	}
	return wrap(err, "check")
}

// Parse calls the constructors: none of these calls is an injection
// point; the call of os.Getwd is one.
func (t *T) Parse(s string) error {
	if s == "" {
		return t.errorf("empty at %d", 1)
	}
	if _, err := os.Getwd(); err != nil {
		return wrap(err, "getwd")
	}
	err := join([]error{newSyntaxError(1, s)})
	return err
}

// pass hands its error back: it builds nothing, and a nil it is given
// is a success. No constructor.
func pass(err error) error { return err }

// annotate keeps the package's errors as they are and wraps others: a
// constructor.
func annotate(err error) error {
	if _, ok := err.(*SyntaxError); ok {
		return err
	}
	return fmt.Errorf("m: %w", err)
}
