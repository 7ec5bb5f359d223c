package handlers

// event is a line of a run's event log (campaign.Record.Events), as far
// as handler testing reads it: the handlers a profile run saw
// ("handler"), the executions of their regions ("white") and those of
// an armed run ("armed").
type event struct {
	Event string `json:"event"`
	Site  string `json:"site"` // the handler's ID
	Pos   string `json:"pos"`
	// handler: see HandlerSeen
	Func          string `json:"func"`
	Region        string `json:"region"`
	Usage         string `json:"usage"` // executed, pink, white or blue
	HandlerKind   string `json:"handler_kind"`
	Predicate     string `json:"predicate"`
	NotInjectable string `json:"not_injectable"`
	Widened       string `json:"widened"`
	NotWidenable  string `json:"not_widenable"`
	Route         string `json:"route"`
	RouteResults  string `json:"route_results"`
	NotRoutable   string `json:"not_routable"`
	// white and armed: the execution of a handler's region, and whether
	// more came than the run logs
	At   uint64 `json:"at"`
	More bool   `json:"more"`
}
