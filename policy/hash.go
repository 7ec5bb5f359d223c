package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Hash is a hex SHA-256 of the policy's meaning: the module path, the
// [defaults], and each rule's mode, resolved package patterns, function
// patterns and options, in rule order. It is not a hash of the file's
// bytes, so comments, layout, key order and the order of patterns within a
// list do not change it; the build cache key includes it, and such edits
// should not rebuild everything. Rule order is kept because it breaks
// precedence ties. Empty() and a policy with no rules and no module have
// the same, fixed hash.
func (p *Policy) Hash() string {
	if p == nil {
		p = Empty()
	}
	h := sha256.New()
	fmt.Fprintf(h, "atomicheck.toml version %d\n", schemaVersion)
	fmt.Fprintf(h, "module %q\n", p.ModulePath)
	writeOptions(h, "defaults", p.defaults)
	for i := range p.Rules {
		r := &p.Rules[i]
		fmt.Fprintf(h, "rule %d mode %s\n", i, r.Mode)
		resolved := make([]string, len(r.packages))
		for j := range r.packages {
			resolved[j] = r.packages[j].resolved
		}
		writeList(h, "packages", resolved)
		// A missing functions list (every function) and an empty one
		// (rejected by Parse) must not hash alike.
		if r.Functions != nil {
			writeList(h, "functions", funcTexts(r.functions))
		}
		if r.reported != nil {
			// What the report says, not its path: a new campaign that
			// finds the same functions keeps the build cache.
			writeList(h, "from_report", r.reportedNames())
		}
		writeList(h, "exclude", funcTexts(r.exclude))
		writeList(h, "ignore", funcTexts(r.ignore))
		if len(r.scratch) > 0 {
			// Only when set, so that other policies keep their hash. The
			// runtime's site tables hold the list.
			writeList(h, "scratch", r.scratchTexts())
		}
		if len(r.ProbeAcquires) > 0 {
			writeList(h, probeKey, r.ProbeAcquires)
		}
		writeOblivious(h, r, nil)
		writeSuccessErrors(h, r)
		writeOptions(h, "options", r.Options)
	}
	writeLeaks(h, p.Leaks)
	writeDeclared(h, p.declared)
	return hex.EncodeToString(h.Sum(nil))
}

// writeOblivious writes the rule's oblivious and mask_outside_locks lists,
// each only when set, so that the hash of every other rule stays what it
// was.
func writeOblivious(w io.Writer, r *Rule, fns Funcs) {
	if r.Oblivious != nil {
		writeList(w, "oblivious", fns.texts(r.oblivious))
	}
	if r.ObliviousAtomic != nil {
		writeList(w, "oblivious_atomic", fns.texts(r.obliviousAtomic))
	}
	if r.MaskOutsideLocks != nil {
		writeList(w, "mask_outside_locks", fns.texts(r.maskOutsideLocks))
	}
	if r.CallbacksWriteArguments != nil {
		writeList(w, callbacksKey, fns.texts(r.callbacksWriteArguments))
	}
	if r.OutsideWrites != nil {
		// A build that it let through must not be found in the cache
		// once it is gone.
		writeList(w, outsideWritesKey, fns.texts(r.outsideWrites))
	}
	if r.UndoFiles != nil {
		writeList(w, undoFilesKey, fns.texts(r.undoFiles))
	}
}

// funcTexts returns the patterns with type parameters dropped, since
// (*Stack).Push and (*Stack[...]).Push select the same methods.
func funcTexts(pats []funcPattern) []string {
	out := make([]string, len(pats))
	for i := range pats {
		out[i] = normalizeFuncName(pats[i].written)
	}
	return out
}

func writeOptions(w io.Writer, name string, o Options) {
	fmt.Fprintf(w, "%s panics=%t globals=%t snapshot_budget=%d", name, o.Panics, o.Globals, o.SnapshotBudget)
	// Written only when set, so that the hash of every policy that does
	// not set it stays what it was. It changes no compiled code, but a
	// package built as written under "warn" must not be reused from the
	// build cache once the rule says "fail".
	if o.OnTypeCheckFailure != TypeCheckFailureByMode {
		fmt.Fprintf(w, " on_type_check_failure=%s", o.OnTypeCheckFailure)
	}
	fmt.Fprintln(w)
}

// writeList writes a sorted copy: the order of a list does not change what
// it selects.
func writeList(w io.Writer, name string, list []string) {
	sorted := slices.Clone(list)
	slices.Sort(sorted)
	fmt.Fprintf(w, "%s %d", name, len(sorted))
	for _, s := range sorted {
		fmt.Fprintf(w, " %q", s)
	}
	fmt.Fprintln(w)
}

// Hash is a hex SHA-256 of what the policy says about the package: what
// instrumenting it depends on, and nothing else. It changes when an edit
// of the policy changes the package's mode, options, or the functions the
// rule selects, excludes or ignores in it, and not when the edit is about
// other packages only; so that a build keyed on it (see package gocmd)
// recompiles only the packages whose instrumentation changed. An external
// test package has the hash of its package.
//
// Without the package's functions (see HashIn), a function pattern of its
// rule counts whether or not it names one of them: a rule shared by
// several packages then gives each the hash of all its patterns.
func (m Match) Hash() string { return m.HashIn(nil) }

// HashIn is Hash for a package that declares fns: a function pattern of
// the rule that can match none of them, nor their function literals,
// does not count, so that an edit of a shared rule's lists about a
// function of another package leaves the hash as it was. A nil fns
// stands for functions not known: every pattern counts.
func (m Match) HashIn(fns Funcs) string {
	h := sha256.New()
	m.writeSelection(h, fns)
	writeOptions(h, "options", m.Options)
	if r := m.Rule; r != nil && m.Mode != Off {
		writeList(h, "ignore", fns.texts(r.ignore))
		writeList(h, "scratch", r.scratchTexts())
	}
	if probes := m.ProbeAcquires(); len(probes) > 0 {
		// Only when set, so that other packages keep their hash.
		writeList(h, probeKey, probes)
	}
	if m.Rule != nil && m.Mode == Mask {
		writeOblivious(h, m.Rule, fns)
	}
	if m.Rule != nil && m.Mode != Off {
		writeSuccessErrors(h, m.Rule)
	}
	writeLeaks(h, m.Leaks())
	if m.Mode != Off {
		writeDeclared(h, m.declared)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SelectionHash is a hex SHA-256 of which functions of the package the
// policy instruments, and how (Mode and Selects): all that the
// instrumentation of another package that calls them depends on.
func (m Match) SelectionHash() string { return m.SelectionHashIn(nil) }

// SelectionHashIn is SelectionHash for a package that declares fns (see
// HashIn).
func (m Match) SelectionHashIn(fns Funcs) string {
	h := sha256.New()
	m.writeSelection(h, fns)
	return hex.EncodeToString(h.Sum(nil))
}

// Funcs are the functions that a package declares, by the names that
// function patterns match: Transfer, Vector.Len, (*Vector).Alloc, without
// type parameters (see NormalizeFuncName).
type Funcs map[string]bool

// texts is funcTexts of the patterns that may match a function of fns.
func (fns Funcs) texts(pats []funcPattern) []string {
	out := make([]string, 0, len(pats))
	for i := range pats {
		if fns.mayMatch(&pats[i]) {
			out = append(out, normalizeFuncName(pats[i].written))
		}
	}
	return out
}

// mayMatch reports whether p may match a function of fns, or one of
// their function literals (see matchNames): a pattern with a wildcard,
// or one that names a function literal (Outer.func1), always may.
func (fns Funcs) mayMatch(p *funcPattern) bool {
	if fns == nil || p.wildcard() {
		return true
	}
	n := normalizeFuncName(p.written)
	return fns[n] || strings.Contains(n, ".func")
}

// NamesFunctions reports whether the package's rule has function
// patterns, whose count in HashIn depends on the package's functions.
func (m Match) NamesFunctions() bool {
	r := m.Rule
	return r != nil && m.Mode != Off &&
		len(r.functions)+len(r.exclude)+len(r.ignore)+len(r.oblivious)+len(r.obliviousAtomic)+len(r.maskOutsideLocks)+len(r.callbacksWriteArguments)+len(r.outsideWrites)+len(r.undoFiles) > 0
}

// NormalizeFuncName is the name of a function as function patterns match
// it: without type parameters ((*Stack[T]).Push is (*Stack).Push).
func NormalizeFuncName(name string) string { return normalizeFuncName(name) }

func (m Match) writeSelection(w io.Writer, fns Funcs) {
	fmt.Fprintf(w, "atomicheck.toml version %d\n", schemaVersion)
	fmt.Fprintf(w, "package %q mode %s\n", m.Package, m.Mode)
	r := m.Rule
	if r == nil || m.Mode == Off {
		return
	}
	if r.Functions != nil {
		writeList(w, "functions", fns.texts(r.functions))
	}
	if r.reported != nil {
		names := make([]string, 0, len(r.reported[m.Package]))
		for n, plain := range r.reported[m.Package] {
			names = append(names, reportedName(n, plain))
		}
		writeList(w, "from_report", names)
	}
	writeList(w, "exclude", fns.texts(r.exclude))
}
