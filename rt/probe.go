package rt

import (
	"reflect"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Probes are the resources that one call of a function acquired at the
// acquisitions a leak confirmation asks about (atomicx vet -confirm):
// when the call returns an error, after its own deferred calls, the
// runtime says of each whether it is still open. Only the functions of
// the findings being confirmed hold Probes; a call that registered
// nothing pays for a deferred call that returns at once.
//
// The zero value is ready to use.
type Probes struct {
	held []probed
}

type probed struct {
	acquire string // the acquire call, as sites give positions
	res     any    // a selfProbed for a resource with a probe of its own
}

// selfProbed is a resource registered with its own probe (AddClosed).
// It is boxed in probed.res, so that the resources the runtime probes
// keep a small registration.
type selfProbed struct {
	res      any
	isClosed func() bool
}

// The states a probe event gives a resource.
const (
	ProbeOpen    = "open"
	ProbeClosed  = "closed"
	ProbeUnknown = "unknown" // no way to tell without an effect: the event says why
)

// Add registers a resource the call has just acquired by the call at
// acquire (import path/file.go:line:col of its opening parenthesis). It
// does nothing when no event is logged.
func (p *Probes) Add(acquire string, res any) {
	if config.logPath == "" || res == nil || p.again(acquire, res) {
		return
	}
	p.held = append(p.held, probed{acquire: acquire, res: res})
}

// again reports whether the resource was registered last by the same
// acquire: a lock taken and released in a loop registers its mutex once.
func (p *Probes) again(acquire string, res any) bool {
	if len(p.held) == 0 {
		return false
	}
	last := p.held[len(p.held)-1]
	if last.acquire != acquire {
		return false
	}
	va, vb := reflect.ValueOf(last.res), reflect.ValueOf(res)
	return va.Type() == vb.Type() && va.Kind() == reflect.Pointer && va.Pointer() == vb.Pointer()
}

// AddClosed registers, as Add does, a resource that says itself whether
// it is released: isClosed is its method named by the is_closed key of
// its [[leak.resource]] table, bound to it; nil when the resource has no
// such method, of type func() bool, that its package can call.
func (p *Probes) AddClosed(acquire string, res any, isClosed func() bool) {
	if config.logPath == "" || res == nil {
		return
	}
	p.held = append(p.held, probed{acquire: acquire, res: selfProbed{res, isClosed}})
}

// AtExit runs when the call ends, deferred before the function's own
// deferred calls so that it runs after them, and before the call's Exit.
// When the call returns an error (errp holds it; done is the index of
// the return passed, as for Call.Exit), it logs a "probe" event per
// resource registered, first acquired first: the site, the acquire, the
// line of the return, the resource's state and, when it is unknown, why.
// A panic going through is not probed: the findings confirmed are of
// returns.
func (p *Probes) AtExit(s *Site, done *int32, errp *error) {
	if len(p.held) == 0 {
		return
	}
	held := p.held
	p.held = nil
	if !s.failed(errp) || *done == 0 {
		return
	}
	var end uint64
	if i := int(*done) - 1; i < len(s.Ends) {
		end = uint64(s.Ends[i])
	}
	for _, h := range held {
		state, why := h.state()
		e := event("probe").str("site", s.ID).str("acquire", h.acquire).num("end", end).str("state", state)
		if why != "" {
			e = e.str("why", why)
		}
		writeLine(e.end())
	}
}

// state probes the resource: with its own method when it has one.
func (h probed) state() (state, why string) {
	self, ok := h.res.(selfProbed)
	if !ok {
		return probeState(h.res)
	}
	if self.isClosed == nil {
		return ProbeUnknown, "the method is_closed names is not a func() bool of a " + typeName(self.res) + " that its package can call"
	}
	defer func() {
		if recover() != nil {
			state, why = ProbeUnknown, "its is_closed method panicked"
		}
	}()
	if self.isClosed() {
		return ProbeClosed, ""
	}
	return ProbeOpen, ""
}

// probeState tells whether res is still open, or why that is not known.
// Every probe leaves the resource as it found it: it reads state, never
// data, and takes no lock it may have to wait for (a lock held by
// another goroutine makes the answer unknown, or for a mutex, open).
// Which probe applies is decided by res's run-time type; a probe that
// panics cannot tell.
func probeState(res any) (state, why string) {
	defer func() {
		if recover() != nil {
			state, why = ProbeUnknown, "the probe of a "+typeName(res)+" panicked"
		}
	}()
	if c, ok := res.(syscall.Conn); ok {
		return connState(c)
	}
	switch res := res.(type) {
	case *sync.Mutex:
		return lockState(res.TryLock, res.Unlock)
	case *sync.RWMutex:
		return lockState(res.TryLock, res.Unlock)
	}
	v := reflect.ValueOf(res)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return ProbeUnknown, noProbe(res)
	}
	t := v.Type().Elem()
	switch t.PkgPath() + "." + t.Name() {
	case "net/http.Response":
		return bodyState(v.Elem().FieldByName("Body"))
	case "database/sql.Rows":
		// Close sets closed under closemu; Next sets it too once the rows
		// are exhausted, which releases them as well.
		return lockedBool(v.Elem(), "closemu", "closed")
	case "database/sql.Stmt":
		return lockedBool(v.Elem(), "mu", "closed")
	case "database/sql.Tx", "database/sql.Conn":
		// done is set once, by Commit or Rollback (a transaction), by
		// Close (a connection), or when the context given ends.
		return atomicBool(v.Elem(), "done")
	case "time.Timer", "time.Ticker":
		return ProbeUnknown, "timers: stopping one to probe it would change the program"
	case "compress/gzip.Reader", "compress/zlib.reader":
		return ProbeUnknown, "compressed readers: only reading from one would tell"
	case "os/exec.Cmd":
		// Wait sets ProcessState; a process that was never waited for
		// holds its process table entry and its copying goroutines.
		if ps := v.Elem().FieldByName("ProcessState"); ps.IsValid() && ps.Kind() == reflect.Pointer {
			if ps.IsNil() {
				return ProbeOpen, ""
			}
			return ProbeClosed, ""
		}
	}
	if t.PkgPath() == "context" {
		if c, ok := res.(interface{ Err() error }); ok {
			// The context's cancel function, the end of its parent or its
			// deadline: any of them released what the context held.
			if c.Err() != nil {
				return ProbeClosed, ""
			}
			return ProbeOpen, ""
		}
	}
	return ProbeUnknown, noProbe(res)
}

func noProbe(res any) string {
	return "no probe for a " + typeName(res) + ": nothing tells whether it is released without using it"
}

func typeName(res any) string {
	if res == nil {
		return "nil"
	}
	return reflect.TypeOf(res).String()
}

// connState probes a syscall.Conn (an *os.File, a net connection or
// listener): it is open when its raw connection runs a function on its
// descriptor; once closed, Control fails without running it. Control
// neither reads, writes nor changes the descriptor's mode (Fd would put
// a non-blocking file into blocking mode).
func connState(c syscall.Conn) (string, string) {
	raw, err := c.SyscallConn()
	if err != nil || raw == nil {
		return ProbeUnknown, "the descriptor of a " + typeName(c) + " is not available"
	}
	if raw.Control(func(uintptr) {}) != nil {
		return ProbeClosed, ""
	}
	return ProbeOpen, ""
}

// lockState probes a lock acquired by the call: if it can be taken at
// once, nobody held it, so the call released it (closed), and it is
// released again at once. If not, it is held: by the call that did not
// release it, or, when other goroutines use the lock, possibly by one of
// them that took it after the call released it. "Closed" is thus
// certain and "open" certain only without contention. A read lock is
// probed the same way: taking the write lock succeeds only when no
// reader holds it. While the probe holds the lock, another goroutine's
// Lock waits for it and its TryLock fails: the only effect, lasting a
// few nanoseconds.
func lockState(tryLock func() bool, unlock func()) (string, string) {
	if tryLock() {
		unlock()
		return ProbeClosed, ""
	}
	return ProbeOpen, ""
}

// bodyState probes an HTTP response body. The client's HTTP/1 body
// (possibly behind the client's timeout or gzip wrappers) records
// whether it was closed, and its sticky read error: once that is set
// (io.EOF or another error) the transport has taken the connection back
// (reused or closed), so a body read to its end holds nothing either.
// Reading zero bytes is no probe: on a chunked body it reads the next
// chunk's header from the connection, and at the end of a body it hands
// the connection back.
func bodyState(body reflect.Value) (string, string) {
	for range 4 {
		if !body.IsValid() || body.Kind() == reflect.Interface && body.IsNil() {
			return ProbeUnknown, "the response has no body"
		}
		if body.Kind() == reflect.Interface {
			body = body.Elem()
		}
		t := body.Type()
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			if t.PkgPath() == "net/http" && t.Name() == "noBody" {
				return ProbeUnknown, "the response has no body (http.NoBody): nothing was held"
			}
			break
		}
		if body.IsNil() {
			return ProbeUnknown, "the response has no body"
		}
		if t.Elem().PkgPath() != "net/http" {
			break
		}
		s := body.Elem()
		switch t.Elem().Name() {
		case "cancelTimerBody": // the Client's Timeout
			body = s.FieldByName("rc")
			continue
		case "gzipReader": // the Transport's transparent decompression
			body = s.FieldByName("body")
			continue
		case "bodyEOFSignal":
			mu, ok := fieldPtr[sync.Mutex](s, "mu")
			closed, rerr := s.FieldByName("closed"), s.FieldByName("rerr")
			if !ok || closed.Kind() != reflect.Bool || rerr.Kind() != reflect.Interface {
				break
			}
			if !mu.TryLock() {
				return ProbeUnknown, "the body was in use by another goroutine"
			}
			done := closed.Bool() || !rerr.IsNil()
			mu.Unlock()
			if done {
				return ProbeClosed, ""
			}
			return ProbeOpen, ""
		case "http2transportResponseBody":
			return ProbeUnknown, "HTTP/2 response bodies are not probed"
		}
		break
	}
	return ProbeUnknown, "no probe for a body of type " + body.Type().String()
}

// lockedBool reads the bool field name of the struct s under its lock,
// a sync.Mutex or the read side of a sync.RWMutex: true is closed.
func lockedBool(s reflect.Value, lock, name string) (string, string) {
	f := s.FieldByName(name)
	var tryLock func() bool
	var unlock func()
	if mu, ok := fieldPtr[sync.Mutex](s, lock); ok {
		tryLock, unlock = mu.TryLock, mu.Unlock
	} else if rw, ok := fieldPtr[sync.RWMutex](s, lock); ok {
		tryLock, unlock = rw.TryRLock, rw.RUnlock
	}
	if tryLock == nil || f.Kind() != reflect.Bool {
		return ProbeUnknown, "no probe for a " + s.Type().String() + " of this Go version"
	}
	if !tryLock() {
		return ProbeUnknown, "the " + s.Type().String() + " was being closed or used by another goroutine"
	}
	closed := f.Bool()
	unlock()
	if closed {
		return ProbeClosed, ""
	}
	return ProbeOpen, ""
}

// atomicBool reads the atomic.Bool field name of the struct s: true is
// closed.
func atomicBool(s reflect.Value, name string) (string, string) {
	b, ok := fieldPtr[atomic.Bool](s, name)
	if !ok {
		return ProbeUnknown, "no probe for a " + s.Type().String() + " of this Go version"
	}
	if b.Load() {
		return ProbeClosed, ""
	}
	return ProbeOpen, ""
}

// fieldPtr returns a pointer to the field name of the addressable struct
// s when it has type T: the way to call its methods, exported or not.
func fieldPtr[T any](s reflect.Value, name string) (*T, bool) {
	f := s.FieldByName(name)
	if !f.IsValid() || f.Type() != reflect.TypeFor[T]() || !f.CanAddr() {
		return nil, false
	}
	return (*T)(unsafe.Pointer(f.UnsafeAddr())), true
}
