package rt

import (
	"os"
	"strings"
)

// EnvListAsWritten set to "1" makes a logged run list, when each
// instrumented package is initialized, the functions that detection
// left as written: one "as_written" event each. A campaign asks it of
// one profile run per test binary, so that its report lists them with
// the only verdict they can have.
const EnvListAsWritten = "ATOMICX_LIST_AS_WRITTEN"

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
// to (EnvListAsWritten), and does nothing else.
func AsWritten(table string) struct{} {
	if config.logPath == "" || os.Getenv(EnvListAsWritten) != "1" {
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
