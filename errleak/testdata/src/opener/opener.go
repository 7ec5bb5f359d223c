package opener

import (
	"io"
	"os"
)

// Open returns an open file, or an error.
func Open(p string) (*os.File, error) { // want Open:`returns an open file \(result 0; release: Close\)`
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Discard closes f: a call of it releases the file it is given.
func Discard(f *os.File) { // want Discard:`releases Close of param 0`
	f.Close()
}

// Header reads from r and keeps nothing: a caller's file stays the
// caller's to close.
func Header(r io.Reader) error { // want Header:`borrows param 0`
	var b [4]byte
	_, err := io.ReadFull(r, b[:])
	return err
}

// A Log keeps the file it is given.
type Log struct{ f *os.File }

func NewLog(f *os.File) *Log { return &Log{f: f} }

// A Segment keeps its file open while it is in use.
type Segment struct {
	File *os.File
	Size int64
}

// Load leaves the file in s when Stat fails: its caller owes the close.
func (s *Segment) Load(p string) error { // want Load:`leaves an open file in field File on an error return \(release: Close\)`
	var err error
	if s.File, err = os.Open(p); err != nil {
		return err
	}
	fi, err := s.File.Stat()
	if err != nil {
		return err
	}
	s.Size = fi.Size()
	return nil
}

// Close releases the segment's file.
func (s *Segment) Close() error { return s.File.Close() } // want Close:`releases Close of param 0.0.\*`
