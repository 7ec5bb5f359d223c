package linedirective

import "errors"

//line parser.y:10
func Parse(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	return len(s), nil
}

//line parser.y:40:1
func Reduce(n int) error {
	if n < 0 {
		return errors.New("negative")
	}
	return nil
}

//line linedirective.go:22
func Back() error { return nil }
