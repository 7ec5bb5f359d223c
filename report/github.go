package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// WriteGitHubAnnotations writes the results of a SARIF log that atomicx
// wrote as GitHub Actions workflow commands, one line each:
//
//	::error file=store/store.go,line=16,col=17,title=Function is not failure atomic::message
//
// so that a workflow step that prints them annotates the changed files
// without code scanning, which private repositories only have with
// GitHub Advanced Security. The command is error, warning or notice by
// the result's level; the title is its rule's short description. A
// result located outside the repository (in the module cache, in
// GOROOT) is annotated without a file: the annotation then shows in the
// run's summary only.
func WriteGitHubAnnotations(w io.Writer, sarif []byte) error {
	var log sarifLog
	if err := json.Unmarshal(sarif, &log); err != nil {
		return fmt.Errorf("reading the SARIF log: %w", err)
	}
	for _, run := range log.Runs {
		titles := map[string]string{}
		for _, rule := range run.Tool.Driver.Rules {
			titles[rule.ID] = rule.ShortDescription.Text
		}
		for _, r := range run.Results {
			title := titles[r.RuleID]
			if title == "" {
				title = r.RuleID
			}
			props := annotationLocation(r.Locations)
			props = append(props, "title="+escapeProperty(title))
			if _, err := fmt.Fprintf(w, "::%s %s::%s\n", annotationCommand(r.Level), strings.Join(props, ","), escapeData(r.Message.Text)); err != nil {
				return err
			}
		}
	}
	return nil
}

// annotationCommand is the workflow command of a SARIF level.
func annotationCommand(level string) string {
	switch level {
	case "error":
		return "error"
	case "note", "none":
		return "notice"
	}
	return "warning"
}

// annotationLocation is the file, line and column properties of the first
// location, when it is a path in the repository: relative to %SRCROOT%,
// or relative with no base, as atomicx vet writes paths relative to where
// it ran.
func annotationLocation(locs []sarifLocation) []string {
	if len(locs) == 0 {
		return nil
	}
	pl := locs[0].PhysicalLocation
	art := pl.ArtifactLocation
	if art.URIBaseID != "" && art.URIBaseID != "%SRCROOT%" || art.URI == "" || strings.Contains(art.URI, ":") || strings.HasPrefix(art.URI, "/") {
		return nil
	}
	file, err := url.PathUnescape(art.URI)
	if err != nil {
		return nil
	}
	props := []string{"file=" + escapeProperty(file)}
	if pl.Region.StartLine > 0 {
		props = append(props, fmt.Sprintf("line=%d", pl.Region.StartLine))
		if pl.Region.StartColumn > 0 {
			props = append(props, fmt.Sprintf("col=%d", pl.Region.StartColumn))
		}
	}
	return props
}

// escapeData escapes a workflow command's message: a percent sign and
// line breaks, which would end the command.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value, which ends
// at a comma and whose name ends at a colon.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
