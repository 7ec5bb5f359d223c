package rt

import (
	"errors"
	"sync"
	"testing"
)

// rgCache and rgShard take their locks mid-body. Their methods below are
// written as the rewrite writes them (see instrument/regions.go): the
// prologue names the locks known at entry, each Lock is followed by
// Acquired, each Unlock preceded by Releasing.
type rgCache struct {
	lock  sync.Mutex
	items map[string]int
	order []string
	limit int
}

type rgShard struct {
	mu sync.RWMutex
	m  map[int]int
}

var errRgFull = errors.New("full")

var rgSites = [...]Site{
	{ID: "rt.(*rgCache).Add#entry", Func: "rt.(*rgCache).Add", Roots: "c,k", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.(*rgCache).Push#entry", Func: "rt.(*rgCache).Push", Roots: "c,k", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.setAll#entry", Func: "rt.setAll", Roots: "shards", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.(*rgCache).Held#entry", Func: "rt.(*rgCache).Held", Roots: "c,k", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.(*rgCache).Out#entry", Func: "rt.(*rgCache).Out", Roots: "c,out", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.moveShard#entry", Func: "rt.moveShard", Roots: "s", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.(*rgCache).Try#entry", Func: "rt.(*rgCache).Try", Roots: "c,k", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.(*rgCache).Handed#entry", Func: "rt.(*rgCache).Handed", Roots: "c,k", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.(*rgCache).Panics#entry", Func: "rt.(*rgCache).Panics", Roots: "c,k", Kind: EntrySite, Faults: FaultError},
	{ID: "rt.(*rgCache).Leaves#entry", Func: "rt.(*rgCache).Leaves", Roots: "c,k", Kind: EntrySite, Faults: FaultError},
}

// rgDuring, when set, runs in Add before it takes its lock, and in Handed
// after its lock was released.
var rgDuring func()

// Add checks before it changes anything: atomic.
func (c *rgCache) Add(k string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[0])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, k)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	if rgDuring != nil {
		rgDuring()
	}
	c.lock.Lock()
	_atx_lk.Acquired(&c.lock)
	if len(c.items) >= c.limit {
		_atx_lk.Releasing(&c.lock)
		c.lock.Unlock()
		_atx_r0, _atx_done = errRgFull, 1
		return
	}
	c.items[k] = 1
	_atx_lk.Releasing(&c.lock)
	c.lock.Unlock()
	_atx_done = 2
	return
}

// Push records the key before it checks the limit: non-atomic.
func (c *rgCache) Push(k string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[1])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, k)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	c.lock.Lock()
	_atx_lk.Acquired(&c.lock)
	c.order = append(c.order, k)
	full := len(c.items) >= c.limit
	_atx_lk.Releasing(&c.lock)
	c.lock.Unlock()
	if full {
		_atx_r0, _atx_done = errRgFull, 1
		return
	}
	_atx_done = 2
	return
}

// setAll sets 1 in each shard, one lock at a time, and fails at a shard
// that has it already: non-atomic when that is not the first.
func setAll(shards []*rgShard) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[2])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{(*rgShard)(nil), "mu"}, shards)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	for _, s := range shards {
		s.mu.Lock()
		_atx_lk.Acquired(&s.mu)
		if s.m[1] != 0 {
			_atx_lk.Releasing(&s.mu)
			s.mu.Unlock()
			_atx_r0, _atx_done = errRgFull, 1
			return
		}
		s.m[1] = 1
		_atx_lk.Releasing(&s.mu)
		s.mu.Unlock()
	}
	_atx_done = 2
	return
}

// Held changes the items and fails with the lock still held, released by
// a deferred unlock: non-atomic.
func (c *rgCache) Held(k string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[3])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, k)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	if k == "" {
		_atx_r0, _atx_done = errRgFull, 1
		return
	}
	c.lock.Lock()
	_atx_lk.Acquired(&c.lock)
	defer c.lock.Unlock()
	defer _atx_lk.Releasing(&c.lock)
	c.items[k] = 2
	_atx_r0, _atx_done = errRgFull, 2
	return
}

// Out writes its argument outside the lock, and changes nothing under
// it: non-atomic, by the comparison at exit.
func (c *rgCache) Out(out *[]string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[4])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, out)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	c.lock.Lock()
	_atx_lk.Acquired(&c.lock)
	n := len(c.items)
	_atx_lk.Releasing(&c.lock)
	c.lock.Unlock()
	*out = append(*out, "x")
	if n >= 0 {
		_atx_r0, _atx_done = errRgFull, 1
		return
	}
	_atx_done = 2
	return
}

// moveShard reads under the read lock, then writes under the lock, and
// fails after it put the value back: a region that leaves no change.
func moveShard(s *rgShard) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[5])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{s, "mu"}, s)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	s.mu.RLock()
	_atx_lk.ReadAcquired(&s.mu)
	v := s.m[1]
	_atx_lk.Releasing(&s.mu)
	s.mu.RUnlock()
	s.mu.Lock()
	_atx_lk.Acquired(&s.mu)
	s.m[2] = v
	delete(s.m, 2)
	_atx_lk.Releasing(&s.mu)
	s.mu.Unlock()
	_atx_r0, _atx_done = errRgFull, 1
	return
}

// Try changes the items when it gets the lock, and fails either way.
func (c *rgCache) Try(k string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[6])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, k)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	if !_atx_lk.Tried(&c.lock, c.lock.TryLock()) {
		_atx_r0, _atx_done = errRgFull, 1
		return
	}
	c.items[k] = 3
	_atx_lk.Releasing(&c.lock)
	c.lock.Unlock()
	_atx_r0, _atx_done = errRgFull, 2
	return
}

// Handed changes the items, and its lock is released as a callee would
// release it, with no Releasing: the region is not compared.
func (c *rgCache) Handed(k string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[7])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, k)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	c.lock.Lock()
	_atx_lk.Acquired(&c.lock)
	c.items[k] = 5
	c.lock.Unlock()
	if rgDuring != nil {
		rgDuring()
	}
	_atx_r0, _atx_done = errRgFull, 1
	return
}

// Panics changes the items and panics with its lock held, as a failing
// callee makes a function that does not defer its unlock: the region is
// compared with the lock still held.
func (c *rgCache) Panics(k string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[8])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, k)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	c.lock.Lock()
	_atx_lk.Acquired(&c.lock)
	c.items[k] = 6
	panic(errRgFull)
}

// Leaves changes the items and fails with its lock held, for its caller
// to release.
func (c *rgCache) Leaves(k string) (_atx_r0 error) {
	var _atx_done int32
	var _atx_lk *Regions
	_atx_c := Begin(&rgSites[9])
	if _atx_c.Wants() {
		_atx_lk = _atx_c.SnapRegions([]any{c, "lock"}, c, k)
	}
	defer _atx_c.Exit(&_atx_done, &_atx_r0)
	c.lock.Lock()
	_atx_lk.Acquired(&c.lock)
	c.items[k] = 7
	_atx_r0, _atx_done = errRgFull, 1
	return
}

func TestLockRegions(t *testing.T) {
	tests := []struct {
		name string
		run  func(c *rgCache, shards []*rgShard)
		// want: the verdict, then the path or the reason.
		want [][2]string
	}{
		{"checks first", func(c *rgCache, _ []*rgShard) { c.Add("a") }, [][2]string{{"atomic", ""}}},
		{"changes, then fails after the unlock", func(c *rgCache, _ []*rgShard) { c.Push("a") }, [][2]string{{"non-atomic", "c.order"}}},
		{"a region per item", func(_ *rgCache, shards []*rgShard) {
			shards[1].m[1] = 1
			setAll(shards)
		}, [][2]string{{"non-atomic", "shards[0].m[1]"}}},
		{"fails at the first item", func(_ *rgCache, shards []*rgShard) {
			shards[0].m[1] = 1
			setAll(shards)
		}, [][2]string{{"atomic", ""}}},
		{"held across the return", func(c *rgCache, _ []*rgShard) { c.Held("b") }, [][2]string{{"non-atomic", "c.items[\"b\"]"}}},
		{"fails before the lock", func(c *rgCache, _ []*rgShard) { c.Held("") }, [][2]string{{"atomic", ""}}},
		{"outside the lock", func(c *rgCache, _ []*rgShard) {
			var out []string
			c.Out(&out)
		}, [][2]string{{"non-atomic", "*out"}}},
		{"read, then write back", func(_ *rgCache, shards []*rgShard) { moveShard(shards[0]) }, [][2]string{{"atomic", ""}}},
		{"TryLock taken", func(c *rgCache, _ []*rgShard) { c.Try("t") }, [][2]string{{"non-atomic", "c.items[\"t\"]"}}},
		{"TryLock failed", func(c *rgCache, _ []*rgShard) {
			held := make(chan struct{})
			release := make(chan struct{})
			done := make(chan struct{})
			go func() {
				c.lock.Lock()
				close(held)
				<-release
				c.lock.Unlock()
				close(done)
			}()
			<-held
			c.Try("t")
			close(release)
			<-done
		}, [][2]string{{"atomic", ""}}},
		{"released by a callee", func(c *rgCache, _ []*rgShard) { c.Handed("h") }, [][2]string{{"unknown", ReasonRegionOpen}}},
		{"released by a callee, then taken elsewhere", func(c *rgCache, _ []*rgShard) {
			// The lock is locked again when Handed fails, by another
			// goroutine: the region is not read.
			held := make(chan struct{})
			release := make(chan struct{})
			done := make(chan struct{})
			rgDuring = func() {
				go func() {
					c.lock.Lock()
					Took(&c.lock)
					close(held)
					<-release
					c.lock.Unlock()
					close(done)
				}()
				<-held
			}
			defer func() { rgDuring = nil }()
			c.Handed("h")
			close(release)
			<-done
		}, [][2]string{{"unknown", contendedReason("")}}},
		{"panics with the lock held", func(c *rgCache, _ []*rgShard) {
			defer func() {
				if recover() == nil {
					t.Error("Panics did not panic")
				}
				c.lock.Unlock()
			}()
			c.Panics("p")
		}, [][2]string{{"non-atomic", "c.items[\"p\"]"}}},
		{"fails with the lock held for the caller", func(c *rgCache, _ []*rgShard) {
			c.Leaves("l")
			c.lock.Unlock()
		}, [][2]string{{"non-atomic", "c.items[\"l\"]"}}},
		{"locked elsewhere at entry", func(c *rgCache, _ []*rgShard) {
			// Another goroutine holds the lock when Add begins: the
			// snapshot at entry does not read what it guards, and the
			// region is snapshotted once Add holds it.
			held := make(chan struct{})
			release := make(chan struct{})
			go func() {
				c.lock.Lock()
				close(held)
				<-release
				c.items["other"] = 1
				c.lock.Unlock()
			}()
			<-held
			rgDuring = func() { close(release) }
			defer func() { rgDuring = nil }()
			c.Add("a")
		}, [][2]string{{"atomic", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := useRun(t, "", [5]string{"", "", "all", "", ""})
			for i := range rgSites {
				rgSites[i].calls.Store(0)
				rgSites[i].targets.store(nil)
			}
			c := &rgCache{items: map[string]int{"x": 1}, limit: 1}
			shards := []*rgShard{{m: map[int]int{}}, {m: map[int]int{}}}
			tt.run(c, shards)
			resetEventLog()
			var got [][2]string
			for _, e := range readEvents(t, logPath) {
				if e["event"] != "verdict" {
					continue
				}
				detail, _ := e["path"].(string)
				if r, ok := e["reason"].(string); ok {
					detail = r
				}
				got = append(got, [2]string{e["verdict"].(string), detail})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("verdicts %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("verdict %d: %q, want %q", i, got[i], tt.want[i])
				}
			}
			if n := holders.n.Load(); n != 0 {
				t.Errorf("%d locks left held in holders", n)
			}
			if n := watched.n.Load(); n != 0 {
				t.Errorf("%d watches left", n)
			}
		})
	}
}

// TestRegionsConcurrent: calls of every shape at once, on shared objects,
// every call snapshotted. Run with -race: no snapshot reads what a lock
// guards without holding it.
func TestRegionsConcurrent(t *testing.T) {
	useRun(t, "", [5]string{"", "", "all", "", ""})
	c := &rgCache{items: map[string]int{}, limit: 50}
	shards := []*rgShard{{m: map[int]int{}}, {m: map[int]int{}}, {m: map[int]int{}}}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				k := string(rune('a' + g))
				c.Add(k)
				c.Push(k)
				c.Held(k)
				c.Try(k)
				var out []string
				c.Out(&out)
				setAll(shards)
				moveShard(shards[i%3])
				c.Leaves(k)
				c.lock.Unlock()
				func() {
					defer func() {
						recover()
						c.lock.Unlock()
					}()
					c.Panics(k)
				}()
			}
		}()
	}
	wg.Wait()
	if n := holders.n.Load(); n != 0 {
		t.Errorf("%d locks left held in holders", n)
	}
}
