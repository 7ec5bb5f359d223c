package policy

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Functions that are not injection points, beyond those atomicx knows:
//
//	never_fail = ["(*example.com/m/log.Buffer).Write"]
//	error_constructors = ["example.com/m/errs.Wrap"]
//
// never_fail names functions and methods whose error is always nil (a
// writer into memory): their calls are not injection points, nor are
// their entries where they are instrumented. error_constructors names
// functions whose error result is the value they build, not a failure
// (a wrapper of the module's errors): their calls are not points, and a
// detect build leaves them as written. Both are top-level keys, because
// a name is a callee of every package that calls it; names are written
// as go/types writes them (types.Func.FullName), with the package path.

const (
	neverFailKey         = "never_fail"
	errorConstructorsKey = "error_constructors"
	// declaredForms is how both lists' names are written.
	declaredForms = `"path/pkg.Func" or "(*path/pkg.Type).Method"`
)

// declaredFunc is an entry of never_fail or error_constructors.
type declaredFunc struct {
	written string
	name    string // without type parameters, as fullNames compare
	pos     Position
}

// declaredFuncs reads one of the two lists at the top level.
func (ps *parser) declaredFuncs(doc map[string]any, key string) ([]string, []declaredFunc) {
	v, ok := doc[key]
	if !ok {
		return nil, nil
	}
	at := tomlPath{key}
	list, ok := ps.stringList(v, at)
	if !ok {
		return nil, nil
	}
	var fns []declaredFunc
	for i, s := range list {
		pos := ps.src.elemPos(at, i)
		name := normalizeFuncName(s)
		if !acquireName().MatchString(name) {
			ps.errorf(pos, "%s: %q is not a function or method with its package path, of the form %s", key, s, declaredForms)
			continue
		}
		fns = append(fns, declaredFunc{written: s, name: name, pos: pos})
	}
	return list, fns
}

// declared are the policy's never_fail and error_constructors lists,
// shared by every Match (a pointer keeps Match comparable).
type declared struct {
	neverFail, errorConstructors []declaredFunc
}

func (d *declared) has(list []declaredFunc, fullName string) bool {
	name := normalizeFuncName(fullName)
	for _, f := range list {
		if f.name == name {
			return true
		}
	}
	return false
}

// NeverFails reports whether the policy's never_fail list names the
// function or method, given as types.Func.FullName gives it
// ("(*example.com/m.Buffer).Write").
func (m Match) NeverFails(fullName string) bool {
	return m.declared != nil && m.declared.has(m.declared.neverFail, fullName)
}

// ErrorConstructor reports whether the policy's error_constructors list
// names the function or method (see NeverFails).
func (m Match) ErrorConstructor(fullName string) bool {
	return m.declared != nil && m.declared.has(m.declared.errorConstructors, fullName)
}

// writeDeclared writes the lists to a hash, each only when set, so that
// other policies keep their hash. Every package's instrumentation
// depends on them: a name is a callee wherever it is called.
func writeDeclared(w io.Writer, d *declared) {
	if d == nil {
		return
	}
	for _, l := range []struct {
		key  string
		list []declaredFunc
	}{{neverFailKey, d.neverFail}, {errorConstructorsKey, d.errorConstructors}} {
		if len(l.list) == 0 {
			continue
		}
		names := make([]string, len(l.list))
		for i, f := range l.list {
			names[i] = f.name
		}
		writeList(w, l.key, names)
	}
}

// DeclaredPackages returns the import paths that never_fail and
// error_constructors names may be in, for UnusedDeclared: a name's path
// ends at a dot after its last slash, and a path may hold dots of its
// own (gopkg.in/yaml.v3), so each such prefix is one.
func (p *Policy) DeclaredPackages() []string {
	if p == nil || p.declared == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, list := range [][]declaredFunc{p.declared.neverFail, p.declared.errorConstructors} {
		for _, f := range list {
			for _, split := range splitFullName(f.name) {
				seen[split[0]] = true
			}
		}
	}
	paths := make([]string, 0, len(seen))
	for path := range seen {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	return paths
}

// splitFullName returns the ways a full name splits into an import path
// and a name relative to it, as function patterns write it:
// "(*example.com/m.T).M" gives ["example.com/m", "(*T).M"].
func splitFullName(full string) [][2]string {
	prefix, rest := "", full
	switch {
	case strings.HasPrefix(full, "(*"):
		prefix, rest = "(*", full[2:]
	case strings.HasPrefix(full, "("):
		prefix, rest = "", full[1:]
	}
	slash := strings.LastIndex(rest, "/")
	var splits [][2]string
	for i := slash + 1; i < len(rest); i++ {
		if rest[i] != '.' {
			continue
		}
		path, name := rest[:i], rest[i+1:]
		if strings.Contains(path, ")") {
			break // past the receiver's type
		}
		if prefix == "" && strings.HasPrefix(full, "(") {
			name = strings.Replace(name, ")", "", 1) // (T).M is written T.M
		} else {
			name = prefix + name
		}
		splits = append(splits, [2]string{path, name})
	}
	return splits
}

// fullName writes the function of package path named name, as function
// patterns write it, as go/types does: (*T).M is (*path.T).M, T.M is
// (path.T).M.
func fullName(path, name string) string {
	if recv, method, ok := splitPointerReceiver(name); ok {
		return "(*" + path + "." + recv + ")" + method
	}
	if recv, method, ok := strings.Cut(name, "."); ok {
		return "(" + path + "." + recv + ")." + method
	}
	return path + "." + name
}

// UnusedDeclared reports the never_fail and error_constructors names
// that name no function of the given packages, as warnings
// "file:line:col: message" in file order. pkgs maps import paths to the
// names of their functions, as Unused takes them, and should hold the
// packages of DeclaredPackages that the build has.
func (p *Policy) UnusedDeclared(pkgs map[string][]string) []string {
	if p == nil || p.declared == nil {
		return nil
	}
	var unused []declaredFunc
	var msgs []string
	for _, l := range []struct {
		key  string
		list []declaredFunc
	}{{neverFailKey, p.declared.neverFail}, {errorConstructorsKey, p.declared.errorConstructors}} {
		for _, f := range l.list {
			if msg := unmatchedDeclared(f, pkgs); msg != "" {
				unused = append(unused, f)
				msgs = append(msgs, fmt.Sprintf("%s: %s name %q %s", f.pos, l.key, f.written, msg))
			}
		}
	}
	order := make([]int, len(unused))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := unused[order[i]].pos, unused[order[j]].pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = msgs[k]
	}
	return out
}

// unmatchedDeclared says why f names no function of pkgs, or "".
func unmatchedDeclared(f declaredFunc, pkgs map[string][]string) string {
	msg := ""
	for _, split := range splitFullName(f.name) {
		fns, ok := pkgs[split[0]]
		if !ok {
			continue
		}
		normalized := make([]string, len(fns))
		for i, n := range fns {
			normalized[i] = normalizeFuncName(n)
			if normalized[i] == split[1] {
				return ""
			}
		}
		msg = "matches no function of package " + split[0]
		if s := suggest(split[1], normalized); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", fullName(split[0], s))
		}
	}
	if msg == "" {
		msg = "matches no function: its package is not among the packages built"
	}
	return msg
}
