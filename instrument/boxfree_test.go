package instrument

import (
	"go/types"
	"testing"
)

const boxFixture = `package m

import "unsafe"

type P *int
type A = *int
type S struct{ p *int }

func F[T any, PT *int](
	ptr *int, m map[int]int, ch chan int, fn func(), err error, up unsafe.Pointer, named P, alias A,
	flag bool, c byte, i8 int8, str string, n int, b []byte, s S, arr [1]*int, t T, pt PT, anyv any,
) {
}
`

// TestBoxFree: the roots that the prologue passes to rt.Enter, boxed at
// every traced call, are those whose boxing allocates nothing.
func TestBoxFree(t *testing.T) {
	_, pkg := typeCheck(t, boxFixture)
	want := map[string]bool{
		"ptr": true, "m": true, "ch": true, "fn": true, "err": true, "up": true, "named": true, "alias": true, "anyv": true,
		"flag": true, "c": true, "i8": true,
		// Boxed in an allocated copy; a type parameter may stand for any
		// of them.
		"str": false, "n": false, "b": false, "s": false, "arr": false, "t": false, "pt": false,
	}
	params := pkg.Scope().Lookup("F").Type().(*types.Signature).Params()
	if params.Len() != len(want) {
		t.Fatalf("fixture has %d parameters, want %d", params.Len(), len(want))
	}
	for v := range params.Variables() {
		if got := boxFree(v.Type()); got != want[v.Name()] {
			t.Errorf("boxFree(%s %s) = %v, want %v", v.Name(), v.Type(), got, want[v.Name()])
		}
	}
}
