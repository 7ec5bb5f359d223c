package rt

import (
	"sync/atomic"
	"time"
)

// A logged run (ATOMICX_LOG set by hand, no campaign setting) snapshots a
// sample of the calls by default: a test that calls a method of a large
// object thousands of times would otherwise copy the object at each call,
// which makes the run quadratic. The sample is taken per function:
//
//   - its first sampleFirst calls, where most tests exercise a function's
//     error paths;
//   - then calls 2·sampleFirst, 4·sampleFirst, 8·sampleFirst, …, so that the
//     snapshots of a function called n times cost O(log n) copies;
//   - and, after a failed call that was sampled out, the next sampleFirst
//     calls, at most sampleRetries times per function: a function that
//     fails once tends to fail again (a table of bad inputs, a retry loop),
//     and then its later failures get a verdict.
//
// Snapshots of a large graph cost much even so, when many functions reach
// it. So the sample is also bounded in time: past a first snapshotGrace,
// snapshots may take no longer than the rest of the run (see
// withinTimeBudget), which bounds a logged run to about twice the time it
// takes without snapshots.
//
// A failed call that was sampled out gets the verdict "unknown", with the
// reason and its call number: nothing is lost silently, and a
// deterministic test gives the missing verdict on a rerun that names the
// call in EnvSnapshotCalls (or sets EnvSnapshots=all).
const (
	sampleFirst   = 8
	sampleRetries = 4
	snapshotGrace = 500 * time.Millisecond
)

// snapshotTime is what a sampled run has spent taking snapshots since the
// program started.
var snapshotTime struct {
	start time.Time    // set once, when the settings are read
	spent atomic.Int64 // nanoseconds
}

// withinTimeBudget reports whether a sampled run that has spent spent on
// snapshots, elapsed after it started, may take another one.
func withinTimeBudget(spent, elapsed time.Duration) bool {
	return spent <= snapshotGrace+(elapsed-spent)
}

// sampledIn reports whether the nth call of a function is snapshotted,
// retryUntil being the last call of its current retry window (0: none).
func sampledIn(n, retryUntil uint64) bool {
	if n <= sampleFirst || n <= retryUntil {
		return true
	}
	q := n / sampleFirst
	return n%sampleFirst == 0 && q&(q-1) == 0
}

// retrySampling opens a retry window after a failed call of s that was
// sampled out: the next sampleFirst calls of s are snapshotted. Calls
// entered since the failed one (it may have called s again) count
// towards the window.
func (s *Site) retrySampling() {
	if s.retries.Load() >= sampleRetries || s.retries.Add(1) > sampleRetries {
		return
	}
	s.retryUntil.Store(s.calls.Load()&^slotTaken + sampleFirst)
}

// sampledOutReason is the reason of the "unknown" verdict of a call that
// failed but was sampled out, by its number or because the time budget
// was spent. It is short: a deep recursion that fails all the way out
// logs one per level. The event's site and call say what to snapshot on
// a rerun (EnvSnapshotCalls).
func sampledOutReason(overBudget bool) string {
	if overBudget {
		return "not snapshotted: over the snapshot time budget"
	}
	return "not snapshotted: sampled out"
}
