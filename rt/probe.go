package rt

import "syscall"

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
	res     any
}

// The states a probe event gives a resource.
const (
	ProbeOpen    = "open"
	ProbeClosed  = "closed"
	ProbeUnknown = "unknown" // no way to tell: the resource is not a syscall.Conn
)

// Add registers a resource the call has just acquired by the call at
// acquire (import path/file.go:line:col of its opening parenthesis). It
// does nothing when no event is logged.
func (p *Probes) Add(acquire string, res any) {
	if config.logPath == "" || res == nil {
		return
	}
	p.held = append(p.held, probed{acquire: acquire, res: res})
}

// AtExit runs when the call ends, deferred before the function's own
// deferred calls so that it runs after them, and before the call's Exit.
// When the call returns an error (errp holds it; done is the index of
// the return passed, as for Call.Exit), it logs a "probe" event per
// resource registered, first acquired first: the site, the acquire, the
// line of the return, and the resource's state. A panic going through is
// not probed: the findings confirmed are of returns.
func (p *Probes) AtExit(s *Site, done *int32, errp *error) {
	if len(p.held) == 0 {
		return
	}
	held := p.held
	p.held = nil
	if errp == nil || *errp == nil || *done == 0 {
		return
	}
	var end uint64
	if i := int(*done) - 1; i < len(s.Ends) {
		end = uint64(s.Ends[i])
	}
	for _, h := range held {
		writeLine(event("probe").str("site", s.ID).str("acquire", h.acquire).num("end", end).
			str("state", probeState(h.res)).end())
	}
}

// probeState tells whether res is still open. A syscall.Conn (an
// *os.File, a net connection or listener) is open when its raw
// connection runs a function on its descriptor: once closed, Control
// fails without running it. Control neither reads, writes nor changes
// the descriptor's mode (Fd would put a non-blocking file into blocking
// mode). A probe that panics, or a SyscallConn that fails, cannot tell.
func probeState(res any) (state string) {
	c, ok := res.(syscall.Conn)
	if !ok {
		return ProbeUnknown
	}
	defer func() {
		if recover() != nil {
			state = ProbeUnknown
		}
	}()
	raw, err := c.SyscallConn()
	if err != nil || raw == nil {
		return ProbeUnknown
	}
	if raw.Control(func(uintptr) {}) != nil {
		return ProbeClosed
	}
	return ProbeOpen
}
