// Package report turns the records of a detection campaign into verdicts
// per function and per type, and renders them.
//
// Classification follows Fetzer, Högstedt and Felber: a function is
// non-atomic when some failing call of it left its object graph changed;
// along the propagation of one failure the first function found
// non-atomic is pure, and a non-atomic function that is never first is
// dependent (it would be atomic if its callees were). A type is pure
// non-atomic when one of its methods is.
//
// The renderings are text (file:line:col lines grouped by verdict), JSON
// (a versioned schema), one self-contained HTML page, and SARIF 2.1.0.
package report
