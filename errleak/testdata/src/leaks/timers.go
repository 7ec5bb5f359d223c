//go:build go1.23

package leaks

import "time"

// Since Go 1.23 a timer nothing references is collected, stopped or not.
func timerCollected(d time.Duration, done chan bool) error { // want timerCollected:`borrows param 1`
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return errBad
	case <-done:
	}
	t.Stop()
	return nil
}

func tickerCollected(n int) error {
	t := time.NewTicker(time.Second)
	if n < 0 {
		return errBad
	}
	t.Stop()
	return nil
}

func newTimer(d time.Duration) *time.Timer { // want newTimer:`returns an open timer \(result 0; release: Stop\)`
	return time.NewTimer(d)
}

// A timer from a function that returns one is a timer all the same.
func timerFromFunc(d time.Duration, done chan bool) error { // want timerFromFunc:`borrows param 1`
	t := newTimer(d)
	select {
	case <-t.C:
		return errBad
	case <-done:
	}
	t.Stop()
	return nil
}
