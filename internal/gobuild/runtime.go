package gobuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// RuntimeImportPath is the import path under which the atomicx runtime is
// built and imported by instrumented code. It is deliberately outside any
// real module so that it can never clash with a package of the user's build,
// not even atomicx's own rt package when atomicx instruments itself.
const RuntimeImportPath = "atomicx/rt"

// Runtime describes how to build the runtime for one user build.
type Runtime struct {
	Ctx    context.Context // ends the nested build; nil for none
	Source fs.FS           // the runtime's .go and .s files, as atomicx.RuntimeSource lays them out: package rt in rt/, its contract in rt/arm/
	GOROOT string          // GOROOT of the wrapped tool
	Flags  []string        // mirrored go build flags
	Cache  string          // atomicx's own cache root
	Env    []string        // environment of the go command's tool run
}

// Archives maps import paths to archives: the runtime and every
// package of its dependency closure, built exactly as the user's build
// builds them.
type Archives map[string]string

// key identifies a runtime build: the same key means the same archives.
func (rb Runtime) key() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "atomicx runtime build v1\n")
	if err := hashFS(h, rb.Source); err != nil {
		return "", err
	}
	fmt.Fprintf(h, "goroot %s\n", rb.GOROOT)
	if v, err := os.ReadFile(filepath.Join(rb.GOROOT, "VERSION")); err == nil {
		h.Write(v)
	}
	if fi, err := os.Stat(goTool(rb.GOROOT)); err == nil {
		fmt.Fprintf(h, "go %d %d\n", fi.Size(), fi.ModTime().UnixNano())
	}
	for _, name := range buildEnvVars {
		fmt.Fprintf(h, "%s=%s\n", name, lookupEnv(rb.Env, name))
	}
	// The manifest names archives in the go command's build cache: a
	// build with another cache builds the runtime into its own, rather
	// than depend on files that another cache may trim.
	if c := lookupEnv(rb.Env, "GOCACHE"); c != "" {
		fmt.Fprintf(h, "GOCACHE=%s\n", c)
	} else {
		for _, name := range defaultCacheEnvVars {
			fmt.Fprintf(h, "%s=%s\n", name, lookupEnv(rb.Env, name))
		}
	}
	for _, f := range rb.Flags {
		fmt.Fprintf(h, "flag %s\n", f)
		// A profile edited in place keeps its name but changes how std is
		// compiled: key on its content too, or a stale runtime is reused.
		if p, ok := strings.CutPrefix(f, "-pgo="); ok && filepath.IsAbs(p) {
			if data, err := os.ReadFile(p); err == nil {
				fmt.Fprintf(h, "pgo %x\n", sha256.Sum256(data))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// buildEnvVars are the environment variables that change how std compiles.
var buildEnvVars = []string{
	"GOOS", "GOARCH", "GOEXPERIMENT", "CGO_ENABLED", "GOAMD64", "GOARM", "GOARM64",
	"GO386", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM", "GOFIPS140",
	"GOFLAGS", "CC", "CGO_CFLAGS", "CGO_LDFLAGS", "GODEBUG",
}

// defaultCacheEnvVars are the environment variables that say where the go
// command's build cache is when GOCACHE is not set: under the user's
// cache directory.
var defaultCacheEnvVars = []string{"XDG_CACHE_HOME", "HOME", "LocalAppData"}

// ensure returns the runtime archives, building them on first use. Builds
// that run at the same time (the go command compiles packages in parallel,
// and several go commands may share a cache) build once: the first takes a
// lock, the others wait for it and read its manifest.
func (rb Runtime) Ensure() (Archives, error) {
	return rb.ensureLocked(lockFile)
}

// ensureLocked is ensure, with lock to take the build's lock. A lock
// that returns a nil unlock and no error means another process holds it
// and ensureLocked does not wait: it returns nothing.
func (rb Runtime) ensureLocked(lock func(path string) (unlock func(), err error)) (Archives, error) {
	key, err := rb.key()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(rb.Cache, "rt", key)
	manifest := filepath.Join(dir, "manifest")
	if a, err := readManifest(manifest); err == nil {
		return a, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("atomicx runtime cache: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, fmt.Errorf("atomicx runtime cache: %w", err)
	}
	if unlock == nil {
		return nil, nil
	}
	defer unlock()
	if a, err := readManifest(manifest); err == nil {
		return a, nil // built by another process while we waited
	}
	src, err := rb.writeSource()
	if err != nil {
		return nil, err
	}
	archives, err := rb.build(src)
	if err != nil {
		return nil, err
	}
	if err := writeManifest(manifest, archives); err != nil {
		return nil, err
	}
	return archives, nil
}

// build writes the runtime's source as a throwaway module and asks the go
// command of the wrapped toolchain to build it and its std dependencies
// with the user's flags. Its std packages come out of the shared build
// cache when the user's build already compiled them.
func (rb Runtime) build(src string) (Archives, error) {
	args := []string{"list", "-export", "-deps", "-toolexec=", "-mod=mod",
		"-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}"}
	args = append(args, rb.Flags...)
	args = append(args, RuntimeImportPath)
	ctx := rb.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	cmd := exec.CommandContext(ctx, goTool(rb.GOROOT), args...)
	cmd.Dir = src
	cmd.Env = nestedEnv(rb.Env, rb.GOROOT)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building the atomicx runtime (go %s): %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	archives := Archives{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok {
			archives[path] = file
		}
	}
	if archives[RuntimeImportPath] == "" {
		return nil, fmt.Errorf("building the atomicx runtime: go list gave no archive for %s:\n%s", RuntimeImportPath, stdout.Bytes())
	}
	return archives, nil
}

// writeSource writes the runtime's source as a module, once per version
// of the source, and returns its directory. Every build of the runtime,
// whatever its flags, compiles it from there: the export data records the
// source files' paths, so that a runtime built again under other flags
// that do not change how it compiles (a -gcflags pattern for some user
// package) has the same fingerprint, and the instrumented packages that
// the build cache kept, compiled against the first, still link with it.
func (rb Runtime) writeSource() (string, error) {
	h := sha256.New()
	if err := hashFS(h, rb.Source); err != nil {
		return "", err
	}
	root := filepath.Join(rb.Cache, "rt")
	src := filepath.Join(root, "src-"+hex.EncodeToString(h.Sum(nil))[:16])
	complete := filepath.Join(src, ".complete")
	if _, err := os.Stat(complete); err == nil {
		return src, nil
	}
	// Written aside, then moved into place: a build of another flag set
	// may be reading it.
	tmp, err := os.MkdirTemp(root, "src-tmp-")
	if err != nil {
		return "", fmt.Errorf("atomicx runtime cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module atomicx\n\ngo 1.22\n"), 0o666); err != nil {
		return "", err
	}
	written := 0
	err = fs.WalkDir(rb.Source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isRuntimeSource(path) {
			return err
		}
		data, err := fs.ReadFile(rb.Source, path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".go") {
			if data, err = rewriteImports(path, data); err != nil {
				return err
			}
		}
		dst := filepath.Join(tmp, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return err
		}
		written++
		return os.WriteFile(dst, data, 0o666)
	})
	if err == nil && written == 0 {
		err = fmt.Errorf("no Go files in the source")
	}
	if err != nil {
		return "", fmt.Errorf("writing the atomicx runtime source: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o666); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, src); err != nil {
		if _, statErr := os.Stat(complete); statErr == nil {
			return src, nil // written by another build meanwhile
		}
		return "", fmt.Errorf("atomicx runtime cache: %w", err)
	}
	return src, nil
}

// sourceRuntime is the import path of the runtime in atomicx's own
// module: the runtime's packages import each other under it, and are
// built under RuntimeImportPath.
const sourceRuntime = "github.com/atomicx/atomicx/rt"

// rewriteImports points a runtime file's imports of the runtime's own
// packages (rt/arm) at the paths they are built under in the throwaway
// module. Only the import paths' strings change, on their lines: the
// file keeps its lines, so that positions in the runtime's panics and
// in its export data stay those of its source.
func rewriteImports(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []byte
	last := 0
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", fset.Position(imp.Path.Pos()), err)
		}
		rest, ok := strings.CutPrefix(path, sourceRuntime)
		if !ok || rest != "" && rest[0] != '/' {
			continue
		}
		start := fset.Position(imp.Path.Pos()).Offset
		out = append(out, src[last:start]...)
		out = append(out, strconv.Quote(RuntimeImportPath+rest)...)
		last = start + len(imp.Path.Value)
	}
	if out == nil {
		return src, nil
	}
	return append(out, src[last:]...), nil
}

func isRuntimeSource(path string) bool {
	return strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, ".s")
}

// nestedEnv is the environment of the nested go command: the user's, minus
// what would make it recurse into atomicx or look at the user's module.
func nestedEnv(env []string, goroot string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOFLAGS", "GOWORK", "GOTOOLCHAIN", "GOROOT", "TOOLEXEC_IMPORTPATH", "GO111MODULE", "GOPROXY", "PWD":
			continue
		}
		out = append(out, kv)
	}
	// Flags from GOFLAGS that matter are passed on the command line; the
	// rest (-mod=vendor, -modfile, -toolexec) would break the nested build.
	// A non-empty GOFLAGS also stops the go env file's GOFLAGS from applying.
	return append(out, "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local",
		"GOROOT="+goroot, "GO111MODULE=on", "GOPROXY=off")
}

func goTool(goroot string) string {
	exe := "go"
	if runtime.GOOS == "windows" {
		exe = "go.exe"
	}
	return filepath.Join(goroot, "bin", exe)
}

func readManifest(path string) (Archives, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := Archives{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s: malformed line %q", path, line)
		}
		// The go command trims its cache of files unused for days: an
		// archive that is gone means the manifest is stale.
		if _, err := os.Stat(v); err != nil {
			return nil, err
		}
		a[k] = v
	}
	if a[RuntimeImportPath] == "" {
		return nil, fmt.Errorf("%s: no runtime archive", path)
	}
	return a, nil
}

func writeManifest(path string, a Archives) error {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, a[k])
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o666); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func hashFS(h interface{ Write([]byte) (int, error) }, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isRuntimeSource(path) {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s %d\n", path, len(data))
		h.Write(data)
		return nil
	})
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// RuntimeFlags returns the go build flags of a runtime build for the go
// command run in goDir with goflags (GOFLAGS) and goArgs, and the flags
// that its compiles add (-race, the sanitizers): a compile and a prebuild
// (see Prebuild) must compute the same, as they key the build on them.
// A relative -pgo file is made absolute: the nested build runs elsewhere,
// and would otherwise build the runtime's std dependencies without the
// profile, and the link fail with a fingerprint mismatch.
func RuntimeFlags(goflags string, goArgs, implied []string, goDir string) []string {
	flags := BuildFlags(strings.Fields(goflags))
	flags = mergeFlags(flags, BuildFlags(goArgs))
	flags = mergeFlags(flags, implied)
	return absPGOFlag(flags, goDir)
}

// CacheDir is where atomicx keeps what it builds: $ATOMICX_CACHE, or
// atomicx/ in the user's cache directory.
func CacheDir(getenv func(string) string) (string, error) {
	if d := getenv("ATOMICX_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (%v); set ATOMICX_CACHE", err)
	}
	return filepath.Join(d, "atomicx"), nil
}

// Prebuild builds the atomicx runtime for the go command that the atomicx
// front-end is about to run with goArgs (its arguments, as its compiles
// read them: see ParentGoArgs) in dir with env, unless it is built or
// being built. The front-end starts it while it lists the packages: the
// runtime is then built, or under way, when the go command's first
// instrumented compile asks for it (see runner.runtime), rather than
// built while the compiles that wait for it hold every parallel job of
// the go command. It builds what a compile would, under the same key:
// the same flags (those a compile adds, -race and the sanitizers, come
// from the go flags), in the environment the go command gives its tools
// (see goToolEnv). A build that a default.pgo profile may change is left
// to the compiles, which know whether the profile applies; so is every
// build where a compile cannot read the go command's arguments (see
// ParentGoArgs), whose key the front-end could not tell.
func Prebuild(ctx context.Context, source fs.FS, goArgs []string, dir string, env []string) error {
	if runtime.GOOS != "linux" {
		return nil
	}
	toolEnv, goroot, err := goToolEnv(ctx, dir, env)
	if err != nil {
		return err
	}
	// The flags a compile adds come from the go flags, already there.
	flags := RuntimeFlags(lookupEnv(toolEnv, "GOFLAGS"), goArgs, nil, dir)
	if v := LastPGOFlag(flags); (v == "" || v == "auto") && AutoPGOFile(goArgs, dir) != "" {
		return nil
	}
	cache, err := CacheDir(func(name string) string { return lookupEnv(env, name) })
	if err != nil {
		return err
	}
	rb := Runtime{Ctx: ctx, Source: source, GOROOT: goroot, Flags: flags, Cache: cache, Env: toolEnv}
	_, err = rb.ensureLocked(tryLockFile)
	return err
}

// goToolEnv returns the environment that the go command, run in dir with
// env, gives the tools it runs, as far as a runtime build's key reads it
// (see Runtime.key), and its GOROOT. The go command sets in its
// tools' environment its configuration as go env reports it (the
// defaults, go.env, the user's go env file), except the flags of the C
// compiler, which its tools see only when the environment sets them.
func goToolEnv(ctx context.Context, dir string, env []string) ([]string, string, error) {
	var names []string
	for _, name := range append([]string{"GOROOT", "GOCACHE"}, buildEnvVars...) {
		if !strings.HasPrefix(name, "CGO_") || name == "CGO_ENABLED" {
			names = append(names, name)
		}
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"env", "-json"}, names...)...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("go env: %v\n%s", err, stderr.Bytes())
	}
	var values map[string]string
	if err := json.Unmarshal(out, &values); err != nil {
		return nil, "", fmt.Errorf("reading go env -json: %w", err)
	}
	toolEnv := slices.Clone(env)
	for _, name := range names {
		if v := values[name]; v != lookupEnv(env, name) {
			toolEnv = append(toolEnv, name+"="+v)
		}
	}
	return toolEnv, values["GOROOT"], nil
}

// RuntimeCacheID names the directory the runtime is built in. The
// runtime's export data records its source files' paths, so a runtime
// built under another cache directory has another fingerprint: an
// instrumented package compiled against one and found in the build cache
// would not link with the other ("fingerprint mismatch"). Keying the
// build cache on the directory keeps them apart; a stable cache
// directory, the default, costs nothing.
func RuntimeCacheID() string {
	dir, err := CacheDir(os.Getenv)
	if err != nil {
		return "none"
	}
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:6])
}
