package policy

import (
	"fmt"
	"slices"
	"sort"
)

// Unused reports the patterns of the policy that have no effect on the
// given packages, as warnings "file:line:col: message" in file order. pkgs
// maps each import path of the build to the names of its functions, in the
// form function patterns use ("(*Vector).Alloc").
//
// A package pattern is unused when no package matches it, when every
// package it matches goes to another rule (see ForPackage for precedence),
// or when it takes only packages that are never instrumented. A function
// pattern is unused when it matches no function of the packages its rule
// takes. The map does not say which packages are in the standard library,
// so all are matched as if they were not: "..." then counts as used by
// "bytes" too, which only makes the report quieter.
func (p *Policy) Unused(pkgs map[string][]string) []string {
	if p == nil {
		return nil
	}
	type use struct{ matched, won, instrumentable bool }
	pkgUse := make([][]use, len(p.Rules))
	funcUse := make([]map[*funcPattern]bool, len(p.Rules))
	ruleWon := make([]bool, len(p.Rules))
	for ri := range p.Rules {
		pkgUse[ri] = make([]use, len(p.Rules[ri].packages))
		funcUse[ri] = make(map[*funcPattern]bool)
	}

	paths := make([]string, 0, len(pkgs))
	for path := range pkgs {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, importPath := range paths {
		path := matchPath(importPath)
		for ri := range p.Rules {
			for pi := range p.Rules[ri].packages {
				if p.Rules[ri].packages[pi].matches(path, false) {
					pkgUse[ri][pi].matched = true
				}
			}
		}
		ri, pi := p.bestRule(path, false)
		if ri < 0 {
			continue
		}
		u := &pkgUse[ri][pi]
		u.won = true
		u.instrumentable = u.instrumentable || Instrumentable(path, false)
		ruleWon[ri] = true
		r := &p.Rules[ri]
		for _, name := range pkgs[importPath] {
			n := normalizeFuncName(name)
			for _, list := range [][]funcPattern{r.functions, r.exclude, r.ignore, r.oblivious, r.obliviousAtomic, r.maskOutsideLocks, r.callbacksWriteArguments, r.outsideWrites, r.undoFiles} {
				for i := range list {
					if list[i].matches(n) {
						funcUse[ri][&list[i]] = true
					}
				}
			}
		}
	}

	type warning struct {
		pos Position
		msg string
	}
	var ws []warning
	for ri := range p.Rules {
		r := &p.Rules[ri]
		for pi := range r.packages {
			pat, u := &r.packages[pi], pkgUse[ri][pi]
			switch {
			case !u.matched:
				ws = append(ws, warning{pat.pos, fmt.Sprintf("package pattern %q matches no package", pat.written)})
			case !u.won:
				ws = append(ws, warning{pat.pos, fmt.Sprintf("package pattern %q has no effect: other rules take precedence for every package it matches", pat.written)})
			case !u.instrumentable && r.Mode != Off:
				ws = append(ws, warning{pat.pos, fmt.Sprintf("package pattern %q matches only packages that atomicx never instruments (the standard library its runtime depends on)", pat.written)})
			}
		}
		if !ruleWon[ri] {
			continue // the package warnings above already say why
		}
		for _, l := range []struct {
			key  string
			pats []funcPattern
		}{{"functions", r.functions}, {"exclude", r.exclude}, {"ignore", r.ignore}, {"oblivious", r.oblivious}, {"oblivious_atomic", r.obliviousAtomic}, {"mask_outside_locks", r.maskOutsideLocks}, {callbacksKey, r.callbacksWriteArguments}, {outsideWritesKey, r.outsideWrites}, {undoFilesKey, r.undoFiles}} {
			for i := range l.pats {
				if !funcUse[ri][&l.pats[i]] {
					ws = append(ws, warning{l.pats[i].pos, fmt.Sprintf("%s pattern %q matches no function in the packages of this rule", l.key, l.pats[i].written)})
				}
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
