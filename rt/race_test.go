//go:build race

package rt

// raceEnabled says that the race detector watches the tests: a write that
// races with a read fails the test even when it writes the same bits.
const raceEnabled = true
