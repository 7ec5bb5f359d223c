package m

import "errors"

// Config carries the caller's hook.
type Config struct {
	Hook  func(m map[string]int) error
	Visit func(k string)
}

type Decoder struct {
	config *Config
	keys   []string
}

type Visitor interface{ Visit(k string) }

var globalHook = func(k string) {}

var errBad = errors.New("bad")

// Decode calls its config's hook: a callback, bracketed, and an
// injection point too.
func (d *Decoder) Decode(m map[string]int) error {
	err := d.config.Hook(m)
	if err != nil {
		return err
	}
	d.keys = append(d.keys, "k")
	return errBad
}

// Each calls its parameter: callbacks in an expression statement, an
// assignment, after a label, and in a function literal that captures it.
func Each(keys []string, fn func(string) int, v Visitor) (n int, err error) {
	local := func(k string) { n++ }
	for _, k := range keys {
		fn(k)
		n = fn(k)
	again:
		fn(k)
		if n > 10 {
			goto again
		}
		local(k)       // a local closure: its own code
		v.Visit(k)     // an interface method
		globalHook(k)  // a package-level variable
		n += fn(k) * 2 // inside a larger expression: not bracketed
		func() { fn(k) }()
	}
	return n, errBad
}

// Set is small enough to be split into a twin: only the twin has the
// brackets.
func (d *Decoder) Set(k string) error {
	d.config.Visit(k)
	return errBad
}

type (
	HookType func(k string) (int, error)
	HookKind func(k int) (int, error)
)

// Exec calls the hook it was given as an interface: the variable of a
// type switch's case, called in a return statement, is a callback.
func Exec(raw any, k string) (int, error) {
	switch f := raw.(type) {
	case HookType:
		return f(k)
	case HookKind:
		return f(len(k))
	}
	return 0, errBad
}

func unify(raw any) HookType { return raw.(HookType) }

// Unified calls a local variable set from a call: a callback. One set to
// a function literal, a function or another local variable is not.
func Unified(raw any, k string) (n int, err error) {
	unified := unify(raw)
	n, err = unified(k)
	lit := func(k string) (int, error) { return 0, nil }
	n, err = lit(k)
	named := unify
	named(raw)
	alias := unified
	n, err = alias(k)
	return unified(k)
}

// A lexer keeps its next state in a field that only the package sets, to
// its own functions: calling it runs the package's code, no callback.
type stateFn func(*lexer) stateFn

type lexer struct {
	state stateFn
	pos   int
}

func lexTop(lx *lexer) stateFn { lx.pos++; return nil }

func newLexer() *lexer { return &lexer{state: lexTop} }

func (lx *lexer) next() error {
	lx.state = lx.state(lx)
	if lx.pos > 10 {
		return errors.New("too far")
	}
	return nil
}
