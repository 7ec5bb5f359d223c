package m

import (
	"errors"
	"os"
)

type Log struct {
	f         *os.File
	lastIndex int
	buf       []byte
}

var errSync = errors.New("sync")

// WriteUndone appends, advances its index and syncs: each write is
// journaled before it runs, and the prologue starts the undo.
func (l *Log) WriteUndone(data string) error {
	if _, err := l.f.WriteString(data + "\n"); err != nil {
		return err
	}
	l.lastIndex++
	n, err := l.f.WriteAt(l.buf[:2], int64(l.lastIndex))
	_, _ = n, err
	l.f.Truncate(int64(l.lastIndex * 8))
	l.flush()
	return l.f.Sync()
}

// flush is not masked, but its write runs inside WriteUndone's journal.
func (l *Log) flush() {
	for range 2 {
		l.f.Write(l.next())
	}
}

func (l *Log) next() []byte { return l.buf }

// Plain is masked without the undo: its write stops the build (see
// OutsideWrites), and nothing journals its call here.
func (l *Log) Plain(data []byte) error {
	_, err := l.f.Write(data)
	l.lastIndex++
	return err
}

// ReturnedUndone writes in a return statement: not preceded, so its
// write is one the undo does not reach.
func (l *Log) ReturnedUndone(data []byte) (int, error) {
	l.lastIndex++
	return l.f.Write(data)
}
