// Package rt is the runtime that atomicx links into instrumented programs.
//
// It decides whether a fault is injected at an injection point, takes
// snapshots of the object graph a call can reach (receiver, arguments and,
// on request, package-level variables), compares them after a failure, and
// appends verdict events to the event log.
//
// The object graph is plain data, walked through unexported fields, with
// leaves of three sorts: funcs, channels and unsafe.Pointers compare by
// identity; locks and other synchronisation state (sync.Mutex, RWMutex,
// Once, WaitGroup, Cond, Pool) are ignored; and opaque objects,
// whose state is outside the heap (open files and connections, processes,
// runtime timers, type descriptors: see isOpaqueType), are not walked,
// compared nor written back, so a pointer to one compares by identity and
// a rollback leaves a file the call closed closed. Plain in-memory data of
// the standard library (bytes.Buffer, bufio, big.Int, time.Time) is data,
// and so is concurrent data: a sync.Map compares by its entries, a
// sync/atomic value by what it holds, both read and written back through
// their own methods (see graph_conc.go).
//
// The package is compiled into users' binaries, so it imports the standard
// library only, and its arming contract (package arm, which names and
// parses the environment variables that drive it); it keeps its
// dependencies few, holds no global state beyond the settings read once
// at start-up and the injection counters, and costs one predictable
// branch per instrumented call while nothing is enabled (small functions
// stay inlinable: see On).
// It must never be instrumented itself, nor must arm.
package rt
