package probe

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
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

type guarded struct {
	sync.Mutex
	rw  sync.RWMutex
	ptr *sync.Mutex
	cmd *exec.Cmd
}

// Hold leaves locks held when check fails: the probes get their
// addresses, through the embedded field for a promoted Lock.
func (g *guarded) Hold(check func() error) error {
	g.rw.RLock() // probed
	g.Lock()     // probed
	g.ptr.Lock() // probed
	if err := check(); err != nil {
		return err
	}
	g.ptr.Unlock()
	g.Unlock()
	g.rw.RUnlock()
	return nil
}

// Idiom's own lock is released by its deferred unlock, and taken before
// the probes are declared: not probed.
func (g *guarded) Idiom(check func() error) error {
	g.rw.Lock() // probed
	defer g.rw.Unlock()
	return check()
}

// Run starts a command: the resource is the receiver, a pointer.
func (g *guarded) Run() error {
	err := g.cmd.Start() // probed
	if err != nil {
		return err
	}
	return errors.New("not waited for")
}

// Fetch's response and Deadline's context are results, as files are.
func Fetch(url string) error {
	resp, err := http.Get(url) // probed
	if err != nil {
		return err
	}
	_ = resp
	ctx, cancel := context.WithCancel(context.Background()) // probed
	_, _ = ctx, cancel
	return errors.New("bad status")
}

// session is a resource of the user's, which says itself whether it is
// closed.
type session struct{ closed bool }

func (s *session) IsClosed() bool { return s.closed }
func (s *session) Done() error    { return nil }

func dial() (*session, error) { return &session{}, nil }

// Dial's session is probed with its IsClosed method; its second session
// with Done, which is no func() bool: the runtime says it cannot tell.
func Dial() error {
	s, err := dial() // probed IsClosed
	if err != nil {
		return err
	}
	t, err := dial() // probed Done
	if err != nil {
		return err
	}
	_, _ = s, t
	return errors.New("refused")
}
