package toolexec

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Tool names the Go tools that atomicx acts on; every other tool runs as is.
const (
	ToolCompile = "compile"
	ToolLink    = "link"
)

// Command is one invocation of a Go tool by the go command, as received by
// a -toolexec program: the tool's path and its arguments.
type Command struct {
	ToolPath string   // absolute path of the real tool
	Tool     string   // its base name without extension: compile, link, asm, ...
	Args     []string // the tool's arguments
}

// ParseCommand interprets the arguments a -toolexec program receives.
// ok is false when args do not start with the path of a Go tool, in which
// case atomicx is being run as a command, not as a toolexec wrapper.
func ParseCommand(args []string) (cmd Command, ok bool) {
	if len(args) >= 2 && args[1] == "-###" {
		// The go command asks the C compiler for its identity, to key
		// the cgo packages, through the -toolexec program too, by the
		// name $CC gives ("gcc"): it must run as is, or those packages
		// get keys no plain build has.
		return Command{ToolPath: args[0], Tool: strings.TrimSuffix(filepath.Base(args[0]), ".exe"), Args: args[1:]}, true
	}
	if len(args) == 0 || !filepath.IsAbs(args[0]) {
		return Command{}, false
	}
	base := filepath.Base(args[0])
	base = strings.TrimSuffix(base, ".exe")
	// Tools live in $GOROOT/pkg/tool/GOOS_GOARCH (or a custom GOTOOLDIR);
	// vet may also be a -vettool anywhere. Any absolute path is accepted:
	// the go command never passes anything else.
	return Command{ToolPath: args[0], Tool: base, Args: args[1:]}, true
}

// IsVersionQuery reports whether the go command is asking the tool for its
// identity (-V=full), which it does to key its build cache.
func (c Command) IsVersionQuery() bool {
	for _, a := range c.Args {
		if a == "-V=full" || a == "--V=full" {
			return true
		}
	}
	return false
}

// GOROOT returns the Go root of the wrapped tool ($GOROOT/pkg/tool/GOOS_GOARCH/tool),
// so that nested builds use the very toolchain that the go command uses.
func (c Command) GOROOT() string {
	return filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(c.ToolPath))))
}

// Compile is a parsed compile invocation. Only the flags atomicx needs are
// extracted; Args keeps the whole command so that it can be replayed with
// files and importcfg replaced.
type Compile struct {
	Command
	Output    string // -o
	ImportCfg string // -importcfg
	Package   string // -p
	Lang      string // -lang, e.g. go1.22 ("" when absent)
	Std       bool   // -std: a standard library package
	GoFiles   []int  // indices in Args of the .go files
	// GoVersion is the toolchain's version (-goversion, e.g. go1.26.1).
	GoVersion string
	// Concurrency is -c, how many functions the compiler compiles at once
	// (0 when absent).
	Concurrency int
	// Debug holds the values of the -d flags.
	Debug []string
}

// compileFlagsWithValue lists compile flags that take a separate value, so
// that their values are never taken for file names.
var compileFlagsWithValue = map[string]bool{
	"-o": true, "-p": true, "-importcfg": true, "-embedcfg": true, "-trimpath": true,
	"-buildid": true, "-goversion": true, "-symabis": true, "-asmhdr": true,
	"-lang": true, "-D": true, "-I": true, "-pgoprofile": true, "-coveragecfg": true,
	"-c": true, "-installsuffix": true, "-linkobj": true, "-json": true, "-d": true,
	"-cpuprofile": true, "-memprofile": true, "-memprofilerate": true, "-traceprofile": true,
	"-blockprofile": true, "-mutexprofile": true, "-bench": true, "-env": true,
	"-spectre": true,
}

// ParseCompile extracts the compile flags atomicx acts on.
func ParseCompile(c Command) Compile {
	cc := Compile{Command: c}
	args := c.Args
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			if strings.HasSuffix(a, ".go") {
				cc.GoFiles = append(cc.GoFiles, i)
			}
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !hasValue && compileFlagsWithValue[name] && i+1 < len(args) {
			i++
			value = args[i]
		}
		switch name {
		case "-o":
			cc.Output = value
		case "-importcfg":
			cc.ImportCfg = value
		case "-p":
			cc.Package = value
		case "-lang":
			cc.Lang = value
		case "-std":
			cc.Std = true
		case "-goversion":
			cc.GoVersion = value
		case "-c":
			cc.Concurrency, _ = strconv.Atoi(value)
		case "-d":
			cc.Debug = append(cc.Debug, value)
		}
	}
	return cc
}

// Files returns the Go source files of the compile, as given.
func (c Compile) Files() []string {
	files := make([]string, len(c.GoFiles))
	for i, idx := range c.GoFiles {
		files[i] = c.Args[idx]
	}
	return files
}

// WithFiles returns the arguments with the Go files and the importcfg
// replaced. first files go before the first Go file, extra files after
// the last one.
func (c Compile) WithFiles(files []string, first, extra []string, importcfg string) []string {
	args := append([]string(nil), c.Args...)
	for i, idx := range c.GoFiles {
		args[idx] = files[i]
	}
	if len(extra) > 0 {
		last := c.GoFiles[len(c.GoFiles)-1]
		args = append(args[:last+1], append(append([]string(nil), extra...), args[last+1:]...)...)
	}
	if len(first) > 0 {
		at := c.GoFiles[0]
		args = append(args[:at], append(append([]string(nil), first...), args[at:]...)...)
	}
	if importcfg != "" {
		replaceFlagValue(args, "-importcfg", importcfg)
	}
	return args
}

// Link is a parsed link invocation.
type Link struct {
	Command
	Output    string // -o
	ImportCfg string // -importcfg
}

// ParseLink extracts the link flags atomicx acts on.
func ParseLink(c Command) Link {
	l := Link{Command: c}
	for i := 0; i < len(c.Args); i++ {
		name, value, hasValue := strings.Cut(c.Args[i], "=")
		if !hasValue && (name == "-o" || name == "-importcfg") && i+1 < len(c.Args) {
			i++
			value = c.Args[i]
		}
		switch name {
		case "-o":
			l.Output = value
		case "-importcfg":
			l.ImportCfg = value
		}
	}
	return l
}

// WithImportCfg returns the link arguments with the importcfg replaced.
func (l Link) WithImportCfg(path string) []string {
	args := append([]string(nil), l.Args...)
	replaceFlagValue(args, "-importcfg", path)
	return args
}

func replaceFlagValue(args []string, flag, value string) {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == flag && i+1 < len(args):
			args[i+1] = value
			return
		case strings.HasPrefix(args[i], flag+"="):
			args[i] = flag + "=" + value
			return
		}
	}
}
