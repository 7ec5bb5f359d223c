package campaign

import (
	"os"
	"path/filepath"
	"strings"
)

// coverDir is the directory of a campaign that holds the coverage
// counters of its runs.
const coverDir = "cover"

// CoverDirs are the directories, in a campaign's directory, where the
// runs of a campaign with Config.Cover leave their coverage counters
// (go tool covdata reads them): tests for the profile runs, the tests
// alone; injected for the other runs.
func CoverDirs(journal string) (tests, injected string) {
	return filepath.Join(journal, coverDir, "tests"), filepath.Join(journal, coverDir, "injected")
}

// coverFlags build the workload with coverage of the packages named.
// The counters only need to say whether a block ran, so set mode does:
// atomic mode's counters are calls of sync/atomic in every block, which
// make hot code many times slower (xz's lzma TestCycle2: 9.5 times the
// CPU time of set mode). With -race the go command wants atomic mode.
func coverFlags(patterns, buildArgs []string) []string {
	mode := "set"
	for _, a := range buildArgs {
		if a == "-race" || a == "-race=true" {
			mode = "atomic"
		}
	}
	return []string{"-cover", "-covermode=" + mode, "-coverpkg=" + strings.Join(patterns, ",")}
}

// keepCounters moves the coverage files that a run wrote into its own
// directory to the campaign's directory for runs of its kind. A run
// writes into a directory of its own because a test binary, as it exits,
// reads every counter file of its directory to print its percentage:
// with one directory for all, each run would read all the runs before
// it. The files' names (the binary's hash; its process id and the time)
// are unique, and renaming them keeps the shared directory whole.
func keepCounters(runDir, journal, kind string) {
	tests, injected := CoverDirs(journal)
	to := injected
	if kind == "profile" {
		to = tests
	}
	ents, err := os.ReadDir(runDir)
	if err != nil {
		return // the run wrote nothing: killed, or never started
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "covcounters.") || strings.HasPrefix(e.Name(), "covmeta.") {
			os.Rename(filepath.Join(runDir, e.Name()), filepath.Join(to, e.Name()))
		}
	}
}
