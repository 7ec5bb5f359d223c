// Package coverage tells what a campaign's injected faults made run that
// the tests alone did not: statement coverage of the tests (the profile
// runs) against the tests plus injection (every run), per package and per
// function, and the same for the statements of error paths — the bodies
// of the if statements and case clauses that test an error against nil
// or with errors.Is or errors.As, deferred function literals, and the
// blocks that handle a recovered panic.
//
// It reads the counters that coverage-instrumented runs write (through
// go tool covdata) and the workload's sources (through go/packages); it
// knows nothing of how the runs were made. Package report renders its
// model.
package coverage
