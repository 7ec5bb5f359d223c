package rt

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The probes of resources without a descriptor: each case gives the
// resource, the state the probe must find, and, when the state is
// unknown, a word the reason must contain.
type probeCase struct {
	name string
	res  func(t *testing.T) any
	want string
	why  string
}

func runProbeCases(t *testing.T, tests []probeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, why := probeState(tt.res(t))
			if state != tt.want {
				t.Errorf("probeState = %q (%s), want %q", state, why, tt.want)
			}
			if state == ProbeUnknown && (why == "" || !strings.Contains(why, tt.why)) {
				t.Errorf("probeState says %q, want a reason with %q", why, tt.why)
			}
			if state != ProbeUnknown && why != "" {
				t.Errorf("probeState gives a reason, %q, with a known state", why)
			}
		})
	}
}

// payload is what the test server sends: more than one chunk, so that a
// chunked body still has data on the connection after the headers.
var payload = strings.Repeat("0123456789abcdef", 1<<10)

func httpServer(t *testing.T) *httptest.Server {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback:", err)
	}
	s := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			w.(http.Flusher).Flush() // no Content-Length: chunked
			io.WriteString(w, payload)
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, payload)
			zw.Close()
		default:
			w.Header().Set("Content-Length", "1024")
			io.WriteString(w, payload[:1024])
		}
	})}}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, c *http.Client, method, url string) *http.Response {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestProbeHTTPBody(t *testing.T) {
	s := httpServer(t)
	client := &http.Client{Transport: &http.Transport{}}
	timeout := &http.Client{Transport: &http.Transport{}, Timeout: time.Minute}
	runProbeCases(t, []probeCase{
		{"open", func(t *testing.T) any { return get(t, client, "GET", s.URL) }, ProbeOpen, ""},
		{"closed", func(t *testing.T) any { r := get(t, client, "GET", s.URL); r.Body.Close(); return r }, ProbeClosed, ""},
		{"read to its end: the connection is back", func(t *testing.T) any {
			r := get(t, client, "GET", s.URL)
			io.ReadAll(r.Body)
			return r
		}, ProbeClosed, ""},
		{"chunked, open", func(t *testing.T) any { return get(t, client, "GET", s.URL+"/chunked") }, ProbeOpen, ""},
		{"gzip, open", func(t *testing.T) any { return get(t, client, "GET", s.URL+"/gzip") }, ProbeOpen, ""},
		{"gzip, closed", func(t *testing.T) any { r := get(t, client, "GET", s.URL+"/gzip"); r.Body.Close(); return r }, ProbeClosed, ""},
		{"client timeout, open", func(t *testing.T) any { return get(t, timeout, "GET", s.URL) }, ProbeOpen, ""},
		{"client timeout, closed", func(t *testing.T) any { r := get(t, timeout, "GET", s.URL); r.Body.Close(); return r }, ProbeClosed, ""},
		{"HEAD: no body", func(t *testing.T) any { return get(t, client, "HEAD", s.URL) }, ProbeUnknown, "no body"},
		{"nil body", func(t *testing.T) any { return &http.Response{} }, ProbeUnknown, "no body"},
		{"body of a recorder", func(t *testing.T) any {
			w := httptest.NewRecorder()
			io.WriteString(w, "x")
			return w.Result()
		}, ProbeUnknown, "io.nopCloser"},
	})
}

// A probed body still gives all its data, chunked or not, compressed or
// not, and the connection goes back to the pool as it would have: the
// probe reads nothing.
func TestProbeHTTPBodyNoEffect(t *testing.T) {
	s := httpServer(t)
	client := &http.Client{Transport: &http.Transport{}}
	for _, path := range []string{"/", "/chunked", "/gzip"} {
		want := payload
		if path == "/" {
			want = payload[:1024]
		}
		r := get(t, client, "GET", s.URL+path)
		for range 3 {
			if state, why := probeState(r); state != ProbeOpen {
				t.Fatalf("%s: probeState = %q (%s), want open", path, state, why)
			}
		}
		got, err := io.ReadAll(r.Body)
		if err != nil || string(got) != want {
			t.Errorf("%s: after the probe, the body gave %d bytes (%v), want %d", path, len(got), err, len(want))
		}
		if state, _ := probeState(r); state != ProbeClosed {
			t.Errorf("%s: read to its end, probeState = %q, want closed", path, state)
		}
	}
}

func TestProbeSQL(t *testing.T) {
	db := fakeDB(t)
	ctx := context.Background()
	query := func(t *testing.T) *sql.Rows {
		rows, err := db.Query("rows")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rows.Close() })
		return rows
	}
	prepare := func(t *testing.T) *sql.Stmt {
		st, err := db.Prepare("rows")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	begin := func(t *testing.T) *sql.Tx {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tx.Rollback() })
		return tx
	}
	conn := func(t *testing.T) *sql.Conn {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	runProbeCases(t, []probeCase{
		{"rows open", func(t *testing.T) any { return query(t) }, ProbeOpen, ""},
		{"rows closed", func(t *testing.T) any { r := query(t); r.Close(); return r }, ProbeClosed, ""},
		{"rows exhausted", func(t *testing.T) any {
			r := query(t)
			for r.Next() {
			}
			return r
		}, ProbeClosed, ""},
		{"statement open", func(t *testing.T) any { return prepare(t) }, ProbeOpen, ""},
		{"statement closed", func(t *testing.T) any { s := prepare(t); s.Close(); return s }, ProbeClosed, ""},
		{"transaction open", func(t *testing.T) any { return begin(t) }, ProbeOpen, ""},
		{"transaction committed", func(t *testing.T) any { tx := begin(t); tx.Commit(); return tx }, ProbeClosed, ""},
		{"transaction rolled back", func(t *testing.T) any { tx := begin(t); tx.Rollback(); return tx }, ProbeClosed, ""},
		{"connection open", func(t *testing.T) any { return conn(t) }, ProbeOpen, ""},
		{"connection closed", func(t *testing.T) any { c := conn(t); c.Close(); return c }, ProbeClosed, ""},
	})
}

// Probed rows still give every row, and the probe neither ends a
// transaction nor a connection.
func TestProbeSQLNoEffect(t *testing.T) {
	db := fakeDB(t)
	rows, err := db.Query("rows")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	probeState(rows)
	n := 0
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil || v != int64(n) {
			t.Fatalf("row %d: %d, %v", n, v, err)
		}
		n++
		probeState(rows)
	}
	if n != len(fakeRowValues) {
		t.Errorf("after the probes, %d rows, want %d", n, len(fakeRowValues))
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	probeState(tx)
	if err := tx.Commit(); err != nil {
		t.Errorf("commit after the probe: %v", err)
	}
}

func TestProbeLock(t *testing.T) {
	runProbeCases(t, []probeCase{
		{"mutex held", func(t *testing.T) any { var mu sync.Mutex; mu.Lock(); return &mu }, ProbeOpen, ""},
		{"mutex free", func(t *testing.T) any { return new(sync.Mutex) }, ProbeClosed, ""},
		{"rwmutex write-held", func(t *testing.T) any { var mu sync.RWMutex; mu.Lock(); return &mu }, ProbeOpen, ""},
		{"rwmutex read-held", func(t *testing.T) any { var mu sync.RWMutex; mu.RLock(); return &mu }, ProbeOpen, ""},
		{"rwmutex free", func(t *testing.T) any { return new(sync.RWMutex) }, ProbeClosed, ""},
		{"mutex as a sync.Locker", func(t *testing.T) any { var l sync.Locker = new(sync.Mutex); return l }, ProbeClosed, ""},
	})
}

// A lock probed while free is free after, and one probed while held is
// still held, by its holder: its Unlock works.
func TestProbeLockNoEffect(t *testing.T) {
	var mu sync.Mutex
	probeState(&mu)
	if !mu.TryLock() {
		t.Fatal("a free mutex is held after the probe")
	}
	probeState(&mu)
	mu.Unlock() // panics if the probe had released it
	var rw sync.RWMutex
	rw.RLock()
	probeState(&rw)
	if !rw.TryRLock() {
		t.Fatal("after the probe, a read-held RWMutex takes no other reader")
	}
	rw.RUnlock()
	rw.RUnlock()
	if !rw.TryLock() {
		t.Fatal("a free RWMutex is held after the probes")
	}
}

func TestProbeContext(t *testing.T) {
	runProbeCases(t, []probeCase{
		{"not cancelled", func(t *testing.T) any {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			return ctx
		}, ProbeOpen, ""},
		{"cancelled", func(t *testing.T) any {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, ProbeClosed, ""},
		{"parent cancelled", func(t *testing.T) any {
			parent, cancelParent := context.WithCancel(context.Background())
			ctx, cancel := context.WithTimeout(parent, time.Hour)
			t.Cleanup(cancel)
			cancelParent()
			return ctx
		}, ProbeClosed, ""},
		{"deadline passed", func(t *testing.T) any {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			t.Cleanup(cancel)
			return ctx
		}, ProbeClosed, ""},
		{"cause, not cancelled", func(t *testing.T) any {
			ctx, cancel := context.WithCancelCause(context.Background())
			t.Cleanup(func() { cancel(nil) })
			return ctx
		}, ProbeOpen, ""},
		{"background", func(t *testing.T) any { return context.Background() }, ProbeUnknown, "no probe"},
	})
	// The probe neither cancels a context nor stops its cancellation.
	ctx, cancel := context.WithCancel(context.Background())
	probeState(ctx)
	select {
	case <-ctx.Done():
		t.Fatal("the probe ended the context")
	default:
	}
	cancel()
	<-ctx.Done()
}

func TestProbeOthers(t *testing.T) {
	runProbeCases(t, []probeCase{
		{"timer", func(t *testing.T) any { tm := time.NewTimer(time.Hour); t.Cleanup(func() { tm.Stop() }); return tm }, ProbeUnknown, "timers: stopping one"},
		{"ticker", func(t *testing.T) any { tk := time.NewTicker(time.Hour); t.Cleanup(tk.Stop); return tk }, ProbeUnknown, "timers: stopping one"},
		{"gzip reader", func(t *testing.T) any {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Close()
			zr, err := gzip.NewReader(&b)
			if err != nil {
				t.Fatal(err)
			}
			return zr
		}, ProbeUnknown, "compressed readers"},
		{"zlib reader", func(t *testing.T) any {
			var b bytes.Buffer
			zw := zlib.NewWriter(&b)
			zw.Close()
			zr, err := zlib.NewReader(&b)
			if err != nil {
				t.Fatal(err)
			}
			return zr
		}, ProbeUnknown, "compressed readers"},
		{"process started", func(t *testing.T) any {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Wait() })
			return cmd
		}, ProbeOpen, ""},
		{"process waited for", func(t *testing.T) any {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			return cmd
		}, ProbeClosed, ""},
		{"a type of its own", func(t *testing.T) any { return &resource{"r"} }, ProbeUnknown, "no probe for a *rt.resource"},
		{"a probe that panics", func(t *testing.T) any { return failingConn{panics: true} }, ProbeUnknown, "panicked"},
	})
}

// fakeRowValues are the rows the fake driver's query returns.
var fakeRowValues = []int64{0, 1, 2}

// fakeDB opens a database on a driver that knows one query, "rows".
func fakeDB(t *testing.T) *sql.DB {
	db := sql.OpenDB(fakeConnector{})
	t.Cleanup(func() { db.Close() })
	return db
}

type fakeConnector struct{}

func (fakeConnector) Connect(context.Context) (driver.Conn, error) { return fakeConn{}, nil }
func (fakeConnector) Driver() driver.Driver                        { return nil }

type fakeConn struct{}

func (fakeConn) Prepare(q string) (driver.Stmt, error) { return fakeStmt{}, nil }
func (fakeConn) Close() error                          { return nil }
func (fakeConn) Begin() (driver.Tx, error)             { return fakeTx{}, nil }

type fakeTx struct{}

func (fakeTx) Commit() error   { return nil }
func (fakeTx) Rollback() error { return nil }

type fakeStmt struct{}

func (fakeStmt) Close() error                               { return nil }
func (fakeStmt) NumInput() int                              { return 0 }
func (fakeStmt) Exec([]driver.Value) (driver.Result, error) { return nil, errors.New("no exec") }
func (fakeStmt) Query([]driver.Value) (driver.Rows, error)  { return &fakeRows{}, nil }

type fakeRows struct{ next int }

func (*fakeRows) Columns() []string { return []string{"v"} }
func (*fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.next == len(fakeRowValues) {
		return io.EOF
	}
	dest[0] = fakeRowValues[r.next]
	r.next++
	return nil
}

// BenchmarkProbeState is the cost of one probe per kind of resource: what
// a failing call of a function that -confirm probes pays per resource it
// registered, on top of writing the event.
func BenchmarkProbeState(b *testing.B) {
	f, err := os.Open(os.Args[0])
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Skip("no loopback:", err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, payload[:1024])
	})}}
	srv.Start()
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	db := sql.OpenDB(fakeConnector{})
	defer db.Close()
	rows, err := db.Query("rows")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	for _, bb := range []struct {
		name string
		res  any
	}{
		{"file", f}, {"http body", resp}, {"sql rows", rows}, {"sql transaction", tx},
		{"context", ctx}, {"mutex", &mu}, {"timer", tm},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				probeState(bb.res)
			}
		})
	}
}

// session is a resource of a user's, with the method its
// [[leak.resource]] table names in is_closed.
type session struct{ closed, panics bool }

func (s *session) IsClosed() bool {
	if s.panics {
		panic("no state")
	}
	return s.closed
}

func TestProbesAddClosed(t *testing.T) {
	s := &Site{ID: "example.com/m.F#entry", Ends: []int32{7}}
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	useSettings(t, parseSettings(logPath, ""))
	func() (err error) {
		var done int32
		var pr Probes
		defer pr.AtExit(s, &done, &err)
		for i, ss := range []*session{{}, {closed: true}, {panics: true}} {
			pr.AddClosed("example.com/m/m.go:"+strconv.Itoa(i+1)+":9", ss, ss.IsClosed)
		}
		pr.Add("example.com/m/m.go:4:9", &session{closed: true})            // no method: the runtime's probe
		pr.AddClosed("example.com/m/m.go:5:9", &session{closed: true}, nil) // a method the type lacks
		done = 1
		return errors.New("failed")
	}()
	var got []string
	for _, e := range readEvents(t, logPath) {
		if e["event"] == "probe" {
			got = append(got, fmt.Sprintf("%s=%s %v", e["acquire"], e["state"], e["why"]))
		}
	}
	want := []string{
		"example.com/m/m.go:1:9=open <nil>",
		"example.com/m/m.go:2:9=closed <nil>",
		"example.com/m/m.go:3:9=unknown its is_closed method panicked",
		"example.com/m/m.go:4:9=unknown no probe for a *rt.session: nothing tells whether it is released without using it",
		"example.com/m/m.go:5:9=unknown the method is_closed names is not a func() bool of a *rt.session that its package can call",
	}
	if !slices.Equal(got, want) {
		t.Errorf("probe events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A lock taken and released in a loop is registered once: one probe
// event per failing return, not one per iteration.
func TestProbesAddOncePerLoop(t *testing.T) {
	s := &Site{ID: "example.com/m.F#entry", Ends: []int32{7}}
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	useSettings(t, parseSettings(logPath, ""))
	var mu, other sync.Mutex
	func() (err error) {
		var done int32
		var pr Probes
		defer pr.AtExit(s, &done, &err)
		for range 100 {
			mu.Lock()
			pr.Add("example.com/m/m.go:3:9", &mu)
			mu.Unlock()
		}
		pr.Add("example.com/m/m.go:3:9", &other)
		pr.Add("example.com/m/m.go:4:9", &other)
		done = 1
		return errors.New("failed")
	}()
	n := 0
	for _, e := range readEvents(t, logPath) {
		if e["event"] == "probe" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d probe events, want 3: the loop's mutex once, the other mutex once per acquire", n)
	}
}
