package rt

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// Types whose locks guard the rest of them.

type lockedReg struct {
	mu sync.Mutex
	m  map[int]int
}

type embeddedRW struct {
	sync.RWMutex
	items []int
}

type sharedLock struct {
	mu   *sync.Mutex
	next *lockedReg
}

type shard struct {
	mu sync.Mutex
	m  map[string]int
}

type shards struct {
	parts [2]shard
	inner struct {
		rw sync.RWMutex
		_  sync.Mutex
	}
}

func TestPlanLocks(t *testing.T) {
	type lockNames struct {
		Name   string
		RW     bool
		Ptr    bool
		Offset uintptr
	}
	tests := []struct {
		typ  reflect.Type
		want []lockNames
	}{
		{reflect.TypeFor[lockedReg](), []lockNames{{Name: "mu"}}},
		{reflect.TypeFor[embeddedRW](), []lockNames{{Name: "RWMutex", RW: true}}},
		{reflect.TypeFor[sharedLock](), []lockNames{{Name: "mu", Ptr: true}}},
		{reflect.TypeFor[shards](), []lockNames{
			{Name: "parts[0].mu"},
			{Name: "parts[1].mu", Offset: unsafe.Sizeof(shard{})},
			{Name: "inner.rw", RW: true, Offset: unsafe.Offsetof(shards{}.inner)},
		}},
		{reflect.TypeFor[[2]sync.Mutex](), []lockNames{{Name: "[0]"}, {Name: "[1]", Offset: unsafe.Sizeof(sync.Mutex{})}}},
		{reflect.TypeFor[gnode](), nil},
		{reflect.TypeFor[*lockedReg](), nil}, // a pointer holds no lock inline
		{reflect.TypeFor[[1 << 20]byte](), nil},
	}
	for _, tt := range tests {
		var got []lockNames
		for _, l := range planOf(tt.typ).locks {
			got = append(got, lockNames{l.name, l.rw, l.ptr, l.offset})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("locks of %v (-want +got):\n%s", tt.typ, diff)
		}
	}
}

// TestSnapshotTakesLocks: a snapshot reads a struct only under its lock,
// holding it for its caller to release, and gives up, naming the lock,
// when the lock is held elsewhere; it reads under a lock the call holds
// without taking it.
func TestSnapshotTakesLocks(t *testing.T) {
	r := &lockedReg{m: map[int]int{1: 1}}
	other := &lockedReg{m: map[int]int{2: 2}}
	s := &sharedLock{mu: &other.mu, next: other}

	locks := &lockSet{}
	if _, ok := takeLockedSnapshot([]any{r, s}, 0, locks); !ok {
		t.Fatalf("snapshot of unlocked graph failed: blocked %q", locks.blocked)
	}
	if r.mu.TryLock() || other.mu.TryLock() {
		t.Fatal("the snapshot read a struct without taking its lock")
	}
	locks.release()
	if !r.mu.TryLock() || !other.mu.TryLock() {
		t.Fatal("release left a lock held")
	}
	// r.mu is held by "another goroutine" now.
	other.mu.Unlock()
	locks = &lockSet{}
	if _, ok := takeLockedSnapshot([]any{s, r}, 0, locks); ok {
		t.Fatal("snapshot read a struct whose lock is held")
	}
	if want := "rt.lockedReg.mu"; locks.blocked != want {
		t.Errorf("blocked = %q, want %q", locks.blocked, want)
	}
	locks.release()
	if !other.mu.TryLock() {
		t.Error("a blocked snapshot left the locks it took held")
	}
	other.mu.Unlock()

	// The call holds r.mu (the lock idiom): its snapshot reads under it.
	locks = &lockSet{held: unsafe.Pointer(&r.mu)}
	snap, ok := takeLockedSnapshot([]any{r}, 0, locks)
	if !ok {
		t.Fatalf("snapshot under the call's own lock failed: blocked %q", locks.blocked)
	}
	if len(locks.taken) != 0 {
		t.Errorf("the snapshot took the lock the call holds: %v", locks.taken)
	}
	r.m[3] = 3
	snap.locks = &lockSet{held: unsafe.Pointer(&r.mu)}
	d, equal := snap.firstDiff(snap.roots, []string{"r"})
	snap.locks.release()
	if equal || !strings.HasPrefix(d.Path, "r.m[3]") {
		t.Errorf("comparison under the call's own lock: equal %v, diff %+v", equal, d)
	}
	r.mu.Unlock()
}

// TestCompareTakesLocks: a comparison that meets a lock held elsewhere
// stops and names it, rather than reporting what it could not read.
func TestCompareTakesLocks(t *testing.T) {
	g := &shards{}
	for i := range g.parts {
		g.parts[i].m = map[string]int{}
	}
	locks := &lockSet{}
	snap, ok := takeLockedSnapshot([]any{g}, 0, locks)
	locks.release()
	if !ok {
		t.Fatal("snapshot failed")
	}
	g.parts[1].mu.Lock()
	g.parts[1].m["x"] = 1 // another goroutine's write, under its lock
	snap.locks = &lockSet{}
	_, equal := snap.firstDiff(snap.roots, []string{"g"})
	blocked := snap.locks.blocked
	snap.locks.release()
	g.parts[1].mu.Unlock()
	if want := "rt.shards.parts[1].mu"; blocked != want || !equal {
		t.Errorf("comparison: equal %v, blocked %q; want true, %q", equal, blocked, want)
	}
	if !g.parts[0].mu.TryLock() || !g.inner.rw.TryLock() {
		t.Error("release left a lock held")
	}
}

// TestSnapshotConcurrentWriters: goroutines write a map under its lock
// while snapshots and comparisons of its owner run. Unlocked, the walk
// dies of "concurrent map iteration and map write" within milliseconds,
// and -race reports the reads.
func TestSnapshotConcurrentWriters(t *testing.T) {
	r := &lockedReg{m: map[int]int{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r.mu.Lock()
				r.m[i%512] = w
				if i%7 == 0 {
					delete(r.m, (i+3)%512)
				}
				r.mu.Unlock()
			}
		}()
	}
	blocked := 0
	for range 2000 {
		locks := &lockSet{}
		snap, ok := takeLockedSnapshot([]any{r}, 0, locks)
		locks.release()
		if !ok {
			if locks.blocked == "" {
				t.Fatal("snapshot failed without naming a lock")
			}
			blocked++
			continue
		}
		snap.locks = &lockSet{}
		snap.firstDiff(snap.roots, []string{"r"})
		snap.locks.release()
	}
	close(stop)
	wg.Wait()
	t.Logf("%d of 2000 snapshots found the lock held", blocked)
}

// lockElsewhere takes r's lock for writing on another goroutine, as
// instrumented code does.
func lockElsewhere(r *lockedReg) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.mu.Lock()
		Took(&r.mu)
		r.mu.Unlock()
	}()
	<-done
}

// TestLockWatches: a lock that a snapshot took is watched until its call
// ends; the call's own goroutine taking it again is no contention, another
// goroutine taking it is.
func TestLockWatches(t *testing.T) {
	r := &lockedReg{m: map[int]int{}}
	locks := &lockSet{}
	if _, ok := takeLockedSnapshot([]any{r}, 0, locks); !ok {
		t.Fatal("snapshot failed")
	}
	w := locks.watch()
	locks.release()
	if got := watched.n.Load(); got != 1 {
		t.Fatalf("watches registered: %d, want 1", got)
	}

	r.mu.Lock()
	Took(&r.mu) // the call itself, through a callee
	r.mu.Unlock()
	if lock, ok := contended(w); ok {
		t.Errorf("the call's own goroutine counted as another: %q", lock)
	}
	lockElsewhere(r)
	if lock, ok := contended(w); !ok || lock != "rt.lockedReg.mu" {
		t.Errorf("contended = %q, %v; want rt.lockedReg.mu, true", lock, ok)
	}

	// A watch that no contention check has looked at yet, whose lock only
	// another goroutine took.
	locks = &lockSet{}
	takeLockedSnapshot([]any{r}, 0, locks)
	w2 := locks.watch()
	locks.release()
	lockElsewhere(r)
	if lock, ok := contended(w2); !ok || lock != "rt.lockedReg.mu" {
		t.Errorf("a lock only another goroutine took: contended = %q, %v", lock, ok)
	}
	unwatch(w2)

	// The lock the call holds, taken by another goroutine while the call
	// released it (in a sync.Cond's Wait, say): it has no name.
	w3 := (&lockSet{held: unsafe.Pointer(&r.mu)}).watch()
	lockElsewhere(r)
	if lock, ok := contended(w3); !ok || lock != "" {
		t.Errorf("the call's own lock: contended = %q, %v; want \"\", true", lock, ok)
	}
	unwatch(w3)

	// Many locks: the watch finds them through the walk's index.
	regs := make([]*lockedReg, 40)
	for i := range regs {
		regs[i] = &lockedReg{m: map[int]int{}}
	}
	locks = &lockSet{}
	takeLockedSnapshot([]any{regs}, 0, locks)
	if locks.takenSet == nil {
		t.Fatalf("%d locks taken, and no index", len(locks.taken))
	}
	w4 := locks.watch()
	locks.release()
	lockElsewhere(regs[33])
	if lock, ok := contended(w4); !ok || lock != "rt.lockedReg.mu" {
		t.Errorf("one of many locks: contended = %q, %v", lock, ok)
	}
	unwatch(w4)

	unwatch(w)
	unwatch(w) // ends each watch once
	if got := watched.n.Load(); got != 0 {
		t.Errorf("watches left: %d", got)
	}
	if len(watched.active) != 0 {
		t.Errorf("watches left active: %v", watched.active)
	}
	if _, ok := contended(w); !ok {
		t.Error("an ended watch forgot what it saw")
	}
}

// TestHolders: a lock that a call of this goroutine holds (hold) is read
// under by the walks of the calls it makes; another goroutine's walks
// find it held.
func TestHolders(t *testing.T) {
	r := &lockedReg{m: map[int]int{1: 1}}
	r.mu.Lock()
	defer r.mu.Unlock()
	gid := goroutineID()
	hold(unsafe.Pointer(&r.mu), gid)
	defer unhold(unsafe.Pointer(&r.mu), gid)

	locks := &lockSet{}
	_, ok := takeLockedSnapshot([]any{r}, 0, locks)
	locks.release()
	if !ok {
		t.Errorf("a helper of the lock's holder found it held: %q", locks.blocked)
	}
	done := make(chan string)
	go func() {
		locks := &lockSet{}
		takeLockedSnapshot([]any{r}, 0, locks)
		locks.release()
		done <- locks.blocked
	}()
	if blocked := <-done; blocked != "rt.lockedReg.mu" {
		t.Errorf("another goroutine's walk: blocked %q, want rt.lockedReg.mu", blocked)
	}
}

// BenchmarkSnapshotLocks: a snapshot and a comparison of a struct whose
// lock guards a map of 100 entries, with and without taking the lock.
func BenchmarkSnapshotLocks(b *testing.B) {
	r := &lockedReg{m: map[int]int{}}
	for i := range 100 {
		r.m[i] = i
	}
	for _, locked := range []bool{false, true} {
		name := "unlocked"
		if locked {
			name = "locked"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var locks *lockSet
				if locked {
					locks = &lockSet{}
				}
				snap, ok := takeLockedSnapshot([]any{r}, 0, locks)
				locks.release()
				if !ok {
					b.Fatal("snapshot failed")
				}
				snap.locks = locks
				snap.firstDiff(snap.roots, []string{"r"})
				locks.release()
			}
		})
	}
}

// TestLockRoots: a lock among the roots (a package-level one, with the
// package's variables) is taken before the other roots are read.
func TestLockRoots(t *testing.T) {
	var mu sync.RWMutex
	m := map[string]int{"a": 1}
	mu.Lock()
	locks := &lockSet{}
	_, ok := takeLockedSnapshot([]any{&m, &mu}, 0, locks)
	locks.release()
	if want := "a *sync.RWMutex among the roots"; ok || locks.blocked != want {
		t.Errorf("snapshot with a root lock held: ok %v, blocked %q; want false, %q", ok, locks.blocked, want)
	}
	mu.Unlock()
	locks = &lockSet{}
	snap, ok := takeLockedSnapshot([]any{&m, &mu}, 0, locks)
	if !ok || len(locks.taken) != 1 || mu.TryLock() {
		t.Fatalf("snapshot: ok %v, taken %v: the root lock was not held while it read", ok, locks.taken)
	}
	locks.release()
	mu.Lock()
	snap.locks = &lockSet{}
	_, equal := snap.firstDiff(snap.roots, []string{"m", "mu"})
	snap.locks.release()
	mu.Unlock()
	if !equal || snap.locks.blocked == "" {
		t.Errorf("comparison with a root lock held: equal %v, blocked %q", equal, snap.locks.blocked)
	}
}
