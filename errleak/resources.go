package errleak

import (
	"strconv"
	"strings"
)

// A Resource is an acquire/release policy: the calls that open a resource
// and the calls that release it.
//
// Acquire names functions and methods as go/types writes them
// (types.Func.FullName): "os.Open", "(*net/http.Client).Do",
// "(net.Listener).Accept". The resource is the call's first result that
// is not an error, or its receiver when it has no such result.
//
// Release lists how the resource is released, any one being enough:
// "Close" calls a method on the resource, "Body.Close" a method on a field
// of it, "os/signal.Stop" (a name whose first segment is not capitalised)
// passes it to a function, and "()" calls it (a cancel function).
type Resource struct {
	Name    string
	Acquire []string
	Release []string
	// IsClosed is a method of the resource, func() bool, true once it is
	// released: atomicx vet -confirm probes the resource with it. ""
	// for none (the standard library's resources have probes of their
	// own in the runtime).
	IsClosed string

	// value says which value of the acquiring call is the resource:
	// "" to infer it, "recv", "argN" or "resultN".
	value string

	// collected says that the resource holds nothing once unreferenced,
	// in code of Go 1.23 or later: timers and tickers.
	collected bool

	// errorPaths says that only returns of an error are checked: a
	// signal channel still registered when a function succeeds is most
	// often the program's own (main's), kept on purpose until it ends.
	errorPaths bool

	// lock says that a path that panics with it held is reported too,
	// with -panics.
	lock bool
}

// builtin is the standard library's set.
var builtin = []Resource{
	{Name: "file", Acquire: []string{"os.Open", "os.Create", "os.OpenFile", "os.CreateTemp", "os.OpenRoot", "(*os.Root).Open", "(*os.Root).Create", "(*os.Root).OpenFile"}, Release: []string{"Close"}},
	{Name: "network connection", Acquire: []string{
		"net.Dial", "net.DialTimeout", "net.DialTCP", "net.DialUDP", "net.DialUnix", "net.DialIP",
		"(*net.Dialer).Dial", "(*net.Dialer).DialContext",
		"net.Listen", "net.ListenPacket", "net.ListenTCP", "net.ListenUDP", "net.ListenUnix", "net.ListenUnixgram", "net.ListenIP", "net.ListenMulticastUDP",
		"(*net.ListenConfig).Listen", "(*net.ListenConfig).ListenPacket",
		"(net.Listener).Accept", "(*net.TCPListener).Accept", "(*net.TCPListener).AcceptTCP", "(*net.UnixListener).Accept", "(*net.UnixListener).AcceptUnix",
	}, Release: []string{"Close"}},
	{Name: "HTTP response body", Acquire: []string{
		"net/http.Get", "net/http.Head", "net/http.Post", "net/http.PostForm",
		"(*net/http.Client).Do", "(*net/http.Client).Get", "(*net/http.Client).Head", "(*net/http.Client).Post", "(*net/http.Client).PostForm",
	}, Release: []string{"Body.Close"}},
	{Name: "sql rows", Acquire: []string{
		"(*database/sql.DB).Query", "(*database/sql.DB).QueryContext",
		"(*database/sql.Tx).Query", "(*database/sql.Tx).QueryContext",
		"(*database/sql.Stmt).Query", "(*database/sql.Stmt).QueryContext",
		"(*database/sql.Conn).QueryContext",
	}, Release: []string{"Close"}},
	{Name: "sql statement", Acquire: []string{
		"(*database/sql.DB).Prepare", "(*database/sql.DB).PrepareContext",
		"(*database/sql.Tx).Prepare", "(*database/sql.Tx).PrepareContext",
		"(*database/sql.Conn).PrepareContext",
	}, Release: []string{"Close"}},
	{Name: "sql transaction", Acquire: []string{
		"(*database/sql.DB).Begin", "(*database/sql.DB).BeginTx", "(*database/sql.Conn).BeginTx",
	}, Release: []string{"Commit", "Rollback"}},
	{Name: "sql connection", Acquire: []string{"(*database/sql.DB).Conn"}, Release: []string{"Close"}},
	{Name: "context cancel function", Acquire: []string{
		"context.WithCancel", "context.WithTimeout", "context.WithDeadline",
		"context.WithCancelCause", "context.WithTimeoutCause", "context.WithDeadlineCause",
	}, Release: []string{"()"}, value: "result1"},
	{Name: "lock", Acquire: []string{"(*sync.Mutex).Lock", "(*sync.RWMutex).Lock"}, Release: []string{"Unlock"}, value: "recv", lock: true},
	{Name: "read lock", Acquire: []string{"(*sync.RWMutex).RLock"}, Release: []string{"RUnlock"}, value: "recv", lock: true},
	{Name: "ticker", Acquire: []string{"time.NewTicker"}, Release: []string{"Stop"}, collected: true},
	{Name: "timer", Acquire: []string{"time.NewTimer"}, Release: []string{"Stop"}, collected: true},
	{Name: "process", Acquire: []string{"(*os/exec.Cmd).Start"}, Release: []string{"Wait"}, value: "recv"},
	{Name: "signal notification", Acquire: []string{"os/signal.Notify"}, Release: []string{"os/signal.Stop"}, value: "arg0", errorPaths: true},
	{Name: "compressed reader", Acquire: []string{"compress/gzip.NewReader", "compress/zlib.NewReader", "compress/zlib.NewReaderDict"}, Release: []string{"Close"}},
}

// A release is one parsed Resource.Release entry.
type release struct {
	call   bool   // "()": the resource is called
	fn     string // "pkg.Func": the resource is passed to it
	field  string // "Field.Method": the method is called on a field
	method string
}

func parseRelease(s string) release {
	if s == "()" {
		return release{call: true}
	}
	dot := strings.LastIndex(s, ".")
	if dot < 0 {
		return release{method: s}
	}
	head := s[:dot]
	if strings.Contains(head, "/") || head == "" || !(head[0] >= 'A' && head[0] <= 'Z') {
		return release{fn: s}
	}
	return release{field: head, method: s[dot+1:]}
}

// valueRef decodes Resource.value: kind is "", "recv", "arg" or "result".
func valueRef(v string) (kind string, index int) {
	for _, k := range []string{"arg", "result"} {
		if rest, ok := strings.CutPrefix(v, k); ok {
			n, err := strconv.Atoi(rest)
			if err == nil {
				return k, n
			}
		}
	}
	return v, 0
}
