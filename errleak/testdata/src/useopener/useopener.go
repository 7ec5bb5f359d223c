package useopener

import (
	"errors"

	"opener"
)

// The obligation crosses packages through the fact.
func leak(p string, ok bool) error {
	f, err := opener.Open(p) // want `file from opener.Open is not released \(Close\)`
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("not ok")
	}
	return f.Close()
}

func closed(p string) error {
	f, err := opener.Open(p)
	if err != nil {
		return err
	}
	return f.Close()
}

// The release crosses packages through the fact too.
func discarded(p string, ok bool) error {
	f, err := opener.Open(p)
	if err != nil {
		return err
	}
	if !ok {
		opener.Discard(f)
		return errors.New("not ok")
	}
	return f.Close()
}
