package policy

import "strings"

// Match is what the policy says about one package.
type Match struct {
	Rule    *Rule   // nil when no rule matched
	Mode    Mode    // Off when no rule matched or the package is not Instrumentable
	Options Options // the rule's options; the [defaults] when no rule matched
}

// ForPackage resolves the rule for a package. std says whether the package
// belongs to the standard library (the compiler's -std flag).
//
// The import path may be that of a test variant: a trailing " [P.test]" is
// dropped, and an external test package P_test is matched as P, so a rule
// for example.com/m/vec covers example.com/m/vec_test too. The generated
// test main package (P.test) is always Off: it holds no user code.
func (p *Policy) ForPackage(importPath string, std bool) Match {
	if p == nil {
		p = Empty()
	}
	path := matchPath(importPath)
	m := Match{Options: p.defaults}
	ri, _ := p.bestRule(path, std)
	if ri < 0 {
		return m
	}
	r := &p.Rules[ri]
	m.Rule, m.Mode, m.Options = r, r.Mode, r.Options
	if !Instrumentable(path, std) || strings.HasSuffix(path, ".test") {
		m.Mode = Off
	}
	return m
}

// matchPath maps a test variant's import path to the package it tests.
func matchPath(importPath string) string {
	path, _, _ := strings.Cut(importPath, " [")
	return strings.TrimSuffix(path, "_test")
}

// bestRule returns the index of the rule whose pattern matches path most
// specifically, and the index of that pattern in the rule, or -1, -1.
//
// Precedence does not depend on the order of rules in the file, except to
// break ties:
//  1. an exact import path (no "...") beats every wildcard pattern;
//  2. among wildcard patterns, the one with more literal bytes before its
//     first "..." wins ("github.com/x/y/..." beats "github.com/x/...",
//     which beats "...");
//  3. among equally specific patterns, the rule that comes first in the
//     file wins.
//
// Two rules cannot hold the same exact path: Parse rejects a pattern that
// appears in more than one rule.
func (p *Policy) bestRule(path string, std bool) (rule, pattern int) {
	rule, pattern = -1, -1
	var best *pkgPattern
	for ri := range p.Rules {
		for pi := range p.Rules[ri].packages {
			pat := &p.Rules[ri].packages[pi]
			if !pat.matches(path, std) {
				continue
			}
			if best == nil || moreSpecific(pat, best) {
				best, rule, pattern = pat, ri, pi
			}
		}
	}
	return rule, pattern
}

// moreSpecific reports whether a beats b. Rules are visited in file order,
// so an equal score keeps the earlier one.
func moreSpecific(a, b *pkgPattern) bool {
	if a.exact != b.exact {
		return a.exact
	}
	return a.prefix > b.prefix
}

// Selects reports whether the function is to be instrumented (Detect) or
// wrapped (Mask): the package's rule has a mode other than Off, its
// functions list is absent or has a matching pattern, and no exclude
// pattern matches. funcName is in runtime.Func.Name form without the
// package path, e.g. "(*Vector).Alloc".
func (m Match) Selects(funcName string) bool {
	if m.Rule == nil || m.Mode == Off {
		return false
	}
	name := normalizeFuncName(funcName)
	if len(m.Rule.functions) > 0 && !anyMatches(m.Rule.functions, name) {
		return false
	}
	return !anyMatches(m.Rule.exclude, name)
}

// Ignores reports whether the rule's ignore list names the function: it is
// known not to be failure atomic on purpose, so no fault is injected into
// it and no verdict about it is reported. It says nothing about Selects.
func (m Match) Ignores(funcName string) bool {
	if m.Rule == nil {
		return false
	}
	return anyMatches(m.Rule.ignore, normalizeFuncName(funcName))
}

func anyMatches(pats []funcPattern, normalizedName string) bool {
	for i := range pats {
		if pats[i].matches(normalizedName) {
			return true
		}
	}
	return false
}
