package instrument

import (
	"regexp"
	"strings"
	"testing"
)

// handlerEntry matches one entry of the generated handler table.
var handlerEntry = regexp.MustCompile(`\{ID: "([^"]*)", Func: "[^"]*", Pos: "[^"]*", Region: "([^"]*)", Kind: "([^"]*)", Predicate: "((?:[^"\\]|\\.)*)"(?:, NotInjectable: "([^"]*)")?(?:, Widened: "([^"]*)")?(?:, NotWidenable: "([^"]*)")?(?:, Route: "((?:[^"\\]|\\.)*)")?(?:, RouteResults: "([^"]*)")?(?:, NotRoutable: "([^"]*)")?\}`)

// TestHandlerShapes finds the handlers of one function per shape and
// checks their kinds, predicates and whether a fault can be made for them.
func TestHandlerShapes(t *testing.T) {
	type arm struct{ kind, predicate, notInjectable string }
	tests := []struct {
		name string
		body string // of func F(name string) (int, error)
		want []arm
	}{
		{"propagate", `_, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}}},
		{"propagate wrapped", `_, err := os.Open(name)
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}}},
		{"translate", `if _, err := os.Open(name); err != nil {
		return 0, ErrSentinel
	}
	return 1, nil`, []arm{{"translate", "err != nil", ""}}},
		{"fallback by assignment", `n := 0
	_, err := os.Open(name)
	if err != nil {
		n = -1
	}
	return n, nil`, []arm{{"fallback", "err != nil", ""}}},
		{"fallback by return without error", `_, err := os.Open(name)
	if err != nil {
		return -1, nil
	}
	return 1, nil`, []arm{{"fallback", "err != nil", ""}}},
		{"log and continue", `_, err := os.Open(name)
	if err != nil {
		log.Print(err)
	}
	return 1, nil`, []arm{{"log-and-continue", "err != nil", ""}}},
		{"panic", `_, err := os.Open(name)
	if err != nil {
		panic(err)
	}
	return 1, nil`, []arm{{"panic", "err != nil", ""}}},
		{"log.Fatal is an exit", `_, err := os.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	return 1, nil`, []arm{{"exit", "err != nil", ""}}},
		{"nil on the left", `_, err := os.Open(name)
	if nil != err {
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "nil != err", ""}}},
		{"chain of Is, ==, As and != nil", `var pe *fs.PathError
	_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err == io.EOF {
		log.Print("eof")
	} else if errors.As(err, &pe) {
		return 0, ErrSentinel
	} else if err != nil {
		return 0, err
	}
	return 1, nil`, []arm{
			{"fallback", "errors.Is(err, fs.ErrNotExist)", ""},
			{"log-and-continue", "err == io.EOF", ""},
			{"translate", "errors.As(err, &pe)", ""},
			{"propagate", "err != nil", ""},
		}},
		{"As with an interface target", `var te interface{ Timeout() bool }
	_, err := os.Open(name)
	if errors.As(err, &te) {
		return 0, nil
	}
	return 1, nil`, []arm{{"fallback", "errors.As(err, &te)", "interface"}}},
		{"As with a struct value that is an error", `var ve valueError
	_, err := os.Open(name)
	if errors.As(err, &ve) {
		return 0, nil
	}
	return 1, nil`, []arm{{"fallback", "errors.As(err, &ve)", ""}}},
		{"== with a local variable", `mine := ErrSentinel
	_, err := os.Open(name)
	if err == mine {
		return 0, nil
	}
	return 1, nil`, []arm{{"fallback", "err == mine", "local variable"}}},
		{"switch without tag", `_, err := os.Open(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case name == "":
		return 2, nil
	case err != nil:
		return 0, err
	}
	return 1, nil`, []arm{{"fallback", "errors.Is(err, fs.ErrNotExist)", ""}, {"propagate", "err != nil", ""}}},
		{"switch without tag, assignment in its header", `switch _, err := os.Open(name); {
	case err == io.EOF:
		log.Print("eof")
	}
	return 1, nil`, []arm{{"log-and-continue", "err == io.EOF", ""}}},
		{"type switch", `_, err := os.Open(name)
	switch e := err.(type) {
	case nil:
	case *fs.PathError:
		return 0, fmt.Errorf("path %s: %w", e.Path, e)
	case valueError:
		return -1, nil
	case interface{ Timeout() bool }:
		return -2, nil
	default:
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "case *fs.PathError", ""}, {"fallback", "case valueError", ""}, {"fallback", "case interface{ Timeout() bool }", "interface"}}},
		{"type switch, a case of several types", `_, err := os.Open(name)
	switch err.(type) {
	case nil, *os.LinkError:
		return 1, nil
	case valueError, *fs.PathError:
		return -1, nil
	case interface{ Timeout() bool }, *os.SyscallError:
		return -2, nil
	}
	return 1, nil`, []arm{{"fallback", "case valueError, *fs.PathError", ""}, {"fallback", "case interface{ Timeout() bool }, *os.SyscallError", "interface"}}},
		{"type switch that shadows the error", `_, err := os.Open(name)
	switch err := err.(type) {
	case *fs.PathError:
		return 0, err
	}
	return 1, nil`, nil},
		{"deferred recover, the panic made the error", `defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return 1, nil`, []arm{{"translate", "r := recover(); r != nil", ""}}},
		{"deferred recover that panics again", `defer func() {
		if r := recover(); nil != r {
			log.Print(r)
			panic(r)
		}
	}()
	return 1, nil`, []arm{{"panic", "r := recover(); nil != r", ""}}},
		{"deferred recover asserting a type, panicking again with the others", `defer func() {
		if r := recover(); r != nil {
			if ve, ok := r.(valueError); ok {
				err = ve
				return
			}
			panic(r)
		}
	}()
	return 1, nil`, []arm{{"translate", "r := recover(); r != nil; r.(valueError)", ""}}},
		{"deferred recover asserting in a type switch: the first case with a value", `defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case interface{ Timeout() bool }:
				n = -1
			case *fs.PathError:
				err = e
			default:
				panic(r)
			}
		}
	}()
	return 1, nil`, []arm{{"translate", "r := recover(); r != nil; r.(*fs.PathError)", ""}}},
		{"deferred recover asserting error", `defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return 1, nil`, []arm{{"panic", "r := recover(); r != nil; r.(error)", ""}}},
		{"deferred recover asserting an interface an error does not satisfy", `defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Timeout() bool }); ok {
				return
			}
			panic(r)
		}
	}()
	return 1, nil`, []arm{{"fallback", "r := recover(); r != nil; r.(interface{ Timeout() bool })", "interface that an error does not satisfy"}}},
		{"recover in a nested block is not a handler", `defer func() {
		{
			if r := recover(); r != nil {
				log.Print(r)
			}
		}
	}()
	return 1, nil`, nil},
		{"nested ==, the error propagated after it", `_, err := os.Open(name)
	if err != nil {
		if err == io.EOF {
			return 0, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}, {"fallback", "err == io.EOF", ""}}},
		{"nested Is chain and switch without tag", `_, err := os.Open(name)
	if err != nil {
		log.Print(err)
		if errors.Is(err, fs.ErrNotExist) {
			return -1, nil
		} else if err == io.ErrUnexpectedEOF {
			return 0, ErrSentinel
		}
		switch {
		case errors.Is(err, fs.ErrPermission):
			panic(err)
		}
		return 0, err
	}
	return 1, nil`, []arm{
			{"panic", "err != nil", ""},
			{"fallback", "errors.Is(err, fs.ErrNotExist)", ""},
			{"translate", "err == io.ErrUnexpectedEOF", ""},
			{"panic", "errors.Is(err, fs.ErrPermission)", ""},
		}},
		{"nested in the err != nil arm of a chain, and of a switch", `_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		if err == io.EOF {
			log.Print("eof")
		}
		return 0, err
	}
	switch {
	case err != nil:
		if err == io.EOF {
			return 2, nil
		}
	}
	return 1, nil`, []arm{
			{"fallback", "errors.Is(err, fs.ErrNotExist)", ""},
			{"propagate", "err != nil", ""},
			{"propagate", "err == io.EOF", ""}, // logs, and the error reaches the return after it
		}},
		{"nested twice", `_, err := os.Open(name)
	if err != nil {
		if err != nil {
			if err == io.EOF {
				return 0, nil
			}
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}, {"propagate", "err != nil", ""}, {"fallback", "err == io.EOF", ""}}},
		{"not nested in a typed arm", `_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err == io.EOF {
			return 0, nil
		}
	}
	return 1, nil`, []arm{{"fallback", "errors.Is(err, fs.ErrNotExist)", ""}}},
		{"nested checks stop where the error is assigned", `_, err := os.Open(name)
	if err != nil {
		if err == io.EOF {
			err = nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return -1, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}, {"fallback", "err == io.EOF", ""}}},
		{"nested == that rewrites the error returned after it: translate", `_, err := os.Open(name)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}, {"translate", "err == io.EOF", ""}}},
		{"an arm that wraps the error in place: propagate", `_, err := os.Open(name)
	if err != nil {
		err = fmt.Errorf("open: %w", err)
	}
	return 0, err`, []arm{{"propagate", "err != nil", ""}}},
		{"an arm that sets another error, returned after it: translate", `var rerr error
	_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		rerr = ErrSentinel
	}
	return 0, rerr`, []arm{{"translate", "errors.Is(err, fs.ErrNotExist)", ""}}},
		{"an arm that retries: the error of another call, fallback", `_, err := os.Open(name)
	if err != nil {
		_, err = os.Open(name + "~")
	}
	return 0, err`, []arm{{"fallback", "err != nil", ""}}},
		{"the error rewritten, not returned: log and continue", `_, err := os.Open(name)
	if err == io.EOF {
		err = ErrSentinel
		log.Print(err)
	}
	return 1, nil`, []arm{{"log-and-continue", "err == io.EOF", ""}}},
		{"the error rewritten, then assigned again before the return", `_, err := os.Open(name)
	if err != nil {
		err = ErrSentinel
	}
	_, err = os.Open(name + "~")
	return 0, err`, []arm{{"ignore", "err != nil", ""}}},
		{"nested checks stop at the error's address", `_, err := os.Open(name)
	if err != nil {
		errs := []*error{&err}
		_ = errs
		if err == io.EOF {
			return 0, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}}},
		{"a type switch nested in err != nil", `_, err := os.Open(name)
	if err != nil {
		switch e := err.(type) {
		case *fs.PathError:
			return len(e.Path), nil
		case valueError, *os.SyscallError:
			return -1, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}, {"fallback", "case *fs.PathError", ""}, {"fallback", "case valueError, *os.SyscallError", ""}}},
		{"checks nested in blocks, branches and loops that do not assign the error", `_, err := os.Open(name)
	if err != nil {
		for i := 0; i < 3; i++ {
			if errors.Is(err, fs.ErrNotExist) {
				log.Print(i)
			}
		}
		if name != "" {
			if err == io.EOF {
				return 0, nil
			}
		} else {
			switch err {
			case nil:
			case io.ErrUnexpectedEOF:
				return 2, nil
			}
		}
		{
			if err == ErrSentinel {
				return 3, nil
			}
		}
		return 0, err
	}
	return 1, nil`, []arm{
			{"propagate", "err != nil", ""},
			{"propagate", "errors.Is(err, fs.ErrNotExist)", ""},
			{"fallback", "err == io.EOF", ""},
			{"fallback", "case io.ErrUnexpectedEOF", ""},
			{"fallback", "err == ErrSentinel", ""},
		}},
		{"a loop that retries assigns the error: no arm in it, nor after it", `_, err := os.Open(name)
	if err != nil {
		for i := 0; i < 3; i++ {
			if errors.Is(err, fs.ErrNotExist) {
				_, err = os.Open(name)
				continue
			}
			break
		}
		if err == io.EOF {
			return 0, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}}},
		{"a branch that assigns the error: arms in the other branch, none after it", `_, err := os.Open(name)
	if err != nil {
		if name == "" {
			err = ErrSentinel
		} else if err == io.EOF {
			return 0, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return -1, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}, {"fallback", "err == io.EOF", ""}}},
		{"a check with its own assignment in the arm is a region of its own", `_, err := os.Open(name)
	if err != nil {
		if _, err := os.Open(name + "~"); err == io.EOF {
			return 0, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}, {"fallback", "err == io.EOF", ""}}},
		{"switch on the error: cases and default", `_, err := os.Open(name)
	switch err {
	case nil:
		return 1, nil
	case io.EOF:
		log.Print("eof")
	case fs.ErrNotExist:
		return -1, nil
	case io.ErrUnexpectedEOF, io.ErrShortWrite:
		return 2, nil
	default:
		return 0, err
	}
	return 1, nil`, []arm{
			{"log-and-continue", "case io.EOF", ""},
			{"fallback", "case fs.ErrNotExist", ""},
			{"fallback", "case io.ErrUnexpectedEOF, io.ErrShortWrite", ""},
			{"propagate", "default", ""},
		}},
		{"switch on the error, a case of several values: of nil, or of a call, no arm", `_, err := os.Open(name)
	switch err {
	case nil, io.EOF:
		return 1, nil
	case fs.ErrNotExist, errors.Unwrap(ErrSentinel):
		return -1, nil
	case ErrSentinel, fs.ErrExist:
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "case ErrSentinel, fs.ErrExist", ""}}},
		{"switch on the error, assigned in its header", `switch _, err := os.Open(name); err {
	case nil:
		return 1, nil
	case io.EOF:
		return 0, nil
	default:
		return 0, err
	}`, []arm{{"fallback", "case io.EOF", ""}, {"propagate", "default", ""}}},
		{"switch on the error, assigned with = in its header", `var err error
	switch _, err = os.Open(name); err {
	case io.EOF:
		log.Print("eof")
	}
	return 1, err`, []arm{{"propagate", "case io.EOF", ""}}},
		{"switch without tag, the error alone assigned in its header", `switch err := os.Remove(name); {
	case err != nil:
		return 0, err
	}
	return 1, nil`, []arm{{"propagate", "err != nil", ""}}},
		{"switch on the error without case nil: default is no arm", `_, err := os.Open(name)
	switch err {
	case io.EOF:
		return 0, nil
	default:
		log.Print(err)
	}
	return 1, nil`, []arm{{"fallback", "case io.EOF", ""}}},
		{"switch on the error, a local variable", `mine := ErrSentinel
	_, err := os.Open(name)
	switch err {
	case mine:
		return 0, nil
	}
	return 1, nil`, []arm{{"fallback", "case mine", "local variable"}}},
		{"switch on something else", `_, err := os.Open(name)
	switch name {
	case "":
		return 0, err
	}
	return 1, nil`, nil},
		{"switch on the error nested in err != nil, and checks nested in its default", `_, err := os.Open(name)
	if err != nil {
		switch err {
		case nil:
		case io.EOF:
			return 0, nil
		default:
			if errors.Is(err, fs.ErrNotExist) {
				return -1, nil
			}
		}
		return 0, err
	}
	return 1, nil`, []arm{
			{"propagate", "err != nil", ""},
			{"fallback", "case io.EOF", ""},
			{"propagate", "default", ""}, // falls back on one path, the error reaches the return on the other
			{"fallback", "errors.Is(err, fs.ErrNotExist)", ""},
		}},
		{"the chain ends at a condition that is no arm", `_, err := os.Open(name)
	if err == nil && name != "" {
		return 0, err
	}
	return 1, nil`, nil},
		{"err != nil && x, x && err != nil, err != nil || x", `_, err := os.Open(name)
	if err != nil && name != "" {
		return 0, err
	} else if name == "" && err != nil {
		return -1, nil
	} else if err != nil || name == "x" {
		panic(err)
	}
	return 1, nil`, []arm{
			{"propagate", "err != nil && name != \"\"", ""},
			{"fallback", "name == \"\" && err != nil", ""},
			{"panic", "err != nil || name == \"x\"", ""},
		}},
		{"typed predicates joined, at any depth", `ok := name != ""
	mine := ErrSentinel
	_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) && !ok {
		return 0, nil
	} else if !ok && (err == mine || errors.Is(err, io.EOF)) {
		return 2, nil
	} else if err == mine || ok {
		return 3, nil
	} else if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	return 1, nil`, []arm{
			{"fallback", "errors.Is(err, fs.ErrNotExist) && !ok", ""},
			{"fallback", "!ok && (err == mine || errors.Is(err, io.EOF))", ""},
			{"fallback", "err == mine || ok", "local variable"},
			{"propagate", "err != nil && !errors.Is(err, io.EOF)", ""},
		}},
		{"checks nested in err != nil && x, not in err != nil || x", `_, err := os.Open(name)
	if err != nil && name != "" {
		if err == io.EOF {
			return 0, nil
		}
		return 0, err
	} else if err != nil || name == "" {
		if err == io.EOF {
			return 2, nil
		}
	}
	return 1, nil`, []arm{
			{"propagate", "err != nil && name != \"\"", ""},
			{"fallback", "err == io.EOF", ""},
			{"fallback", "err != nil || name == \"\"", ""},
		}},
		{"not the call's error", `_, err := os.Open(name)
	if name == "" {
		return 0, err
	}
	return 1, nil`, nil},
		{"an error made, not returned by a failure", `err := errors.New(name)
	if err != nil {
		return 0, err
	}
	return 1, nil`, nil},
		{"the check is not right after the call", `_, err := os.Open(name)
	name = ""
	if err != nil {
		return 0, err
	}
	return 1, nil`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []arm
			for _, m := range handlerEntries(t, tt.body) {
				got = append(got, arm{m[3], m[4], m[5]})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("handlers %v, want %v", got, tt.want)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.kind != w.kind || g.predicate != w.predicate || (w.notInjectable == "") != (g.notInjectable == "") ||
					!strings.Contains(g.notInjectable, w.notInjectable) {
					t.Errorf("arm %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestHandlerKinds checks that a handler's kind follows where its error
// goes, whatever the arm's text looks like.
func TestHandlerKinds(t *testing.T) {
	tests := []struct {
		name string
		body string // of func F(name string) (int, error)
		want []string
	}{
		{"wrapped in place, returned after code that assigns the error on another path", `var err error
	decoded := false
	if name != "" {
		if _, err = os.Open(name); err != nil {
			err = newDecodeError(name, err)
		}
		decoded = true
	}
	if !decoded {
		_, err = os.Stat(name)
	}
	return 1, err`, []string{"propagate"}},
		{"made into another variable by a call, returned after the arm", `var rerr error
	_, err := os.Open(name)
	if err != nil {
		rerr = newDecodeError(name, err)
	}
	return 1, rerr`, []string{"propagate"}},
		{"in a struct literal's field", `_, err := os.Open(name)
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return 1, nil`, []string{"propagate"}},
		{"the errors.As target returned", `var pe *fs.PathError
	_, err := os.Open(name)
	if errors.As(err, &pe) {
		return 0, pe
	}
	return 1, nil`, []string{"propagate"}},
		{"stored where the caller sees it", `_, err := os.Open(name)
	if err != nil {
		lastErr = err
	}
	return 1, nil`, []string{"propagate"}},
		{"appended to a slice that errors.Join returns after the loop", `var errs []error
	for _, n := range []string{name, name + "~"} {
		_, err := os.Open(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
	}
	return 1, errors.Join(errs...)`, []string{"accumulate"}},
		{"joined into an error returned after the loop", `var merr error
	for i := 0; i < 3; i++ {
		if _, err := os.Open(name); err != nil {
			merr = errors.Join(merr, err)
		}
	}
	return 1, merr`, []string{"accumulate"}},
		{"kept in a field of a value returned: propagate", `var res struct{ err error }
	if _, err := os.Open(name); err != nil {
		res.err = err
	}
	return 1, res.err`, []string{"propagate"}},
		{"set in an element of a slice returned after the loop", `errs := make([]error, 3)
	for i := range errs {
		if _, err := os.Open(name); err != nil {
			errs[i] = err
		}
	}
	return 1, errors.Join(errs...)`, []string{"accumulate"}},
		{"appended, and the collection returned by the arm: propagate", `var errs []error
	_, err := os.Open(name)
	if err != nil {
		errs = append(errs, err)
		return 0, errors.Join(errs...)
	}
	return 1, nil`, []string{"propagate"}},
		{"an err := in the arm shadows the error, which the return after it returns", `_, err := os.Open(name)
	if err != nil {
		_, err := os.Stat(name)
		log.Print(err)
	}
	return 1, err`, []string{"propagate"}},
		{"an err := in the arm that wraps the error", `_, err := os.Open(name)
	if err != nil {
		err := fmt.Errorf("open: %w", err)
		return 0, err
	}
	return 1, nil`, []string{"propagate"}},
		{"logged, and going nowhere", `_, err := os.Open(name)
	if err != nil {
		log.Printf("open %s: %v", name, err)
	}
	return 1, nil`, []string{"log-and-continue"}},
		{"skipped in a loop: ignore", `for i := 0; i < 3; i++ {
		_, err := os.Open(name)
		if err != nil {
			continue
		}
	}
	return 1, nil`, []string{"ignore"}},
		{"an empty arm", `_, err := os.Open(name)
	if err != nil {
	}
	return 1, nil`, []string{"ignore"}},
		{"a default value that reaches the return through another variable", `n := 0
	_, err := os.Open(name)
	if err != nil {
		n = -1
	}
	m := n * 2
	return m, nil`, []string{"fallback"}},
		{"an alternative value, used by the loop's result through a method", `val := name
	for i := 0; i < 3; i++ {
		f, err := os.Open(val)
		if err != nil || f == nil {
			f, _ = os.Open("")
			if f == nil {
				break
			}
		}
		val = val + f.Name()
	}
	return len(val), nil`, []string{"fallback"}},
		{"a message made from the error, logged", `_, err := os.Open(name)
	if err != nil {
		msg := "open: " + err.Error()
		log.Print(msg)
	}
	return 1, nil`, []string{"log-and-continue"}},
		{"os.Exit", `_, err := os.Open(name)
	if err != nil {
		os.Exit(2)
	}
	return 1, nil`, []string{"exit"}},
		{"a function of the package that always exits", `_, err := os.Open(name)
	if err != nil {
		fatal("open: %v", err)
	}
	return 1, nil`, []string{"exit"}},
		{"a function of the package that always panics", `_, err := os.Open(name)
	if err != nil {
		panicErr(err)
	}
	return 1, nil`, []string{"panic"}},
		{"a function of the package that panics when given an error", `_, err := os.Open(name)
	if err != nil {
		must(err)
	}
	return 1, nil`, []string{"panic"}},
		{"that function given another value", `_, err := os.Open(name)
	if err != nil {
		must(nil)
	}
	return 1, nil`, []string{"log-and-continue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range handlerEntries(t, tt.body) {
				got = append(got, m[3])
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("kinds %v, want %v", got, tt.want)
			}
		})
	}
}

// TestHandlerRouting checks which err != nil arms a panic of their
// region's call can be routed to, and why the others cannot.
func TestHandlerRouting(t *testing.T) {
	type arm struct{ route, notRoutable string }
	tests := []struct {
		name    string
		body    string // of func F(name string) (int, error)
		want    []arm
		results string // of the routed call
	}{
		{"a call of the package", `_, err := load(name)
	if err != nil {
		return 0, err
	}
	return 1, nil`, []arm{{"load(name)", ""}}, "_ []byte, err error"},
		{"a call of the standard library", `_, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	return 1, nil`, []arm{{"", "standard library (os.Open)"}}, ""},
		{"a method of an interface of the standard library", `var r io.Reader = os.Stdin
	_, err := r.Read(nil)
	if err != nil {
		return 0, err
	}
	return 1, nil`, []arm{{"r.Read(nil)", ""}}, "_ int, err error"},
		{"a function value", `f := load
	_, err := f(name)
	if err != nil {
		return 0, err
	}
	return 1, nil`, []arm{{"f(name)", ""}}, "_ []byte, err error"},
		{"the err != nil arm after a typed one, and the arm nested in it", `_, err := load(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		if err == io.EOF {
			return 2, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"", ""}, {"load(name)", ""}, {"", ""}}, "_ []byte, err error"},
		{"no err != nil arm", `_, err := load(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	return 1, nil`, []arm{{"", ""}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []arm
			for _, m := range handlerEntries(t, tt.body) {
				got = append(got, arm{strings.ReplaceAll(m[8], `\"`, `"`), m[10]})
				if m[8] != "" && m[9] != tt.results {
					t.Errorf("results %q, want %q", m[9], tt.results)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("handlers %v, want %v", got, tt.want)
			}
			for i, w := range tt.want {
				if g := got[i]; g.route != w.route || (w.notRoutable == "") != (g.notRoutable == "") || !strings.Contains(g.notRoutable, w.notRoutable) {
					t.Errorf("arm %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestHandlerWidening checks which typed arms can be widened to
// err != nil, and why the others cannot.
func TestHandlerWidening(t *testing.T) {
	type arm struct{ widened, notWidenable string }
	tests := []struct {
		name string
		body string // of func F(name string) (int, error)
		want []arm
	}{
		{"err != nil is not typed", `_, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	return 1, nil`, []arm{{"", ""}}},
		{"Is, == and As whose value is unused", `var pe *fs.PathError
	_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err == io.EOF {
		return 0, err
	} else if errors.As(err, &pe) {
		return 0, ErrSentinel
	}
	return 1, nil`, []arm{{"err != nil", ""}, {"err != nil", ""}, {"err != nil", ""}}},
		{"As whose arm uses the typed value", `var pe *fs.PathError
	_, err := os.Open(name)
	if errors.As(err, &pe) {
		return len(pe.Path), nil
	}
	return 1, nil`, []arm{{"", "the arm uses the typed value pe"}}},
		{"As whose typed value is used after the arm", `var pe *fs.PathError
	_, err := os.Open(name)
	if errors.As(err, &pe) {
		log.Print("path error")
	}
	if pe != nil {
		return 2, nil
	}
	return 1, nil`, []arm{{"", "the typed value pe is used outside the arm"}}},
		{"As into a package variable", `_, err := os.Open(name)
	if errors.As(err, &lastPathError) {
		return 0, nil
	}
	return 1, nil`, []arm{{"", "not the address of a local variable"}}},
		{"widened with the error's own name", `_, e2 := os.Open(name)
	switch {
	case errors.Is(e2, fs.ErrNotExist):
		return 0, nil
	}
	return 1, nil`, []arm{{"e2 != nil", ""}}},
		{"nested arms widen as the others", `var pe *fs.PathError
	_, err := os.Open(name)
	if err != nil {
		if err == io.EOF {
			return 0, nil
		} else if errors.As(err, &pe) {
			return len(pe.Path), nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"", ""}, {"err != nil", ""}, {"", "the arm uses the typed value pe"}}},
		{"joined predicates: widened in a disjunction, not in a conjunction", `ok := name != ""
	_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) && !ok {
		return 0, nil
	} else if ok || (errors.Is(err, io.EOF)) {
		return 2, nil
	} else if err != nil && ok {
		return 3, nil
	}
	return 1, nil`, []arm{
			{"", "joined with another condition by &&"},
			{"ok || err != nil", ""},
			{"", ""},
		}},
		{"a type switch nested in err != nil widens as the others", `_, err := os.Open(name)
	if err != nil {
		switch e := err.(type) {
		case *fs.PathError:
			return len(e.Path), nil
		case valueError:
			return -1, nil
		}
		return 0, err
	}
	return 1, nil`, []arm{{"", ""}, {"", "the arm uses the typed value e"}, {"err != nil", ""}}},
		{"switch on the error: cases widen, default is not typed", `_, err := os.Open(name)
	switch err {
	case nil:
	case io.EOF:
		return 0, nil
	default:
		return 0, err
	}
	return 1, nil`, []arm{{"err != nil", ""}, {"", ""}}},
		{"type switch cases: value unused, used, of an interface", `_, err := os.Open(name)
	switch e := err.(type) {
	case *fs.PathError:
		return 0, nil
	case valueError:
		return len(e.Error()), nil
	case interface{ Timeout() bool }:
		return 2, nil
	}
	return 1, nil`, []arm{{"err != nil", ""}, {"", "the arm uses the typed value e"}, {"", "cannot be made: the case's type is an interface"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := handlerEntries(t, tt.body)
			if len(got) != len(tt.want) {
				t.Fatalf("handlers %q, want %v", got, tt.want)
			}
			for i, w := range tt.want {
				g := got[i]
				if g[6] != w.widened || (w.notWidenable == "") != (g[7] == "") || !strings.Contains(g[7], w.notWidenable) {
					t.Errorf("arm %d (%s): widened %q, not widenable %q; want %+v", i, g[4], g[6], g[7], w)
				}
			}
		})
	}
}

// handlerEntries instruments a package whose function
// F(name string) (int, error) has body (with named results when body
// opens with a defer, for a handler to set), beside load, a function of
// the package that can panic, and returns the entries of its handler
// table, as handlerEntry's submatches (the predicate unquoted).
func handlerEntries(t *testing.T, body string) [][]string {
	t.Helper()
	sig := "(int, error)"
	if strings.HasPrefix(strings.TrimSpace(body), "defer") {
		sig = "(n int, err error)" // a result the handler can set
	}
	src := `package m

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
)

var ErrSentinel = errors.New("sentinel")

var lastPathError *fs.PathError

type valueError struct{}

func (valueError) Error() string { return "value" }

var _, _, _, _, _, _ = errors.New, fmt.Errorf, io.EOF, fs.ErrNotExist, log.Print, os.Open

func load(name string) ([]byte, error) { return os.ReadFile(name) }

var lastErr error

func newDecodeError(name string, err error) error { return &fs.PathError{Op: "decode", Path: name, Err: err} }

func panicErr(err error) { panic(err) }

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func fatal(format string, args ...any) {
	log.Printf(format, args...)
	os.Exit(1)
}

func F(name string) ` + sig + ` {
	` + body + `
}
`
	res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, m := range handlerEntry.FindAllStringSubmatch(string(res.Generated.Src), -1) {
		if !strings.HasPrefix(m[1], "example.com/m.F#handler:m.go:") {
			t.Errorf("handler ID %q", m[1])
		}
		m[4] = strings.ReplaceAll(m[4], `\"`, `"`)
		got = append(got, m)
	}
	return got
}
