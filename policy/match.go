package policy

import (
	"fmt"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
)

// Match is what the policy says about one package.
type Match struct {
	Package string  // the import path matched, test variants mapped to the package
	Rule    *Rule   // nil when no rule matched
	Mode    Mode    // Off when no rule matched or the package is not Instrumentable
	Options Options // the rule's options; the [defaults] when no rule matched

	xtest bool            // an external test package (P_test), matched as P
	leaks *[]LeakResource // in Mask mode: the policy's [[leak.resource]] tables (a pointer: a Match is comparable)
	// declared holds the policy's never_fail and error_constructors
	// lists, or is nil.
	declared *declared
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
	pkg, _, _ := strings.Cut(importPath, " [")
	m := Match{Package: path, Options: p.defaults, xtest: strings.HasSuffix(pkg, "_test"), declared: p.declared}
	ri, _ := p.bestRule(path, std)
	if ri < 0 {
		return m
	}
	r := &p.Rules[ri]
	m.Rule, m.Mode, m.Options = r, r.Mode, r.Options
	if !Instrumentable(path, std) || strings.HasSuffix(path, ".test") {
		m.Mode = Off
	}
	if m.Mode == Mask {
		m.leaks = &p.Leaks
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
//
// A function literal ("Outer.func1", "init.func2" in a package-level
// initializer) goes with the function it is written in: it is selected
// when a functions pattern matches its own name or that function's, and
// left out when an exclude pattern matches either. So excluding Outer
// excludes its literals, and functions = ["Outer.func1"] selects that
// literal alone. A rule's from_report selects a literal only when the
// report names the literal itself: the report gives literals verdicts of
// their own. Nor does it select a function that the report says wrote
// outside memory before failing, unless outside_writes lists it: masking
// it would leave memory and the file out of step.
func (m Match) Selects(funcName string) bool {
	if m.Rule == nil || m.Mode == Off {
		return false
	}
	names := matchNames(funcName)
	r := m.Rule
	plain, reported := r.reported[m.Package][names[0]]
	listed := plain || reported && (anyMatches(r.outsideWrites, names[0]) || anyMatches(r.undoFiles, names[0]))
	for _, name := range names {
		listed = listed || len(r.functions) > 0 && anyMatches(r.functions, name)
	}
	if (r.reported != nil || len(r.functions) > 0) && !listed {
		return false
	}
	for _, name := range names {
		if anyMatches(r.exclude, name) {
			return false
		}
	}
	return true
}

// matchNames returns the normalized names that patterns are matched
// against for a function: its own and, for a function literal, those of
// the functions it is written in (Outer.func1.1: Outer.func1, Outer).
func matchNames(funcName string) []string {
	names := []string{normalizeFuncName(funcName)}
	for _, in := range funcname.Enclosers(funcName) {
		names = append(names, normalizeFuncName(in))
	}
	return names
}

// MissingFunctions checks a mask rule's functions list against the
// functions the package declares: a name without wildcard that is not
// among them is a mistake (a typo, or a function since renamed) that
// would leave the function unmasked without a word. It returns one
// "file:line:col: message" per such name. Only a rule whose package
// patterns are all exact import paths is checked: a name missing from
// one package of a wildcard rule may be in another. An external test
// package shares its package's rule but declares none of its functions,
// so it is not checked either.
func (m Match) MissingFunctions(declared []string) []string {
	if m.Rule == nil || m.Mode != Mask || m.xtest {
		return nil
	}
	for i := range m.Rule.packages {
		if !m.Rule.packages[i].exact {
			return nil
		}
	}
	names := make([]string, len(declared))
	for i, d := range declared {
		names[i] = normalizeFuncName(d)
	}
	var errs []string
	for _, list := range []struct {
		pats []funcPattern
		not  string
	}{
		{m.Rule.functions, "masked"},
		{m.Rule.oblivious, "failure-oblivious"},
		{m.Rule.obliviousAtomic, "atomic failure-oblivious"},
		{m.Rule.maskOutsideLocks, "masked outside its locks"},
		{m.Rule.callbacksWriteArguments, "masked with its function values taken to write only what their arguments reach"},
		{m.Rule.outsideWrites, "masked despite its writes outside memory"},
		{m.Rule.undoFiles, "masked with its writes to files undone"},
	} {
		for i := range list.pats {
			pat := &list.pats[i]
			if pat.wildcard() {
				continue // a wildcard may match nothing here on purpose
			}
			found := false
			for _, n := range names {
				if pat.matches(n) {
					found = true
					break
				}
			}
			if !found {
				msg := didYouMean(fmt.Sprintf("function %q is not declared in package %s, so it is not %s", pat.written, m.Package, list.not), normalizeFuncName(pat.written), names)
				errs = append(errs, pat.pos.String()+": "+msg)
			}
		}
	}
	return errs
}

// Oblivious reports whether a mask rule makes the function
// failure-oblivious (a failed call returns a nil error, a panic through
// it is recovered), and whether atomically: rolled back first, whether
// Selects it or not. A function literal is matched by its own name only
// ("Outer.func1"): swallowing the failures of every literal of a
// function would change more than the function's own calls.
func (m Match) Oblivious(funcName string) (oblivious, atomic bool) {
	if m.Rule == nil || m.Mode != Mask {
		return false, false
	}
	name := normalizeFuncName(funcName)
	atomic = anyMatches(m.Rule.obliviousAtomic, name)
	return atomic || anyMatches(m.Rule.oblivious, name), atomic
}

// MasksOutsideLocks reports whether a mask rule masks the function even
// though it takes a lock other than by opening with the lock idiom, or
// calls a function that does (see Rule.MaskOutsideLocks).
func (m Match) MasksOutsideLocks(funcName string) bool {
	if m.Rule == nil || m.Mode != Mask {
		return false
	}
	return anyMatches(m.Rule.maskOutsideLocks, normalizeFuncName(funcName))
}

// CallbacksWriteArguments reports whether a mask rule takes the function
// values that the function calls to write only what their arguments
// reach (see Rule.CallbacksWriteArguments).
func (m Match) CallbacksWriteArguments(funcName string) bool {
	if m.Rule == nil || m.Mode != Mask {
		return false
	}
	return anyMatches(m.Rule.callbacksWriteArguments, normalizeFuncName(funcName))
}

// Ignores reports whether the rule's ignore list names the function: it is
// known not to be failure atomic on purpose, so no fault is injected into
// it and no verdict about it is reported. It says nothing about Selects.
//
// A function literal is ignored with the function it is written in.
func (m Match) Ignores(funcName string) bool {
	if m.Rule == nil {
		return false
	}
	for _, name := range matchNames(funcName) {
		if anyMatches(m.Rule.ignore, name) {
			return true
		}
	}
	return false
}

func anyMatches(pats []funcPattern, normalizedName string) bool {
	for i := range pats {
		if pats[i].matches(normalizedName) {
			return true
		}
	}
	return false
}
