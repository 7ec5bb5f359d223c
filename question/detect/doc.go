// Package detect asks which functions are not failure atomic: it plans
// one experiment per point, occurrence and fault that a test's profile
// run reached, a natural rerun for the profile run's own failures, and
// replays of failures with the non-atomic functions inside them masked,
// which tell pure from dependent non-atomic functions (Blame).
//
// It plans and reads; the engine (package campaign) builds, runs and
// journals. Its runs are the model of an experiment that other questions
// reuse (PlannedRuns).
package detect
