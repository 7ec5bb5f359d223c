package m

import (
	"errors"
	"strconv"
)

// Every function here has no root or plain-value roots only: each call
// works on its own copies, so masking adds nothing and the file is left
// as it is (no unused variable, no unused import).

var errBad = errors.New("bad")

func Check() error { return errBad }

func Parse(s string, base int) (int, error) {
	n, err := strconv.ParseInt(s, base, 64)
	return int(n), err
}

func Sum(xs [3]int) {
	for _, x := range xs {
		if x < 0 {
			panic(errBad)
		}
	}
}

type Point struct{ X, Y float64 }

func (p Point) Scale(k float64) (Point, error) {
	if k == 0 {
		return p, errBad
	}
	p.X *= k
	p.Y *= k
	return p, nil
}
