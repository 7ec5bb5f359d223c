package report

import (
	"io"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// A Leak is one finding of the errleak analysis (atomicx vet): a resource
// acquired at Pos and still open at the end of Path.
type Leak struct {
	Pos     string     // "file:line:col" of the acquire, file relative to %SRCROOT%
	Message string     // the analyzer's message
	Key     string     // what identifies the finding across runs when lines move
	Path    []LeakStep // the branches taken, then the return
	// Confirmation is what atomicx vet -confirm found, nil without it.
	Confirmation *LeakConfirmation
}

// A LeakConfirmation is the answer of a confirm campaign for one finding:
// whether a test, with the failure that opens the path injected, made the
// function return where the path does, and whether the resource was
// still open there.
type LeakConfirmation struct {
	Answer    string // see campaign.LeakConfirmedOpen and the other answers
	Package   string // the test that gave the answer, if any
	Test      string
	Injection string // FAULT:OCCURRENCE:SITE armed
	Reproduce string // one command that runs that experiment again
}

// LeakReproduce is the command that runs a confirm campaign's experiment
// again, as a detection campaign's reproduce lines do.
func LeakReproduce(pkg, test string, inj arm.Injection, h *campaign.Header) string {
	ev := &Evidence{Package: pkg, Test: test}
	ev.injected(inj)
	return reproduce(ev, h)
}

// A LeakStep is one place on a leak's path.
type LeakStep struct {
	Pos     string // "file:line:col", file relative to %SRCROOT%
	Message string // "condition true", "returns with the file open"
}

// LeakFingerprint is the partialFingerprints key of a leak result.
const LeakFingerprint = "atomicxLeak/v1"

var leakRule = sarifRule{
	ID:               "atomicx/errleak",
	Name:             "ResourceLeakOnErrorPath",
	ShortDescription: sarifText{"Resource not released on a path to a return"},
	FullDescription: sarifText{"A resource (file, connection, lock, cancel function, or one the policy names) is acquired, " +
		"and a path of the function, typically one taken after a later call failed, returns without releasing it."},
	Help: sarifHelp{
		Text: "Release the resource on that path: a defer right after the acquire succeeded usually does it. " +
			"The code flow shows the branches that lead to the return.",
		Markdown: "Release the resource on that path: a `defer` right after the acquire succeeded usually does it. " +
			"The code flow shows the branches that lead to the return.",
	},
	HelpURI:              InformationURI + "#resources-left-open-on-error-paths-atomicx-vet",
	DefaultConfiguration: sarifConfiguration{"warning"},
	Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling", "resource-leak"}, Precision: "medium", Severity: "warning"},
}

type (
	// sarifLeakProps carry atomicx vet -confirm's answer.
	sarifLeakProps struct {
		Confirmation string `json:"atomicxConfirmation"`
		Test         string `json:"atomicxConfirmedBy,omitempty"` // package and test
		Reproduce    string `json:"atomicxReproduce,omitempty"`
	}
	sarifCodeFlow struct {
		ThreadFlows []sarifThreadFlow `json:"threadFlows"`
	}
	sarifThreadFlow struct {
		Locations []sarifThreadFlowLocation `json:"locations"`
	}
	sarifThreadFlowLocation struct {
		Location sarifFlowLocation `json:"location"`
	}
	sarifFlowLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
		Message          sarifText             `json:"message"`
	}
)

// WriteLeaksSARIF writes errleak's findings as a SARIF 2.1.0 log: one
// result per leak, at the acquire, with the path as a code flow (the
// acquire, each branch taken, the return).
func WriteLeaksSARIF(w io.Writer, leaks []Leak, opt SARIFOptions) error {
	results := []sarifResult{}
	for _, l := range leaks {
		flow := []sarifThreadFlowLocation{{Location: sarifFlowLocation{PhysicalLocation: leakLocation(l.Pos), Message: sarifText{"acquired here"}}}}
		for _, st := range l.Path {
			flow = append(flow, sarifThreadFlowLocation{Location: sarifFlowLocation{PhysicalLocation: leakLocation(st.Pos), Message: sarifText{st.Message}}})
		}
		var props *sarifLeakProps
		if c := l.Confirmation; c != nil {
			props = &sarifLeakProps{Confirmation: c.Answer, Reproduce: c.Reproduce}
			if c.Test != "" {
				props.Test = c.Package + " " + c.Test
			}
		}
		results = append(results, sarifResult{
			Properties:          props,
			RuleID:              leakRule.ID,
			Level:               leakRule.DefaultConfiguration.Level,
			Message:             sarifText{l.Message},
			Locations:           []sarifLocation{{PhysicalLocation: leakLocation(l.Pos)}},
			CodeFlows:           []sarifCodeFlow{{ThreadFlows: []sarifThreadFlow{{Locations: flow}}}},
			PartialFingerprints: map[string]string{LeakFingerprint: l.Key},
		})
	}
	return writeSARIFLog(w, opt, sarifEnvelope{question: "vet", rules: []sarifRule{leakRule}}, results)
}

func leakLocation(pos string) sarifPhysicalLocation {
	file, line, col := splitPos(pos)
	return sarifPhysicalLocation{
		ArtifactLocation: sarifArtifactLocation{URI: uriPath(file), URIBaseID: "%SRCROOT%"},
		Region:           sarifRegion{StartLine: max(line, 1), StartColumn: col},
	}
}
