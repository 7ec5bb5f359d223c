package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"

	"github.com/atomicx/atomicx"
	"github.com/atomicx/atomicx/gocmd"
)

const goUsage = `usage: atomicx go build|install|run|test [build and test flags] [packages] [arguments]

Runs the go command with atomicx as its -toolexec program, as
"go build -toolexec atomicx" does, but with build cache keys of their
own for the packages that the policy instruments: every other package,
the standard library first, comes from the cache that plain builds fill,
and a policy edit recompiles only the packages whose instrumentation it
changes. atomicx detect builds this way. With a policy, the runtime that
instrumented packages link against is built, when it is not yet, while
the packages are listed rather than by the first compile that needs it.

-toolexec cannot be given; -gcflags values are kept, and apply to the
instrumented packages as they would without atomicx.
`

// goCmd runs "atomicx go ...".
func goCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(stderr, goUsage)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "atomicx go: %v\n", err)
		return 2
	}
	cfg := gocmd.Config{Atomicx: self, Identity: identity}
	stop := gocmd.Prebuild(context.Background(), cfg, atomicx.RuntimeSource, args)
	defer stop()
	cmd, err := gocmd.Command(context.Background(), cfg, args)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx go: %v\n", err)
		return 2
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	// An interrupt reaches the go command too, which ends its tools and
	// its tests: wait for it to say how it ended.
	signal.Ignore(os.Interrupt)
	defer signal.Reset(os.Interrupt)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintf(stderr, "atomicx go: %v\n", err)
		return 2
	}
	return 0
}
