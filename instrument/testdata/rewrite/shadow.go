package shadow

import "errors"

var errStep = errors.New("step")

// step returns an error it did not build: a failure.
func step() error { return errStep }

func value() (int, error) { return 1, nil }

// Load names its results, then shadows err in inner scopes.
func Load(name string) (n int, err error) {
	if err := step(); err != nil {
		return 0, err
	}
	if n, err := value(); err != nil {
		return n, err
	}
	{
		err := errors.New("inner " + name)
		if name == "" {
			return -1, err
		}
	}
	for n := 0; n < 3; n++ {
		if err := step(); err != nil {
			return n, err
		}
	}
	n, err = value()
	return
}
