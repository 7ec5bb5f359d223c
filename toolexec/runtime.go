package toolexec

import (
	"os"

	"github.com/atomicx/atomicx/internal/gobuild"
)

// runtime returns the archives of the atomicx runtime for this build.
func (r *runner) runtime() (gobuild.Archives, error) {
	goArgs := gobuild.ParentGoArgs()
	goDir := gobuild.ParentGoDir()
	if goDir == "" {
		goDir, _ = os.Getwd()
	}
	flags := gobuild.RuntimeFlags(os.Getenv("GOFLAGS"), goArgs, gobuild.CompileImpliedFlags(r.cmd.Args), goDir)
	// Without -pgo (or with -pgo=auto) the go command compiles the main
	// package and all its dependencies, std included, with the main
	// package's default.pgo; the runtime's std dependencies must be too.
	if v := gobuild.LastPGOFlag(flags); (v == "" || v == "auto") && r.usesPGO() {
		if f := r.linkPGOFile(); f != "" {
			flags = append(flags, "-pgo="+f)
		} else if f := gobuild.AutoPGOFile(goArgs, goDir); f != "" {
			flags = append(flags, "-pgo="+f)
		}
	}
	cache, err := gobuild.CacheDir(os.Getenv)
	if err != nil {
		return nil, err
	}
	rb := gobuild.Runtime{
		Source: r.cfg.RuntimeSource,
		GOROOT: r.cmd.GOROOT(),
		Flags:  flags,
		Cache:  cache,
		Env:    os.Environ(),
	}
	return rb.Ensure()
}
