// Package campaign drives a detection campaign: it builds each package's
// test binary instrumented, runs every test once as the profile run to
// learn which injection points it reaches, then runs one experiment per
// reached point, occurrence and fault, with exactly one injection armed.
//
// It knows nothing of syntax trees or of the go command's tool runs: it
// runs the go command and the test binaries, and reads the event logs the
// runtime writes. Every finished run is appended to a journal at once, so
// a killed campaign loses nothing it finished and a rerun resumes.
package campaign
