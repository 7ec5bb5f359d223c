package policy

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// The keys each table accepts, in the order the documentation lists them.
var (
	topKeys    = []string{"version", "defaults", "rule", "leak", neverFailKey, errorConstructorsKey}
	optionKeys = []string{"panics", "globals", "snapshot_budget", "on_type_check_failure"}
	ruleKeys   = []string{"packages", "mode", "functions", "from_report", "exclude", "ignore", successErrorsKey, "scratch", "oblivious", "oblivious_atomic", "mask_outside_locks", callbacksKey, outsideWritesKey, undoFilesKey, "panics", "globals", "snapshot_budget", "on_type_check_failure"}
)

// schemaVersion is the only version this package reads.
const schemaVersion = 1

// Parse reads a policy from data; path names the file in error messages
// and locates the go.mod that ./ patterns are relative to. On failure the
// error is an ErrorList with every problem found, each "path:line:col:
// message".
//
// The TOML is decoded into plain maps and checked here against the schema
// rather than decoded into structs: the struct decoder matches keys without
// regard to case (so "Mode" would pass for "mode") and stops at the first
// wrong type, where a user wants every mistake, with its position, at once.
func Parse(path string, data []byte) (*Policy, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, ErrorList{syntaxError(path, err)}
	}
	ps := &parser{
		file:   path,
		src:    locate(path, string(data)),
		mod:    findModule(filepath.Dir(path)),
		seen:   make(map[string]seenPattern),
		policy: &Policy{Path: path, defaults: builtinDefaults},
	}
	ps.policy.ModulePath = ps.mod.path
	ps.document(doc)
	if len(ps.errs) > 0 {
		ps.errs.sort()
		return nil, ps.errs
	}
	return ps.policy, nil
}

// syntaxError turns the decoder's error into ours, keeping its position.
func syntaxError(file string, err error) *Error {
	pos := Position{File: file, Line: 1, Col: 1}
	msg := err.Error()
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg = pe.Message
		if pe.Position.Line > 0 {
			pos.Line = pe.Position.Line
			pos.Col = max(pe.Position.Col, 1)
		}
	}
	// The decoder's messages may quote the input; keep the report to one
	// line per problem.
	msg = strings.Join(strings.Fields(msg), " ")
	return &Error{Pos: pos, Msg: "invalid TOML: " + msg}
}

type parser struct {
	file   string
	src    *locations
	mod    moduleInfo
	seen   map[string]seenPattern // resolved package pattern -> first use
	errs   ErrorList
	policy *Policy
}

func (ps *parser) errorf(pos Position, format string, args ...any) {
	ps.errs = append(ps.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (ps *parser) document(doc map[string]any) {
	ps.unknownKeys(doc, nil, topKeys, "at top level")
	if v, ok := doc["version"]; ok {
		ps.version(v)
	}
	if v, ok := doc["defaults"]; ok {
		at := tomlPath{"defaults"}
		if t, ok := v.(map[string]any); ok {
			ps.unknownKeys(t, at, optionKeys, "in [defaults]")
			ps.policy.defaults = ps.options(t, at, builtinDefaults)
		} else {
			ps.errorf(ps.src.valuePos(at), "defaults must be a table ([defaults]), not %s", typeName(v))
		}
	}
	if v, ok := doc["rule"]; ok {
		ps.rules(v)
	}
	if v, ok := doc["leak"]; ok {
		ps.leak(v)
	}
	d := &declared{}
	ps.policy.NeverFail, d.neverFail = ps.declaredFuncs(doc, neverFailKey)
	ps.policy.ErrorConstructors, d.errorConstructors = ps.declaredFuncs(doc, errorConstructorsKey)
	if len(d.neverFail)+len(d.errorConstructors) > 0 {
		ps.policy.declared = d
	}
}

func (ps *parser) version(v any) {
	at := tomlPath{"version"}
	switch n, ok := v.(int64); {
	case !ok:
		ps.errorf(ps.src.valuePos(at), "version must be the integer %d, not %s", schemaVersion, typeName(v))
	case n != schemaVersion:
		ps.errorf(ps.src.valuePos(at), "unsupported version %d: this atomicx reads version %d (write version = %d, or remove the line)", n, schemaVersion, schemaVersion)
	}
}

// unknownKeys reports the keys of t that are not in known. where says
// which table t is, for the message.
func (ps *parser) unknownKeys(t map[string]any, at tomlPath, known []string, where string) {
	keys := make([]string, 0, len(t))
	for k := range t {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // deterministic order for errors at the same position
	for _, k := range keys {
		ps.errs = append(ps.errs, &Error{Pos: ps.src.keyPos(at.child(k)), Msg: unknownKeyMessage(k, known, where)})
	}
}

func unknownKeyMessage(key string, known []string, where string) string {
	// A key that is valid in another table is more likely misplaced than
	// misspelt: say where it goes.
	switch {
	case where == "at top level" && slices.Contains(optionKeys, key):
		return fmt.Sprintf("unknown key %q at top level: options go under [defaults] (for every rule) or in a [[rule]]", key)
	case where != "in [[rule]]" && slices.Contains(ruleKeys, key):
		return fmt.Sprintf("unknown key %q %s: it belongs in a [[rule]] table", key, where)
	case where != "at top level" && (key == neverFailKey || key == errorConstructorsKey):
		return fmt.Sprintf("unknown key %q %s: it is a top-level key, written before the first table", key, where)
	}
	msg := fmt.Sprintf("unknown key %q %s (known keys: %s)", key, where, knownList(known))
	return didYouMean(msg, key, known)
}

// options reads panics, globals, snapshot_budget and
// on_type_check_failure from t over base.
func (ps *parser) options(t map[string]any, at tomlPath, base Options) Options {
	o := base
	for _, k := range []string{"panics", "globals"} {
		v, ok := t[k]
		if !ok {
			continue
		}
		b, ok := v.(bool)
		if !ok {
			ps.errorf(ps.src.valuePos(at.child(k)), "%s must be true or false, not %s", k, typeName(v))
			continue
		}
		if k == "panics" {
			o.Panics = b
		} else {
			o.Globals = b
		}
	}
	if v, ok := t["snapshot_budget"]; ok {
		pos := ps.src.valuePos(at.child("snapshot_budget"))
		switch n, ok := v.(int64); {
		case !ok:
			ps.errorf(pos, "snapshot_budget must be an integer (the most values one call snapshot may copy), not %s", typeName(v))
		case n <= 0:
			ps.errorf(pos, "snapshot_budget must be positive (it is the most values one call snapshot may copy), not %d", n)
		case n > math.MaxInt:
			ps.errorf(pos, "snapshot_budget %d is too large for this platform", n)
		default:
			o.SnapshotBudget = int(n)
		}
	}
	if v, ok := t["on_type_check_failure"]; ok {
		pos := ps.src.valuePos(at.child("on_type_check_failure"))
		names := typeCheckFailureNames[TypeCheckFailureFail:]
		s, isStr := v.(string)
		i := slices.Index(names, s)
		switch {
		case !isStr:
			ps.errorf(pos, `on_type_check_failure must be a string ("fail" or "warn"), not %s`, typeName(v))
		case i < 0:
			msg := fmt.Sprintf("unknown on_type_check_failure %q (known values: %s)", s, knownList(names))
			ps.errorf(pos, "%s", didYouMean(msg, s, names))
		default:
			o.OnTypeCheckFailure = TypeCheckFailureFail + TypeCheckFailure(i)
		}
	}
	return o
}

func (ps *parser) rules(v any) {
	at := tomlPath{"rule"}
	var tables []any
	switch v := v.(type) {
	case []map[string]any: // [[rule]] headers
		for _, t := range v {
			tables = append(tables, t)
		}
	case []any: // rule = [{...}, {...}]
		tables = v
	case map[string]any:
		ps.errorf(ps.src.keyPos(at), "rule must be an array of tables: write [[rule]], with two brackets, before each rule")
		return
	default:
		ps.errorf(ps.src.valuePos(at), "rule must be an array of tables ([[rule]]), not %s", typeName(v))
		return
	}
	for i, t := range tables {
		elem := at.child(indexSeg(i))
		m, ok := t.(map[string]any)
		if !ok {
			ps.errorf(ps.src.keyPos(elem), "each rule must be a table, not %s", typeName(t))
			continue
		}
		ps.rule(m, elem)
	}
}

func (ps *parser) rule(t map[string]any, at tomlPath) {
	r := Rule{
		Pos:     ps.src.keyPos(at),
		index:   len(ps.policy.Rules),
		Options: ps.policy.defaults,
	}
	ps.unknownKeys(publicRuleKeys(t), at, ruleKeys, "in [[rule]]")

	if v, ok := t["packages"]; !ok {
		ps.errorf(r.Pos, `[[rule]] has no packages: add packages = ["./..."] with the import-path patterns it applies to`)
	} else if list, ok := ps.stringList(v, at.child("packages")); ok {
		if len(list) == 0 {
			ps.errorf(ps.src.valuePos(at.child("packages")), `packages is empty: list at least one import-path pattern, e.g. packages = ["./..."]`)
		}
		r.Packages = list
		r.packages = ps.packagePatterns(list, at.child("packages"), &r)
	}

	if v, ok := t["mode"]; !ok {
		ps.errorf(r.Pos, `[[rule]] has no mode: add mode = "detect" (or "mask", or "off")`)
	} else {
		r.Mode = ps.mode(v, at.child("mode"))
	}

	for _, k := range []string{"functions", "exclude", "ignore"} {
		v, ok := t[k]
		if !ok {
			continue
		}
		list, ok := ps.stringList(v, at.child(k))
		if !ok {
			continue
		}
		if k == "functions" && len(list) == 0 {
			ps.errorf(ps.src.valuePos(at.child(k)), `functions is empty, so the rule selects no function: remove the key to select every function, or use mode = "off"`)
		}
		pats := ps.funcPatterns(list, at.child(k))
		switch k {
		case "functions":
			r.Functions, r.functions = list, pats
		case "exclude":
			r.Exclude, r.exclude = list, pats
		case "ignore":
			r.Ignore, r.ignore = list, pats
		}
	}

	if v, ok := t["from_report"]; ok {
		ps.fromReport(&r, v, at.child("from_report"))
	}

	if v, ok := t["scratch"]; ok {
		if list, ok := ps.stringList(v, at.child("scratch")); ok {
			r.Scratch, r.scratch = list, ps.scratchPaths(list, at.child("scratch"))
		}
		if _, hasMode := t["mode"]; hasMode && r.Mode != Detect {
			ps.errorf(ps.src.keyPos(at.child("scratch")), "scratch has no effect in a rule with mode = %q: only detection compares object graphs; remove it, or move it to the package's detect rule", r.Mode)
		}
	}

	ps.successErrors(t, at, &r)
	ps.oblivious(t, at, &r)
	ps.maskOutsideLocks(t, at, &r)
	ps.callbacks(t, at, &r)
	ps.outsideWrites(t, at, &r)
	ps.undoFiles(t, at, &r)
	ps.probeAcquires(t, at, &r)

	r.Options = ps.options(t, at, ps.policy.defaults)
	ps.policy.Rules = append(ps.policy.Rules, r)
}

// oblivious reads a mask rule's oblivious and oblivious_atomic lists.
func (ps *parser) oblivious(t map[string]any, at tomlPath, r *Rule) {
	const why = "failures are swallowed in masking builds only"
	if list, pats, ok := ps.maskFuncList(t, at, r, "oblivious", why); ok {
		r.Oblivious, r.oblivious = list, pats
	}
	if list, pats, ok := ps.maskFuncList(t, at, r, "oblivious_atomic", why); ok {
		r.ObliviousAtomic, r.obliviousAtomic = list, pats
	}
}

// maskOutsideLocks reads a mask rule's mask_outside_locks list.
func (ps *parser) maskOutsideLocks(t map[string]any, at tomlPath, r *Rule) {
	if list, pats, ok := ps.maskFuncList(t, at, r, "mask_outside_locks", "it says which functions masking builds mask although they take locks"); ok {
		r.MaskOutsideLocks, r.maskOutsideLocks = list, pats
	}
}

// callbacksKey is the mask rule key that lists the functions whose
// calls of function values write only what their arguments reach.
const callbacksKey = "callbacks_write_arguments"

// callbacks reads a mask rule's callbacks_write_arguments list.
func (ps *parser) callbacks(t map[string]any, at tomlPath, r *Rule) {
	if list, pats, ok := ps.maskFuncList(t, at, r, callbacksKey, "it says how masking builds record the calls of function values"); ok {
		r.CallbacksWriteArguments, r.callbacksWriteArguments = list, pats
	}
}

// maskFuncList reads the function list under key k of a rule, a key that
// only mask rules use: in a rule of another mode it is an error, and why
// says why it has no effect there. ok is false when the key is absent or
// not a list of strings.
func (ps *parser) maskFuncList(t map[string]any, at tomlPath, r *Rule, k, why string) (list []string, pats []funcPattern, ok bool) {
	v, present := t[k]
	if !present {
		return nil, nil, false
	}
	if _, hasMode := t["mode"]; hasMode && r.Mode != Mask {
		ps.errorf(ps.src.keyPos(at.child(k)), "%s has no effect in a rule with mode = %q: %s; remove it, or move it to the package's mask rule", k, r.Mode, why)
	}
	if list, ok = ps.stringList(v, at.child(k)); !ok {
		return nil, nil, false
	}
	return list, ps.funcPatterns(list, at.child(k)), true
}

func (ps *parser) mode(v any, at tomlPath) Mode {
	s, ok := v.(string)
	if !ok {
		ps.errorf(ps.src.valuePos(at), `mode must be a string ("off", "detect" or "mask"), not %s`, typeName(v))
		return Off
	}
	if i := slices.Index(modeNames[:], s); i >= 0 {
		return Mode(i)
	}
	msg := fmt.Sprintf("unknown mode %q (known modes: %s)", s, knownList(modeNames[:]))
	ps.errorf(ps.src.valuePos(at), "%s", didYouMean(msg, s, modeNames[:]))
	return Off
}

// stringList checks that v is an array of strings. ok is false if it is
// not an array at all; bad elements are reported and left out.
func (ps *parser) stringList(v any, at tomlPath) (list []string, ok bool) {
	key := at[len(at)-1]
	arr, isArr := v.([]any)
	if !isArr {
		ps.errorf(ps.src.valuePos(at), `%s must be an array of strings, e.g. %s = ["..."], not %s`, key, key, typeName(v))
		return nil, false
	}
	list = make([]string, 0, len(arr))
	for i, e := range arr {
		s, isStr := e.(string)
		if !isStr {
			ps.errorf(ps.src.elemPos(at, i), "%s must hold only strings, not %s", key, typeName(e))
			continue
		}
		list = append(list, s)
	}
	return list, true
}

// packagePatterns checks, resolves and compiles the packages of rule r.
func (ps *parser) packagePatterns(list []string, at tomlPath, r *Rule) []pkgPattern {
	var pats []pkgPattern
	for i, s := range list {
		pos := ps.src.elemPos(at, i)
		if msg := checkPkgPattern(s); msg != "" {
			ps.errorf(pos, "%s", msg)
			continue
		}
		resolved := s
		if isRelative(s) {
			if ps.mod.err != nil {
				ps.errorf(pos, "%s", ps.relativeError(s))
				continue
			}
			resolved = resolvePkgPattern(s, ps.mod.dirPath)
		}
		pat := compilePkgPattern(s, resolved, pos)
		if prev, dup := ps.seen[resolved]; dup {
			ps.errorf(pos, "%s", duplicateMessage(s, resolved, prev, prev.rule == r.index))
			continue
		}
		ps.seen[resolved] = seenPattern{written: s, pos: pos, rule: r.index}
		pats = append(pats, pat)
	}
	return pats
}

// seenPattern is where a resolved package pattern was first written, to
// reject it in any later place: with two rules for one pattern, which one
// applies would depend on nothing but file order.
type seenPattern struct {
	written string
	pos     Position
	rule    int
}

func (ps *parser) relativeError(s string) string {
	if errors.Is(ps.mod.err, errNoGoMod) {
		return fmt.Sprintf("package pattern %q is relative, but there is no go.mod in the policy file's directory or above: write the full import path instead", s)
	}
	return fmt.Sprintf("package pattern %q is relative, but its module is unknown (%v): write the full import path instead", s, ps.mod.err)
}

func duplicateMessage(written, resolved string, prev seenPattern, sameRule bool) string {
	what := fmt.Sprintf("package pattern %q", written)
	if written != prev.written {
		what = fmt.Sprintf("package pattern %q means the same as %q (%s) and", written, prev.written, resolved)
	}
	if sameRule {
		return what + " is listed twice in this rule: remove one"
	}
	return fmt.Sprintf("%s is already listed in another rule, at line %d: a pattern may appear in one rule only; remove one, or merge the rules", what, prev.pos.Line)
}

func (ps *parser) funcPatterns(list []string, at tomlPath) []funcPattern {
	var pats []funcPattern
	for i, s := range list {
		pos := ps.src.elemPos(at, i)
		if msg := checkFuncPattern(s); msg != "" {
			ps.errorf(pos, "%s", msg)
			continue
		}
		pats = append(pats, compileFuncPattern(s, pos))
	}
	return pats
}

// typeName describes a decoded TOML value for error messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case time.Time: // all four TOML date-time kinds decode to time.Time
		return "a date-time"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}
