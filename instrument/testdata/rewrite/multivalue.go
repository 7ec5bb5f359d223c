package multivalue

import (
	"os"
	"strconv"
)

func pair() (int, error) { return strconv.Atoi("1") }

func Forward() (int, error) {
	return pair()
}

func ForwardNamed() (n int, err error) {
	return pair()
}

func ForwardMethod(name string) (*os.File, error) {
	return os.Open(name)
}

func Three() (a string, b int, err error) { return three() }

func three() (string, int, error) { return "", 0, nil }
