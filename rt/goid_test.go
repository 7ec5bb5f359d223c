package rt

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// The number read from the goroutine's descriptor is the one its trace
// prints, on goroutines started before and after the offset was found,
// and on the deep stacks where the trace is read another way.
func TestGoroutineIDMatchesTrace(t *testing.T) {
	if haveCurrentG && goidOffset() == noGoidOffset {
		t.Fatalf("no offset of the goroutine number found in the runtime's goroutine descriptor (%s)", runtime.Version())
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			check := func() {
				if got, want := goroutineID(), ownGoroutineID(); got != want {
					errs <- fmt.Sprintf("goroutineID %d, trace says %d", got, want)
				}
			}
			if i%4 == 0 {
				atDepth(2*shallowStack, func() {
					if got, want := goroutineID(), tracedGoroutineID(); got != want {
						errs <- fmt.Sprintf("deep: goroutineID %d, trace says %d", got, want)
					}
				})
			}
			check()
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if a, b := goroutineID(), goroutineID(); a != b || a == 0 {
		t.Errorf("goroutineID twice on one goroutine: %d, %d", a, b)
	}
}
