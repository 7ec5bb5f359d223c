package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/report"
)

// A scratch candidate is a field that is the first difference of most of
// a type's non-atomic methods: a decoder's reusable buffer grown by every
// failed call says little about each method, and hides what the methods
// do to their callers' values.

// scratchCandidate is one field proposed as scratch.
type scratchCandidate struct {
	path    string // as the policy writes it: (*Decoder).buf
	count   int    // caller-visible non-atomic methods of the type whose evidence starts at the field
	methods int    // caller-visible non-atomic methods of the type
}

// scratchCandidates returns, for each package, the fields that are the
// first difference of more than half (and at least two) of the
// caller-visible non-atomic methods of their type, sorted. Only evidence
// that reaches the field straight from the receiver counts (d.buf,
// d.buf[3]); methods whose changes are stream positions or scratch only
// are folded in the reports already and do not count, nor do closures. A
// field that a method which wrote outside memory changed first is no
// candidate.
func scratchCandidates(rep *report.Report) map[string][]scratchCandidate {
	type key struct{ pkg, typ string }
	type fieldKey struct {
		key
		root, field string
	}
	methods := map[key]int{}
	fields := map[fieldKey]int{}
	// wrote are the fields that a method which wrote outside memory
	// before failing changed first: such a field keeps step with the
	// file (a log's last index), and is no scratch.
	wrote := map[fieldKey]bool{}
	pointer := map[key]bool{}
	for _, f := range rep.Functions {
		if f.Verdict != report.Pure && f.Verdict != report.Dependent {
			continue
		}
		typ, ptr, ok := receiverType(relName(f.Name))
		if !ok {
			continue
		}
		if f.Evidence == nil || f.Visibility == report.Stream || f.Visibility == report.Scratch {
			continue // folded already
		}
		k := key{funcPackage(f), typ}
		methods[k]++
		pointer[k] = pointer[k] || ptr
		if root, field, ok := firstField(f.Evidence.Path); ok {
			fk := fieldKey{k, root, field}
			fields[fk]++
			wrote[fk] = wrote[fk] || f.WroteOutside != nil
		}
	}
	out := map[string][]scratchCandidate{}
	for fk, n := range fields {
		total := methods[fk.key]
		if n < 2 || 2*n <= total || wrote[fk] {
			continue
		}
		p := fk.typ + "." + fk.field
		if pointer[fk.key] {
			p = "(*" + fk.typ + ")." + fk.field
		}
		out[fk.pkg] = append(out[fk.pkg], scratchCandidate{path: p, count: n, methods: total})
	}
	for _, cs := range out {
		sort.Slice(cs, func(i, j int) bool { return cs[i].path < cs[j].path })
	}
	return out
}

// receiverType returns the type of a method named relative to its
// package: (*T).M, (*T[...]).M or T.M; ok is false for a function or a
// closure.
func receiverType(rel string) (typ string, pointer, ok bool) {
	if strings.HasPrefix(rel, "(*") {
		end := strings.Index(rel, ").")
		if end < 0 || strings.Contains(rel[end+2:], ".") {
			return "", false, false
		}
		typ, pointer = rel[2:end], true
	} else {
		t, m, found := strings.Cut(rel, ".")
		if !found || strings.Contains(m, ".") || isClosureName(m) {
			return "", false, false
		}
		typ = t
	}
	typ, _, _ = strings.Cut(typ, "[")
	return typ, pointer, typ != ""
}

// isClosureName reports whether a name element is the runtime's name of
// a function literal: func1, func2, ….
func isClosureName(s string) bool {
	digits, ok := strings.CutPrefix(s, "func")
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}

// firstField splits a path that starts at a root with a field (d.buf,
// d.buf[3].x) into the root and the field.
func firstField(path string) (root, field string, ok bool) {
	root, rest, found := strings.Cut(path, ".")
	if !found || !isIdent(root) {
		return "", "", false
	}
	end := strings.IndexAny(rest, ".[")
	if end < 0 {
		end = len(rest)
	}
	field = rest[:end]
	return root, field, isIdent(field)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0x80 || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// writeScratchCandidates writes the candidates of a package as a comment
// the user can turn into a detect rule's scratch key.
func writeScratchCandidates(b *strings.Builder, pkg string, cs []scratchCandidate) {
	if len(cs) == 0 {
		return
	}
	paths := make([]string, len(cs))
	for i, c := range cs {
		fmt.Fprintf(b, "# %s: the first difference of %d of the %d caller-visible non-atomic methods of its type.\n", tomlComment(c.path), c.count, c.methods)
		paths[i] = tomlString(c.path)
	}
	fmt.Fprintf(b, "# If what it holds means nothing between calls (a reused buffer), declare it in\n"+
		"# the detect rule of %s, and its changes are reported after the others:\n#   scratch = [%s]\n",
		tomlComment(pkg), strings.Join(paths, ", "))
}
