// Package handlers asks what a module's error handlers do when they run:
// each handler (an arm of a check of a call's error) is armed in every
// test whose profile run reached its region, and the tests' outcomes
// say whether the handler depends on the error's source and whether the
// workload survives it (short-circuit testing, after Cornu, Seinturier
// and Monperrus). Typed arms are then run widened to any error, and
// panics of a region routed to its err != nil arm, to validate those
// changes.
//
// It plans and reads; the engine (package campaign) builds, runs and
// journals.
package handlers
