package handlers

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

var ErrGone = errors.New("gone")

func load(name string) ([]byte, error) { return os.ReadFile(name) }

// Rewrites: the arm nested in err != nil rewrites the error returned
// after it.
func Rewrites(name string) ([]byte, error) {
	data, err := load(name)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return data, nil
}

// Joined: predicates joined with other conditions by && and ||.
func Joined(name string, strict bool) (int, error) {
	_, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) && !strict {
		return 0, nil
	} else if strict || errors.Is(err, io.EOF) {
		return 1, nil
	} else if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		if err == ErrGone {
			return 2, nil
		}
		return 0, err
	}
	return 3, nil
}

// HeaderSwitch: a switch on the error assigned in its header, with a
// case of two values.
func HeaderSwitch(name string) (int, error) {
	switch _, err := load(name); err {
	case nil:
		return 1, nil
	case io.EOF, io.ErrUnexpectedEOF:
		return 0, nil
	default:
		return 0, err
	}
}

// TypeCases: a case of two types.
func TypeCases(name string) int {
	_, err := os.Open(name)
	switch err.(type) {
	case *fs.PathError, *os.SyscallError:
		return -1
	}
	return 0
}

// NestedTypeSwitch: a type switch, and checks in a loop and a block,
// nested in err != nil.
func NestedTypeSwitch(name string) (int, error) {
	_, err := os.Open(name)
	if err != nil {
		for i := 0; i < 2; i++ {
			if errors.Is(err, fs.ErrPermission) {
				println(i)
			}
		}
		switch err.(type) {
		case *fs.PathError:
			return -1, nil
		case *os.SyscallError:
			return -2, nil
		}
		return 0, err
	}
	return 1, nil
}
