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
	return m.maskListNames(func(r *Rule) []funcPattern { return r.outsideWrites }, funcName)
}

// maskListNames reports whether a mask rule's list (of its Rule) names
// the function, or the function a function literal is written in.
func (m Match) maskListNames(list func(*Rule) []funcPattern, funcName string) bool {
	if m.Rule == nil || m.Mode != Mask {
		return false
	}
	for _, name := range matchNames(funcName) {
		if anyMatches(list(m.Rule), name) {
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

// undoFilesKey is the mask rule key that lists the functions whose
// writes to regular files, through the instrumented call sites of an
// *os.File's Write, WriteString, WriteAt, ReadFrom and Truncate, are
// undone with their memory when they fail: appends truncated back,
// overwritten bytes written back, the offset reset (see the runtime's
// FileUndo). A write that cannot be undone soundly — to a pipe, a socket,
// a terminal, a file open with O_APPEND — is left, as the runtime
// decides at the write; a function that writes outside memory otherwise
// (renames, removes, connections, processes) still needs outside_writes.
const undoFilesKey = "undo_files"

// undoFiles reads a mask rule's undo_files list.
func (ps *parser) undoFiles(t map[string]any, at tomlPath, r *Rule) {
	if list, pats, ok := ps.maskFuncList(t, at, r, undoFilesKey, "only masking builds roll back"); ok {
		r.UndoFiles, r.undoFiles = list, pats
	}
}

// UndoesFiles reports whether a mask rule's undo_files lists the
// function, or the function a function literal is written in: its writes
// to regular files are undone when it fails.
func (m Match) UndoesFiles(funcName string) bool {
	return m.maskListNames(func(r *Rule) []funcPattern { return r.undoFiles }, funcName)
}

// UndoesAnyFiles reports whether the package's mask rule lists functions
// in undo_files: its writes to files are then journaled wherever they
// run in the package, for the masked calls in progress.
func (m Match) UndoesAnyFiles() bool {
	return m.Rule != nil && m.Mode == Mask && len(m.Rule.undoFiles) > 0
}

// UndoFilesHint says how to mask a function whose writes to files can be
// undone: the key, and the rule to write it in.
func (m Match) UndoFilesHint(funcName string) string {
	where := "the package's mask rule"
	if m.Rule != nil {
		where = "the rule at " + m.Rule.Pos.String()
	}
	return fmt.Sprintf("%s = [%q] in %s", undoFilesKey, normalizeFuncName(funcName), where)
}
