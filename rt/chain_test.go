package rt

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestGoroutineID(t *testing.T) {
	here := goroutineID()
	if here == 0 {
		t.Fatal("goroutineID() = 0")
	}
	if again := goroutineID(); again != here {
		t.Errorf("goroutineID() changed within one goroutine: %d, then %d", here, again)
	}
	const n = 8
	ids := make([]uint64, n)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = goroutineID()
		}()
	}
	wg.Wait()
	seen := map[uint64]bool{here: true}
	for _, id := range ids {
		if id == 0 {
			t.Fatal("goroutineID() = 0 in a new goroutine")
		}
		if seen[id] {
			t.Errorf("goroutineID() = %d in two live goroutines", id)
		}
		seen[id] = true
	}
}

// TestGoroutineIDDeep checks that, on a stack too deep for the
// goroutine's own trace to be read cheaply, the number found through a
// goroutine it starts is the same.
func TestGoroutineIDDeep(t *testing.T) {
	want := ownGoroutineID()
	for _, depth := range []int{shallowStack - 10, shallowStack + 10, 5000} {
		var got, parent uint64
		atDepth(depth, func() { got, parent = goroutineID(), parentGoroutineID() })
		if got != want || parent != want {
			t.Errorf("at depth %d: goroutineID() = %d, parentGoroutineID() = %d, want %d", depth, got, parent, want)
		}
	}
}

func TestCreatorID(t *testing.T) {
	tests := []struct {
		trace string
		want  uint64
	}{
		{"goroutine 20 [running]:\nm.f.func1()\n\t/m/f.go:12 +0x3b\ncreated by m.f in goroutine 19\n\t/m/f.go:12 +0x76\n", 19},
		{ // GODEBUG=tracebackancestors: the ancestors' lines come after
			"goroutine 20 [running]:\nm.f.func1()\n\t/m/f.go:12 +0x3b\ncreated by m.f in goroutine 19\n\t/m/f.go:12 +0x76\n" +
				"[originating from goroutine 19]:\nm.f(...)\n\t/m/f.go:13 +0x76\ncreated by m.g in goroutine 7\n\t/m/g.go:10 +0x78\n",
			19,
		},
		{"goroutine 1 [running]:\nmain.main()\n\t/m/main.go:3 +0x1\n", 0},
		{"goroutine 20 [running]:\nm.f.func1()\ncreated by m.f\n", 0},
	}
	for _, tt := range tests {
		if got := creatorID(tt.trace); got != tt.want {
			t.Errorf("creatorID(%q) = %d, want %d", tt.trace, got, tt.want)
		}
	}
}

// atDepth calls f with about depth frames more on the stack.
func atDepth(depth int, f func()) {
	if depth <= 0 {
		f()
		return
	}
	atDepth(depth-1, f)
}

// BenchmarkGoroutineID gives the cost of finding the goroutine's number
// at a few depths, from its descriptor and from its trace: neither must
// grow with the depth.
func BenchmarkGoroutineID(b *testing.B) {
	for _, way := range []struct {
		name string
		id   func() uint64
	}{{"descriptor", goroutineID}, {"trace", tracedGoroutineID}} {
		for _, depth := range []int{10, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/%d", way.name, depth), func(b *testing.B) {
				atDepth(depth, func() {
					for b.Loop() {
						way.id()
					}
				})
			})
		}
	}
}

// chainStep is one event on a goroutine: a call entered (enter names it),
// or a call that fails (fail names a call entered earlier).
type chainStep struct {
	enter     string
	fail      string
	nonAtomic bool
	err       error
	inject    bool // an injected fault (recordInjection) instead of a call

	// Expected for a failure: the chain (by the name of the step that
	// started it), whether it is injected, and whether this call is the
	// first non-atomic one of its chain.
	chain    string
	injected bool
	first    bool
}

func TestJoinChain(t *testing.T) {
	plain := errors.New("plain")
	fault := &InjectedFault{Site: "m.F#entry", Pos: "m/f.go:1:6", Occurrence: 1}
	tests := []struct {
		name  string
		steps []chainStep
	}{
		{
			name: "failure inside an enclosing call joins its chain",
			steps: []chainStep{
				{enter: "outer"},
				{enter: "inner"},
				{fail: "inner", nonAtomic: true, err: plain, chain: "inner", first: true},
				{fail: "outer", nonAtomic: true, err: plain, chain: "inner", first: false},
			},
		},
		{
			name: "atomic innermost call: the first non-atomic call is the enclosing one",
			steps: []chainStep{
				{enter: "a"},
				{enter: "b"},
				{enter: "c"},
				{fail: "c", err: plain, chain: "c"},
				{fail: "b", nonAtomic: true, err: plain, chain: "c", first: true},
				{fail: "a", nonAtomic: true, err: plain, chain: "c"},
			},
		},
		{
			name: "a later unrelated failure starts a new chain",
			steps: []chainStep{
				{enter: "first"},
				{fail: "first", nonAtomic: true, err: plain, chain: "first", first: true},
				{enter: "second"},
				{fail: "second", nonAtomic: true, err: plain, chain: "second", first: true},
			},
		},
		{
			name: "two failing callees of one call: the enclosing call joins the latest",
			steps: []chainStep{
				{enter: "outer"},
				{enter: "callee1"},
				{fail: "callee1", nonAtomic: true, err: plain, chain: "callee1", first: true},
				{enter: "callee2"},
				{fail: "callee2", err: plain, chain: "callee2"},
				{fail: "outer", nonAtomic: true, err: plain, chain: "callee2", first: true},
			},
		},
		{
			name: "a failure whose enclosing calls succeeded does not extend to a sibling",
			steps: []chainStep{
				{enter: "parent"},
				{enter: "child"},
				{fail: "child", nonAtomic: true, err: plain, chain: "child", first: true},
				// parent absorbs the error and returns normally.
				{enter: "sibling"},
				{fail: "sibling", nonAtomic: true, err: plain, chain: "sibling", first: true},
			},
		},
		{
			name: "a chain started by an injected error is injected",
			steps: []chainStep{
				{enter: "outer"},
				{enter: "inner"},
				{fail: "inner", nonAtomic: true, err: fmt.Errorf("wrapped: %w", fault), chain: "inner", injected: true, first: true},
				{fail: "outer", nonAtomic: true, err: plain, chain: "inner", injected: true},
				{enter: "later"},
				{fail: "later", err: plain, chain: "later"},
			},
		},
		{
			name: "a chain started by recordInjection",
			steps: []chainStep{
				{enter: "caller"},
				{enter: "point", inject: true},
				{fail: "caller", nonAtomic: true, err: fault, chain: "point", injected: true, first: true},
			},
		},
		{
			name: "a panic raised with an injected error by a call made after it continues the injected chain",
			steps: []chainStep{
				{enter: "caller"},
				{enter: "must"},
				{enter: "get"},
				{fail: "get", err: fault, chain: "get", injected: true},
				// must passes the error to a handler that panics: a
				// panic carries no error to look at.
				{enter: "handler"},
				{fail: "handler", chain: "handler"},
				{fail: "must", nonAtomic: true, chain: "get", injected: true, first: true},
				{fail: "caller", chain: "get", injected: true},
			},
		},
		{
			name: "a natural panic after an absorbed injected error starts a chain of its own",
			steps: []chainStep{
				{enter: "get"},
				{fail: "get", err: fault, chain: "get", injected: true},
				// absorbed by a caller that goes on, then:
				{enter: "must"},
				{enter: "handler"},
				{fail: "handler", chain: "handler"},
				{fail: "must", nonAtomic: true, chain: "handler", first: true},
			},
		},
		{
			name: "an injected panic after a natural error inside the same call",
			steps: []chainStep{
				{enter: "outer"},
				{enter: "inner"},
				{fail: "inner", err: plain, chain: "inner"},
				{enter: "point", inject: true},
				{fail: "outer", nonAtomic: true, chain: "point", injected: true, first: true},
			},
		},
		{
			name: "an error after an injected error inside the same call joins the latest chain",
			steps: []chainStep{
				{enter: "outer"},
				{enter: "inner"},
				{fail: "inner", err: fault, chain: "inner", injected: true},
				{enter: "other"},
				{fail: "other", err: plain, chain: "other"},
				{fail: "outer", err: plain, chain: "other"},
			},
		},
		{
			name: "an injected error that does not start the chain does not mark it",
			steps: []chainStep{
				{enter: "outer"},
				{enter: "inner"},
				{fail: "inner", err: plain, chain: "inner"},
				{fail: "outer", err: fault, chain: "inner"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useSettings(t, settings{})
			seqs := map[string]uint64{}
			ids := map[uint64]string{} // chain -> the step that started it
			for i, st := range tt.steps {
				switch {
				case st.inject:
					s := &Site{ID: st.enter, Func: "m.F", Pos: "m/f.go:1:6", Kind: EntrySite, Faults: FaultError}
					recordInjection(s, fault)
					chains.Lock()
					id := chains.byGID[goroutineID()].id
					chains.Unlock()
					ids[id] = st.enter
				case st.enter != "":
					seqs[st.enter] = callSeq.Add(1)
				default:
					seq, ok := seqs[st.fail]
					if !ok {
						t.Fatalf("step %d: %s was not entered", i, st.fail)
					}
					id, injected, first := joinChain(seq, st.nonAtomic, st.err)
					if _, ok := ids[id]; !ok {
						ids[id] = st.fail // a new chain
					}
					if got := ids[id]; got != st.chain {
						t.Errorf("step %d: %s failed in the chain of %s, want the chain of %s", i, st.fail, got, st.chain)
					}
					if injected != st.injected {
						t.Errorf("step %d: %s: injected = %v, want %v", i, st.fail, injected, st.injected)
					}
					if first != st.first {
						t.Errorf("step %d: %s: first = %v, want %v", i, st.fail, first, st.first)
					}
				}
			}
		})
	}
}

func TestJoinChainPerGoroutine(t *testing.T) {
	useSettings(t, settings{})
	plain := errors.New("plain")
	outer := callSeq.Add(1)
	var otherID uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		inner := callSeq.Add(1) // entered after outer, on another goroutine
		otherID, _, _ = joinChain(inner, true, plain)
	}()
	<-done
	id, _, first := joinChain(outer, true, plain)
	if id == otherID {
		t.Errorf("a failure on another goroutine joined the chain %d", id)
	}
	if !first {
		t.Error("the first non-atomic call of a goroutine's chain is not first")
	}
}
