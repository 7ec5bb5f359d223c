// Package rt is the runtime that atomicx links into instrumented programs.
//
// It decides whether a fault is injected at an injection point, takes
// snapshots of the object graph a call can reach (receiver, arguments and,
// on request, package-level variables), compares them after a failure, and
// appends verdict events to the event log.
//
// The package is compiled into users' binaries, so it imports the standard
// library only, keeps its dependencies few, holds no global state beyond
// the settings read once at start-up and the injection counters, and costs
// one predictable branch per instrumented call while nothing is enabled.
// It must never be instrumented itself.
package rt
