package leaks

// event is a line of a run's event log (campaign.Record.Events), as far
// as leak confirmation reads it: the injection, probes of resources and
// verdicts.
type event struct {
	Event string `json:"event"`
	Site  string `json:"site"`
	// verdict
	Failure string `json:"failure"` // error or panic
	End     int    `json:"end"`     // the line the failed call ended at, 0 if not known
	// probe (and End)
	Acquire string `json:"acquire"` // the acquire call probed, as sites give positions
	State   string `json:"state"`   // open, closed or unknown
	Why     string `json:"why"`     // why its state is unknown
}
