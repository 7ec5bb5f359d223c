// Command atomicx finds and repairs failure non-atomic Go functions:
// functions that return an error or panic after having changed part of the
// state of their receiver or arguments.
//
// It runs as a -toolexec program of the go command, which instruments the
// packages that atomicheck.toml selects while they are compiled, and as a
// command with subcommands. Run "atomicx help" for the usage.
package main

import (
	"fmt"
	"go/types"
	"io"
	"os"

	"github.com/atomicx/atomicx"
	"github.com/atomicx/atomicx/toolexec"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// wrapImporter is toolexec.Config.WrapImporter; only the tests set it.
var wrapImporter func(types.Importer) types.Importer

func run(args []string, stdout, stderr io.Writer) int {
	if cmd, ok := toolexec.ParseCommand(args); ok {
		return toolexec.Run(toolexec.Config{
			Identity:      identity,
			RuntimeSource: atomicx.RuntimeSource,
			Stdout:        stdout,
			Stderr:        stderr,
			WrapImporter:  wrapImporter,
		}, cmd)
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if q, ok := questionNamed(args[0]); ok {
		return questionCmd(q, args[1:], stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return help(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		return versionCmd(stdout)
	case "policy":
		return policyCmd(args[1:], stdout, stderr)
	case "go":
		return goCmd(args[1:], stdout, stderr)
	case "plan":
		return planCmd(args[1:], stdout, stderr)
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "merge":
		return mergeCmd(args[1:], stdout, stderr)
	case "report":
		return reportCmd(args[1:], stdout, stderr)
	case "reproduce":
		return reproduceCmd(args[1:], stdout, stderr)
	case "vet":
		return vetCmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "atomicx: unknown command %q\nRun 'atomicx help' for usage.\n", args[0])
	return 2
}
