package returns

import (
	"errors"
	"strconv"
)

func Parse(kind string, s string) (int, error) {
	switch kind {
	case "int":
		return strconv.Atoi(s)
	case "bool":
		b, err := strconv.ParseBool(s)
		if b {
			return 1, err
		}
		return 0, err
	default:
		return 0, errors.New("unknown kind " + kind)
	}
}

func Wait(a, b <-chan int, quit chan struct{}) (int, error) {
	for {
		select {
		case v := <-a:
			return v, nil
		case v, ok := <-b:
			if !ok {
				return 0, errors.New("closed")
			}
			return v, nil
		case <-quit:
			return 0, errors.New("quit")
		}
	}
}

// Closures keep their own returns.
func Each(xs []int, f func(int) error) error {
	check := func(x int) error {
		if x < 0 {
			return errors.New("negative")
		}
		return nil
	}
	for _, x := range xs {
		if err := check(x); err != nil {
			return err
		}
		if err := func() error { return f(x) }(); err != nil {
			return err
		}
	}
	return nil
}
