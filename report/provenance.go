package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Provenance says what produced a report: the atomicx and Go versions, the
// module, the command, when it ran and the journal it is read from.
type Provenance struct {
	Atomicx string `json:"atomicx"` // version of the atomicx that ran the campaign
	Go      string `json:"go"`      // version of the go command that built the workload
	Module  string `json:"module"`  // the main module's path
	Command string `json:"command"` // the campaign's command line, as a shell reads it
	Dir     string `json:"dir"`     // where the command ran, relative to the module's root
	Date    string `json:"date"`    // when the campaign started, RFC 3339
	Journal string `json:"journal"` // the campaign's journal directory
}

// provenanceOf is the provenance a campaign header records; nil for a
// journal without one.
func provenanceOf(h *campaign.Header) *Provenance {
	if h == nil {
		return nil
	}
	p := &Provenance{Atomicx: h.Version, Go: h.GoVersion, Module: h.Module, Date: h.Date,
		Dir: relTo(h.ModuleRoot, h.Dir), Journal: relTo(h.ModuleRoot, h.Journal)}
	if len(h.Command) > 0 {
		// The program as the user knows it: the binary may have been run
		// by any path.
		args := append([]string{filepath.Base(h.Command[0])}, h.Command[1:]...)
		p.Command = ShellJoin(args)
	}
	return p
}

// relTo is path relative to root when it is inside root, else path.
func relTo(root, path string) string {
	if root == "" || path == "" {
		return path
	}
	if r, err := filepath.Rel(root, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return path
}

// writeProvenance writes the text report's first line.
func writeProvenance(w io.Writer, p *Provenance) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "atomicx %s, %s, module %s: %s", p.Atomicx, p.Go, p.Module, p.Command)
	if p.Dir != "." && p.Dir != "" {
		fmt.Fprintf(w, " (in %s)", p.Dir)
	}
	fmt.Fprintf(w, ", %s, journal %s\n\n", p.Date, p.Journal)
}

// ShellJoin quotes each argument for a POSIX shell where it needs it and
// joins them with spaces.
func ShellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// reproduceLog is the event log of a reproduce line: in the directory it
// is run in.
const reproduceLog = "$PWD/events.jsonl"

// armingWords are an arming's variables as words of a shell command
// line, in arm's order.
func armingWords(a arm.Arming) []string {
	var words []string
	for _, kv := range a.Env() {
		name, value, _ := strings.Cut(kv, "=")
		words = append(words, name+"="+shellValue(value))
	}
	return words
}

// shellValue quotes a value for a shell, except a $PWD at its start,
// which the shell is to expand.
func shellValue(v string) string {
	if rest, ok := strings.CutPrefix(v, "$PWD/"); ok {
		return "$PWD/" + shellQuote(rest)
	}
	return shellQuote(v)
}

// shellQuote returns s as one word of a POSIX shell: as it is when it has
// nothing the shell reads specially, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
