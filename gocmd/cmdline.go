package gocmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/internal/gobuild"
)

// cmdLine is a go command line taken apart.
type cmdLine struct {
	sub     string   // build, install, run or test
	chdir   string   // -C's value
	gcflags []string // the values of -gcflags, in order
	args    []string // the rest after the subcommand, in order
	pkgs    []string // the package arguments, also in args
	// listFlags are the flags that change which packages a build has,
	// for go list to see the same packages ("-name=value").
	listFlags []string
	dryRun    bool // -n: the go command prints its commands, runs none
}

// subcommands are the go command's subcommands that compile and link.
var subcommands = map[string]bool{"build": true, "install": true, "run": true, "test": true}

// listFlags are the build flags that change the packages of a build: the
// build tags, the module set-up, and what the race detector, sanitizers,
// coverage and build modes add.
var listFlags = map[string]bool{
	"-tags": true, "-mod": true, "-modfile": true, "-overlay": true, "-modcacherw": true,
	"-race": true, "-msan": true, "-asan": true, "-cover": true, "-coverpkg": true, "-covermode": true,
	"-buildmode": true, "-compiler": true, "-linkshared": true, "-pkgdir": true, "-installsuffix": true,
	"-pgo": true,
}

// parseCmdLine takes apart the arguments of the go command: a subcommand
// that builds, its flags and its packages. -C may come first or right
// after the subcommand, as the go command allows.
func parseCmdLine(goArgs []string) (*cmdLine, error) {
	cl := &cmdLine{}
	if len(goArgs) >= 2 && isFlag(goArgs[0], "-C") {
		cl.chdir, goArgs = flagValue(goArgs)
	}
	if len(goArgs) == 0 {
		return nil, errors.New("missing go subcommand: build, install, run or test")
	}
	cl.sub, goArgs = goArgs[0], goArgs[1:]
	if !subcommands[cl.sub] {
		return nil, fmt.Errorf("go %s: atomicx runs only the go subcommands that build: build, install, run and test", cl.sub)
	}
	flagsDone := false
	for len(goArgs) > 0 {
		a := goArgs[0]
		switch {
		case cl.sub == "test" && (a == "-args" || a == "--args"):
			cl.args = append(cl.args, goArgs...) // the test binary's
			return cl, nil
		case !flagsDone && a == "--":
			flagsDone = true
			cl.args = append(cl.args, a)
			goArgs = goArgs[1:]
			continue
		case flagsDone || !strings.HasPrefix(a, "-") || a == "-":
			cl.args = append(cl.args, a)
			cl.pkgs = append(cl.pkgs, a)
			goArgs = goArgs[1:]
			if cl.sub == "run" && !strings.HasSuffix(a, ".go") {
				cl.args = append(cl.args, goArgs...) // the program's
				return cl, nil
			}
			if cl.sub == "run" && (len(goArgs) == 0 || !strings.HasSuffix(goArgs[0], ".go")) {
				cl.args = append(cl.args, goArgs...)
				return cl, nil
			}
			if cl.sub != "test" {
				flagsDone = true // go build: the flags come first
			}
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		name = "-" + strings.TrimLeft(name, "-")
		n := 1
		if !hasValue && gobuild.GoFlagTakesValue(name) {
			if len(goArgs) < 2 {
				return nil, fmt.Errorf("flag needs an argument: %s", a)
			}
			value, n = goArgs[1], 2
		}
		switch {
		case name == "-toolexec":
			return nil, errors.New("-toolexec is atomicx's: run the go command yourself to use another")
		case name == "-C":
			cl.chdir = value
		case name == "-gcflags":
			cl.gcflags = append(cl.gcflags, value)
		default:
			cl.args = append(cl.args, goArgs[:n]...)
			if name == "-n" {
				b, err := strconv.ParseBool(value)
				cl.dryRun = !hasValue || err == nil && b
			}
			if listFlags[name] {
				if hasValue || n == 2 {
					cl.listFlags = append(cl.listFlags, name+"="+value)
				} else {
					cl.listFlags = append(cl.listFlags, name)
				}
			}
		}
		goArgs = goArgs[n:]
	}
	return cl, nil
}

func isFlag(arg, name string) bool {
	n, _, _ := strings.Cut(arg, "=")
	return "-"+strings.TrimLeft(n, "-") == name
}

// flagValue returns the value of the flag that starts args, and the
// arguments after it.
func flagValue(args []string) (string, []string) {
	if _, v, ok := strings.Cut(args[0], "="); ok {
		return v, args[1:]
	}
	return args[1], args[2:]
}

// splitQuoted splits a list of flags the way the go command splits the
// value of -gcflags and GOFLAGS: at spaces, except inside single or
// double quotes around a whole field.
func splitQuoted(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return out, nil
		}
		if q := s[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, fmt.Errorf("unterminated %c string", q)
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			if s != "" && !strings.ContainsAny(s[:1], " \t\n\r") {
				return nil, fmt.Errorf("unseparated %c string", q)
			}
			continue
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
}

// joinQuoted is the inverse of splitQuoted.
func joinQuoted(args []string) (string, error) {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case a != "" && !strings.ContainsAny(a, " \t\n\r'\""):
			b.WriteString(a)
		case !strings.ContainsRune(a, '\''):
			b.WriteString("'" + a + "'")
		case !strings.ContainsRune(a, '"'):
			b.WriteString(`"` + a + `"`)
		default:
			return "", fmt.Errorf("%q holds both kinds of quote: the go command cannot be given it in a list of flags", a)
		}
	}
	return b.String(), nil
}
