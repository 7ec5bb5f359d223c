package leaks

import "os"

// A loader keeps the files of a store while it reads them.
type loader struct {
	sfile *os.File
	ifile *os.File
}

func (l *loader) readHeader() error { return nil }

// closeAll releases the loader's files.
func (l *loader) closeAll() { // want closeAll:`releases Close of param 0.0.\*, Close of param 0.1.\*`
	l.sfile.Close()
	l.ifile.Close()
}

type dataStore struct{ l *loader }

// The loader is dropped on the error return: its file leaks.
func openStore(p string) (*dataStore, error) {
	l := &loader{}
	var err error
	l.sfile, err = os.OpenFile(p, os.O_RDWR, 0) // want `file from os.OpenFile is not released \(Close\) on the path to the return at line 30`
	if err != nil {
		return nil, err
	}
	if err := l.readHeader(); err != nil {
		return nil, err
	}
	return &dataStore{l: l}, nil
}

// Closed through the field on the error path.
func openStoreClosed(p string) (*dataStore, error) {
	l := &loader{}
	var err error
	l.sfile, err = os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := l.readHeader(); err != nil {
		l.sfile.Close()
		return nil, err
	}
	return &dataStore{l: l}, nil
}

// Closed by a method of the object that releases its fields.
func openStoreCleanup(p string) (*dataStore, error) {
	l := &loader{}
	var err error
	l.sfile, err = os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := l.readHeader(); err != nil {
		l.closeAll()
		return nil, err
	}
	return &dataStore{l: l}, nil
}

// The object is returned: the file goes with it.
func openLoader(p string) (*loader, error) {
	l := &loader{}
	var err error
	if l.sfile, err = os.Open(p); err != nil {
		return nil, err
	}
	return l, l.readHeader()
}

// The object is stored where the caller sees it: so is the file.
func (s *dataStore) reload(p string) error {
	l := &loader{}
	var err error
	if l.ifile, err = os.Open(p); err != nil {
		return err
	}
	s.l = l
	return l.readHeader()
}
