package rt

import (
	"errors"
	"io"
	"io/fs"
)

// Errors that mean "done", not "failed". A function's contract may give
// an error result a meaning of success: io.Reader's Read returns io.EOF,
// often with n > 0 bytes read, when its input ends; a filepath.WalkDir
// callback returns fs.SkipDir to skip a directory. Such a call did what
// its caller asked: rolling it back would undo a successful read, and
// reporting it as a failure would report a finding that no caller can
// meet. Site.Fails is the one test of "the call failed" that detection
// (Exit), masking (the rollbacks, generated or not), failure-oblivious
// wrappers and probes share.
//
// io.EOF means done whatever function returns it: io documents it as
// "the error returned by Read when no more input is available", and
// adds that "functions should return EOF only to signal a graceful end
// of input", an unexpected end being io.ErrUnexpectedEOF or another
// error. Decoders pass it up from helpers that are no Read method (a
// decompress step, a chunk reader) to the Read that returns it; a
// rollback of any of them loses input already consumed. A function that
// returns io.EOF for a truncated input breaks that contract, and is left
// as unmasked code would leave it.

// DoneErrors says which errors of the standard library, beyond io.EOF, a
// function's contract, read from its signature, defines as "done".
type DoneErrors uint8

const (
	// DoneSkip: fs.SkipDir and fs.SkipAll (filepath.SkipDir and
	// filepath.SkipAll are the same values), for a function of the
	// shape of fs.WalkDirFunc or filepath.WalkFunc.
	DoneSkip DoneErrors = 1 << iota
)

// Fails reports whether err, the error result of a call of the site's
// function, is a failure: not nil, not io.EOF, and not an error that the
// function's contract (Done) or the policy (DoneValues) defines as
// "done".
//
// The standard library's values are compared with ==, as their callers
// compare them: io's documentation says that Read "must return EOF
// itself, not an error wrapping EOF, because callers will test for EOF
// using ==", and filepath.WalkDir tests err == SkipDir. An error that
// wraps one of them is one that a caller does not take for it, and so a
// failure. The policy's values are matched with errors.Is, as Go code
// tests its own sentinels: a function that returns ErrStop with context
// added still tells its caller to stop.
func (s *Site) Fails(err error) bool {
	return err != nil && err != io.EOF && (s.Done == 0 && s.DoneValues == nil || !s.done(err))
}

func (s *Site) done(err error) bool {
	if s.Done&DoneSkip != 0 && (err == fs.SkipDir || err == fs.SkipAll) {
		return true
	}
	for _, v := range s.DoneValues {
		if v != nil && errors.Is(err, v) {
			return true
		}
	}
	return false
}

// failed is Fails for an error result that may be absent (errp nil).
func (s *Site) failed(errp *error) bool {
	return errp != nil && s.Fails(*errp)
}
