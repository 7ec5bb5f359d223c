package policy

import (
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"
)

// probeKey is the [[rule]] key that names the acquisitions whose
// resources a detect build probes for openness when their function
// returns an error. It is internal to atomicx vet -confirm, which writes
// it into the policy of its campaign: the unknown-key message does not
// offer it, and the documentation of the file format does not list it.
//
//	probe_acquires = ["example.com/m/m.go:12:19"]
//
// Each entry is an acquire call as the runtime's sites give positions:
// import path/file.go:line:col of the call's opening parenthesis; then,
// for a resource whose [[leak.resource]] table says is_closed, a space
// and that method ("example.com/m/m.go:12:19 IsClosed").
const probeKey = "probe_acquires"

// publicRuleKeys returns t without the keys internal to atomicx's own
// policies, for the unknown-key check.
func publicRuleKeys(t map[string]any) map[string]any {
	if _, ok := t[probeKey]; !ok {
		return t
	}
	t = maps.Clone(t)
	delete(t, probeKey)
	return t
}

// probeAcquires reads probe_acquires into r.
func (ps *parser) probeAcquires(t map[string]any, at tomlPath, r *Rule) {
	v, ok := t[probeKey]
	if !ok {
		return
	}
	at = at.child(probeKey)
	list, ok := ps.stringList(v, at)
	if !ok {
		return
	}
	if _, hasMode := t["mode"]; hasMode && r.Mode != Detect {
		ps.errorf(ps.src.keyPos(at), "%s has no effect in a rule with mode = %q: only detect builds probe resources", probeKey, r.Mode)
	}
	for i, s := range list {
		if msg := checkAcquirePos(s); msg != "" {
			ps.errorf(ps.src.elemPos(at, i), "%s", msg)
			continue
		}
		r.ProbeAcquires = append(r.ProbeAcquires, s)
	}
}

// checkAcquirePos checks an entry of probe_acquires, and returns what is
// wrong with it, or "".
func checkAcquirePos(s string) string {
	pos, method := SplitProbe(s)
	file, line, col, ok := splitAcquirePos(pos)
	if !ok || !strings.HasSuffix(file, ".go") || !strings.Contains(file, "/") || line <= 0 || col <= 0 {
		return fmt.Sprintf("%s entry %q is not a position: write import/path/file.go:line:col", probeKey, s)
	}
	if strings.Contains(s, " ") && !methodName().MatchString(method) {
		return fmt.Sprintf("%s entry %q: after the position, write the name of the method that tells whether the resource is closed", probeKey, s)
	}
	return ""
}

// SplitProbe splits an entry of probe_acquires into the acquire's
// position and the method that tells whether its resource is closed
// ("" for a resource of the standard library's set).
func SplitProbe(entry string) (pos, isClosed string) {
	pos, isClosed, _ = strings.Cut(entry, " ")
	return pos, isClosed
}

func splitAcquirePos(s string) (file string, line, col int, ok bool) {
	rest, c, ok1 := cutLast(s)
	file, l, ok2 := cutLast(rest)
	if !ok1 || !ok2 {
		return "", 0, 0, false
	}
	line, err1 := strconv.Atoi(l)
	col, err2 := strconv.Atoi(c)
	return file, line, col, err1 == nil && err2 == nil
}

func cutLast(s string) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// ProbeAcquires returns the entries of the rule's probe_acquires in the
// package: the acquisitions whose resources its detect build probes.
func (m Match) ProbeAcquires() []string {
	if m.Rule == nil || m.Mode != Detect {
		return nil
	}
	var out []string
	for _, s := range m.Rule.ProbeAcquires {
		pos, _ := SplitProbe(s)
		file, _, _, _ := splitAcquirePos(pos)
		if path.Dir(file) == m.Package {
			out = append(out, s)
		}
	}
	return out
}
