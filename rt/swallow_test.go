package rt

import (
	"errors"
	"io"
	"runtime"
	"testing"
)

// The functions below are written the way a masking build wraps
// failure-oblivious functions: plain (Swallow), atomic (Oblivious, then
// the rollback), and masked only, for comparison.

type swVec struct {
	size int
	data []int
}

var swSites = [...]Site{
	{ID: "example.com/m.(*swVec).masked#entry", Func: "github.com/atomicx/atomicx/rt.(*swVec).masked", Roots: "v,x", Kind: EntrySite},
	{ID: "example.com/m.(*swVec).atomic#entry", Func: "github.com/atomicx/atomicx/rt.(*swVec).atomic", Roots: "v,x", Kind: EntrySite},
	{ID: "example.com/m.(*swVec).unmaskable#entry", Func: "github.com/atomicx/atomicx/rt.(*swVec).unmaskable", Roots: "v,x", Kind: EntrySite},
	{ID: "example.com/m.(*swVec).plain#entry", Func: "github.com/atomicx/atomicx/rt.(*swVec).plain", Roots: "v,x", Kind: EntrySite},
}

// put changes v, then fails on x < 0 with an error, and x > 100 with a
// panic; x == 0 ends the goroutine; x == 50 returns io.EOF, done.
func (v *swVec) put(x int) (n int, err error) {
	v.size++
	v.data = append(v.data, x)
	switch {
	case x == 50:
		return v.size, io.EOF
	case x < 0:
		return v.size, errNegative
	case x > 100:
		panic("too large")
	case x == 0:
		runtime.Goexit()
	}
	return v.size, nil
}

//go:noinline
func (v *swVec) plain(x int) (n int, err error) {
	defer Swallow(&swSites[3], &err)
	n, err = v.put(x)
	return n, err
}

//go:noinline
func (v *swVec) masked(x int) (n int, err error) {
	var done bool
	defer Mask(&swSites[0], v).Rollback(&done, &err)
	n, err = v.put(x)
	done = true
	return n, err
}

//go:noinline
func (v *swVec) atomic(x int) (n int, err error) {
	var done bool
	var ob Oblivious
	defer ob.Swallow(&swSites[1], &done, &err)
	defer ob.Masked(Mask(&swSites[1], v)).Rollback(&done, &err)
	n, err = v.put(x)
	done = true
	return n, err
}

// late is atomic, and one of its deferred calls panics after it has
// returned, on x == 7: not rolled back, so not swallowed either.
//
//go:noinline
func (v *swVec) late(x int) (n int, err error) {
	var done bool
	var ob Oblivious
	defer ob.Swallow(&swSites[1], &done, &err)
	defer ob.Masked(Mask(&swSites[1], v)).Rollback(&done, &err)
	defer func() {
		if x == 7 {
			panic("late")
		}
	}()
	v.size++
	done = true
	return v.size, nil
}

// unmaskable is atomic, but its checkpoint could not be taken.
//
//go:noinline
func (v *swVec) unmaskable(x int) (n int, err error) {
	var done bool
	var ob Oblivious
	defer ob.Swallow(&swSites[2], &done, &err)
	defer ob.Masked(nil).Rollback(&done, &err)
	n, err = v.put(x)
	done = true
	return n, err
}

func TestSwallow(t *testing.T) {
	type outcome struct {
		n        int
		err      error
		panicked any
		size     int
		data     int // len(data)
	}
	tests := []struct {
		name string
		call func(v *swVec, x int) (int, error)
		x    int
		want outcome
	}{
		{"plain: error swallowed, state left", (*swVec).plain, -1, outcome{n: 2, size: 2, data: 2}},
		{"plain: panic recovered, results as they were", (*swVec).plain, 200, outcome{size: 2, data: 2}},
		{"plain: success", (*swVec).plain, 5, outcome{n: 2, size: 2, data: 2}},
		{"plain: done kept", (*swVec).plain, 50, outcome{n: 2, err: io.EOF, size: 2, data: 2}},
		{"masked: rolled back, error kept", (*swVec).masked, -1, outcome{n: 2, err: errNegative, size: 1, data: 1}},
		{"masked: rolled back, panic kept", (*swVec).masked, 200, outcome{panicked: "too large", size: 1, data: 1}},
		{"masked: done, not rolled back", (*swVec).masked, 50, outcome{n: 2, err: io.EOF, size: 2, data: 2}},
		{"atomic: rolled back, error swallowed", (*swVec).atomic, -1, outcome{n: 2, size: 1, data: 1}},
		{"atomic: rolled back, panic recovered", (*swVec).atomic, 200, outcome{size: 1, data: 1}},
		{"atomic: success kept", (*swVec).atomic, 5, outcome{n: 2, size: 2, data: 2}},
		{"atomic: done kept, not rolled back", (*swVec).atomic, 50, outcome{n: 2, err: io.EOF, size: 2, data: 2}},
		{"atomic: a deferred call's panic after the return kept", (*swVec).late, 7, outcome{panicked: "late", size: 2, data: 1}},
		{"atomic without checkpoint: error kept", (*swVec).unmaskable, -1, outcome{n: 2, err: errNegative, size: 2, data: 2}},
		{"atomic without checkpoint: panic kept", (*swVec).unmaskable, 200, outcome{panicked: "too large", size: 2, data: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &swVec{size: 1, data: []int{7}}
			var got outcome
			func() {
				defer func() { got.panicked = recover() }()
				got.n, got.err = tt.call(v, tt.x)
			}()
			got.size, got.data = v.size, len(v.data)
			if got.n != tt.want.n || !errors.Is(got.err, tt.want.err) || (got.err == nil) != (tt.want.err == nil) ||
				got.panicked != tt.want.panicked || got.size != tt.want.size || got.data != tt.want.data {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSwallowGoexit: runtime.Goexit is not a failure to swallow.
func TestSwallowGoexit(t *testing.T) {
	for _, call := range []func(v *swVec, x int) (int, error){(*swVec).plain, (*swVec).atomic} {
		v := &swVec{}
		after := false
		done := make(chan struct{})
		go func() {
			defer close(done)
			call(v, 0)
			after = true
		}()
		<-done
		if after {
			t.Error("the goroutine went on after runtime.Goexit")
		}
	}
}

// BenchmarkObliviousSuccess is a call that succeeds of a function masked
// only, and of the same function atomic failure-oblivious or plain
// failure-oblivious, as a masking build wraps them.
func BenchmarkObliviousSuccess(b *testing.B) {
	for _, bb := range []struct {
		name string
		call func(v *swVec, x int) (int, error)
	}{
		{"kind=masked", (*swVec).masked},
		{"kind=atomic", (*swVec).atomic},
		{"kind=plain", (*swVec).plain},
	} {
		b.Run(bb.name, func(b *testing.B) {
			v := &swVec{data: make([]int, 0, 8)}
			b.ReportAllocs()
			for b.Loop() {
				v.size, v.data = 0, v.data[:0]
				if _, err := bb.call(v, 5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
