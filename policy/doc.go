// Package policy reads and validates atomicheck.toml and answers, for a
// package import path and a function name, what atomicx should do with it.
package policy
