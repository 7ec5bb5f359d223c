package gobuild

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Build flags that change how the standard library is compiled must be the
// same in the nested build of the atomicx runtime as in the user's build:
// otherwise the runtime's export data names std packages with other
// fingerprints than the ones the linker gets, and the link fails with
// "fingerprint mismatch". The go command passes its effective GOFLAGS and
// GOOS/GOARCH/GOEXPERIMENT/CGO_ENABLED to tools in the environment (the
// nested go command inherits them), but flags given on its command line
// reach no tool; on Linux they are read from the parent process.

// mirroredBoolFlags are go build flags without a value that affect std.
var mirroredBoolFlags = map[string]bool{
	"-race": true, "-msan": true, "-asan": true, "-trimpath": true, "-linkshared": true,
}

// mirroredValueFlags are go build flags with a value that affect std.
var mirroredValueFlags = map[string]bool{
	"-tags": true, "-gcflags": true, "-asmflags": true, "-buildmode": true,
	"-installsuffix": true, "-pgo": true, "-compiler": true, "-gccgoflags": true,
}

// goFlagsWithValue lists the go command's flags (build and test) that take
// a separate value, so that parsing a command line does not mistake a
// value for a flag or a package.
var goFlagsWithValue = map[string]bool{
	"-C": true, "-o": true, "-p": true, "-mod": true, "-modfile": true, "-overlay": true,
	"-toolexec": true, "-exec": true, "-coverpkg": true, "-covermode": true,
	"-ldflags": true, "-pkgdir": true, "-vettool": true,
	"-run": true, "-bench": true, "-benchtime": true, "-count": true, "-cpu": true,
	"-parallel": true, "-timeout": true, "-list": true, "-skip": true, "-shuffle": true,
	"-fuzz": true, "-fuzztime": true, "-fuzzminimizetime": true, "-outputdir": true,
	"-coverprofile": true, "-cpuprofile": true, "-memprofile": true, "-memprofilerate": true,
	"-blockprofile": true, "-blockprofilerate": true, "-mutexprofile": true,
	"-mutexprofilefraction": true, "-trace": true, "-vet": true,
}

// goSubcommands are the go command's subcommands that build.
var goSubcommands = map[string]bool{
	"build": true, "install": true, "run": true, "test": true, "vet": true, "list": true, "generate": true,
}

// BuildFlags returns the flags of a go command line that must be mirrored
// in a nested build, in a canonical "-name=value" form, in order.
func BuildFlags(goArgs []string) []string {
	var out []string
	sub, sawGoFile := "", false
	for i := 0; i < len(goArgs); i++ {
		a := goArgs[i]
		if a == "--" || a == "-args" || a == "--args" {
			break // the test binary's arguments follow
		}
		if sub == "run" && sawGoFile && !strings.HasSuffix(a, ".go") {
			break // go run files... arguments: the program's arguments follow
		}
		if !strings.HasPrefix(a, "-") {
			switch {
			case sub == "" && goSubcommands[a]:
				sub = a
			case sub == "run" && strings.HasSuffix(a, ".go"):
				sawGoFile = true
			case sub == "run":
				return out // go run package arguments: the rest is the program's
			}
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		name = "-" + strings.TrimLeft(name, "-")
		switch {
		case mirroredBoolFlags[name]:
			if !hasValue {
				value = "true"
			}
			if b, err := strconv.ParseBool(value); err == nil && b {
				out = append(out, name)
			}
		case mirroredValueFlags[name]:
			if !hasValue && i+1 < len(goArgs) {
				i++
				value = goArgs[i]
			}
			if name == "-gcflags" && strings.Contains(value, KeyFlag) {
				// A build key (see KeyFlag), for an instrumented package
				// alone: the runtime and std are built as without it, and
				// the runtime is the same whatever the keys.
				continue
			}
			out = append(out, name+"="+value)
		case goFlagsWithValue[name] && !hasValue:
			i++ // skip the value
		}
	}
	return out
}

// ParentGoArgs returns the command line of the go command that runs this
// tool, without the program name, or nil where it cannot be known.
func ParentGoArgs() []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/cmdline")
	if err != nil || len(data) == 0 {
		return nil
	}
	args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	if len(args) < 2 {
		return nil
	}
	return args[1:]
}

// ParentGoDir returns the working directory of the go command that runs
// this tool, or "" where it cannot be known.
func ParentGoDir() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	d, err := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/cwd")
	if err != nil || !filepath.IsAbs(d) {
		return ""
	}
	return d
}

// absPGOFlag makes the file of a -pgo flag absolute, relative to dir.
// "auto" and "off" are not files.
func absPGOFlag(flags []string, dir string) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		if v, ok := strings.CutPrefix(f, "-pgo="); ok && v != "" && v != "auto" && v != "off" && !filepath.IsAbs(v) && dir != "" {
			f = "-pgo=" + filepath.Join(dir, v)
		}
		out[i] = f
	}
	return out
}

// AutoPGOFile returns the profile that -pgo=auto, the default, gives the
// build: default.pgo in the directory of its main package. The main
// package must be named by directory (".", the default, or ./cmd/app, or
// its .go files); for import paths, patterns with ... or several main
// packages with profiles it returns "", and the link may then fail with a
// fingerprint mismatch (the hint says to pass -pgo=FILE explicitly).
func AutoPGOFile(goArgs []string, goDir string) string {
	pkgs := goPackageArgs(goArgs)
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	found := ""
	for _, p := range pkgs {
		if strings.Contains(p, "...") {
			return ""
		}
		isDir := p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || filepath.IsAbs(p)
		if strings.HasSuffix(p, ".go") {
			p, isDir = filepath.Dir(p), true // go run x.go: the files' directory
		}
		if !isDir {
			continue // an import path: its directory is not known here
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(goDir, p)
		}
		f := filepath.Join(p, "default.pgo")
		if fi, err := os.Stat(f); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if found != "" && found != f {
			return ""
		}
		found = f
	}
	return found
}

// goPackageArgs returns the package arguments of a go command line, after
// its subcommand (for go run, only the first).
func goPackageArgs(goArgs []string) []string {
	var out []string
	sub := ""
	for i := 0; i < len(goArgs); i++ {
		a := goArgs[i]
		if a == "--" || a == "-args" {
			break
		}
		if strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(a, "=")
			name = "-" + strings.TrimLeft(name, "-")
			if !hasValue && (mirroredValueFlags[name] || goFlagsWithValue[name]) {
				i++
			}
			continue
		}
		if sub == "" {
			sub = a
			continue
		}
		out = append(out, a)
		if sub == "run" && !strings.HasSuffix(a, ".go") {
			break
		}
	}
	return out
}

// CompileImpliedFlags returns the go build flags that a compile invocation
// shows it was built with. They complete what the parent's command line
// says on systems where it cannot be read.
func CompileImpliedFlags(compileArgs []string) []string {
	var out []string
	for _, a := range compileArgs {
		switch a {
		case "-race", "-msan", "-asan":
			out = append(out, a)
		}
	}
	return out
}

// mergeFlags appends to base the flags of extra that it lacks.
func mergeFlags(base, extra []string) []string {
	have := map[string]bool{}
	for _, f := range base {
		have[f] = true
	}
	for _, f := range extra {
		if !have[f] {
			base = append(base, f)
			have[f] = true
		}
	}
	return base
}

// GoFlagTakesValue reports whether a flag of the go command's build and
// test subcommands ("-tags", "--run") takes a value, which then follows it
// as the next argument unless written "-flag=value".
func GoFlagTakesValue(name string) bool {
	name = "-" + strings.TrimLeft(name, "-")
	return mirroredValueFlags[name] || goFlagsWithValue[name]
}

// LastPGOFlag returns the value of the last -pgo flag, or "".
func LastPGOFlag(flags []string) string {
	v := ""
	for _, f := range flags {
		if p, ok := strings.CutPrefix(f, "-pgo="); ok {
			v = p
		}
	}
	return v
}
