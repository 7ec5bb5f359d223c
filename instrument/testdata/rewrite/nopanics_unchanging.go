package unchanging

import "errors"

type Stack struct {
	items []int
	hits  int
	max   int
	ch    chan int
}

// Left as written: no failure of theirs can leave a change.

func (s *Stack) Len() int { return len(s.items) }

func (s *Stack) Top() int { return s.items[len(s.items)-1] }

func (s *Stack) SetMax(n int) { s.max = n }

func (s *Stack) Hit() { s.hits++ }

func (s *Stack) Sum() (total int) {
	for _, x := range s.items {
		total += x
	}
	return total
}

func (s *Stack) Clamp(i int) {
	if i < 0 {
		i = 0
	}
	s.max = s.items[i] / i
}

// Instrumented: a failure may leave a change.

func (s *Stack) HitTop() int {
	s.hits++
	return s.items[len(s.items)-1]
}

func (s *Stack) Reset() {
	s.hits, s.max = 0, 0
}

func (s *Stack) Push(x int) { s.items = append(s.items, x) }

func (s *Stack) Next() int { return <-s.ch }

func (s *Stack) Drain() (n int) {
	for range s.ch {
		n++
	}
	return n
}

func (s *Stack) Count() int { return count(s.items) }

func count(xs []int) int { return len(xs) }

func (s *Stack) Check() error {
	if len(s.items) == 0 {
		return errors.New("empty")
	}
	return nil
}

func Each[C ~chan int](c C) (n int) {
	for range c {
		n++
	}
	return n
}

func (s *Stack) Fill(p *int) {
	*p = s.max
	s.hits = *p / s.max
}

// Literals too: get and set are left as written, bump and the last one
// instrumented, as Funcs, which declares them.
func (s *Stack) Funcs() (func() int, func()) {
	get := func() int { return s.max }
	set := func() { s.max++ }
	bump := func() { s.hits++; s.max++ }
	return get, func() { set(); bump() }
}

// point's methods are all left as written: the table says so of each.
type point struct{ x, y int }

func (p point) X() int      { return p.x }
func (p *point) SetY(y int) { p.y = y }
