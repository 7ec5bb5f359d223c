package m

import (
	"database/sql"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

var errBad = errors.New("bad")

type Store struct {
	mu    sync.Mutex
	file  *os.File
	files []*os.File
	data  []byte
	resp  *http.Response
	timer *time.Timer
	tx    *sql.Tx
}

// Open keeps the file in the store: a failure after it releases it.
func (s *Store) Open(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	s.file = f
	if s.data, err = io.ReadAll(f); err != nil {
		return err
	}
	if len(s.data) == 0 {
		return errBad
	}
	return nil
}

// Append opens under the lock idiom, in a loop, and appends.
func (s *Store) Append(names []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			return err
		}
		s.files = append(s.files, f)
	}
	return nil
}

// Fetch keeps the response: its body is released.
func (s *Store) Fetch(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	s.resp = resp
	if resp.StatusCode != http.StatusOK {
		return errBad
	}
	return nil
}

// Arm has no error result from its acquire.
func (s *Store) Arm(d time.Duration) error {
	t := time.NewTimer(d)
	s.timer = t
	if d < 0 {
		return errBad
	}
	return nil
}

// Begin keeps the transaction: it is rolled back.
func (s *Store) Begin(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	s.tx = tx
	if s.data == nil {
		return errBad
	}
	return nil
}

// The functions below hand the resource on, or release it themselves:
// nothing is registered.

func (s *Store) Deferred(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	s.data, err = io.ReadAll(f)
	return err
}

func (s *Store) Returned(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	s.data = nil
	return f, nil
}

func (s *Store) Passed(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	s.file = f
	return s.parse(f)
}

func (s *Store) parse(f *os.File) error { return nil }

func (s *Store) Captured(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	s.file = f
	go func() { f.Sync() }()
	return errBad
}

var global *os.File

func (s *Store) Global(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	global = f
	s.data = nil
	return errBad
}

func (s *Store) Named(name string) (f *os.File, err error) {
	f, err = os.Open(name)
	s.file = f
	return
}

func (s *Store) Shadowed(name string) error {
	for _, s := range []*Store{{}} {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		s.file = f
	}
	return errBad
}

func (s *Store) Committed(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	s.tx = tx
	if err := tx.Commit(); err != nil {
		return err
	}
	return errBad
}

// Reopen opens into the store's field: released too.
func (s *Store) Reopen(name string) error {
	var err error
	s.file, err = os.Open(name)
	if err != nil {
		return err
	}
	if _, err := s.file.Stat(); err != nil {
		return err
	}
	return errBad
}

// Swap hands the field's file on: not released.
func (s *Store) Swap(name string) (*os.File, error) {
	var err error
	s.file, err = os.Open(name)
	if err != nil {
		return nil, err
	}
	return s.file, errBad
}
