package campaign_test

import (
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/handlers"
	"github.com/atomicx/atomicx/question/perturb"
)

// TestHandlerArming checks the words of a handler's arming string
// (HandlerInjection) against rt's source: the fault word and the
// occurrence word are ones rt's parse knows.
func TestHandlerArming(t *testing.T) {
	rtLiterals := campaign.RuntimeLiterals(t)
	for _, word := range []string{handlers.HandlerFaultWord, campaign.OccurrenceAlways} {
		if !rtLiterals[word] {
			t.Errorf("rt's source has no %q: it cannot parse the arming string %s", word, handlers.HandlerInjection("m.F#handler:f.go:1:2"))
		}
	}
	fault, rest, _ := strings.Cut(handlers.HandlerInjection("m.F#handler:f.go:1:2"), ":")
	occ, id, _ := strings.Cut(rest, ":")
	if fault != handlers.HandlerFaultWord || occ != campaign.OccurrenceAlways || id != "m.F#handler:f.go:1:2" {
		t.Errorf("HandlerInjection is not FAULT:OCCURRENCE:SITE: %s", handlers.HandlerInjection("m.F#handler:f.go:1:2"))
	}
}

// TestArmingWords: the words the perturbation runs write into ATOMICX_INJECT's
// FAULT and OCCURRENCE fields are words rt's parse knows.
func TestArmingWords(t *testing.T) {
	rtLiterals := campaign.RuntimeLiterals(t)
	for _, word := range []string{"error", "panic", campaign.OccurrenceAlways} {
		if !rtLiterals[word] {
			t.Errorf("the campaign arms %q, which rt's source never names", word)
		}
	}
	for _, r := range []*campaign.Record{
		{Kind: "experiment", Site: "m.F#entry", Occurrence: 1, Fault: "error"},
		{Kind: "experiment", Site: "m.F#entry", Always: true, Fault: "panic"},
	} {
		inject := perturb.PerturbEnv(r)[0]
		_, value, _ := strings.Cut(inject, "=")
		fault, rest, _ := strings.Cut(value, ":")
		occ, site, _ := strings.Cut(rest, ":")
		if fault != r.Fault || site != r.Site || r.Always != (occ == campaign.OccurrenceAlways) {
			t.Errorf("perturb.PerturbEnv(%+v) arms %q", r, inject)
		}
	}
}
