// Package perturb asks which failure points a workload survives, after
// TripleAgent (Zhang and Monperrus): each point its tests reach fails
// once, then at every reach, and is classified fragile, sensitive or
// immunized by the tests' outcomes; the functions that passed the
// failure on are validated as failure-oblivious candidates.
//
// It plans and reads; the engine (package campaign) builds, runs and
// journals.
package perturb
