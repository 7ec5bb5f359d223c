// Package confirm holds leaks whose opening failure the analysis names,
// and one it cannot: each function's comment says which call opens its
// path ("opens:" callee and line) or "not confirmable".
package confirm

import (
	"errors"
	"io"
	"os"
)

// opens: confirm.check, line 18
func readAll(p string) ([]byte, error) {
	f, err := os.Open(p) // want `file from os.Open is not released`
	if err != nil {
		return nil, err
	}
	if err := check(f.Name()); err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func check(string) error { return nil }

// opens: os.(*File).Stat, line 33
func size(p string) (int64, error) {
	f, err := os.Open(p) // want `file from os.Open is not released`
	if err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	f.Close()
	return st.Size(), nil
}

// opens: confirm.check, line 47 (through a named result)
func named(p string) (err error) {
	f, err := os.Open(p) // want `file from os.Open is not released`
	if err != nil {
		return err
	}
	err = check(p)
	if err != nil {
		return
	}
	return f.Close()
}

// not confirmable: no error test on the path
func bare(p string, n int) error {
	f, err := os.Open(p) // want `file from os.Open is not released`
	if err != nil {
		return err
	}
	if n < 0 {
		return errors.New("negative")
	}
	return f.Close()
}

// opens: os.(*File).Stat, line 73 (in a function literal)
func literal() func(string) error {
	return func(p string) error {
		f, err := os.Open(p) // want `file from os.Open is not released`
		if err != nil {
			return err
		}
		if _, err := f.Stat(); err != nil {
			return err
		}
		return f.Close()
	}
}
