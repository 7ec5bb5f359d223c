package rt

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// failingConn is a syscall.Conn whose SyscallConn fails, or panics.
type failingConn struct{ panics bool }

func (c failingConn) SyscallConn() (syscall.RawConn, error) {
	if c.panics {
		panic("no descriptor")
	}
	return nil, errors.New("no descriptor")
}

func TestProbeState(t *testing.T) {
	open := func(t *testing.T) *os.File {
		f, err := os.Open(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	listen := func(t *testing.T) net.Listener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Skip("no loopback:", err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	tests := []struct {
		name string
		res  func(t *testing.T) any
		want string
	}{
		{"open file", func(t *testing.T) any { return open(t) }, ProbeOpen},
		{"closed file", func(t *testing.T) any { f := open(t); f.Close(); return f }, ProbeClosed},
		{"open pipe keeps its mode", func(t *testing.T) any {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			return r
		}, ProbeOpen},
		{"open listener, as the interface", func(t *testing.T) any { return listen(t) }, ProbeOpen},
		{"closed listener", func(t *testing.T) any { l := listen(t); l.Close(); return l }, ProbeClosed},
		{"not a syscall.Conn", func(t *testing.T) any { return &resource{"r"} }, ProbeUnknown},
		{"SyscallConn fails", func(t *testing.T) any { return failingConn{} }, ProbeUnknown},
		{"SyscallConn panics", func(t *testing.T) any { return failingConn{panics: true} }, ProbeUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := probeState(tt.res(t)); got != tt.want {
				t.Errorf("probeState = %q, want %q", got, tt.want)
			}
		})
	}
}

// probeCall is a function with probes by hand: it acquires the files,
// closes those listed in closed, and returns err at its return of line 7.
func probeCall(s *Site, files []*os.File, closed map[int]bool, err error) (errResult error) {
	var done int32
	var pr Probes
	defer pr.AtExit(s, &done, &errResult)
	for i, f := range files {
		pr.Add("example.com/m/m.go:"+strconv.Itoa(i+1)+":9", f)
		if closed[i] {
			f.Close()
		}
	}
	errResult, done = err, 1
	return errResult
}

func TestProbesAtExit(t *testing.T) {
	s := &Site{ID: "example.com/m.F#entry", Ends: []int32{7}}
	tests := []struct {
		name   string
		log    bool
		closed map[int]bool
		err    error
		want   []string // acquire=state of each event
	}{
		{"error return: each resource, in order", true, map[int]bool{1: true}, errors.New("failed"),
			[]string{"example.com/m/m.go:1:9=open", "example.com/m/m.go:2:9=closed"}},
		{"success: nothing", true, nil, nil, nil},
		{"no event log: nothing registered", false, nil, errors.New("failed"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "events.jsonl")
			if tt.log {
				useSettings(t, parseSettings(logPath, ""))
			} else {
				useSettings(t, parseSettings("", ""))
			}
			var files []*os.File
			for range 2 {
				f, err := os.Open(os.Args[0])
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				files = append(files, f)
			}
			probeCall(s, files, tt.closed, tt.err)
			var got []string
			for _, e := range readEvents(t, logPath) {
				if e["event"] != "probe" {
					continue
				}
				if e["site"] != s.ID || e["end"] != float64(7) {
					t.Errorf("event %v: want site %s, end 7", e, s.ID)
				}
				got = append(got, e["acquire"].(string)+"="+e["state"].(string))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("probe events %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("probe event %d: %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// A call that registered nothing costs a deferred call that returns at
// once: no allocation.
func TestProbesAtExitEmptyAllocs(t *testing.T) {
	s := &Site{ID: "example.com/m.F#entry"}
	err := errors.New("failed")
	allocs := testing.AllocsPerRun(100, func() {
		var done int32 = 1
		var pr Probes
		pr.AtExit(s, &done, &err)
	})
	if allocs != 0 {
		t.Errorf("AtExit with nothing registered allocates %v times", allocs)
	}
}

// BenchmarkProbedCall is what the function of a finding that -confirm
// probes pays beyond its instrumentation when it succeeds: the deferred
// check, with nothing registered and with one file registered.
func BenchmarkProbedCall(b *testing.B) {
	f, err := os.Open(os.Args[0])
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s := &Site{ID: "example.com/m.F#entry", Ends: []int32{7}}
	for _, tt := range []struct {
		name string
		res  *os.File
	}{{"nothing registered", nil}, {"one file", f}} {
		b.Run(tt.name, func(b *testing.B) {
			useSettings(b, parseSettings(b.TempDir()+"/events.jsonl", ""))
			for b.Loop() {
				func() (err error) {
					var done int32
					var pr Probes
					defer pr.AtExit(s, &done, &err)
					if tt.res != nil {
						pr.Add("example.com/m/m.go:3:9", tt.res)
					}
					done = 1
					return nil
				}()
			}
		})
	}
}
