package leaks

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"time"
)

var errBad = errors.New("bad")

func check(io.Reader) error { return nil } // want check:`borrows param 0`

// The classic: never reported.
func classic(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return check(f)
}

// The same with the test the other way round.
func classicEq(p string) error {
	f, err := os.Open(p)
	if err == nil {
		defer f.Close()
		return nil
	}
	return err
}

// A later failure returns without closing.
func laterFailure(p string) error {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 50; branches at lines 45 \(false\), 49 \(true\)`
	if err != nil {
		return err
	}
	n, err := f.Seek(0, 0)
	if n > 10 {
		return errBad
	}
	f.Close()
	return err
}

// Closed on every path by hand.
func closedByHand(p string) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := f.Write(nil); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// The error is not even looked at: the success edge is every edge.
func unchecked(p string) int {
	f, _ := os.Open(p) // want `file from os.Open is not released`
	if f == nil {
		return 0
	}
	return 1
}

// A nil check on the resource: the nil path is filtered.
func nilChecked(p string) {
	f, _ := os.Open(p)
	if f != nil {
		f.Close()
	}
}

// os.Exit and log.Fatal end the process: not reported.
func exits(p string) {
	f, err := os.Open(p)
	if err != nil {
		log.Fatal(err)
	}
	if p == "" {
		os.Exit(2)
	}
	f.Close()
}

// A panic path is not reported.
func panics(p string) {
	f, err := os.Open(p)
	if err != nil {
		panic(err)
	}
	if p == "" {
		panic("empty")
	}
	f.Close()
}

// Defers run at returns: one deferred release covers every later return.
func deferred(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if addr == "" {
		return errBad
	}
	_, err = c.Write(nil)
	return err
}

// A deferred closure that captures the resource releases it.
func deferredClosure(p string) (err error) {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return check(f)
}

// A defer in a loop is a finding of its own.
func deferInLoop(paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close() // want `deferred release of the file from os.Open in a loop runs only when the function returns`
	}
	return nil
}

// HTTP: the body is the thing to close.
func body(url string) ([]byte, error) {
	resp, err := http.Get(url) // want `HTTP response body from http.Get is not released \(Body.Close\)`
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, errBad
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func bodyClosed(c *http.Client, req *http.Request) error { // want bodyClosed:`borrows param 0, keeps param 1`
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return nil
}

// database/sql: a transaction ends in Commit or Rollback.
func tx(db *sql.DB) error { // want tx:`borrows param 0`
	t, err := db.Begin() // want `sql transaction from \(\*sql.DB\).Begin is not released \(Commit or Rollback\)`
	if err != nil {
		return err
	}
	if _, err := t.Exec("x"); err != nil {
		return err
	}
	return t.Commit()
}

func txRolledBack(db *sql.DB) error { // want txRolledBack:`borrows param 0`
	t, err := db.Begin()
	if err != nil {
		return err
	}
	defer t.Rollback()
	if _, err := t.Exec("x"); err != nil {
		return err
	}
	return t.Commit()
}

func rows(db *sql.DB) error { // want rows:`borrows param 0`
	r, err := db.Query("q") // want `sql rows from \(\*sql.DB\).Query is not released`
	if err != nil {
		return err
	}
	for r.Next() {
	}
	return r.Err()
}

// Context cancel functions are released by calling them.
func cancel(ctx context.Context) error {
	ctx, stop := context.WithTimeout(ctx, time.Second) // want `context cancel function from context.WithTimeout is not released \(\(\)\)`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	stop()
	return nil
}

func cancelDeferred(ctx context.Context) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	return ctx.Err()
}

type store struct {
	mu    sync.Mutex
	rw    sync.RWMutex
	items map[string]int
}

// A lock taken on an error path.
func (s *store) put(k string) error {
	s.mu.Lock() // want `lock from \(\*sync.Mutex\).Lock is not released \(Unlock\)`
	if k == "" {
		return errBad
	}
	s.items[k]++
	s.mu.Unlock()
	return nil
}

func (s *store) get(k string) (int, error) {
	s.rw.RLock()
	defer s.rw.RUnlock()
	if k == "" {
		return 0, errBad
	}
	return s.items[k], nil
}

func ticker(n int) error {
	t := time.NewTicker(time.Second) // want `ticker from time.NewTicker is not released \(Stop\)`
	if n < 0 {
		return errBad
	}
	t.Stop()
	return nil
}

func command(c *exec.Cmd) error {
	if err := c.Start(); err != nil { // want `process from \(\*exec.Cmd\).Start is not released \(Wait\)`
		return err
	}
	if c.Process == nil {
		return errBad
	}
	return c.Wait()
}

func notify(c chan os.Signal) {
	signal.Notify(c, os.Interrupt)
	defer signal.Stop(c)
	<-c
}

// Ownership escapes: stored, sent, captured, passed on.
type holder struct{ f *os.File }

func stored(h *holder, p string) error { // want stored:`borrows param 0`
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	h.f = f
	return errBad
}

func sent(ch chan io.Closer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	ch <- f
	return errBad
}

func captured(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	go func() { f.Close() }()
	return errBad
}

func passed(p string, keep func(*os.File)) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	keep(f)
	return errBad
}

// Returned to the caller: not reported here (see the fact).
func openChecked(p string) (*os.File, error) { // want openChecked:`returns an open file \(result 0; release: Close\)`
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 319; branches at lines 315 \(false\), 318 \(true\)`
	if err != nil {
		return nil, err
	}
	if _, err := f.Stat(); err != nil {
		return nil, err
	}
	return f, nil
}

// Callers in the package inherit the obligation.
func useOpenChecked(p string) error {
	f, err := openChecked(p) // want `file from leaks.openChecked is not released`
	if err != nil {
		return err
	}
	_, err = f.Stat()
	return err
}

// Suppressed on the line.
func suppressed(p string) error {
	f, err := os.Open(p) //nolint:errleak // closed by the finalizer
	if err != nil {
		return err
	}
	_, err = f.Stat()
	return err
}

func ignored(p string) error {
	f, err := os.Open(p) //atomicx:ignore
	if err != nil {
		return err
	}
	_, err = f.Stat()
	return err
}

type node struct {
	sync.Mutex
	kids []*node
}

func find(string) *node { return nil }

// The receiver of Lock and Unlock is one value reached through a phi.
func lockPhi(n *node, name string) {
	parent := find(name)
	if parent == nil {
		parent = n
	}
	parent.Lock()
	parent.kids = append(parent.kids, n)
	parent.Unlock()
}

// A deferred release covers what is acquired after it: the read lock
// taken again in the loop is released by the deferred RUnlock.
func (s *store) relock(keys []string) error {
	s.rw.RLock()
	defer s.rw.RUnlock()
	for _, k := range keys {
		if k == "" {
			return errBad
		}
		s.rw.RUnlock()
		s.rw.Lock()
		delete(s.items, k)
		s.rw.Unlock()
		s.rw.RLock()
	}
	return nil
}

// Upgrading to the write lock and failing returns with it held.
func (s *store) upgrade(k string) error {
	s.rw.RLock()
	defer s.rw.RUnlock()
	if _, ok := s.items[k]; ok {
		s.rw.RUnlock()
		s.rw.Lock() // want `lock from \(\*sync.RWMutex\).Lock is not released \(Unlock\) on the path to the return at line 397; branches at lines 396 \(true\)`
		if k == "x" {
			return errBad
		}
		s.rw.Unlock()
		s.rw.RLock()
	}
	return nil
}

type info struct{ *node }

// Locked through a field of a captured struct value: the same location.
func lockCaptured(n *node) {
	i := info{n}
	go func() {
		i.Lock()
		i.kids = nil
		i.Unlock()
	}()
}

// The path lists the branches taken after the acquire only.
func branchBefore(p string, skip bool) error {
	if skip {
		return nil
	}
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 427; branches at lines 423 \(false\), 426 \(true\)$`
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

type guarded struct {
	locking bool
	mu      sync.RWMutex
	items   map[string]int
}

// Two tests of one field go the same way: no path locks without
// unlocking.
func (g *guarded) get(k string) (int, error) {
	if g.locking {
		g.mu.RLock()
	}
	v, ok := g.items[k]
	if g.locking {
		g.mu.RUnlock()
	}
	if !ok {
		return 0, errBad
	}
	return v, nil
}

// Unless the field is written in between.
func (g *guarded) flip(k string) error {
	if g.locking {
		g.mu.Lock() // want `lock from \(\*sync.RWMutex\).Lock is not released \(Unlock\)`
	}
	g.locking = k != ""
	if g.locking {
		g.mu.Unlock()
	}
	return nil
}

// The caller holds the lock; the function lets go of it for a while.
func (s *store) slow(k string) error {
	s.mu.Unlock()
	time.Sleep(time.Millisecond)
	s.mu.Lock()
	if k == "" {
		return errBad
	}
	return nil
}

// Borrowed: a function that reads it and keeps nothing is no escape.
func readThenFail(p string) ([]byte, error) {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return`
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	f.Close()
	return data, nil
}

func copyClosed(w io.Writer, p string) error { // want copyClosed:`borrows param 0`
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// Released by a deferred call, then returned: returned closed, so callers
// owe nothing and the function has no fact.
func openDeferClosed(p string) (*os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f, nil
}

func useDeferClosed(p string) error {
	f, err := openDeferClosed(p)
	if err != nil {
		return err
	}
	_ = f.Name()
	return errBad
}
