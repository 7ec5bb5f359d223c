package leaks

import (
	"net/http"
	"os"
	"os/exec"
	"sync"
)

// A helper that releases what it is given, on every path: passing the
// file to it releases the file.
func closeQuietly(f *os.File) { // want closeQuietly:`releases Close of param 0`
	if f != nil {
		f.Close()
	}
}

func closedByHelper(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	if p == "a" {
		closeQuietly(f)
		return errBad
	}
	closeQuietly(f)
	return nil
}

// Released by the helper on one path, left open on the other: no longer
// an escape, so the leak is found.
func helperThenLeak(p string) error {
	f, err := os.Open(p) // want `file from os.Open is not released \(Close\) on the path to the return at line 39`
	if err != nil {
		return err
	}
	if p == "a" {
		return errBad
	}
	closeQuietly(f)
	return nil
}

// A helper that releases on some paths only is no release.
func maybeClose(f *os.File, really bool) {
	if really {
		f.Close()
	}
}

type account struct {
	mu  sync.Mutex
	err error
	n   int
}

// failAndUnlock records the error and unlocks: its callers' lock is
// released by the call.
func (a *account) failAndUnlock(err error) error { // want failAndUnlock:`releases Unlock of param 0.0`
	a.err = err
	a.mu.Unlock()
	return err
}

func (a *account) add(n int) error {
	a.mu.Lock()
	if n < 0 {
		return a.failAndUnlock(errBad)
	}
	a.n += n
	a.mu.Unlock()
	return nil
}

// A method that takes and releases the lock itself releases nothing of
// its caller's.
func (a *account) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n = 0
}

func (a *account) addReset(n int) error {
	a.mu.Lock() // want `lock from \(\*sync.Mutex\).Lock is not released \(Unlock\)`
	if n < 0 {
		a.reset()
		return errBad
	}
	a.n += n
	a.mu.Unlock()
	return nil
}

// A local closure that unlocks, called on the error path.
func (a *account) sub(n int) error {
	a.mu.Lock()
	fail := func(err error) error {
		a.err = err
		a.mu.Unlock()
		return err
	}
	if n > a.n {
		return fail(errBad)
	}
	a.n -= n
	a.mu.Unlock()
	return nil
}

// The same closure captured by another one lives in a variable.
func (a *account) subLater(n int) (func(), error) {
	a.mu.Lock()
	fail := func(err error) error {
		a.err = err
		a.mu.Unlock()
		return err
	}
	retry := func() {
		a.mu.Lock()
		fail(errBad)
	}
	if n > a.n {
		return nil, fail(errBad)
	}
	a.n -= n
	a.mu.Unlock()
	return retry, nil
}

// A closure that unlocks only sometimes releases nothing.
func (a *account) subMaybe(n int) error {
	a.mu.Lock() // want `lock from \(\*sync.Mutex\).Lock is not released \(Unlock\)`
	fail := func(err error) error {
		if err != nil {
			a.mu.Unlock()
		}
		return err
	}
	if n > a.n {
		return fail(a.err)
	}
	a.n -= n
	a.mu.Unlock()
	return nil
}

// A deferred closure that unlocks a field of a captured variable.
func (a *account) drain(ch chan int) error { // want drain:`borrows param 1`
	a.mu.Lock()
	defer func() {
		for range ch {
		}
		a.mu.Unlock()
	}()
	for n := range ch {
		if n < 0 {
			return errBad
		}
		a.n += n
	}
	return nil
}

// A goroutine started before the return takes the lock over.
func (a *account) flush() {
	a.mu.Lock()
	a.n = 0
	go func() {
		a.n++
		a.mu.Unlock()
	}()
}

// A goroutine that waits for the command it captures.
func startWait(cmd *exec.Cmd, errc chan error) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { errc <- cmd.Wait() }()
	return nil
}

// http.Head returns a response whose body must be closed too.
func head(url string) (int, error) {
	resp, err := http.Head(url) // want `HTTP response body from http.Head is not released \(Body.Close\)`
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}
