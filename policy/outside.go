package policy

import "fmt"

// outsideWritesKey is the mask rule key that lists the functions masked
// although they write outside memory.
//
// A function that writes to a file, a connection or another process
// before it fails changed something that a rollback of its memory cannot
// undo: masked, it leaves memory and the file out of step (a log's index
// rolled back, its entry still on disk). A masking build stops when a
// rule selects such a function, unless the rule's outside_writes lists
// it: the user has judged that the rollback of memory alone is right for
// it (it undoes its own writes, or the file is scratch).
const outsideWritesKey = "outside_writes"

// outsideWrites reads a mask rule's outside_writes list.
func (ps *parser) outsideWrites(t map[string]any, at tomlPath, r *Rule) {
	if list, pats, ok := ps.maskFuncList(t, at, r, outsideWritesKey, "only masking builds roll back"); ok {
		r.OutsideWrites, r.outsideWrites = list, pats
	}
}

// MasksOutsideWrites reports whether a mask rule's outside_writes lists
// the function, or the function a function literal is written in: it is
// masked although it writes outside memory.
func (m Match) MasksOutsideWrites(funcName string) bool {
	if m.Rule == nil || m.Mode != Mask {
		return false
	}
	for _, name := range matchNames(funcName) {
		if anyMatches(m.Rule.outsideWrites, name) {
			return true
		}
	}
	return false
}

// OutsideWritesHint says how to mask a function that writes outside
// memory anyway: the key, and the rule to write it in.
func (m Match) OutsideWritesHint(funcName string) string {
	where := "the package's mask rule"
	if m.Rule != nil {
		where = "the rule at " + m.Rule.Pos.String()
	}
	return fmt.Sprintf("%s = [%q] in %s", outsideWritesKey, normalizeFuncName(funcName), where)
}
