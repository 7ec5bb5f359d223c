package rt

import (
	"errors"
	"slices"
	"testing"
)

type resource struct{ name string }

type holder struct {
	res  *resource
	list []*resource
}

// acquireAndFail is a masked call by hand: it acquires a resource per
// name, stores those listed in keep into h, and ends as fail says.
func acquireAndFail(t *testing.T, h *holder, names []string, keep map[string]bool, fail string, released *[]string) (err error) {
	s := &Site{Func: "github.com/atomicx/atomicx/rt.acquireAndFail"}
	var done bool
	var rel Releases
	defer rel.OnFailure(s, &done, &err)
	defer func() {
		if r := recover(); r != nil && fail != "panic-recovered" {
			panic(r)
		}
	}()
	for _, n := range names {
		r := &resource{n}
		rel.Add(r, func() {
			*released = append(*released, r.name)
			if r.name == "panics" {
				panic("release failed")
			}
		}, h)
		if keep[n] {
			h.list = append(h.list, r)
		}
	}
	switch fail {
	case "error":
		err = errors.New("failed")
	case "panic", "panic-recovered":
		panic("boom")
	}
	done = true
	return err
}

func TestReleasesOnFailure(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		keep  map[string]bool // still referenced by the roots after the call
		fail  string
		want  []string
	}{
		{"success releases nothing", []string{"a", "b"}, nil, "", nil},
		{"error releases last first", []string{"a", "b"}, nil, "error", []string{"b", "a"}},
		{"still reachable is kept", []string{"a", "b"}, map[string]bool{"a": true}, "error", []string{"b"}},
		{"panic releases", []string{"a"}, nil, "panic", []string{"a"}},
		{"a recovered panic is a return", []string{"a"}, nil, "panic-recovered", nil},
		{"a panicking release is contained", []string{"a", "panics", "c"}, nil, "error", []string{"c", "panics", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var released []string
			func() {
				defer func() {
					r := recover()
					if (r != nil) != (tt.fail == "panic") {
						t.Errorf("recovered %v", r)
					}
				}()
				acquireAndFail(t, &holder{}, tt.names, tt.keep, tt.fail, &released)
			}()
			if !slices.Equal(released, tt.want) {
				t.Errorf("released %q, want %q", released, tt.want)
			}
		})
	}
}

func TestReleasesIgnoreNonPointers(t *testing.T) {
	var rel Releases
	rel.Add(resource{"value"}, func() { t.Error("released a value") })
	rel.Add((*resource)(nil), func() { t.Error("released nil") })
	if len(rel.held) != 0 {
		t.Errorf("held %d resources", len(rel.held))
	}
}

// BenchmarkReleasesSuccess is the cost a masked call that acquires one
// resource and succeeds pays for its release: the registration and the
// deferred check.
func BenchmarkReleasesSuccess(b *testing.B) {
	h := &holder{}
	s := &Site{Func: "github.com/atomicx/atomicx/rt.BenchmarkReleasesSuccess"}
	for b.Loop() {
		func() (err error) {
			var done bool
			var rel Releases
			defer rel.OnFailure(s, &done, &err)
			r := &resource{"a"}
			rel.Add(r, func() { _ = r.name }, h)
			h.res = r
			done = true
			return nil
		}()
	}
}

// closer has releases of the signatures that method values of the leak
// policy's release methods have.
type closer struct{ calls []string }

func (c *closer) Close() error           { c.calls = append(c.calls, "Close"); return errors.New("x") }
func (c *closer) Stop() bool             { c.calls = append(c.calls, "Stop"); return true }
func (c *closer) Cancel()                { c.calls = append(c.calls, "Cancel") }
func (c *closer) Shutdown() (int, error) { c.calls = append(c.calls, "Shutdown"); return 0, nil }
func (c *closer) Done(opts ...string)    { c.calls = append(c.calls, "Done") }

// TestReleaseMethodValues checks that a release passed as a method value
// runs whatever its results: the generated code passes one, not a
// function literal.
func TestReleaseMethodValues(t *testing.T) {
	c := &closer{}
	tests := []struct {
		name    string
		release any
	}{
		{"Close", c.Close},
		{"Stop", c.Stop},
		{"Cancel", c.Cancel},
		{"Shutdown", c.Shutdown},
		{"Done", c.Done},
	}
	for _, tt := range tests {
		c.calls = nil
		var rel Releases
		rel.Add(c, tt.release)
		err := errors.New("failed")
		done := true
		rel.OnFailure(&Site{Func: "m.F"}, &done, &err)
		if !slices.Equal(c.calls, []string{tt.name}) {
			t.Errorf("%s: released by %v, want %s", tt.name, c.calls, tt.name)
		}
	}
}
