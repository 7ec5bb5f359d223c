package detect

// event is a line of a run's event log (campaign.Record.Events), as far
// as detection reads it: failed calls ("fail") and verdicts.
type event struct {
	Event string `json:"event"`
	Site  string `json:"site"`
	// fail: the number of the failed call, 0 beyond the calls that a
	// profile run numbers
	Call uint64 `json:"call"`
	// verdict
	Verdict  string `json:"verdict"`
	Reason   string `json:"reason"`
	Injected bool   `json:"injected"`
	Masked   bool   `json:"masked"`
	// what a non-atomic call changed: the kind of change, the path of
	// the first difference, the callback it came through, and whether
	// the call was the first non-atomic one of its chain
	Changes  string `json:"changes"`
	Path     string `json:"path"`
	Callback string `json:"callback"`
	First    bool   `json:"first"`
	// where the failed call ran: its process, goroutine and entry number
	Pid uint64 `json:"pid"`
	G   uint64 `json:"g"`
	Seq uint64 `json:"seq"`
}
