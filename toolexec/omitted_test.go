package toolexec

import (
	"testing"

	"github.com/atomicx/atomicx/instrument"
)

func TestOmittedNote(t *testing.T) {
	tests := []struct {
		name string
		res  instrument.Result
		want string
	}{
		{"nothing left out", instrument.Result{CallPoints: 3}, ""},
		{"reasons by count", instrument.Result{CallPoints: 2, OmittedCalls: map[string]int{
			"in go or defer statements":                              1,
			"that cannot fail by their callee's documented contract": 4,
			"of error constructors":                                  2,
		}}, "atomicx: note: example.com/m: 7 of 9 calls of error-returning functions are not injection points: " +
			"4 that cannot fail by their callee's documented contract, 2 of error constructors, 1 in go or defer statements"},
		{"one constructor", instrument.Result{CallPoints: 1, Constructors: []string{"wrap"}},
			"atomicx: note: example.com/m: 0 of 1 calls of error-returning functions are not injection points; nor is the entry of 1 error constructor (wrap)"},
		{"many constructors", instrument.Result{OmittedCalls: map[string]int{"of error constructors": 1}, Constructors: []string{"a", "b", "c", "(*T).d", "e", "f"}},
			"atomicx: note: example.com/m: 1 of 1 calls of error-returning functions are not injection points: 1 of error constructors; nor are the entries of 6 error constructors (a, b, c, (*T).d and 2 more)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := omittedNote("example.com/m", &tt.res); got != tt.want {
				t.Errorf("omittedNote =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
