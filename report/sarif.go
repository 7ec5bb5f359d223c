package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0, the subset that GitHub code scanning reads.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"

	// SARIFFingerprint is the partialFingerprints key that identifies a
	// result across runs: the function's runtime.Func.Name() form, which
	// does not change when lines move.
	SARIFFingerprint = "atomicxFunction/v1"
)

type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name  string      `json:"name"`
		Rules []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string             `json:"id"`
		Name                 string             `json:"name"`
		ShortDescription     sarifText          `json:"shortDescription"`
		FullDescription      sarifText          `json:"fullDescription"`
		Help                 sarifHelp          `json:"help"`
		DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
		Properties           sarifRuleProps     `json:"properties"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfiguration struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags      []string `json:"tags"`
		Precision string   `json:"precision"`
		Severity  string   `json:"problem.severity"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation  `json:"physicalLocation"`
		LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           sarifRegion           `json:"region"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	sarifLogicalLocation struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
)

// The two rules, in this order (ruleIndex).
var sarifRules = []sarifRule{
	{
		ID:               "atomicx/pure-non-atomic",
		Name:             "PureNonAtomic",
		ShortDescription: sarifText{"Function is not failure atomic"},
		FullDescription: sarifText{"The function returned an error or panicked after changing part of the state it can reach from its receiver and arguments, " +
			"and it was the first non-atomic call along the failure's propagation: the change is its own, not a callee's."},
		Help: sarifHelp{
			Text: "A caller that retries or carries on after the failure works on a half-updated object. " +
				"Make the function check everything that can fail before it changes any state, work on a copy and commit it at the end, " +
				"or undo its changes before it returns the error. The message names the first path that differs, its values before and after, " +
				"the test that showed it and a command that shows it again.",
			Markdown: "A caller that retries or carries on after the failure works on a half-updated object. Make the function\n\n" +
				"- check everything that can fail before it changes any state,\n" +
				"- work on a copy and commit it at the end, or\n" +
				"- undo its changes before it returns the error.\n\n" +
				"The message names the first path that differs, its values before and after, the test that showed it and a command that shows it again.",
		},
		DefaultConfiguration: sarifConfiguration{"error"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling"}, Precision: "high", Severity: "error"},
	},
	{
		ID:               "atomicx/dependent-non-atomic",
		Name:             "DependentNonAtomic",
		ShortDescription: sarifText{"Function is not failure atomic because a callee is not"},
		FullDescription: sarifText{"The function returned an error or panicked after the state it can reach had changed, " +
			"but only ever after a non-atomic callee failed: it becomes failure atomic once its non-atomic callees are."},
		Help: sarifHelp{
			Text: "Fix the pure non-atomic functions it calls first; this result then goes away by itself. " +
				"The message names the first path that differs, its values before and after, the test that showed it and a command that shows it again.",
			Markdown: "Fix the **pure** non-atomic functions it calls first; this result then goes away by itself.\n\n" +
				"The message names the first path that differs, its values before and after, the test that showed it and a command that shows it again.",
		},
		DefaultConfiguration: sarifConfiguration{"warning"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling"}, Precision: "high", Severity: "warning"},
	},
}

// WriteSARIF writes the non-atomic functions of the report as a SARIF
// 2.1.0 log that GitHub code scanning accepts: one result per function,
// located at its declaration. locate maps import-path positions to paths
// relative to the working directory, which should be the repository's
// root; nil leaves positions as they are.
func WriteSARIF(w io.Writer, r *Report, locate Locator) error {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	results := []sarifResult{}
	for _, f := range sortedFunctions(r, Pure, Dependent) {
		if f.Evidence == nil {
			continue
		}
		idx := 0
		if f.Verdict == Dependent {
			idx = 1
		}
		rule := sarifRules[idx]
		results = append(results, sarifResult{
			RuleID:              rule.ID,
			RuleIndex:           idx,
			Level:               rule.DefaultConfiguration.Level,
			Message:             sarifText{sarifMessage(f)},
			Locations:           []sarifLocation{sarifLocate(f, locate)},
			PartialFingerprints: map[string]string{SARIFFingerprint: f.Name},
		})
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "atomicx", Rules: sarifRules}},
			Results: results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // keep "->" arrows and shell redirections readable
	return enc.Encode(log)
}

// sarifMessage is the result's text: what changed, the failure that
// showed it, and how to see it again.
func sarifMessage(f *Function) string {
	e := f.Evidence
	var b strings.Builder
	fmt.Fprintf(&b, "%s is %s: after a failing call, %s changed: %s → %s.\n", displayName(f), f.Verdict, e.Path, e.Before, e.After)
	fmt.Fprintf(&b, "Failure: %s", howFailed(e))
	// An injected fault's own text repeats where it was injected.
	if e.Error != "" && !(e.Injection != "" && strings.HasPrefix(e.Error, "atomicx: injected")) {
		fmt.Fprintf(&b, " (%s)", e.Error)
	}
	fmt.Fprintf(&b, " in %s of %s; %d of %d failed calls changed the state.\n", e.Test, e.Package, f.NonAtomic, f.Failures)
	if f.Verdict == Dependent {
		b.WriteString("It becomes atomic once its non-atomic callees are.\n")
	}
	fmt.Fprintf(&b, "Reproduce: %s", e.Reproduce)
	return b.String()
}

// sarifLocate is the function's declaration: a path relative to the
// source root when locate gives one, an absolute file URI otherwise.
func sarifLocate(f *Function, locate Locator) sarifLocation {
	file, line, col := splitPos(locate(f.Pos))
	art := sarifArtifactLocation{URI: uriPath(file), URIBaseID: "%SRCROOT%"}
	if filepath.IsAbs(file) {
		uri := uriPath(file)
		if !strings.HasPrefix(uri, "/") {
			uri = "/" + uri // a Windows drive letter
		}
		art = sarifArtifactLocation{URI: "file://" + uri}
	}
	return sarifLocation{
		PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: art, Region: sarifRegion{StartLine: max(line, 1), StartColumn: col}},
		LogicalLocations: []sarifLogicalLocation{{FullyQualifiedName: f.Name, Kind: "function"}},
	}
}

// uriPath writes a file path as the path of a URI: forward slashes, each
// segment percent-encoded.
func uriPath(file string) string {
	segs := strings.Split(filepath.ToSlash(file), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
