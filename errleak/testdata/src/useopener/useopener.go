package useopener

import (
	"errors"
	"os"

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

// A function of another package that only reads the file borrows it.
func borrowedAcross(p string) error {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 50`
	if err != nil {
		return err
	}
	if err := opener.Header(f); err != nil {
		return err
	}
	return f.Close()
}

// One that keeps it takes it over.
func keptAcross(p string) (*opener.Log, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return opener.NewLog(f), nil
}

// The file left in the segment crosses packages through the fact.
func openSegment(p string) (*opener.Segment, error) {
	s := &opener.Segment{}
	if err := s.Load(p); err != nil { // want `file left in field File by \(\*opener.Segment\).Load on its error is not released \(Close\) on the path to the return at line \d+`
		return nil, err
	}
	return s, nil
}

// The caller closes the segment: its Close is the file's release.
func openSegmentClosed(p string) (*opener.Segment, error) {
	s := &opener.Segment{}
	if err := s.Load(p); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}
