package instrument

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// twinFixture declares functions with, beside each, whether the rewrite
// splits it into a function and its twin ("twin") or keeps one
// instrumented body ("single"), and why.
const twinFixture = `package m

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

var ErrFull = errors.New("full")

type Counter struct {
	mu     sync.Mutex
	n, max int
	names  []string
}

func (c *Counter) Get() int { return c.n } // twin: a getter

func (c *Counter) Set(n int) { c.n = n } // twin: a setter

func (c *Counter) Add(d int) error { // twin: checks, then adds
	if c.n+d > c.max {
		return ErrFull
	}
	c.n += d
	return nil
}

func (c *Counter) Check() error { // twin: errors.New is inlined
	if c.n < 0 {
		return errors.New("negative")
	}
	return nil
}

func (c *Counter) Wrap(d int) error { // single: fmt.Errorf is a call the inliner charges 57
	if d < 0 {
		return fmt.Errorf("add %d: %w", d, ErrFull)
	}
	return nil
}

func (c *Counter) AddTwice(d int) error { // single: two instrumented Adds cost more than the budget
	if err := c.Add(d); err != nil {
		return err
	}
	return c.Add(d)
}

func (c *Counter) Name(i int) string { return c.names[i] + "!" } // twin: no call

func Log2(n uint) uint32 { return uint32(bits.Len(n)) - 1 } // twin: bits.Len is an instruction

var hits int64

func Hits() int64 { return atomic.LoadInt64(&hits) } // twin: so is an atomic load

func Store(p *unsafe.Pointer, v unsafe.Pointer) { atomic.StorePointer(p, v) } // single: a pointer store is a call

func (c *Counter) Locked() int { // single: takes a lock
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *Counter) Each(f func(int)) { // twin: a call of a parameter costs 17
	f(c.n)
}

func (c *Counter) Later() (n int) { // single: a literal, instrumented on its own
	get := func() int { return c.n }
	return get()
}

func Fact(n int) int { // single: the recursive call costs 57
	if n <= 1 {
		return 1
	}
	return n * Fact(n-1)
}

func Sum(xs ...int) (s int) { // twin: variadic, handed over
	for _, x := range xs {
		if x > 0 && x < 1<<10 {
			s += x*x + x/2 - 1
		} else {
			s -= x*3 + 1
		}
	}
	return s
}

func First[T any](xs []T) (T, bool) { // twin: generic, handed over
	var zero T
	if len(xs) == 0 || len(xs) > 1<<20 {
		return zero, false
	}
	if len(xs) > 1 {
		return xs[1], true
	}
	return xs[0], true
}

func (Counter) Zero(int) int { return 0 } // twin: unnamed receiver and parameter

func (c Counter) Spread(int) int { return c.max - c.n + len(c.names)*2 - c.max/2 + c.n*c.n } // twin: value receiver, handed over

func (c *Counter) Shadow(Counter int) int { return Counter + c.n } // twin: called directly, as a parameter hides the receiver's type

//go:noinline
func Kept() int { return 1 } // single: the user asks for no inlining

func Long(a, b, c, d int) int { // single: too large
	x := a*b + c*d - a*c + b*d
	y := x*x + a - b + c - d
	z := y*x - a*b*c*d + x - y
	return x + y + z + a*b + c*d + a + b + c + d
}
`

var twinWant = regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?(\w+).*// (twin|single)`)

func TestTwins(t *testing.T) {
	res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(twinFixture)}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Files[0].Src)
	matches := twinWant.FindAllStringSubmatch(twinFixture, -1)
	if len(matches) < 10 {
		t.Fatalf("fixture: found %d expectations", len(matches))
	}
	for _, m := range matches {
		name, want := m[1], m[2]
		twin := regexp.MustCompile(`(?m)^/\*line [^*]*\*/func (?:\([^)]*\) )?_atx_` + name + `\b`).MatchString(out)
		if got := map[bool]string{true: "twin", false: "single"}[twin]; got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	// The printer aligns the bodies of consecutive one-line functions.
	gen := regexp.MustCompile(`[ \t]+`).ReplaceAllString(string(res.Generated.Src), " ")
	for _, decl := range []string{
		"func _atx_handOver2_1[P0, P1, R0 any](f func(P0, P1) R0, p0 P0, p1 P1) R0 { return f(p0, p1) }",
		"func _atx_handOver2_0[P0, P1 any](f func(P0, P1), p0 P0, p1 P1) { f(p0, p1) }",
		"func _atx_handOver1v_1[P0, R0 any](f func(...P0) R0, p0 []P0) R0 { return f(p0...) }",
		"func _atx_handOver1_2[P0, R0, R1 any](f func(P0) (R0, R1), p0 P0) (R0, R1) { return f(p0) }",
	} {
		if !strings.Contains(gen, decl+"\n") {
			t.Errorf("generated file lacks\n\t%s\nin\n%s", decl, gen)
		}
	}
	for _, call := range []string{
		// Handed over: the function is too costly to stay inlinable
		// with a direct call of its twin.
		"return _atx_handOver1v_1(_atx_Sum, xs)",
		"return _atx_handOver1_2(_atx_First[T], xs)",
		"return _atx_handOver2_1((Counter)._atx_Spread, c, _atx_p0)",
		"_atx_handOver2_0((*Counter)._atx_Each, c, f); return",
		// Called directly: cheap enough, or no hand-over can name it.
		"return c._atx_Get()",
		"c._atx_Set(n); return",
		"return _atx_recv._atx_Zero(_atx_p0)",
		"return c._atx_Shadow(Counter)",
	} {
		if !strings.Contains(out, call) {
			t.Errorf("rewrite lacks %q", call)
		}
	}
}

// TestTwinsBeforeGenerics: a package whose language version has no
// generics calls its twins directly, which leaves room for less.
func TestTwinsBeforeGenerics(t *testing.T) {
	opts := testOptions()
	opts.GoVersion = "go1.17"
	src := "package m\n\ntype C struct{ n, max, sum int }\n\nfunc (c *C) Get() int { return c.n }\n\n" +
		"func (c *C) Add(d int) (int, bool) { if d < 0 || c.n+d > c.max { return c.n, false }; c.n += d; c.sum += d * d; return c.n, true }\n"
	res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Files[0].Src)
	if !strings.Contains(out, "if _atxGate0 { return c._atx_Get() }") {
		t.Errorf("Get does not call its twin directly:\n%s", out)
	}
	if strings.Contains(out, "_atx_Add(") || strings.Contains(string(res.Generated.Src), "handOver") {
		t.Errorf("Add is split, or a helper is declared, without generics:\n%s\n%s", out, res.Generated.Src)
	}
}

// TestTwinCallSites: a call that is an injection point is one in the
// twin only; the function keeps the call as written.
func TestTwinCallSites(t *testing.T) {
	opts := testOptions()
	opts.Selects = func(name string) bool { return name != "parse" }
	src := `package m

import "errors"

func parse(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	return len(s), nil
}

type C struct{ n int }

func (c *C) Load(s string) error {
	n, err := parse(s)
	if err != nil {
		return err
	}
	c.n = n
	return nil
}
`
	res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Files[0].Src)
	fn, twin, ok := strings.Cut(out, "/*line /src/example.com/m/m.go:14:1*/func (c *C) _atx_Load(")
	if !ok {
		t.Fatalf("Load has no twin:\n%s", out)
	}
	if !strings.Contains(fn, "\tn, err := parse(s)\n") || strings.Contains(fn, "Inject") {
		t.Errorf("Load does not keep its call as written:\n%s", fn)
	}
	// The call is also the region of the handler that checks its error:
	// the region's guard hands the call site's fault on.
	if !strings.Contains(twin, "_atxrt.Region(_atx_handlers[0:1], _atxrt.Inject(&_atx_sites[1]), nil)") || !strings.Contains(twin, "_atx_e != nil { n = 0; err = _atx_e; } else {") {
		t.Errorf("Load's twin has no injection point at its call of parse:\n%s", twin)
	}
	if !strings.Contains(string(res.Generated.Src), `\texample.com/m.(*C).Load#call:m.parse#1\t`) {
		t.Errorf("no call site in the table:\n%s", res.Generated.Src)
	}
}

// TestTwinBodylessCallee: a small function that calls a function declared
// without a body (implemented in assembly, or pulled by go:linkname) is
// rewritten, the call costing what any call of a function the inliner
// cannot see into costs.
func TestTwinBodylessCallee(t *testing.T) {
	src := "package m\n\nimport _ \"unsafe\"\n\n//go:linkname nanotime runtime.nanotime\nfunc nanotime() int64\n\n" +
		"type C struct{ last int64 }\n\nfunc (c *C) Stamp() int64 { c.last = nanotime(); return c.last }\n"
	res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Files[0].Src)
	if !strings.Contains(out, "func nanotime() int64\n") {
		t.Errorf("the declaration without a body changed:\n%s", out)
	}
	if !strings.Contains(out, "func (c *C) Stamp() (_atx_r0 int64) {") || strings.Contains(out, "_atx_Stamp") {
		t.Errorf("Stamp is not instrumented as one body (a call of 57 leaves no room for a twin):\n%s", out)
	}
}

// TestRewriteCrash: a panic while a function is rewritten comes back as
// an error that names the function (which the build's message tells the
// user to leave out) and carries the panic and its stack.
func TestRewriteCrash(t *testing.T) {
	rewriteHook = func(name string) {
		if name == "(*C).Crash" {
			panic("boom")
		}
	}
	t.Cleanup(func() { rewriteHook = nil })
	src := "package m\n\ntype C struct{ n int }\n\nfunc (c *C) Get() int { return c.n }\n\nfunc (c *C) Crash() error { c.n++; return nil }\n"
	_, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, testOptions())
	var fe *FuncError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FuncError", err)
	}
	if fe.Func != "(*C).Crash" || fe.Pos.Line != 7 {
		t.Errorf("the error names %s at %v, want (*C).Crash at line 7", fe.Func, fe.Pos)
	}
	if msg := fe.Err.Error(); msg != "atomicx crashed: boom" {
		t.Errorf("the error says %q, want the panic", msg)
	}
	if !strings.Contains(fe.Stack, "TestRewriteCrash") {
		t.Errorf("the error's stack is not the panic's:\n%s", fe.Stack)
	}
}
