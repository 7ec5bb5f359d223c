package rt

import (
	"errors"
	"testing"
	"time"
)

// reentrantErr's Unwrap does what an instrumented Unwrap does when it
// returns a non-nil error: it reports a failure to the runtime.
type reentrantErr struct{}

func (reentrantErr) Error() string { return "outer" }
func (reentrantErr) Unwrap() error {
	joinChain(1, false, errors.New("inner"))
	return errors.New("inner")
}

type panickyErr struct{}

func (panickyErr) Error() string { panic("Error panics") }
func (panickyErr) Unwrap() error { panic("Unwrap panics") }

// TestChainCallsUserCodeSafely: the runtime calls the failing error's
// methods (errors.As calls Unwrap) without holding its lock, so an
// instrumented Unwrap cannot deadlock it, and a method that panics does
// not make the runtime panic.
func TestChainCallsUserCodeSafely(t *testing.T) {
	resetChains()
	t.Cleanup(resetChains)
	done := make(chan struct{})
	go func() {
		defer close(done)
		joinChain(5, true, reentrantErr{})
		if _, injected, _ := joinChain(6, true, panickyErr{}); injected {
			t.Error("an error whose Unwrap panics counted as injected")
		}
		if got := errorText(panickyErr{}); got != "(Error method panicked)" {
			t.Errorf("errorText = %q", got)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("joinChain deadlocked on an error whose Unwrap reports a failure")
	}
}
