package leaks

import "os"

// A wal keeps its segment file open while it is in use.
type wal struct {
	sfile *os.File
	n     int
}

func (l *wal) check() error { return nil }

// load leaves the file in its receiver when check fails after the open:
// no report here, the object is its caller's.
func (l *wal) load(p string) error { // want load:`leaves an open file in field sfile on an error return \(release: Close\)`
	var err error
	l.sfile, err = os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return l.check()
}

// loadClean closes the file before it returns check's error.
func (l *wal) loadClean(p string) error {
	var err error
	l.sfile, err = os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := l.check(); err != nil {
		l.sfile.Close()
		return err
	}
	return nil
}

// The object is dropped on load's error: its file leaks.
func openWAL(p string) (*wal, error) {
	l := &wal{}
	if err := l.load(p); err != nil { // want `file left in field sfile by \(\*leaks.wal\).load on its error is not released \(Close\) on the path to the return at line 42`
		return nil, err
	}
	return l, nil
}

// The caller closes the file on the error.
func openWALClosed(p string) (*wal, error) {
	l := &wal{}
	if err := l.load(p); err != nil {
		if l.sfile != nil {
			l.sfile.Close()
		}
		return nil, err
	}
	return l, nil
}

// The caller keeps the object: it hands it over with the error.
func openWALKept(p string) (*wal, error) {
	l := &wal{}
	err := l.load(p)
	return l, err
}

// The method closed the file before returning its error.
func openWALClean(p string) (*wal, error) {
	l := &wal{}
	if err := l.loadClean(p); err != nil {
		return nil, err
	}
	return l, nil
}

// The receiver is the caller's: so is the file, which reopen leaves in
// it on load's error as load does.
func (l *wal) reopen(p string) error { // want reopen:`leaves an open file in field sfile on an error return \(release: Close\)`
	return l.load(p)
}

// The object is dropped on reopen's error: the file load left leaks.
func reopenWAL(p string) (*wal, error) {
	l := &wal{}
	if err := l.reopen(p); err != nil { // want `file left in field sfile by \(\*leaks.wal\).reopen on its error is not released \(Close\) on the path to the return at line 85`
		return nil, err
	}
	return l, nil
}

// retry closes what load left before it tries again: no fact.
func (l *wal) retry(p string) error {
	if err := l.load(p); err != nil {
		if l.sfile != nil {
			l.sfile.Close()
		}
		return err
	}
	return nil
}
