package rt

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// Tests of opaque leaves: values that stand for something outside the heap
// (open files and connections, runtime timers, type descriptors) are
// compared by identity and never written back, so that a restore cannot
// resurrect a closed descriptor or write into the runtime's memory.

// opHolder is user data that refers to opaque objects.
type opHolder struct {
	f     *os.File
	conn  net.Conn
	timer *time.Timer
	typ   reflect.Type
	val   reflect.Value
	iter  *reflect.MapIter
	// outside is data the graph does not reach: an unsafe.Pointer is a leaf.
	outside unsafe.Pointer
	n       int
}

// opTCPPair is a connected pair of TCP connections over the loopback
// interface.
func opTCPPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			c = nil
		}
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial loopback: %v", err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept on loopback failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func TestOpaqueLeaves(t *testing.T) {
	tests := []struct {
		name string
		// setup returns the holder and the body of the failing call.
		setup func(t *testing.T) (h *opHolder, call func())
		// wantEqual says whether the graph after the call equals the one
		// at entry (n, which every call bumps, set back first).
		wantEqual bool
		wantPath  string // of the difference, when not equal
		// check looks at the holder after the restore.
		check func(t *testing.T, h *opHolder)
	}{{
		name: "closed file stays closed",
		setup: func(t *testing.T) (*opHolder, func()) {
			dir := t.TempDir()
			f, err := os.Create(filepath.Join(dir, "closed"))
			if err != nil {
				t.Fatal(err)
			}
			h := &opHolder{f: f}
			return h, func() {
				f.Close()
				// A file opened now likely gets the closed descriptor's
				// number: a resurrected descriptor would write into it.
				other, err := os.Create(filepath.Join(dir, "other"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { other.Close() })
			}
		},
		wantEqual: true,
		check: func(t *testing.T, h *opHolder) {
			if _, err := h.f.Write([]byte("resurrected")); !errors.Is(err, os.ErrClosed) {
				t.Errorf("Write on the closed file after restore: %v, want os.ErrClosed", err)
			}
			other, err := os.ReadFile(filepath.Join(filepath.Dir(h.f.Name()), "other"))
			if err != nil || len(other) != 0 {
				t.Errorf("the file that reused the descriptor holds %q (%v), want nothing", other, err)
			}
		},
	}, {
		name: "replaced file pointer is put back",
		setup: func(t *testing.T) (*opHolder, func()) {
			dir := t.TempDir()
			f, err := os.Create(filepath.Join(dir, "a"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := os.Create(filepath.Join(dir, "b"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close(); g.Close() })
			h := &opHolder{f: f}
			return h, func() { h.f = g }
		},
		wantEqual: false,
		wantPath:  "h.f",
		check: func(t *testing.T, h *opHolder) {
			if filepath.Base(h.f.Name()) != "a" {
				t.Errorf("after restore h.f is %s, want the file at entry", h.f.Name())
			}
		},
	}, {
		name: "closed TCP connection stays closed",
		setup: func(t *testing.T) (*opHolder, func()) {
			client, _ := opTCPPair(t)
			h := &opHolder{conn: client}
			return h, func() { client.Close() }
		},
		wantEqual: true,
		check: func(t *testing.T, h *opHolder) {
			if _, err := h.conn.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
				t.Errorf("Write on the closed connection after restore: %v, want net.ErrClosed", err)
			}
		},
	}, {
		name: "closed pipe stays closed",
		setup: func(t *testing.T) (*opHolder, func()) {
			a, b := net.Pipe()
			t.Cleanup(func() { a.Close(); b.Close() })
			h := &opHolder{conn: a}
			return h, func() { a.Close() }
		},
		wantEqual: true,
		check: func(t *testing.T, h *opHolder) {
			if _, err := h.conn.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
				t.Errorf("Write on the closed pipe after restore: %v, want io.ErrClosedPipe", err)
			}
		},
	}, {
		name: "stopped timer stays stopped",
		setup: func(t *testing.T) (*opHolder, func()) {
			timer := time.NewTimer(time.Hour)
			t.Cleanup(func() { timer.Stop() })
			h := &opHolder{timer: timer}
			return h, func() { timer.Stop() }
		},
		wantEqual: true,
		check: func(t *testing.T, h *opHolder) {
			if h.timer.Stop() {
				t.Error("the timer stopped in the call runs again after restore")
			}
		},
	}, {
		name: "type descriptors are not written to, what a Value refers to is",
		setup: func(t *testing.T) (*opHolder, func()) {
			x := 1
			h := &opHolder{typ: reflect.TypeFor[opHolder](), val: reflect.ValueOf(&x).Elem()}
			return h, func() { h.val.SetInt(2) }
		},
		// The variable a reflect.Value addresses is saved, compared and
		// restored (saveValue, comparer.values).
		wantPath: "*h.val",
		check: func(t *testing.T, h *opHolder) {
			if h.typ != reflect.TypeFor[opHolder]() || h.val.Int() != 1 {
				t.Errorf("after restore typ=%v val=%v, want the same type and the value at entry", h.typ, h.val)
			}
		},
	}, {
		name: "map iterator: its tables left alone, its map restored",
		setup: func(t *testing.T) (*opHolder, func()) {
			m := map[int]int{}
			for i := range 100 {
				m[i] = i
			}
			it := reflect.ValueOf(m).MapRange()
			it.Next()
			// The map is reachable through the iterator's Value of it;
			// the iterator's position in its tables is opaque.
			h := &opHolder{iter: it, outside: unsafe.Pointer(&m)}
			return h, func() {
				for i := range 200 {
					m[1000+i] = i
				}
				delete(m, 3)
			}
		},
		wantPath: "h.iter.m[3]",
		check: func(t *testing.T, h *opHolder) {
			m := *(*map[int]int)(h.outside)
			if _, ok := m[1199]; len(m) != 100 || ok {
				t.Errorf("after restore the map has len %d (entry 1199 present: %v), want 100 and absent", len(m), ok)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, call := tt.setup(t)
			s, ok := snapshotGraph([]any{h}, 0, nil)
			if !ok {
				t.Fatal("snapshot over budget")
			}
			h.n++
			call()
			h.n--
			d, equal := s.compareGraph([]any{h}, []string{"h"})
			if equal != tt.wantEqual {
				t.Errorf("compare after the call: equal=%v (%+v), want %v", equal, d, tt.wantEqual)
			}
			if !equal && d.Path != tt.wantPath {
				t.Errorf("difference at %s (%s -> %s), want at %s", d.Path, d.Before, d.After, tt.wantPath)
			}
			h.n++
			s.restore()
			if h.n != 0 {
				t.Errorf("after restore n=%d, want 0", h.n)
			}
			tt.check(t, h)
		})
	}
}
