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

	// InformationURI is where atomicx is documented: the driver's
	// informationUri, and the base of the rules' helpUri.
	InformationURI = "https://github.com/atomicx/atomicx"

	// DefaultSARIFCategory is the category of a run when none is given:
	// code scanning keeps one set of results per category and commit.
	DefaultSARIFCategory = "atomicx"
)

// SARIFOptions describe the run of a SARIF log.
type SARIFOptions struct {
	// Version is atomicx's version ("v1.2.3", a pseudo-version, or
	// "devel"), written as the driver's version; SemanticVersion is the
	// same as Semantic Versioning 2.0.0 has it, "" when it has no such
	// form.
	Version, SemanticVersion string
	// Category tells this run apart from others on the same commit (a
	// module of a repository, an OS): the automationDetails id is
	// "CATEGORY/". "" is DefaultSARIFCategory.
	Category string
}

type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool               `json:"tool"`
		AutomationDetails  sarifAutomationDetails  `json:"automationDetails"`
		Invocations        []sarifInvocation       `json:"invocations,omitempty"`
		OriginalURIBaseIDs map[string]sarifURIBase `json:"originalUriBaseIds,omitempty"`
		Results            []sarifResult           `json:"results"`
		Properties         *sarifRunProps          `json:"properties,omitempty"`
	}
	sarifAutomationDetails struct {
		ID string `json:"id"`
	}
	sarifInvocation struct {
		CommandLine         string `json:"commandLine"`
		StartTimeUTC        string `json:"startTimeUtc,omitempty"`
		ExecutionSuccessful bool   `json:"executionSuccessful"`
	}
	sarifURIBase struct {
		Description sarifText `json:"description"`
	}
	sarifRunProps struct {
		AtomicxVersion string `json:"atomicxVersion"`
		GoVersion      string `json:"goVersion"`
		Module         string `json:"module"`
		Dir            string `json:"dir"`
		Journal        string `json:"journal"`
		// The campaign's wall time (campaign.WallTime), as its other
		// reports and its command's stderr give it.
		WallTime   string `json:"wallTime"`
		WallTimeMs int64  `json:"wallTimeMs"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name            string      `json:"name"`
		FullName        string      `json:"fullName"`
		Version         string      `json:"version"`
		SemanticVersion string      `json:"semanticVersion,omitempty"`
		InformationURI  string      `json:"informationUri"`
		Rules           []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string             `json:"id"`
		Name                 string             `json:"name"`
		ShortDescription     sarifText          `json:"shortDescription"`
		FullDescription      sarifText          `json:"fullDescription"`
		Help                 sarifHelp          `json:"help"`
		HelpURI              string             `json:"helpUri"`
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
		CodeFlows           []sarifCodeFlow   `json:"codeFlows,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          *sarifLeakProps   `json:"properties,omitempty"`
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
			"and it stays non-atomic when the non-atomic functions that ran inside the failed call are masked: the change is its own, not a callee's."},
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
		HelpURI:              InformationURI + "#verdicts",
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
		HelpURI:              InformationURI + "#verdicts",
		DefaultConfiguration: sarifConfiguration{"warning"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling"}, Precision: "high", Severity: "warning"},
	},
}

// SourceRoot is a directory that SARIF locations are written relative to,
// named by a uriBaseId: %SRCROOT% (the repository's root, which code
// scanning resolves), the module cache, GOROOT.
type SourceRoot struct {
	ID          string // the uriBaseId
	Dir         string // absolute; never written into the log
	Description string // what the directory is, for originalUriBaseIds
}

// WriteSARIF writes the non-atomic functions of the report as a SARIF
// 2.1.0 log that GitHub code scanning accepts: one result per function,
// located at its declaration. locate maps import-path positions to file
// paths; nil leaves positions as they are. Without roots, a relative path
// is taken as relative to %SRCROOT%. With roots, an absolute path is
// written relative to the first root that holds it, and a position that
// no root holds keeps its import-path form without a base: a SARIF log
// never holds a path of the machine that wrote it. opt names atomicx's
// version and the run's category.
func WriteSARIF(w io.Writer, r *Report, locate Locator, opt SARIFOptions, roots ...SourceRoot) error {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	used := map[string]sarifURIBase{}
	results := []sarifResult{}
	for _, f := range Findings(r) {
		if f.Evidence == nil {
			continue
		}
		idx := 0
		if f.Verdict == Dependent {
			idx = 1
		}
		rule := sarifRules[idx]
		level := rule.DefaultConfiguration.Level
		if visibilityRank(f.Visibility) > 0 {
			// Only a stream position or scratch changed: worth knowing,
			// rarely worth acting on first.
			level = "note"
		}
		results = append(results, sarifResult{
			RuleID:              rule.ID,
			RuleIndex:           idx,
			Level:               level,
			Message:             sarifText{sarifMessage(f)},
			Locations:           []sarifLocation{sarifLocate(f, locate, roots, used)},
			PartialFingerprints: map[string]string{SARIFFingerprint: f.Name},
		})
	}
	return writeSARIFLog(w, opt, sarifEnvelope{rules: sarifRules, used: used, prov: r.Provenance, wallMs: r.Summary.WallMs}, results)
}

// sarifEnvelope is what a question's SARIF log holds besides its
// results: the question's name (none for detect) in the driver's full
// name and the default category, its rules, the source roots its
// locations name, and the campaign's provenance.
type sarifEnvelope struct {
	question string
	rules    []sarifRule
	used     map[string]sarifURIBase
	prov     *Provenance
	wallMs   int64
}

// writeSARIFLog writes one run of results in env, as every question's
// SARIF log has it.
func writeSARIFLog(w io.Writer, opt SARIFOptions, env sarifEnvelope, results []sarifResult) error {
	version := opt.Version
	if version == "" {
		version = "devel"
	}
	fullName, category := "atomicx "+version, opt.Category
	if env.question != "" {
		fullName = "atomicx " + env.question + " " + version
	}
	if category == "" {
		category = DefaultSARIFCategory
		if env.question != "" {
			category += "-" + env.question
		}
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "atomicx", FullName: fullName, Version: version, SemanticVersion: opt.SemanticVersion,
			InformationURI: InformationURI, Rules: env.rules,
		}},
		// A trailing slash: the whole id is the category, with no
		// run instance after it.
		AutomationDetails: sarifAutomationDetails{ID: strings.TrimSuffix(category, "/") + "/"},
		Results:           results,
	}
	if len(env.used) > 0 {
		run.OriginalURIBaseIDs = env.used
	}
	if p := env.prov; p != nil {
		run.Invocations, run.Properties = sarifProvenance(p, env.wallMs)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // keep "->" arrows and shell redirections readable
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifProvenance says in a SARIF run what produced it: the command as
// an invocation, and atomicx's and Go's versions, the module, the
// journal and the campaign's wall time as the run's properties.
func sarifProvenance(p *Provenance, wallMs int64) ([]sarifInvocation, *sarifRunProps) {
	return []sarifInvocation{{CommandLine: p.Command, StartTimeUTC: p.Date, ExecutionSuccessful: true}},
		&sarifRunProps{AtomicxVersion: p.Atomicx, GoVersion: p.Go, Module: p.Module, Dir: p.Dir, Journal: p.Journal,
			WallTime: durationText(wallMs), WallTimeMs: wallMs}
}

// sarifMessage is the result's text: what changed, the failure that
// showed it, and how to see it again.
func sarifMessage(f *Function) string {
	e := f.Evidence
	var b strings.Builder
	fmt.Fprintf(&b, "%s is %s: after a failing call, %s changed%s: %s → %s.\n", displayName(f), f.Verdict, e.Path, throughCallback(e), e.Before, e.After)
	if e.Callback != "" {
		fmt.Fprintf(&b, "The change was made inside %s, a function value its caller passed in; the function changed nothing itself.\n", e.Callback)
	}
	if f.WroteOutside != nil {
		fmt.Fprintf(&b, "It %s.\n", wroteOutsideText(f, func(pos string) string { return pos }))
	}
	switch f.Visibility {
	case Stream:
		b.WriteString("Its failed calls changed only the position of streams it reads or writes (consumed input, partial output).\n")
	case Scratch:
		b.WriteString("Its failed calls changed only fields the policy declares scratch.\n")
	case Normalization:
		b.WriteString("Its failed calls changed only nil slices or maps into empty ones, or the other way (normalization).\n")
	}
	fmt.Fprintf(&b, "Failure: %s", failureText(e))
	fmt.Fprintf(&b, " in %s of %s; %d of %d failed calls changed the state.\n", e.Test, e.Package, f.NonAtomic, f.Failures)
	if f.Verdict == Dependent {
		b.WriteString("It becomes atomic once its non-atomic callees are.\n")
	}
	if e.AtomicxReproduce != "" {
		fmt.Fprintf(&b, "Reproduce: %s\nor: %s", e.AtomicxReproduce, e.Reproduce)
	} else {
		fmt.Fprintf(&b, "Reproduce: %s", e.Reproduce)
	}
	return b.String()
}

// sarifLocate is the function's declaration: a path relative to the root
// that holds it; without roots, relative to %SRCROOT% when locate gives a
// relative path, an absolute file URI otherwise. used collects the roots
// the locations name.
func sarifLocate(f *Function, locate Locator, roots []SourceRoot, used map[string]sarifURIBase) sarifLocation {
	file, line, col := splitPos(locate(f.Pos))
	art := sarifArtifactLocation{URI: uriPath(file), URIBaseID: "%SRCROOT%"}
	if len(roots) > 0 {
		art = sarifArtifactLocation{URI: uriPath(file)}
		if !filepath.IsAbs(file) {
			file, _, _ = splitPos(f.Pos) // not located: the import-path form
			art.URI = uriPath(file)
		}
		for _, root := range roots {
			if !filepath.IsAbs(file) {
				break
			}
			if root.Dir == "" {
				continue
			}
			if rel := relTo(root.Dir, file); !filepath.IsAbs(rel) {
				art = sarifArtifactLocation{URI: uriPath(rel), URIBaseID: root.ID}
				used[root.ID] = sarifURIBase{Description: sarifText{root.Description}}
				break
			}
		}
		if filepath.IsAbs(file) && art.URIBaseID == "" {
			file, _, _ = splitPos(f.Pos)
			art.URI = uriPath(file)
		}
	} else if filepath.IsAbs(file) {
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
