package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/internal/sarifschema"
	"github.com/rogpeppe/go-internal/goproxytest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"atomicx": func() {
			if paths := os.Getenv("ATOMICX_TEST_UNREADABLE_EXPORT"); paths != "" {
				wrapImporter = unreadableExport(strings.Split(paths, ","))
			}
			os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
		},
	})
}

// unreadableExport makes the export data of the listed packages unreadable
// to atomicx's type checker, as export data written by a newer toolchain
// is, while the compiler still reads it: the one way to reproduce, with a
// single toolchain, a package that compiles but that atomicx cannot
// type-check. Only the test binary reads ATOMICX_TEST_UNREADABLE_EXPORT;
// atomicx itself has no such setting.
func unreadableExport(paths []string) func(types.Importer) types.Importer {
	return func(imp types.Importer) types.Importer {
		return importerFunc(func(path string) (*types.Package, error) {
			if slices.Contains(paths, path) {
				return nil, fmt.Errorf("unsupported export data version (made unreadable by the test)")
			}
			return imp.Import(path)
		})
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// TestScripts runs the end-to-end scripts in testdata/script: each is a
// small module built and tested through the real go command with atomicx
// as its -toolexec program.
func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end scripts build real programs; skipped in -short mode")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	shared := sharedDirs(t)
	// Third-party modules (testdata/mod) come from a local module proxy;
	// a script that needs one sets GOPROXY=$GOPROXYURL for the download.
	proxy := goproxytest.NewTestServer(t, "testdata/mod", "")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// The scripts share the go build cache and atomicx's runtime
			// cache, so that the standard library is compiled once per
			// combination of policy and flags, not once per script.
			env.Setenv("GOCACHE", shared.gocache)
			env.Setenv("GOMODCACHE", shared.modcache)
			env.Setenv("ATOMICX_CACHE", shared.atomicxCache)
			env.Setenv("GOPATH", filepath.Join(env.WorkDir, "gopath"))
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOPROXYURL", proxy.URL)
			env.Setenv("GOFLAGS", "")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOWORK", "off")
			env.Setenv("CGO_ENABLED", os.Getenv("CGO_ENABLED"))
			env.Setenv("GOROOT_FINAL", "")
			env.Setenv("TOOLDIR", shared.toolDir) // where compile and link are
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "cgo":
				out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
				if err != nil || strings.TrimSpace(string(out)) != "1" {
					return false, nil
				}
				_, err = exec.LookPath("gcc")
				return err == nil, nil
			case "race":
				return runtime.GOOS == "linux" && runtime.GOARCH == "amd64", nil
			case "asan":
				return asanWorks(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"treehash":        cmdTreeHash,
			"copybinary":      cmdCopyBinary,
			"verdicts":        cmdVerdicts,
			"handlerverdicts": cmdHandlerVerdicts,
			"sarifvalid":      cmdSARIFValid,
			"perturbed":       cmdPerturbed,
			"samereport":      cmdSameReport,
			"docsample":       cmdDocSample,
		},
	})
}

// asanWorks reports whether go build -asan can work here: the go command
// supports it on linux/amd64 and linux/arm64 with cgo, and the C compiler
// must be able to link a program with AddressSanitizer.
func asanWorks() bool {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		return false
	}
	out, err := exec.Command("go", "env", "CGO_ENABLED", "CC").Output()
	if err != nil {
		return false
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[0] != "1" {
		return false
	}
	dir, err := os.MkdirTemp("", "atomicx-asan")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "a.c")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o666); err != nil {
		return false
	}
	exe := filepath.Join(dir, "a.out")
	if err := exec.Command(f[1], "-fsanitize=address", "-o", exe, src).Run(); err != nil {
		return false
	}
	return exec.Command(exe).Run() == nil
}

type sharedCaches struct{ gocache, modcache, toolDir, atomicxCache string }

// sharedDirs returns the caches the scripts share. The go build cache is
// the user's own, as for any go command; atomicx's cache is private to
// this test run so that it starts cold.
func sharedDirs(t *testing.T) sharedCaches {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOTOOLDIR").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("go env printed %q", out)
	}
	return sharedCaches{gocache: lines[0], modcache: lines[1], toolDir: lines[2], atomicxCache: t.TempDir()}
}

// treehash NAME DIR records a hash of every file under DIR in $NAME;
// "treehash -check NAME DIR" fails if the tree no longer has that hash.
// It proves that a build wrote nothing into a source tree or module cache.
func cmdTreeHash(ts *testscript.TestScript, neg bool, args []string) {
	check := len(args) > 0 && args[0] == "-check"
	if check {
		args = args[1:]
	}
	if len(args) != 2 || neg {
		ts.Fatalf("usage: treehash [-check] NAME DIR")
	}
	sum, err := hashTree(ts.MkAbs(args[1]))
	if err != nil {
		ts.Fatalf("treehash: %v", err)
	}
	if !check {
		ts.Setenv(args[0], sum)
		return
	}
	if want := ts.Getenv(args[0]); sum != want {
		ts.Fatalf("tree %s changed: hash %s, was %s", args[1], sum, want)
	}
}

func hashTree(root string) (string, error) {
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			lines = append(lines, "dir "+rel)
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		lines = append(lines, fmt.Sprintf("file %s %v %x", rel, info.Mode(), sum[:8]))
		return nil
	})
	sort.Strings(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:]), err
}

// copybinary DST writes a copy of the atomicx under test to DST with one
// byte appended: a different binary that behaves the same, as a rebuilt
// atomicx would.
func cmdCopyBinary(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: copybinary DST")
	}
	self, err := os.Executable()
	if err != nil {
		ts.Fatalf("%v", err)
	}
	in, err := os.Open(self)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	defer in.Close()
	dst := ts.MkAbs(args[0])
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		ts.Fatalf("%v", err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o777)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		ts.Fatalf("%v", err)
	}
	out.Write([]byte{0})
	if err := out.Close(); err != nil {
		ts.Fatalf("%v", err)
	}
}

// sarifvalid FILE... checks each file against the SARIF 2.1.0 JSON
// schema: every SARIF log a script writes goes through it.
func cmdSARIFValid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 || neg {
		ts.Fatalf("usage: sarifvalid FILE...")
	}
	for _, f := range args {
		if err := sarifschema.Validate([]byte(ts.ReadFile(f))); err != nil {
			ts.Fatalf("%s: %v", f, err)
		}
	}
}
