// Package question is the registry of the questions a campaign asks:
// detection of functions that are not failure atomic, the tests of error
// handlers, perturbation, and the confirmation of errleak's findings.
// Each question lives in a package of its own; the engine (package
// campaign) knows none of them by name, and is handed the one it runs.
package question

import (
	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/detect"
	"github.com/atomicx/atomicx/question/handlers"
	"github.com/atomicx/atomicx/question/leaks"
	"github.com/atomicx/atomicx/question/perturb"
)

// All returns the questions, detect's first: the default of the commands
// that ask one.
func All() []*campaign.Planner {
	return []*campaign.Planner{detect.Detect, perturb.Perturb, handlers.Handlers, leaks.Confirm}
}

// Named returns the question of that name (as plans and journal headers
// name it), nil if there is none. A journal header that names no
// question is of the question that leaves itself unnamed
// (campaign.Planner.Unnamed), or of one that recognizes the records: use
// Of for journals.
func Named(name string) *campaign.Planner {
	for _, q := range All() {
		if q.Name == name {
			return q
		}
	}
	return nil
}

// Of returns the question that a campaign asked, by its header (nil if
// none) and its journal's records: the question the header names, nil if
// there is none of that name; when it names none, the question that
// recognizes the records, else the unnamed one.
func Of(h *campaign.Header, recs []*campaign.Record) *campaign.Planner {
	if h != nil && h.Question != "" {
		return Named(h.Question)
	}
	for _, q := range All() {
		if q.Recognizes != nil && q.Recognizes(recs) {
			return q
		}
	}
	for _, q := range All() {
		if q.Unnamed {
			return q
		}
	}
	return nil
}
