//go:build unix

package gobuild

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path, waiting for it as long as
// another process holds it. The lock goes with the process if it dies.
func lockFile(path string) (unlock func(), err error) {
	return flockFile(path, syscall.LOCK_EX)
}

// tryLockFile takes an exclusive lock on path if no other process holds
// it; it returns a nil unlock if one does.
func tryLockFile(path string) (unlock func(), err error) {
	unlock, err = flockFile(path, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return nil, nil
	}
	return unlock, err
}

// flockFile opens path and locks it with flock(2) as how says.
func flockFile(path string, how int) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
