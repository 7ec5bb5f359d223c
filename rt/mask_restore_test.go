package rt

import (
	"reflect"
	"sync"
	"testing"
)

// Tests that a rollback writes back only what the failed call changed:
// goroutines may read the same objects while it runs (under a read lock,
// or objects shared read-only), and a write of the very bits they read is
// still a data race.

// TestMaskRollbackOfUnchangedGraphWritesNothing fails a masked call that
// changed nothing, on every graph of mtCases, while another goroutine
// reads the whole graph. Under the race detector any write of the
// rollback, of objects, array elements or maps, fails the test.
func TestMaskRollbackOfUnchangedGraphWritesNothing(t *testing.T) {
	if !raceEnabled {
		t.Skip("a write of unchanged memory is only seen by the race detector: run with -race")
	}
	for _, tc := range mtCases {
		t.Run(tc.name, func(t *testing.T) {
			view := tc.view
			if view == nil {
				view = func(s any) any { return s }
			}
			before, _ := tc.build()
			state, roots := tc.build()
			var wg sync.WaitGroup
			wg.Add(1)
			var equal bool
			// Started after nothing but the build: the reads below and the
			// rollback are not ordered, as for a reader under a read lock.
			go func() {
				defer wg.Done()
				equal = reflect.DeepEqual(view(state), view(before))
			}()
			if err := mtMaskedErr(mtFailError, func() {}, roots...); err != mtErr {
				t.Errorf("the call returned %v, want %v", err, mtErr)
			}
			wg.Wait()
			if !equal {
				t.Errorf("the reader saw %+v, want it as built: %+v", view(state), view(before))
			}
		})
	}
}
