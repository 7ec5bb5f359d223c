package instrument

import (
	"bytes"
	"regexp"
	"slices"
	"testing"
)

// TestDeclaredNonPoints: the policy's never_fail and error_constructors
// lists reach the package's own functions, whose analysis alone would
// not find them.
func TestDeclaredNonPoints(t *testing.T) {
	src := `package m

type Sink struct{ n int }

// Write never fails, by its author's word.
func (s *Sink) Write(p []byte) (int, error) {
	s.n += len(p)
	return len(p), nil
}

// mk returns nil on a path that is not "nothing to wrap": no
// constructor but by the policy's word.
func mk(s string) error {
	if s == "" {
		return nil
	}
	return &Err{s}
}

type Err struct{ s string }

func (e *Err) Error() string { return e.s }

func Use(s *Sink) error {
	if _, err := s.Write(nil); err != nil {
		return err
	}
	return mk("x")
}
`
	tests := []struct {
		name         string
		declare      bool
		omitted      map[string]int
		constructors []string
		writeFails   bool
	}{
		{"undeclared", false, nil, nil, true},
		{"declared", true, map[string]int{omitContract: 1, omitConstructor: 1}, []string{"mk"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			opts.Panics = false
			if tt.declare {
				opts.NeverFails = func(name string) bool { return name == "(*example.com/m.Sink).Write" }
				opts.ErrorConstructors = func(name string) bool { return name == "example.com/m.mk" }
			}
			res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.OmittedCalls) != len(tt.omitted) {
				t.Errorf("omitted calls = %v, want %v", res.OmittedCalls, tt.omitted)
			}
			for reason, n := range tt.omitted {
				if res.OmittedCalls[reason] != n {
					t.Errorf("omitted calls = %v, want %v", res.OmittedCalls, tt.omitted)
				}
			}
			if !slices.Equal(res.Constructors, tt.constructors) {
				t.Errorf("constructors = %v, want %v", res.Constructors, tt.constructors)
			}
			// The site table's flags: "e" for an entry that can inject an
			// error.
			entry := regexp.MustCompile(`"(\w*)\\texample.com/m.\(\*Sink\).Write#entry`).FindSubmatch(res.Generated.Src)
			if entry == nil {
				t.Fatalf("no site for Write's entry:\n%s", res.Generated.Src)
			}
			if fails := slices.Contains(entry[1], 'e'); fails != tt.writeFails {
				t.Errorf("Write's entry injects errors: %t, want %t (flags %q)", fails, tt.writeFails, entry[1])
			}
		})
	}
}

// TestDiscardedErrorsAreNotPoints: a call whose error its caller assigns
// to _ is no injection point, in any statement that assigns it; one
// whose error is kept is.
func TestDiscardedErrorsAreNotPoints(t *testing.T) {
	src := `package m

import (
	"net/url"
	"strconv"
)

func Redirect(s string) string {
	u, _ := url.Parse(s)
	u.Path += "/"
	_, _ = strconv.Atoi(s)
	if n, _ := strconv.Atoi(s); n > 0 {
		return ""
	}
	return u.String()
}

func Kept(s string) (int, error) {
	n, err := strconv.Atoi(s)
	return n, err
}
`
	res, err := Package([]File{{Name: "/src/example.com/m/m.go", Src: []byte(src)}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if n := res.OmittedCalls[omitDiscarded]; n != 3 {
		t.Errorf("calls omitted as discarding their error: %d, want 3 (all: %v)", n, res.OmittedCalls)
	}
	for _, want := range []string{"example.com/m.Kept#call:strconv.Atoi#1"} {
		if !bytes.Contains(res.Generated.Src, []byte(want)) {
			t.Errorf("no site %s:\n%s", want, res.Generated.Src)
		}
	}
	if bytes.Contains(res.Generated.Src, []byte("Redirect#call:")) {
		t.Errorf("Redirect's calls discard their errors, yet are points:\n%s", res.Generated.Src)
	}
}
