package policy

import (
	"fmt"
	"go/token"
	"io"
	"slices"
	"sort"
	"strings"
)

// Errors that mean "done", not "failed":
//
//	[[rule]]
//	packages = ["./..."]
//	mode = "mask"
//	success_errors = ["example.com/m/iter.Done", "bufio.ErrFinalToken"]
//
// A call of one of the rule's functions that returns one of these values
// (or an error that wraps one, as errors.Is sees it) succeeded: a masking
// build does not roll it back, and detection does not count it as a
// failure. io.EOF needs no entry (it means done from any function), nor
// do fs.SkipDir and fs.SkipAll from a function of the shape of
// fs.WalkDirFunc or filepath.WalkFunc. A value is written with its package's import path,
// and its functions can name it only where the package is theirs or one
// they import.

const (
	successErrorsKey = "success_errors"
	// successForm is how success_errors values are written.
	successForm = `"path/pkg.Name" (e.g. "io.EOF")`
)

// successValue is an entry of a rule's success_errors.
type successValue struct {
	written    string
	path, name string
	pos        Position
}

// text is the form instrument reads: "path.Name".
func (v successValue) text() string { return v.path + "." + v.name }

// parseSuccessValue splits a success_errors entry into the import path and
// the name of a package-level variable; msg says what is wrong with it.
func parseSuccessValue(s string) (path, name, msg string) {
	dot := strings.LastIndex(s, ".")
	if dot < 0 {
		return "", "", fmt.Sprintf("%s: %q is not a variable with its package path, of the form %s", successErrorsKey, s, successForm)
	}
	path, name = s[:dot], s[dot+1:]
	switch {
	case strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../"):
		return "", "", fmt.Sprintf("%s: %q is relative: write the package's full import path, of the form %s", successErrorsKey, s, successForm)
	case path == "" || strings.ContainsAny(path, " \t()*[]{}"):
		return "", "", fmt.Sprintf("%s: %q is not a variable with its package path, of the form %s", successErrorsKey, s, successForm)
	case !token.IsIdentifier(name):
		return "", "", fmt.Sprintf("%s: %q: %q is not the name of a variable, of the form %s", successErrorsKey, s, name, successForm)
	}
	return path, name, ""
}

// successErrors reads a rule's success_errors list.
func (ps *parser) successErrors(t map[string]any, at tomlPath, r *Rule) {
	v, ok := t[successErrorsKey]
	if !ok {
		return
	}
	at = at.child(successErrorsKey)
	if _, hasMode := t["mode"]; hasMode && r.Mode == Off {
		ps.errorf(ps.src.keyPos(at), "%s has no effect in a rule with mode = %q: remove it, or move it to the package's detect or mask rule", successErrorsKey, r.Mode)
	}
	list, ok := ps.stringList(v, at)
	if !ok {
		return
	}
	r.SuccessErrors = list
	for i, s := range list {
		pos := ps.src.elemPos(at, i)
		path, name, msg := parseSuccessValue(s)
		if msg != "" {
			ps.errorf(pos, "%s", msg)
			continue
		}
		r.successErrors = append(r.successErrors, successValue{written: s, path: path, name: name, pos: pos})
	}
}

// SuccessErrors returns the values that the package's rule declares done,
// as "path.Name", sorted, or nil (see Rule.SuccessErrors).
func (m Match) SuccessErrors() []string {
	if m.Rule == nil || m.Mode == Off {
		return nil
	}
	return successTexts(m.Rule.successErrors)
}

func successTexts(values []successValue) []string {
	if len(values) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, v := range values {
		if t := v.text(); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// writeSuccessErrors writes a rule's success_errors to a hash, only when
// set, so that other rules keep their hash.
func writeSuccessErrors(w io.Writer, r *Rule) {
	if len(r.successErrors) > 0 {
		writeList(w, successErrorsKey, successTexts(r.successErrors))
	}
}

// SuccessErrorPackages returns the import paths of the packages that the
// rules' success_errors name, for UnusedSuccessErrors.
func (p *Policy) SuccessErrorPackages() []string {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	var paths []string
	for i := range p.Rules {
		for _, v := range p.Rules[i].successErrors {
			if !seen[v.path] {
				seen[v.path] = true
				paths = append(paths, v.path)
			}
		}
	}
	sort.Strings(paths)
	return paths
}

// UnusedSuccessErrors reports the success_errors values that name no
// package-level variable of the given packages, as warnings
// "file:line:col: message" in file order. vars maps import paths to the
// names of their package-level variables, and should hold the packages
// of SuccessErrorPackages that the build has.
func (p *Policy) UnusedSuccessErrors(vars map[string][]string) []string {
	if p == nil {
		return nil
	}
	type warning struct {
		pos Position
		msg string
	}
	var ws []warning
	for i := range p.Rules {
		for _, v := range p.Rules[i].successErrors {
			names, ok := vars[v.path]
			msg := ""
			switch {
			case !ok:
				msg = "matches no variable: its package is not among the packages built"
			case !slices.Contains(names, v.name):
				msg = "matches no variable of package " + v.path
				if s := suggest(v.name, names); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", v.path+"."+s)
				}
			}
			if msg != "" {
				ws = append(ws, warning{v.pos, fmt.Sprintf("%s: %s value %q %s", v.pos, successErrorsKey, v.written, msg)})
			}
		}
	}
	sort.SliceStable(ws, func(i, j int) bool {
		a, b := ws[i].pos, ws[j].pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.msg
	}
	return out
}
