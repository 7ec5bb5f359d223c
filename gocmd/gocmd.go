package gocmd

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atomicx/atomicx/internal/gobuild"
	"github.com/atomicx/atomicx/policy"
)

// Config says which atomicx runs under the go command, and where.
type Config struct {
	Atomicx string // the atomicx binary, the go command's -toolexec
	// Identity returns that binary's identity, as toolexec.Config's does:
	// it is part of every key.
	Identity func() (string, error)
	Dir      string   // the directory the go command runs in ("" for the current one)
	Env      []string // its environment; os.Environ() when nil
}

func (c Config) environ() []string {
	if c.Env == nil {
		return os.Environ()
	}
	return c.Env
}

func (c Config) getenv(name string) string {
	env := c.environ()
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

func (c Config) identity() (string, error) {
	if c.Identity == nil {
		return "", fmt.Errorf("no atomicx identity to key the build on")
	}
	return c.Identity()
}

// Command returns the go command that runs goArgs (a subcommand that
// builds, its flags and packages: "test -run X ./...") with atomicx as its
// -toolexec program and the build keys of the packages the policy
// instruments. The policy is the one that applies in the go command's
// directory (see policy.Find).
func Command(ctx context.Context, cfg Config, goArgs []string) (*exec.Cmd, error) {
	cfg, cl, err := prepare(cfg, goArgs)
	if err != nil {
		return nil, err
	}
	polPath, err := policy.Find(cfg.Dir, cfg.getenv)
	if err != nil {
		return nil, err
	}
	keys, err := ComputeKeys(ctx, cfg, polPath, cl.listFlags, cl.sub == "test", cl.pkgs)
	if err != nil {
		return nil, err
	}
	args, err := keys.args(ctx, cl)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = cfg.Dir, keys.Env()
	return cmd, nil
}

// Prebuild starts building the atomicx runtime (whose source is source)
// for the go command that Command(ctx, cfg, goArgs) returns, while Command
// lists the packages, when a policy applies and the go command runs what
// it builds (not with -n): see gobuild.Prebuild.
// stop ends it: it returns at once when the build is over, and stops it
// when it is not, as when the go command needed no runtime.
func Prebuild(ctx context.Context, cfg Config, source fs.FS, goArgs []string) (stop func()) {
	cfg, cl, err := prepare(cfg, goArgs)
	if err != nil || cl.dryRun {
		return func() {}
	}
	if polPath, err := policy.Find(cfg.Dir, cfg.getenv); err != nil || polPath == "" {
		return func() {}
	}
	// The go command's arguments as its compiles read them: those of
	// Command, but for the keys, which gobuild.BuildFlags leaves out.
	args, err := (&Keys{cfg: cfg, dir: cfg.Dir}).args(ctx, cl)
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// An error is the compiles' to report: they build the runtime
		// themselves when this did not.
		_ = gobuild.Prebuild(ctx, source, args, cfg.Dir, cfg.environ())
	}()
	return func() {
		cancel()
		<-done
	}
}

// KeysFor computes the keys for the builds of a go command line (see
// Command), with the policy at polPath ("" for none). The keys then serve
// every build of some of its packages, with its flags (Keys.Args).
func KeysFor(ctx context.Context, cfg Config, polPath string, goArgs []string) (*Keys, error) {
	cfg, cl, err := prepare(cfg, goArgs)
	if err != nil {
		return nil, err
	}
	return ComputeKeys(ctx, cfg, polPath, cl.listFlags, cl.sub == "test", cl.pkgs)
}

// prepare takes goArgs apart, and moves the go command into the directory
// its -C names. The directory is made absolute: relative -gcflags patterns
// are matched against the directories go list gives, which are.
func prepare(cfg Config, goArgs []string) (Config, *cmdLine, error) {
	cl, err := parseCmdLine(goArgs)
	if err != nil {
		return cfg, nil, err
	}
	cfg.Dir, err = filepath.Abs(filepath.Join(cfg.Dir, cl.chdir))
	cl.chdir = ""
	return cfg, cl, err
}

// Args returns goArgs, a go command line that builds some of the packages
// the keys were computed for, with atomicx as -toolexec and the keys.
func (k *Keys) Args(ctx context.Context, goArgs []string) ([]string, error) {
	cl, err := parseCmdLine(goArgs)
	if err != nil {
		return nil, err
	}
	return k.args(ctx, cl)
}

// Env is the environment the go command runs in: atomicx finds the
// policy the keys were computed with, and knows the build is keyed.
func (k *Keys) Env() []string {
	pol := k.polPath
	if pol == "" {
		pol = "off"
	}
	return append(slices.Clone(k.cfg.environ()), policy.EnvVar+"="+pol, gobuild.KeyedEnv+"="+k.pol.Hash())
}

// args puts the command line back together. The go command applies, for
// each package, the last -gcflags value whose pattern matches it: every
// key comes last, as a value for its package alone, with the flags that
// the user's values give that package.
func (k *Keys) args(ctx context.Context, cl *cmdLine) ([]string, error) {
	tool, err := joinQuoted([]string{k.cfg.Atomicx})
	if err != nil {
		return nil, err
	}
	out := []string{cl.sub}
	if cl.chdir != "" {
		out = append(out, "-C", cl.chdir)
	}
	out = append(out, "-toolexec="+tool)
	user, err := k.userGcflags(cl)
	if err != nil {
		return nil, err
	}
	for _, v := range cl.gcflags {
		out = append(out, "-gcflags="+v)
	}
	var cmdline map[string]bool // computed once a value without pattern needs it
	for _, path := range k.instrumented() {
		var flags []string
		p := k.pkgs[path]
		for _, pp := range slices.Backward(user) {
			if p == nil {
				break // only test variants listed: no user flags matched
			}
			if pp.cmdlineOnly && cmdline == nil {
				if cmdline, err = k.cmdline(ctx, cl); err != nil {
					return nil, err
				}
			}
			if pp.matches(p, cmdline[path]) {
				flags = slices.Clone(pp.flags)
				break
			}
		}
		v, err := joinQuoted(append(flags, gobuild.KeyFlag+k.keys[path]))
		if err != nil {
			return nil, err
		}
		out = append(out, "-gcflags="+path+"="+v)
	}
	return append(out, cl.args...), nil
}

// userGcflags returns the user's values of -gcflags, in the order the go
// command applies them: those of GOFLAGS, then those of the command line.
func (k *Keys) userGcflags(cl *cmdLine) ([]perPackage, error) {
	goflags, err := splitQuoted(k.cfg.getenv("GOFLAGS"))
	if err != nil {
		return nil, fmt.Errorf("GOFLAGS: %v", err)
	}
	var values []string
	for _, f := range goflags {
		if isFlag(f, "-gcflags") {
			v, _ := flagValue([]string{f, ""})
			values = append(values, v)
		}
	}
	var user []perPackage
	for _, v := range append(values, cl.gcflags...) {
		pp, err := parsePerPackage(v, k.dir)
		if err != nil {
			return nil, err
		}
		user = append(user, pp)
	}
	return user, nil
}

// cmdline returns the import paths of the packages named on the command
// line, to which a -gcflags value without a pattern applies.
func (k *Keys) cmdline(ctx context.Context, cl *cmdLine) (map[string]bool, error) {
	set := map[string]bool{}
	if slices.Equal(cl.pkgs, k.listed) && slices.Equal(cl.listFlags, k.flags) {
		for path, p := range k.pkgs {
			set[path] = !p.DepOnly
		}
		return set, nil
	}
	// Import paths of packages the keys listed name those packages and
	// no others: no go list to ask (a campaign builds its packages one
	// by one, by import path).
	if len(cl.pkgs) > 0 && !slices.ContainsFunc(cl.pkgs, func(arg string) bool { return k.pkgs[arg] == nil }) {
		for _, path := range cl.pkgs {
			set[path] = true
		}
		return set, nil
	}
	list, err := k.list(ctx, append(append([]string{"list", "-e", "-json=ImportPath"}, cl.listFlags...), "--"), cl.pkgs)
	if err != nil {
		return nil, err
	}
	for _, p := range list {
		set[p.ImportPath] = true
	}
	return set, nil
}
