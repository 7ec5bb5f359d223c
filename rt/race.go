//go:build race

package rt

// raceEnabled says that the race detector watches the program: a write
// that races with a read is reported even when it writes the same bits,
// so the runtime leaves alone what instrumented code reads without
// synchronization (see Site.Gate).
const raceEnabled = true
