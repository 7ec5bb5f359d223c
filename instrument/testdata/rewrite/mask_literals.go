package m

import "errors"

var errEmpty = errors.New("empty")

type Store struct {
	m   map[string]int
	log []string
}

// Each is masked with a generated checkpoint, and so is its literal,
// with the runtime's: its roots are its argument and the variables it
// captures.
func (s *Store) Each(names []string) error {
	n := 0
	visit := func(name string) error {
		if name == "" {
			return errEmpty
		}
		n++
		s.log = append(s.log, name)
		return nil
	}
	for _, name := range names {
		if err := visit(name); err != nil {
			return err
		}
	}
	s.m["n"] = n
	return nil
}

// A literal with plain arguments and no capture has nothing to roll back.
var double = func(x int) (int, error) {
	if x < 0 {
		return 0, errEmpty
	}
	return 2 * x, nil
}
