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
