package probe

import (
	"errors"
	"net"
	"os"
	"strconv"
	"sync"
)

type store struct {
	mu sync.Mutex
	f  *os.File
}

// Load's file is probed when Load returns an error; its second open is
// not asked about.
func Load(p, q string) ([]byte, error) {
	f, err := os.Open(p) // probed
	if err != nil {
		return nil, err
	}
	g, err := os.Open(q)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	_ = f
	return nil, errors.New("short")
}

// Into keeps the file in a field of its receiver.
func (s *store) Into(p string) error {
	var err error
	s.f, err = os.Open(p) // probed
	if err != nil {
		return err
	}
	return errors.New("bad header")
}

// Locked opens with the lock idiom: the probes are declared after Exit's
// deferred call, which comes after the lock.
func (s *store) Locked(p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(p) // probed
	if err != nil {
		return err
	}
	s.f = f
	return nil
}

// Serve's listener has an interface type.
func Serve(addr string) (err error) {
	l, err := net.Listen("tcp", addr) // probed
	if err != nil {
		return err
	}
	_ = l
	return errors.New("no handler")
}

// Parse's result is no resource to tell from nil: not probed.
func Parse(s string) (int, error) {
	n, err := strconv.Atoi(s) // probed
	return n, err
}

// Literal's literal is a function of its own.
func Literal(p string) error {
	open := func() error {
		f, err := os.Open(p) // probed
		if err != nil {
			return err
		}
		_ = f
		return errors.New("empty")
	}
	return open()
}

// NoError cannot return an error: nothing to probe.
func NoError(p string) *os.File {
	f, _ := os.Open(p) // probed
	return f
}
