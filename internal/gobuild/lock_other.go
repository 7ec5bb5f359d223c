//go:build !unix

package gobuild

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// lockFile takes an exclusive lock on path by creating it, waiting while
// another process holds it. A lock older than ten minutes is taken to be
// left by a process that died.
func lockFile(path string) (unlock func(), err error) {
	path += ".excl"
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > 10*time.Minute {
			os.Remove(path)
			continue
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tryLockFile takes an exclusive lock on path if no other process holds
// it; it returns a nil unlock if one does.
func tryLockFile(path string) (unlock func(), err error) {
	path += ".excl"
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	return func() { os.Remove(path) }, nil
}
