package rt

import "strings"

// A logged run asked to list the functions left as written
// (arm.EnvListAsWritten) lists them, when each instrumented package is
// initialized: one "as_written" event each. A campaign asks it of one
// profile run per test binary, so that its report lists them with the
// only verdict they can have.

// AsWritten is called when an instrumented package is initialized (in a
// package variable's initializer), with the package's functions that
// detection compiled as written because no failure can leave one of
// them half done (see the instrument package): one line each,
//
//	FUNC POS FLAGS
//
// separated by tabs, FLAGS "-" or "w": w says that every method of the
// function's receiver type is such a function, so that the type is
// atomic whatever the tests reach. It logs them when the run was asked
// to (settings.listAsWritten), and does nothing else.
func AsWritten(table string) struct{} {
	if config.logPath == "" || !config.listAsWritten {
		return struct{}{}
	}
	for table != "" {
		var line string
		line, table, _ = strings.Cut(table, "\n")
		fn, rest, _ := strings.Cut(line, "\t")
		pos, flags, _ := strings.Cut(rest, "\t")
		if fn == "" {
			continue
		}
		writeLine(event("as_written").str("func", fn).str("pos", pos).boolean("whole_type", flags == "w").end())
	}
	return struct{}{}
}
