package rt

// Failure-oblivious functions in a masking build (the policy's oblivious
// and oblivious_atomic lists): the rewritten function defers, before
// anything else so that it runs last, one of
//
//	defer rt.Swallow(site, &err)                             // oblivious
//	var ob rt.Oblivious; defer ob.Swallow(site, &done, &err) // oblivious_atomic
//
// Like the rest of masking, nothing here reads the environment or writes
// anywhere.

// Swallow ends a call of a failure-oblivious function of site s: a panic
// going through it is recovered, and its error result (errp, nil when it
// has none) is set to nil unless it means done (see Site.Fails): a
// reader's io.EOF is what its caller waits for. The other results stay
// as the function left them. A runtime.Goexit goes on. It must be the
// deferred function itself: recover stops a panic only when the deferred
// function calls it.
func Swallow(s *Site, errp *error) {
	recover()
	if s.failed(errp) {
		*errp = nil
	}
}

// Oblivious is one call of an atomic failure-oblivious function: its
// failures are swallowed only once the call has been rolled back, so
// that callers that see it succeed see the state it had at entry.
type Oblivious struct {
	unmasked bool // the reflective checkpoint could not be taken
}

// Masked notes the reflective checkpoint of the call, c, and returns it:
// nil means that the call runs unmasked, and its failures then go on.
func (o *Oblivious) Masked(c *Checkpoint) *Checkpoint {
	o.unmasked = c == nil
	return c
}

// Swallow is Swallow for an atomic failure-oblivious call, deferred
// before its rollbacks so that it runs after them. done says whether the
// function passed a return statement: a panic raised by one of its
// deferred calls after it returned without failing is not rolled back
// (see Rollback), so it is not swallowed either.
func (o *Oblivious) Swallow(s *Site, done *bool, errp *error) {
	if o.unmasked || *done && !s.failed(errp) {
		return
	}
	recover()
	if s.failed(errp) {
		*errp = nil
	}
}
