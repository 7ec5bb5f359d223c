package rt

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
)

// funcName is the runtime.Func.Name() of a function value.
func funcName(fn any) string {
	return runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
}

// unwindSubject defers a check of unwinding for itself, then does what
// body does; the check's result is stored in *got.
//
//go:noinline
func unwindSubject(got *bool, body func()) {
	defer func() { *got = unwinding(funcName(unwindSubject)) }()
	body()
}

// unwindRecovering is unwindSubject with a deferred recover registered
// after the check, so that it runs before it.
//
//go:noinline
func unwindRecovering(got *bool, body func()) {
	defer func() { *got = unwinding(funcName(unwindRecovering)) }()
	defer func() { recover() }()
	body()
}

// unwindGeneric is unwindSubject as a generic function, named the way the
// rewriter names it in Site.Func.
//
//go:noinline
func unwindGeneric[T any](got *bool, body func()) {
	defer func() { *got = unwinding("github.com/atomicx/atomicx/rt.unwindGeneric[...]") }()
	body()
}

func deepPanic(n int) {
	if n == 0 {
		panic("deep")
	}
	deepPanic(n - 1)
}

func TestUnwinding(t *testing.T) {
	tests := []struct {
		name    string
		subject func(*bool, func())
		body    func()
		want    bool
	}{
		{"normal return", unwindSubject, func() {}, false},
		{"panic", unwindSubject, func() { panic("boom") }, true},
		{"panic from deep below", unwindSubject, func() { deepPanic(100) }, true},
		{"panic with an error value", unwindSubject, func() { panic(errors.New("boom")) }, true},
		{"runtime.Goexit", unwindSubject, runtime.Goexit, true},
		{"return after a recover in a later deferred call", unwindRecovering, func() { panic("boom") }, false},
		{"normal return with a deferred recover", unwindRecovering, func() {}, false},
		{"generic function, normal return", unwindGeneric[int], func() {}, false},
		{"generic function, panic", unwindGeneric[string], func() { panic("boom") }, true},
		{"runtime error", unwindSubject, func() {
			var m map[string]int
			m["x"] = 1
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bool
			var wg sync.WaitGroup
			wg.Add(1)
			// A goroutine of its own, so that Goexit and panics end there.
			go func() {
				defer wg.Done()
				defer func() { recover() }()
				tt.subject(&got, tt.body)
			}()
			wg.Wait()
			if got != tt.want {
				t.Errorf("unwinding = %v, want %v", got, tt.want)
			}
		})
	}
}

// siteSpec holds the exported fields of a Site: a Site itself must not be
// copied.
type siteSpec struct {
	ID, Func, Pos string
	Faults        Faults
	Ignored       bool
}

func TestInjectOccurrence(t *testing.T) {
	const id = "example.com/m.(*T).M#entry"
	tests := []struct {
		name      string
		armed     settings
		site      siteSpec
		calls     int
		wantFire  int  // 1-based call that fails; 0: none
		wantPanic bool // the fault is a panic
	}{
		{
			name:     "third occurrence, error",
			armed:    settings{enabled: true, armedID: id, armedOcc: 3, armedErr: true},
			site:     siteSpec{ID: id, Func: "example.com/m.(*T).M", Pos: "example.com/m/t.go:10:14", Faults: FaultError | FaultPanic},
			calls:    10,
			wantFire: 3,
		},
		{
			name:     "first occurrence",
			armed:    settings{enabled: true, armedID: id, armedOcc: 1, armedErr: true},
			site:     siteSpec{ID: id, Pos: "p", Faults: FaultError},
			calls:    4,
			wantFire: 1,
		},
		{
			name:  "occurrence never reached",
			armed: settings{enabled: true, armedID: id, armedOcc: 11, armedErr: true},
			site:  siteSpec{ID: id, Faults: FaultError},
			calls: 10,
		},
		{
			name:  "another site",
			armed: settings{enabled: true, armedID: id, armedOcc: 1, armedErr: true},
			site:  siteSpec{ID: id + "x", Faults: FaultError | FaultPanic},
			calls: 5,
		},
		{
			name:  "error armed where only panics are allowed",
			armed: settings{enabled: true, armedID: id, armedOcc: 2, armedErr: true},
			site:  siteSpec{ID: id, Faults: FaultPanic},
			calls: 5,
		},
		{
			name:  "panic armed where only errors are allowed",
			armed: settings{enabled: true, armedID: id, armedOcc: 2},
			site:  siteSpec{ID: id, Faults: FaultError},
			calls: 5,
		},
		{
			name:  "ignored site: no faults",
			armed: settings{enabled: true, armedID: id, armedOcc: 1, armedErr: true},
			site:  siteSpec{ID: id, Faults: 0, Ignored: true},
			calls: 3,
		},
		{
			name:      "panic",
			armed:     settings{enabled: true, armedID: id, armedOcc: 2},
			site:      siteSpec{ID: id, Func: "example.com/m.(*T).M", Pos: "example.com/m/t.go:10:14", Faults: FaultError | FaultPanic},
			calls:     4,
			wantFire:  2,
			wantPanic: true,
		},
		{
			name:  "disabled",
			armed: settings{armedID: id, armedOcc: 1, armedErr: true},
			site:  siteSpec{ID: id, Faults: FaultError | FaultPanic},
			calls: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useSettings(t, tt.armed)
			s := &Site{ID: tt.site.ID, Func: tt.site.Func, Pos: tt.site.Pos, Faults: tt.site.Faults, Ignored: tt.site.Ignored, Kind: EntrySite}
			fired := 0
			for i := 1; i <= tt.calls; i++ {
				err, panicked := callInject(s)
				if err == nil && panicked == nil {
					continue
				}
				fired++
				if i != tt.wantFire {
					t.Errorf("call %d failed (%v, panic %v), want call %d to", i, err, panicked, tt.wantFire)
					continue
				}
				f := checkFault(t, err, panicked, tt.wantPanic)
				if f == nil {
					continue
				}
				if f.Site != s.ID || f.Pos != s.Pos || f.Occurrence != uint64(i) || f.Panic != tt.wantPanic {
					t.Errorf("fault = %+v, want site %q pos %q occurrence %d panic %v", f, s.ID, s.Pos, i, tt.wantPanic)
				}
				if !strings.Contains(f.Error(), s.ID) {
					t.Errorf("message %q does not name the site %q", f.Error(), s.ID)
				}
				var marker interface{ AtomicxInjected() string }
				if !errors.As(error(f), &marker) || marker.AtomicxInjected() != s.ID {
					t.Errorf("the fault is not recognisable through AtomicxInjected")
				}
			}
			want := 0
			if tt.wantFire != 0 {
				want = 1
			}
			if fired != want {
				t.Errorf("%d calls failed, want %d", fired, want)
			}
			// Outside profile runs only the armed site counts its reaches.
			wantHits := uint64(0)
			if tt.armed.enabled && (tt.armed.armedID == s.ID || campaign.profile > 0) {
				wantHits = uint64(tt.calls)
			}
			if s.hits.Load() != wantHits {
				t.Errorf("the site counted %d reaches, want %d", s.hits.Load(), wantHits)
			}
		})
	}
}

// TestInjectAlways: armed "always", every reach of the armed site fails,
// each with its own occurrence number, and other sites never do.
func TestInjectAlways(t *testing.T) {
	const id = "example.com/m.(*T).M#entry"
	for _, tt := range []struct {
		name      string
		inject    string
		faults    Faults
		wantPanic bool
		wantFails int
	}{
		{name: "errors", inject: "error:always:" + id, faults: FaultError, wantFails: 4},
		{name: "panics", inject: "panic:always:" + id, faults: FaultError | FaultPanic, wantPanic: true, wantFails: 4},
		{name: "fault the policy does not allow", inject: "panic:always:" + id, faults: FaultError},
		{name: "one-shot for comparison", inject: "error:2:" + id, faults: FaultError, wantFails: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			useSettings(t, parseSettings("", tt.inject))
			armed := &Site{ID: id, Func: "example.com/m.(*T).M", Pos: "example.com/m/t.go:10:14", Faults: tt.faults, Kind: EntrySite}
			other := &Site{ID: "example.com/m.F#entry", Faults: FaultError | FaultPanic, Kind: EntrySite}
			fails := 0
			for i := 1; i <= 4; i++ {
				if err, panicked := callInject(other); err != nil || panicked != nil {
					t.Errorf("reach %d of a site not armed failed: %v, panic %v", i, err, panicked)
				}
				err, panicked := callInject(armed)
				if err == nil && panicked == nil {
					continue
				}
				fails++
				if f := checkFault(t, err, panicked, tt.wantPanic); f != nil && f.Occurrence != uint64(i) {
					t.Errorf("reach %d failed as occurrence %d", i, f.Occurrence)
				}
			}
			if fails != tt.wantFails {
				t.Errorf("%d of 4 reaches failed, want %d", fails, tt.wantFails)
			}
			if fired := injected.fired.Load(); fired != (tt.wantFails > 0) {
				t.Errorf("the injection was recorded: %v, want %v", fired, tt.wantFails > 0)
			}
		})
	}
}

func callInject(s *Site) (err error, panicked any) {
	defer func() { panicked = recover() }()
	return Inject(s), nil
}

func checkFault(t *testing.T, err error, panicked any, wantPanic bool) *InjectedFault {
	t.Helper()
	if wantPanic {
		if err != nil {
			t.Errorf("Inject returned %v, want a panic", err)
		}
		f, ok := panicked.(*InjectedFault)
		if !ok {
			t.Errorf("Inject panicked with %#v, want an *InjectedFault", panicked)
		}
		return f
	}
	if panicked != nil {
		t.Errorf("Inject panicked with %v, want an error", panicked)
		return nil
	}
	var f *InjectedFault
	if !errors.As(err, &f) {
		t.Errorf("Inject returned %#v, want an *InjectedFault", err)
	}
	return f
}

// The functions below are written the way the rewriter instruments them.

var errFull = errors.New("full")

type eeVec struct {
	size int
	data []int
}

var eeSites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.(*eeVec).Alloc#entry", Func: "github.com/atomicx/atomicx/rt.(*eeVec).Alloc", Pos: "rt/call_test.go:1:1", Roots: "v,n", Kind: EntrySite, Faults: FaultError | FaultPanic, Ends: []int32{101, 102}},
	{ID: "github.com/atomicx/atomicx/rt.(*eeVec).Check#entry", Func: "github.com/atomicx/atomicx/rt.(*eeVec).Check", Pos: "rt/call_test.go:2:1", Roots: "v,n", Kind: EntrySite, Faults: FaultError},
	{ID: "github.com/atomicx/atomicx/rt.(*eeVec).Grow#entry", Func: "github.com/atomicx/atomicx/rt.(*eeVec).Grow", Pos: "rt/call_test.go:3:1", Roots: "v,n", Kind: EntrySite, Faults: FaultPanic},
	{ID: "github.com/atomicx/atomicx/rt.(*eeVec).Safe#entry", Func: "github.com/atomicx/atomicx/rt.(*eeVec).Safe", Pos: "rt/call_test.go:4:1", Roots: "v", Kind: EntrySite, Faults: FaultError},
	{ID: "github.com/atomicx/atomicx/rt.(*eeVec).Push#entry", Func: "github.com/atomicx/atomicx/rt.(*eeVec).Push", Pos: "rt/call_test.go:5:1", Roots: "v,x", Kind: EntrySite, Faults: FaultError, Ends: []int32{501, 502}},
	{ID: "github.com/atomicx/atomicx/rt.(*eeVec).Read#entry", Func: "github.com/atomicx/atomicx/rt.(*eeVec).Read", Pos: "rt/call_test.go:6:1", Roots: "v,p", Kind: EntrySite, Faults: FaultError, Ends: []int32{601, 602, 603}},
}

// Alloc adds n to the size before it checks the capacity: not atomic.
func (v *eeVec) Alloc(n int) (_atx_r0 []int, _atx_r1 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&eeSites[0]); e != nil {
			_atx_r1 = e
			return
		}
		defer Enter(&eeSites[0], v, n).Exit(&_atx_done, &_atx_r1)
	}
	v.size += n
	if v.size > 10 {
		_atx_r0, _atx_r1 = nil, errFull
		_atx_done = 1
		return
	}
	v.data = append(v.data, make([]int, n)...)
	_atx_r0, _atx_r1 = v.data[v.size-n:], nil
	_atx_done = 2
	return
}

// Check fails before it changes anything: atomic.
func (v *eeVec) Check(n int) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&eeSites[1]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&eeSites[1], v, n).Exit(&_atx_done, &_atx_r0)
	}
	if v.size+n > 10 {
		_atx_r0 = errFull
		_atx_done = 1
		return
	}
	_atx_r0 = nil
	_atx_done = 2
	return
}

// Grow panics halfway.
func (v *eeVec) Grow(n int) {
	var _atx_done int32
	if Enabled() {
		Inject(&eeSites[2])
		defer Enter(&eeSites[2], v, n).Exit(&_atx_done, nil)
	}
	v.size += n
	if v.size > 10 {
		// The directive gives the panic a line that the test can expect.
//line call_test.go:900
		panic("too big")
	}
	_atx_done = 1
}

// Safe recovers from its own panic and returns normally.
func (v *eeVec) Safe() {
	var _atx_done int32
	if Enabled() {
		Inject(&eeSites[3])
		defer Enter(&eeSites[3], v).Exit(&_atx_done, nil)
	}
	defer func() { recover() }()
	v.size++
	panic("recovered")
}

// Read is an io.Reader over the data from size on: it returns what it
// read with io.EOF at the end of the data, and fails on a nil p after it
// has moved on.
func (v *eeVec) Read(p []byte) (_atx_r0 int, _atx_r1 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&eeSites[5]); e != nil {
			_atx_r1 = e
			return
		}
		defer Enter(&eeSites[5], v, p).Exit(&_atx_done, &_atx_r1)
	}
	n := 0
	for ; n < len(p) && v.size < len(v.data); n++ {
		p[n] = byte(v.data[v.size])
		v.size++
	}
	if p == nil {
		v.size++
		_atx_r1 = errFull
		_atx_done = 1
		return
	}
	if v.size >= len(v.data) {
		_atx_r0, _atx_r1 = n, io.EOF
		_atx_done = 2
		return
	}
	_atx_r0 = n
	_atx_done = 3
	return
}

// Push calls Alloc after it has changed the receiver.
func (v *eeVec) Push(x int) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&eeSites[4]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&eeSites[4], v, x).Exit(&_atx_done, &_atx_r0)
	}
	v.data = append(v.data, -1)
	s, err := v.Alloc(1)
	if err != nil {
		_atx_r0 = err
		_atx_done = 1
		return
	}
	s[0] = x
	_atx_r0 = nil
	_atx_done = 2
	return
}

func TestSiteFuncNames(t *testing.T) {
	for i, fn := range []any{(*eeVec).Alloc, (*eeVec).Check, (*eeVec).Grow, (*eeVec).Safe, (*eeVec).Push} {
		if got := funcName(fn); got != eeSites[i].Func {
			t.Errorf("site %d: Func = %q, but runtime.Func.Name() is %q", i, eeSites[i].Func, got)
		}
	}
}

// readEvents returns the events of the log, each parsed as a JSON object.
func readEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event log line %q: %v", sc.Text(), err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

func TestEnterExitVerdicts(t *testing.T) {
	tests := []struct {
		name   string
		inject string // ATOMICX_INJECT, or ""
		// ATOMICX_PROFILE, ATOMICX_SNAPSHOTS, ATOMICX_SNAPSHOT_CALLS and ATOMICX_MASK
		profile, snapshots, calls, masks string
		budget                           int // for every site
		size                             int // of the vector at the start; 0 means 5
		run                              func(v *eeVec)
		want                             []map[string]any // expected fields of each event, in order
	}{
		{
			name: "mutate then return an error: non-atomic",
			run:  func(v *eeVec) { v.Alloc(8) },
			want: []map[string]any{{
				"event": "verdict", "site": eeSites[0].ID, "func": eeSites[0].Func, "pos": eeSites[0].Pos,
				"verdict": "non-atomic", "failure": "error", "error": "full",
				"path": "v.size", "before": "5", "after": "13",
				"injected": false, "first": true, "end": 101.0,
			}},
		},
		{
			name: "a reader's io.EOF with n > 0 is done: no event",
			size: 3,
			run: func(v *eeVec) {
				if n, err := v.Read(make([]byte, 4)); n != 2 || err != io.EOF {
					panic(fmt.Sprintf("Read: %d, %v", n, err))
				}
			},
		},
		{
			name:      "a reader's io.EOF in a profile run: no fail event",
			profile:   "1",
			snapshots: "none",
			size:      3,
			run:       func(v *eeVec) { v.Read(make([]byte, 4)) },
			want:      []map[string]any{{"event": "reach", "site": eeSites[5].ID, "occurrence": 1.0}},
		},
		{
			name: "a reader's other error is a failure",
			size: 3,
			run:  func(v *eeVec) { v.Read(nil) },
			want: []map[string]any{{
				"event": "verdict", "site": eeSites[5].ID, "verdict": "non-atomic", "failure": "error", "error": "full",
				"path": "v.size", "before": "3", "after": "4", "end": 601.0,
			}},
		},
		{
			name:  "a masked reader's io.EOF is not rolled back",
			masks: eeSites[5].ID,
			size:  3,
			run: func(v *eeVec) {
				v.Read(make([]byte, 4))
				if v.size != 5 {
					panic("Read was rolled back")
				}
			},
		},
		{
			name: "fail before any change: atomic",
			run:  func(v *eeVec) { v.Check(8) },
			want: []map[string]any{{
				"event": "verdict", "site": eeSites[1].ID, "verdict": "atomic", "failure": "error", "error": "full",
				"path": nil, "before": nil, "after": nil, "injected": false, "first": false,
			}},
		},
		{
			name: "success: no event",
			run: func(v *eeVec) {
				v.Alloc(1)
				v.Check(1)
				v.Push(3)
			},
		},
		{
			name:   "budget of 1: unknown",
			budget: 1,
			run:    func(v *eeVec) { v.Alloc(8) },
			want: []map[string]any{{
				"event": "verdict", "site": eeSites[0].ID, "verdict": "unknown", "reason": "graph too large",
				"failure": "error", "path": nil, "first": false,
			}},
		},
		{
			name: "panic halfway: non-atomic panic",
			run: func(v *eeVec) {
				defer func() { recover() }()
				v.Grow(8)
			},
			want: []map[string]any{{
				"event": "verdict", "site": eeSites[2].ID, "verdict": "non-atomic", "failure": "panic",
				"path": "v.size", "before": "5", "after": "13", "error": nil, "end": 900.0,
			}},
		},
		{
			name: "a panic the function recovers from itself: no event",
			run:  func(v *eeVec) { v.Safe() },
		},
		{
			name: "the failure propagates: one chain, the innermost non-atomic call first",
			size: 10, // Alloc(1) overflows
			run:  func(v *eeVec) { v.Push(1) },
			want: []map[string]any{
				{"event": "verdict", "site": eeSites[0].ID, "verdict": "non-atomic", "path": "v.size", "first": true, "chain": "A"},
				{"event": "verdict", "site": eeSites[4].ID, "verdict": "non-atomic", "first": false, "chain": "A", "end": 501.0},
			},
		},
		{
			name:   "an injected entry fault: the caller's verdict is in the injected chain",
			inject: "error:1:" + eeSites[0].ID,
			run:    func(v *eeVec) { v.Push(1) },
			want: []map[string]any{
				{"event": "inject", "site": eeSites[0].ID, "fault": "error", "occurrence": 1.0, "chain": "A"},
				{"event": "verdict", "site": eeSites[4].ID, "verdict": "non-atomic", "failure": "error",
					"path": "v.data", "before": "len=5", "after": "len=6", "injected": true, "first": true, "chain": "A"},
			},
		},
		{
			name:   "an injected panic: the caller fails by panic in the injected chain",
			inject: "panic:2:" + eeSites[0].ID,
			run: func(v *eeVec) {
				defer func() { recover() }()
				v.Push(1)
				v.Push(2)
			},
			want: []map[string]any{
				{"event": "inject", "site": eeSites[0].ID, "fault": "panic", "occurrence": 2.0, "chain": "A"},
				{"event": "verdict", "site": eeSites[4].ID, "verdict": "non-atomic", "failure": "panic",
					"path": "v.data", "before": "len=7", "after": "len=8", "injected": true, "first": true, "chain": "A", "error": nil},
			},
		},
		{
			name:      "profile run: reaches log the calls on the stack, failures are not snapshotted",
			profile:   "1",
			snapshots: "none",
			size:      10, // Alloc(1) overflows
			run: func(v *eeVec) {
				v.Check(1)
				v.Push(1)
			},
			want: []map[string]any{
				{"event": "reach", "site": eeSites[1].ID, "occurrence": 1.0, "stack": nil},
				{"event": "fail", "site": eeSites[1].ID, "call": 1.0, "failure": "error"},
				{"event": "reach", "site": eeSites[4].ID, "occurrence": 1.0, "stack": nil},
				{"event": "reach", "site": eeSites[0].ID, "occurrence": 1.0, "stack": "1@" + eeSites[4].ID},
				{"event": "fail", "site": eeSites[0].ID, "call": 1.0, "failure": "error"},
				{"event": "fail", "site": eeSites[4].ID, "call": 1.0, "failure": "error"},
			},
		},
		{
			name:   "experiment snapshotting only the listed call",
			inject: "error:2:" + eeSites[0].ID,
			calls:  "2@" + eeSites[4].ID,
			run: func(v *eeVec) {
				v.Push(1)
				v.Push(2)
			},
			want: []map[string]any{
				{"event": "inject", "site": eeSites[0].ID, "occurrence": 2.0, "chain": "A"},
				{"event": "verdict", "site": eeSites[4].ID, "verdict": "non-atomic", "path": "v.data",
					"before": "len=7", "after": "len=8", "injected": true, "first": true, "chain": "A"},
			},
		},
		{
			name:   "experiment whose listed call is not the one on the stack: unknown",
			inject: "error:2:" + eeSites[0].ID,
			calls:  "1@" + eeSites[4].ID,
			run: func(v *eeVec) {
				v.Push(1)
				v.Push(2)
			},
			want: []map[string]any{
				{"event": "inject", "site": eeSites[0].ID, "occurrence": 2.0, "chain": "A"},
				{"event": "verdict", "site": eeSites[4].ID, "verdict": "unknown", "reason": "not snapshotted",
					"path": nil, "injected": true, "chain": "A"},
			},
		},
		{
			name:  "a masked call is rolled back: the caller is the first non-atomic call of the chain",
			masks: eeSites[0].ID,
			size:  10, // Alloc(1) overflows
			run: func(v *eeVec) {
				v.Push(1)
				if v.size != 10 {
					panic("Alloc was not rolled back")
				}
			},
			want: []map[string]any{
				{"event": "verdict", "site": eeSites[0].ID, "verdict": "non-atomic", "path": "v.size", "first": false, "masked": true, "chain": "A"},
				{"event": "verdict", "site": eeSites[4].ID, "verdict": "non-atomic", "path": "v.data", "first": true, "masked": nil, "chain": "A"},
			},
		},
		{
			name: "sampled: a late failure sampled out is unknown, with its call; the next one is snapshotted",
			run: func(v *eeVec) {
				for range 11 {
					v.Check(1)
				}
				v.Check(8)
				v.Check(8)
			},
			want: []map[string]any{
				{"event": "verdict", "site": eeSites[1].ID, "verdict": "unknown", "failure": "error", "error": "full", "call": 12.0,
					"reason": "not snapshotted: sampled out"},
				{"event": "verdict", "site": eeSites[1].ID, "verdict": "atomic", "failure": "error", "reason": nil, "call": nil},
			},
		},
		{
			name:      "all: a late failure is snapshotted",
			snapshots: "all",
			run: func(v *eeVec) {
				for range 11 {
					v.Check(1)
				}
				v.Check(8)
			},
			want: []map[string]any{{"event": "verdict", "site": eeSites[1].ID, "verdict": "atomic", "reason": nil}},
		},
		{
			name:  "the call a sampled-out verdict names, snapshotted on request",
			calls: "12@" + eeSites[1].ID,
			run: func(v *eeVec) {
				for range 11 {
					v.Check(1)
				}
				v.Check(8)
			},
			want: []map[string]any{{"event": "verdict", "site": eeSites[1].ID, "verdict": "atomic", "reason": nil}},
		},
		{
			name:   "a natural failure outside the injected chain of a targeted run: no event",
			calls:  "5@" + eeSites[4].ID,
			size:   10,
			run:    func(v *eeVec) { v.Push(1) },
			want:   nil,
			inject: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := useRun(t, tt.inject, [5]string{tt.profile, "", tt.snapshots, tt.calls, tt.masks})
			if campaign.profile > 0 {
				config.enabled = true
			}
			t.Cleanup(func() {
				for i := range eeSites {
					eeSites[i].Budget = 0
				}
			})
			for i := range eeSites {
				eeSites[i].Budget = tt.budget
				eeSites[i].hits.Store(0)
				eeSites[i].calls.Store(0)
				eeSites[i].targets.store(nil)
				eeSites[i].retryUntil.Store(0)
				eeSites[i].retries.Store(0)
				eeSites[i].armed.Store(0)
			}

			size := 5
			if tt.size != 0 {
				size = tt.size
			}
			v := &eeVec{size: size, data: make([]int, 5)}
			tt.run(v)
			resetEventLog()

			got := readEvents(t, logPath)
			if len(got) != len(tt.want) {
				t.Fatalf("%d events, want %d: %v", len(got), len(tt.want), got)
			}
			chainNames := map[string]float64{}
			for i, want := range tt.want {
				for k, w := range want {
					g, present := got[i][k]
					if k == "chain" {
						id, ok := g.(float64)
						if !ok || id == 0 {
							t.Errorf("event %d: chain = %#v, want a chain number", i, g)
							continue
						}
						if prev, seen := chainNames[w.(string)]; seen && prev != id {
							t.Errorf("event %d: chain %v, want the chain of an earlier event (%v)", i, id, prev)
						}
						chainNames[w.(string)] = id
						continue
					}
					if w == nil {
						if present {
							t.Errorf("event %d: unexpected %s = %#v", i, k, g)
						}
						continue
					}
					if g != w {
						t.Errorf("event %d: %s = %#v, want %#v\n(event: %v)", i, k, g, w, got[i])
					}
				}
				if got[i]["pid"] != float64(os.Getpid()) {
					t.Errorf("event %d: pid = %v, want %d", i, got[i]["pid"], os.Getpid())
				}
			}
		})
	}
}

// TestProblemEvent checks that a malformed setting is reported in the log,
// once, before the first event.
func TestProblemEvent(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	useSettings(t, parseSettings(logPath, "error:x:"+eeSites[0].ID))
	v := &eeVec{size: 5}
	v.Alloc(8)
	v.Alloc(8)
	resetEventLog()
	got := readEvents(t, logPath)
	if len(got) != 3 {
		t.Fatalf("%d events, want a problem and two verdicts: %v", len(got), got)
	}
	msg, _ := got[0]["message"].(string)
	if got[0]["event"] != "problem" || !strings.Contains(msg, arm.EnvInject+"=error:x:") {
		t.Errorf("first event = %v, want a problem naming %s", got[0], arm.EnvInject)
	}
	for _, e := range got[1:] {
		if e["event"] != "verdict" {
			t.Errorf("event %v, want a verdict", e)
		}
	}
}

// TestVerdictNesting checks that verdicts say where their calls ran, so
// that a reader can tell which failed calls ran inside which: on one
// goroutine, a call entered later and logged earlier ran inside.
func TestVerdictNesting(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	useSettings(t, parseSettings(logPath, ""))
	campaign = campaignSettings{}
	for i := range eeSites {
		eeSites[i].calls.Store(0)
		eeSites[i].targets.store(nil)
	}
	v := &eeVec{size: 10, data: make([]int, 5)}
	v.Push(1)   // Alloc fails inside Push
	v.Alloc(20) // a later call, inside nothing
	resetEventLog()
	got := readEvents(t, logPath)
	if len(got) != 3 {
		t.Fatalf("%d events, want 3: %v", len(got), got)
	}
	inner, outer, later := got[0], got[1], got[2]
	if inner["site"] != eeSites[0].ID || outer["site"] != eeSites[4].ID || later["site"] != eeSites[0].ID {
		t.Fatalf("events %v, want Alloc, Push, Alloc", got)
	}
	for i, e := range got {
		if g, _ := e["g"].(float64); g == 0 || g != inner["g"] {
			t.Errorf("event %d: g = %v, want the goroutine of the first (%v)", i, e["g"], inner["g"])
		}
	}
	seq := func(e map[string]any) float64 { n, _ := e["seq"].(float64); return n }
	if !(seq(outer) > 0 && seq(inner) > seq(outer) && seq(later) > seq(inner)) {
		t.Errorf("seq: Push %v, Alloc inside it %v, later Alloc %v; want increasing from Push", seq(outer), seq(inner), seq(later))
	}
}

// afLog passes a failure on through note, a helper that changes state.
type afLog struct{ notes int }

var afSites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.(*afLog).step#entry", Func: "github.com/atomicx/atomicx/rt.(*afLog).step", Pos: "rt/call_test.go:1:1", Roots: "l", Kind: EntrySite, Faults: FaultError},
	{ID: "github.com/atomicx/atomicx/rt.(*afLog).note#entry", Func: "github.com/atomicx/atomicx/rt.(*afLog).note", Pos: "rt/call_test.go:2:1", Roots: "l,err", Kind: EntrySite, Faults: FaultError},
	{ID: "github.com/atomicx/atomicx/rt.(*afLog).Run#entry", Func: "github.com/atomicx/atomicx/rt.(*afLog).Run", Pos: "rt/call_test.go:3:1", Roots: "l", Kind: EntrySite, Faults: FaultError},
}

func (l *afLog) step() (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&afSites[0]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&afSites[0], l).Exit(&_atx_done, &_atx_r0)
	}
	_atx_done = 1
	return
}

func (l *afLog) note(err error) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&afSites[1]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&afSites[1], l, err).Exit(&_atx_done, &_atx_r0)
	}
	l.notes++
	_atx_r0 = err
	_atx_done = 1
	return
}

func (l *afLog) Run() (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&afSites[2]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&afSites[2], l).Exit(&_atx_done, &_atx_r0)
	}
	if err := l.step(); err != nil {
		_atx_r0 = l.note(err)
		_atx_done = 1
		return
	}
	_atx_done = 1
	return
}

// TestAfterFault checks that an experiment snapshots the calls that the
// injected failure's propagation makes after the fault (an error helper
// that changes state is non-atomic, inside its caller), and logs nothing
// for a natural failure after it; a natural failure before the fault,
// not snapshotted, is logged as such.
func TestAfterFault(t *testing.T) {
	logPath := useRun(t, "error:1:"+afSites[0].ID, [5]string{"", "", "before-fault", "1@" + afSites[2].ID, ""})
	l := &afLog{}
	l.note(errors.New("natural, before the fault"))
	if l.Run() == nil {
		t.Fatal("no injected failure")
	}
	l.note(errors.New("natural, after the fault"))
	resetEventLog()
	got := readEvents(t, logPath)
	if len(got) != 4 {
		t.Fatalf("%d events, want note, inject, note, Run: %v", len(got), got)
	}
	if got[0]["site"] != afSites[1].ID || got[0]["verdict"] != "unknown" || got[0]["reason"] != ReasonBeforeFault || got[0]["seq"] == nil {
		t.Errorf("event 0 = %v, want note unknown: %s, with where it ran", got[0], ReasonBeforeFault)
	}
	note, run := got[2], got[3]
	if note["site"] != afSites[1].ID || note["verdict"] != "non-atomic" || note["path"] != "l.notes" || note["injected"] != true {
		t.Errorf("event 1 = %v, want note non-atomic at l.notes, injected", note)
	}
	if run["site"] != afSites[2].ID || run["verdict"] != "non-atomic" || run["injected"] != true {
		t.Errorf("event 2 = %v, want Run non-atomic, injected", run)
	}
	if !(note["g"] == run["g"] && note["seq"].(float64) > run["seq"].(float64)) {
		t.Errorf("note (g %v, seq %v) is not inside Run (g %v, seq %v)", note["g"], note["seq"], run["g"], run["seq"])
	}
}

// TestAfterFaultOtherGoroutines checks that the calls other goroutines
// enter after the fault stop asking whether they run on the fault's
// goroutine: each asking costs microseconds, and a test that goes on with
// other cases would pay it to its end.
func TestAfterFaultOtherGoroutines(t *testing.T) {
	useRun(t, "error:1:"+afSites[0].ID, [5]string{"", "", "before-fault", ";", ""})
	for i := range afSites {
		afSites[i].hits.Store(0)
		afSites[i].calls.Store(0)
		afSites[i].targets.store(nil)
		afSites[i].armed.Store(0)
		afSites[i].tracing.Store(0)
		afSites[i].resolveTracing()
	}
	l := &afLog{}
	if l.Run() == nil {
		t.Fatal("no injected failure")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		other := &afLog{}
		for range 10 * maxAfterFaultChecks {
			other.note(nil)
		}
	}()
	<-done
	if n := afterFaultChecks.Load(); n != maxAfterFaultChecks {
		t.Errorf("%d calls after the fault asked for their goroutine, want %d (the bound)", n, maxAfterFaultChecks)
	}
	if n := afterFault.Load(); n == 0 || n > maxAfterFault {
		t.Errorf("%d calls of the fault's goroutine counted after it, want between 1 and %d", n, maxAfterFault)
	}
}

// TestEnterEvent checks that a profile run logs the first call of a
// function whose entry no fault can make fail, once, and nothing of the
// others.
func TestEnterEvent(t *testing.T) {
	logPath := useRun(t, "", [5]string{"1", "", "none", "", ""})
	config.enabled = true
	afSites[0].Faults = 0
	t.Cleanup(func() { afSites[0].Faults = FaultError })
	for i := range afSites {
		afSites[i].calls.Store(0)
		afSites[i].hits.Store(0)
	}
	l := &afLog{}
	l.Run()
	l.Run()
	resetEventLog()
	var enters []map[string]any
	for _, e := range readEvents(t, logPath) {
		if e["event"] == "enter" {
			enters = append(enters, e)
		}
	}
	if len(enters) != 1 || enters[0]["site"] != afSites[0].ID || enters[0]["func"] != afSites[0].Func || enters[0]["pos"] != afSites[0].Pos {
		t.Errorf("enter events %v, want one, of step", enters)
	}
}

// leafUnwound is what exitOfLeaf saw.
var leafUnwound struct {
	panicking bool
	line      int
}

// exitOfLeaf stands for Exit deferred by a leaf function literal, whose
// frame's name Enter does not look up.
func exitOfLeaf() { leafUnwound.panicking, leafUnwound.line = unwindingAt(nil) }

// TestUnwindingLeafLiteral: unwindingAt(nil) finds a leaf literal's frame
// as the first outside the runtime below the panic, whatever the runtime
// function that panicked, and the line the panic went through.
func TestUnwindingLeafLiteral(t *testing.T) {
	_, _, line, _ := runtime.Caller(0)
	tests := []struct {
		name string
		body func()
		line int
	}{
		{"index out of range", func() { defer exitOfLeaf(); var a []int; _ = a[len(a)+2] }, line + 6},
		{"panic", func() { defer exitOfLeaf(); panic("boom") }, line + 7},
		{"nil map write", func() { defer exitOfLeaf(); var m map[int]int; m[1] = 2 }, line + 8},
		{"division by zero", func() { defer exitOfLeaf(); x := 0; _ = 1 / x }, line + 9},
	}
	for _, tt := range tests {
		leafUnwound.panicking, leafUnwound.line = false, 0
		func() {
			defer func() { recover() }()
			tt.body()
		}()
		if !leafUnwound.panicking || leafUnwound.line != tt.line {
			t.Errorf("%s: unwindingAt(nil) = %t, line %d; want true, line %d", tt.name, leafUnwound.panicking, leafUnwound.line, tt.line)
		}
	}
}

// TestLiteralFrame: a function literal whose frame name was not learnt
// matches its own frames and those of its copies in the functions that
// the function around it is inlined into, and no other literal's.
func TestLiteralFrame(t *testing.T) {
	tests := []struct {
		fn, frame string
		want      bool
	}{
		{"example.com/m.F.func1", "example.com/m.F.func1", true},
		{"example.com/m.F.func1", "example.com/m.G.F.func1", true},
		{"example.com/m.F.func1", "example.com/m.(*T).G.F.func1", true},
		{"example.com/m.(*T).F.func2", "example.com/m.main.(*T).F.func2", true},
		{"example.com/m.F[...].func1", "example.com/m.G.F[...].func1", true},
		{"gopkg.in/yaml%2ev3.F.func1", "gopkg.in/yaml%2ev3.G.F.func1", true},
		{"example.com/m.F.func1", "example.com/m.F.func1.1", false},
		{"example.com/m.F.func1", "example.com/m.F.func12", false},
		{"example.com/m.F.func1", "example.com/m.G.func1", false},
		{"example.com/m.F.func1", "example.com/mm.G.F.func1", false},
		{"example.com/m.F.func1", "example.com/other.G.F.func1", false},
		{"example.com/m.F.func1", "example.com/m..F.func1", false},
	}
	for _, tt := range tests {
		if got := literalFrame(tt.fn)(tt.frame); got != tt.want {
			t.Errorf("literalFrame(%q)(%q) = %t, want %t", tt.fn, tt.frame, got, tt.want)
		}
	}
}

// litCopySites stand for function literals whose code runs as a copy:
// their names leave out the function the copy is inlined into, the test
// below, whose literals the runtime names
// github.com/atomicx/atomicx/rt.TestExperimentLiteralCopy.funcN.
var litCopySites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.func1#entry", Func: "github.com/atomicx/atomicx/rt.func1", Kind: EntrySite, Literal: true},
	{ID: "github.com/atomicx/atomicx/rt.func2#entry", Func: "github.com/atomicx/atomicx/rt.func2", Kind: EntrySite, Literal: true},
}

// TestExperimentLiteralCopy: an experiment's call of a function literal
// that calls others does not walk the stack at entry, and its Exit still
// tells its frame among the copies' names: a panic that a deferred
// function of the literal recovers ends the call normally, and a panic
// through it is a failure.
func TestExperimentLiteralCopy(t *testing.T) {
	logPath := useRun(t, "", [5]string{"", "", "all", "", ""})
	var atEntry *callExt
	recovered := func() {
		var _atx_done int32
		c := Begin(&litCopySites[0])
		atEntry = c.ext
		if c.Wants() {
			c.Snap()
		}
		defer c.Exit(&_atx_done, nil)
		defer func() { recover() }()
		panic("recovered inside")
	}
	recovered()
	func() {
		defer func() { recover() }()
		func() {
			var _atx_done int32
			c := Begin(&litCopySites[1])
			if c.Wants() {
				c.Snap()
			}
			defer c.Exit(&_atx_done, nil)
			panic("through")
		}()
	}()
	resetEventLog()
	if atEntry != nil {
		t.Errorf("the experiment's call learnt its frame at entry (%q): a stack walk per call", atEntry.frame)
	}
	var verdicts []string
	for _, e := range readEvents(t, logPath) {
		if e["event"] == "verdict" {
			verdicts = append(verdicts, fmt.Sprint(e["site"], " ", e["failure"]))
		}
	}
	if want := []string{litCopySites[1].ID + " panic"}; !slices.Equal(verdicts, want) {
		t.Errorf("verdicts %q, want %q", verdicts, want)
	}
}

// TestPerturbationRunStack: a run that arms a point without snapshots (a
// perturbation run) logs, with the injection, its goroutine and the calls
// on its stack by its own numbers, and the goroutine of each failure that
// follows, which a campaign matches against them.
func TestPerturbationRunStack(t *testing.T) {
	tests := []struct {
		name, inject, snapshots string
		wantStack               any // nil: no stack logged
		wantG                   bool
	}{
		{"perturbation run", "error:2:" + eeSites[0].ID, "none", "2@" + eeSites[4].ID, true},
		{"detection experiment", "error:2:" + eeSites[0].ID, "before-fault", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := useRun(t, tt.inject, [5]string{"", "", tt.snapshots, "", ""})
			for i := range eeSites {
				eeSites[i].hits.Store(0)
				eeSites[i].calls.Store(0)
				eeSites[i].armed.Store(0)
			}
			v := &eeVec{size: 5, data: make([]int, 5)}
			v.Push(1)
			v.Push(2)
			resetEventLog()
			var inj, fail map[string]any
			for _, e := range readEvents(t, logPath) {
				switch {
				case e["event"] == "inject":
					inj = e
				case e["event"] == "fail" && e["site"] == eeSites[4].ID:
					fail = e
				}
			}
			if inj == nil {
				t.Fatal("no inject event")
			}
			if got := inj["stack"]; got != tt.wantStack {
				t.Errorf("inject stack = %#v, want %#v", got, tt.wantStack)
			}
			if _, ok := inj["g"]; ok != tt.wantG {
				t.Errorf("inject event has g: %v, want %v", ok, tt.wantG)
			}
			if !tt.wantG {
				return
			}
			if fail == nil || fail["call"] != 2.0 || fail["g"] != inj["g"] {
				t.Errorf("fail event of the caller = %v, want call 2 on the injection's goroutine %v", fail, inj["g"])
			}
		})
	}
}
