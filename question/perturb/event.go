package perturb

// event is a line of a run's event log (campaign.Record.Events), as far
// as perturbation reads it: the injection, the failed calls that
// followed it and what failure-oblivious functions did.
type event struct {
	Event string `json:"event"`
	Site  string `json:"site"`
	Pos   string `json:"pos"`
	// inject: the calls in progress on the stack, "N@SITE;..."
	Stack string `json:"stack"`
	// fail
	Call uint64 `json:"call"`
	// oblivious: a failure-oblivious function's failed call, whether it
	// was swallowed, and, for an atomic one, rolled back first
	Swallowed  bool `json:"swallowed"`
	Atomic     bool `json:"atomic"`
	RolledBack bool `json:"rolled_back"`
	// the goroutine of the injection and of a failed call
	G uint64 `json:"g"`
}
