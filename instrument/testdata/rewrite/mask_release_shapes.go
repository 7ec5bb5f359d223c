package m

import (
	"errors"
	"io"
	"os"
)

var errBad = errors.New("bad")

type Parser struct {
	in   io.Reader
	rc   io.ReadCloser
	data []byte
}

// The functions below keep a resource in a shape the registration
// cannot name or release, or store it where the rollback does not
// reach: nothing is registered, but Closer.

// Blank: the file is dropped at once.
func (p *Parser) Blank(name string) error {
	_, err := os.Open(name)
	if err != nil {
		return err
	}
	return errBad
}

// Reader opens into a field whose type has no Close.
func (p *Parser) Reader(name string) error {
	var err error
	p.in, err = os.Open(name)
	if err != nil {
		return err
	}
	p.data, err = io.ReadAll(p.in)
	return err
}

// Closer opens into a field whose type has Close: released.
func (p *Parser) Closer(name string) error {
	var err error
	p.rc, err = os.Open(name)
	if err != nil {
		return err
	}
	p.data, err = io.ReadAll(p.rc)
	return err
}

type Handle interface{ Close() error }

func acquire[T Handle]() (T, error) {
	var zero T
	return zero, nil
}

type Holder[T Handle] struct{ h T }

// Generic keeps a resource of a type parameter.
func (s *Holder[T]) Generic() error {
	h, err := acquire[T]()
	if err != nil {
		return err
	}
	s.h = h
	return errBad
}

var fallback = &Parser{}

// Moved stores the file into another object than its receiver: not
// released.
func (p *Parser) Moved(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	if p.data == nil {
		p = fallback
	}
	p.in = f
	return errBad
}
