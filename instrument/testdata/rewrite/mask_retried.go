package m

import (
	"errors"
	"io"
)

var (
	errPadding = errors.New("padding")
	errSkip    = errors.New("skip")
	errBad     = errors.New("bad")
)

type Reader struct {
	r   io.Reader
	pos int
	buf []byte
}

// next consumes padding and says so with errPadding, which its caller
// retries on: errPadding is taken as done.
func (r *Reader) next() error {
	r.pos += 4
	if r.pos%8 == 0 {
		return errPadding
	}
	if r.pos > 100 {
		return errBad
	}
	return nil
}

func (r *Reader) Next() error {
	var err error
	for {
		err = r.next()
		if err != errPadding {
			break
		}
	}
	return err
}

// skip is retried with errors.Is and continue.
func (r *Reader) skip() (int, error) {
	r.pos++
	if r.pos%2 == 0 {
		return 0, errSkip
	}
	return r.pos, nil
}

func (r *Reader) Skip() (int, error) {
	for {
		n, err := r.skip()
		if errors.Is(err, errSkip) {
			continue
		}
		return n, err
	}
}

// Stop breaks out on errBad: no retry, and errBad stays a failure.
func (r *Reader) Stop() error {
	for {
		err := r.next()
		if err == errBad {
			break
		}
	}
	return nil
}
