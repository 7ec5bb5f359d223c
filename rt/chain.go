package rt

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// A failure chain is one failure as it propagates outwards: the call (or
// injection) where it started, then every enclosing call on the same
// goroutine that fails in turn. The first call in a chain found
// non-atomic is the candidate for "pure"; the ones after it may be
// non-atomic only because of it ("dependent").
type chainState struct {
	id         uint64
	lastSeq    uint64 // entry sequence of the latest failed call in the chain
	injected   bool   // the chain started with an injected fault
	nonAtomics int    // non-atomic calls found so far
	// injectedBefore is the latest injected chain of the goroutine
	// before this one started, if any (see joinChainOn).
	injectedBefore *chainState
}

var chains struct {
	sync.Mutex
	next  uint64
	byGID map[uint64]*chainState // latest chain of each goroutine
}

// joinChain places a failing call that was entered at seq into a chain:
// the latest chain of its goroutine if that chain's last failure happened
// inside this call (it was entered after this call was), else a new one.
func joinChain(seq uint64, nonAtomic bool, err error) (id uint64, injected, first bool) {
	return joinChainOn(goroutineID(), seq, nonAtomic, err)
}

// joinChainOn is joinChain for a call of goroutine gid.
//
// A call that fails by panic (err nil) carries no error that says where
// its failure comes from. When an injected failure happened inside it,
// and then a natural one (the latest chain), it joins the injected
// chain: the usual later failure is a handler that the call passed the
// injected error to, and that panics with it (panic(err), log.Panic,
// t.Fatal). Whether that handler is instrumented (a leaf is not traced,
// a function of another package may not be instrumented at all) then
// makes no difference.
func joinChainOn(gid, seq uint64, nonAtomic bool, err error) (id uint64, injected, first bool) {
	// errors.As calls the error's Unwrap and As methods: user code, which
	// may be instrumented and come back here. Never with the lock held.
	isInjected := wrapsInjected(err)
	chains.Lock()
	defer chains.Unlock()
	c := chains.byGID[gid]
	if err == nil && c != nil && c.lastSeq > seq && !c.injected {
		if i := c.injectedBefore; i != nil && i.lastSeq > seq {
			c = i
			chains.byGID[gid] = c
		}
	}
	if c == nil || c.lastSeq <= seq {
		c = newChainLocked(gid)
		c.injected = isInjected
		if isInjected {
			c.injectedBefore = nil // never read: keep no list alive
		}
	}
	c.lastSeq = seq
	if nonAtomic {
		c.nonAtomics++
	}
	return c.id, c.injected, nonAtomic && c.nonAtomics == 1
}

// recordInjection starts the chain of an injected fault: the call that
// would have run is the innermost failure.
func recordInjection(s *Site, f *InjectedFault) {
	gid := goroutineID()
	seq := callSeq.Add(1)
	chains.Lock()
	c := newChainLocked(gid)
	c.injected, c.lastSeq, c.injectedBefore = true, seq, nil
	id := c.id
	chains.Unlock()
	noteInjection(seq, gid)
	var stack string
	if campaign.tracksCalls {
		stack, _ = activeStack(s)
	}
	writeInjection(s, f, id, gid, stack)
}

func newChainLocked(gid uint64) *chainState {
	if chains.byGID == nil || len(chains.byGID) > 4096 {
		// Goroutines come and go; forgetting old chains only risks
		// starting a new chain where an old one would have continued.
		chains.byGID = map[uint64]*chainState{}
	}
	chains.next++
	c := &chainState{id: chains.next}
	if old := chains.byGID[gid]; old != nil {
		c.injectedBefore = old.injectedBefore
		if old.injected {
			c.injectedBefore = old
		}
	}
	chains.byGID[gid] = c
	return c
}

// shallowStack is the depth under which goroutineID reads the current
// goroutine's own trace: the runtime prints 100 frames of a trace at
// most, and counts the others.
const shallowStack = 100

// ownGoroutineID reads the header of the current goroutine's trace.
func ownGoroutineID() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	const prefix = "goroutine "
	if n < len(prefix) || string(buf[:len(prefix)]) != prefix {
		return 0
	}
	return leadingNumber(buf[len(prefix):n])
}

// parentGoroutineID starts a goroutine and reads the current one's number
// from the "created by" line of its trace, or returns 0 when that line
// does not name it. That goroutine ends once it has sent the number.
func parentGoroutineID() uint64 {
	done := make(chan uint64)
	go func() {
		var buf [1024]byte
		n := runtime.Stack(buf[:], false)
		done <- creatorID(string(buf[:n]))
	}()
	return <-done
}

// creatorID reads the number of the goroutine that created the one whose
// trace this is, from the trace's first "created by … in goroutine N"
// line. With GODEBUG=tracebackancestors, the traces of the ancestors
// follow it, with "created by" lines of their own.
func creatorID(trace string) uint64 {
	_, line, ok := strings.Cut(trace, "\ncreated by ")
	if !ok {
		return 0
	}
	line, _, _ = strings.Cut(line, "\n")
	const in = " in goroutine "
	i := strings.LastIndex(line, in)
	if i < 0 {
		return 0
	}
	return leadingNumber([]byte(line[i+len(in):]))
}

// leadingNumber parses the decimal number at the start of b, 0 if none.
func leadingNumber(b []byte) uint64 {
	end := 0
	for end < len(b) && b[end] >= '0' && b[end] <= '9' {
		end++
	}
	id, _ := strconv.ParseUint(string(b[:end]), 10, 64)
	return id
}

// wrapsInjected reports whether err is or wraps an injected fault. A
// panic in the error's own methods counts as no.
func wrapsInjected(err error) (yes bool) {
	if err == nil {
		return false
	}
	defer func() {
		// Only a panic raised by the methods called here is recovered: a
		// recover in a function deferred by a normal return cannot stop
		// a panic that the failing call is going through.
		if recover() != nil {
			yes = false
		}
	}()
	var f *InjectedFault
	return errors.As(err, &f)
}

// errorText returns err.Error(), or a placeholder when that panics: a
// panic in the runtime would replace the user's own.
func errorText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = "(Error method panicked)"
		}
	}()
	return err.Error()
}
