package policy

import (
	"fmt"
	"go/token"
	"slices"
	"sort"
	"strings"
)

// A scratch path names a struct field whose contents mean nothing between
// calls — a buffer a decoder reuses, a table it clears before each use —
// so that a failed call that changed only such fields (and stream
// positions) is reported apart from one that changed what its caller
// holds. It is written relative to the type that declares the field:
//
//	(*Decoder).buf    the field buf of type Decoder
//	Decoder.buf       the same: a field belongs to the type, pointer or not
//	(*List[T]).tmp    a generic type; type parameters are ignored
//
// The type is named as declared, without its package: the path applies
// wherever a value of a type of that name is reached in the object graph
// of a call of the rule's functions, inside the receiver and arguments
// and behind any number of pointers. Everything the field holds, or
// points to, is scratch.

// scratchPath is one entry of a rule's scratch list.
type scratchPath struct {
	written    string
	typ, field string // the type's name without type parameters, the field's name
	pos        Position
}

// text is the form the runtime reads: "T.f".
func (sp scratchPath) text() string { return sp.typ + "." + sp.field }

// parseScratchPath checks a scratch path and splits it; msg says what is
// wrong with it.
func parseScratchPath(s string) (typ, field, msg string) {
	const example = `e.g. "(*Decoder).buf" or "Decoder.buf"`
	t := s
	if strings.HasPrefix(t, "(*") {
		end := strings.Index(t, ")")
		if end < 0 {
			return "", "", fmt.Sprintf("scratch path %q has unbalanced parentheses: write (*T).field, %s", s, example)
		}
		t = t[2:end] + t[end+1:]
	}
	typ, field, ok := strings.Cut(t, ".")
	if i := strings.Index(typ, "["); i >= 0 && strings.HasSuffix(typ, "]") {
		typ = typ[:i]
	}
	switch {
	case !ok || typ == "" || field == "":
		return "", "", fmt.Sprintf("scratch path %q is not a type and a field: %s", s, example)
	case strings.Contains(field, "."):
		return "", "", fmt.Sprintf("scratch path %q goes through several fields: name the type that declares the last one, %s", s, example)
	case !token.IsIdentifier(typ):
		return "", "", fmt.Sprintf("scratch path %q: %q is not a type name (write it without its package), %s", s, typ, example)
	case !token.IsIdentifier(field):
		return "", "", fmt.Sprintf("scratch path %q: %q is not a field name, %s", s, field, example)
	}
	return typ, field, ""
}

func (ps *parser) scratchPaths(list []string, at tomlPath) []scratchPath {
	var paths []scratchPath
	for i, s := range list {
		pos := ps.src.elemPos(at, i)
		typ, field, msg := parseScratchPath(s)
		if msg != "" {
			ps.errorf(pos, "%s", msg)
			continue
		}
		paths = append(paths, scratchPath{written: s, typ: typ, field: field, pos: pos})
	}
	return paths
}

// Scratch returns the scratch fields of the package's rule in the form
// the runtime reads ("T.f"), sorted, or nil.
func (m Match) Scratch() []string {
	if m.Rule == nil || m.Mode != Detect {
		return nil
	}
	return m.Rule.scratchTexts()
}

func (r *Rule) scratchTexts() []string {
	if len(r.scratch) == 0 {
		return nil
	}
	out := make([]string, len(r.scratch))
	for i, sp := range r.scratch {
		out[i] = sp.text()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// UnknownScratch reports the scratch paths that name no field of a type
// declared in the packages of their rule, as warnings "file:line:col:
// message" in file order, with the nearest type or field as a
// suggestion. types maps each import path of the build to its struct
// types and their fields (embedded fields by their type's name).
func (p *Policy) UnknownScratch(types map[string]map[string][]string) []string {
	if p == nil {
		return nil
	}
	// The types (and their fields) of the packages each rule takes.
	ruleTypes := make([]map[string][]string, len(p.Rules))
	paths := make([]string, 0, len(types))
	for path := range types {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, importPath := range paths {
		ri, _ := p.bestRule(matchPath(importPath), false)
		if ri < 0 {
			continue
		}
		if ruleTypes[ri] == nil {
			ruleTypes[ri] = map[string][]string{}
		}
		for name, fields := range types[importPath] {
			ruleTypes[ri][name] = append(ruleTypes[ri][name], fields...)
		}
	}
	type warning struct {
		pos Position
		msg string
	}
	var ws []warning
	for ri := range p.Rules {
		for _, sp := range p.Rules[ri].scratch {
			fields, ok := ruleTypes[ri][sp.typ]
			switch {
			case !ok:
				names := make([]string, 0, len(ruleTypes[ri]))
				for n := range ruleTypes[ri] {
					names = append(names, n)
				}
				slices.Sort(names)
				msg := fmt.Sprintf("scratch path %q: no struct type %s is declared in the packages of this rule", sp.written, sp.typ)
				ws = append(ws, warning{sp.pos, didYouMean(msg, sp.typ, names)})
			case !slices.Contains(fields, sp.field):
				msg := fmt.Sprintf("scratch path %q: type %s has no field %s", sp.written, sp.typ, sp.field)
				ws = append(ws, warning{sp.pos, didYouMean(msg, sp.field, fields)})
			}
		}
	}
	sort.SliceStable(ws, func(i, j int) bool {
		a, b := ws[i].pos, ws[j].pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.pos.String() + ": " + w.msg
	}
	return out
}
