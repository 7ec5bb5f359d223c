//go:build go1.23

package leaks

import "time"

// Since Go 1.23 a timer nothing references is collected, stopped or not.
func timerCollected(d time.Duration, done chan bool) error {
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
