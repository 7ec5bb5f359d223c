package gocmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
	"github.com/atomicx/atomicx/internal/gobuild"
	"github.com/atomicx/atomicx/policy"
)

// pkgInfo is what go list says of a package.
type pkgInfo struct {
	ImportPath string
	Dir        string
	ForTest    string
	Standard   bool
	DepOnly    bool
	Deps       []string
	GoFiles    []string
	CgoFiles   []string
}

// Keys are the build keys of the packages that a policy instruments, for
// the builds of a set of packages.
type Keys struct {
	cfg     Config
	pol     *policy.Policy
	polPath string
	dir     string              // where the go command runs
	keys    map[string]string   // by import path
	pkgs    map[string]*pkgInfo // by import path, without test variants
	listed  []string            // the packages listed, as given
	flags   []string            // the flags they were listed with
}

// ComputeKeys lists the packages (patterns, as the go command takes them)
// and their dependencies with go list, with the flags that change which
// packages a build has, and computes the key of every package that the
// policy at polPath ("" for none) instruments. test includes what the
// packages' tests import.
func ComputeKeys(ctx context.Context, cfg Config, polPath string, listFlags []string, test bool, pkgs []string) (*Keys, error) {
	k := &Keys{cfg: cfg, polPath: polPath, dir: cfg.Dir, keys: map[string]string{}, pkgs: map[string]*pkgInfo{},
		listed: slices.Clone(pkgs), flags: slices.Clone(listFlags)}
	k.pol = policy.Empty()
	if polPath != "" {
		var err error
		if k.pol, err = policy.Load(polPath); err != nil {
			return nil, err
		}
	}
	args := []string{"list", "-e", "-deps", "-json=ImportPath,Dir,ForTest,Standard,DepOnly,Deps,GoFiles,CgoFiles"}
	if test {
		args = append(args, "-test")
	}
	list, err := k.list(ctx, append(append(args, listFlags...), "--"), pkgs)
	if err != nil {
		return nil, err
	}
	// An external test package (P_test) shares its package's rule and
	// gets its -gcflags, as does the test variant (P [P.test]): one key
	// per package covers them. Test files are not instrumented, so the
	// key depends on the package's own dependencies, whatever the build.
	matches := map[string]policy.Match{}
	for _, p := range list {
		if p.ForTest == "" {
			k.pkgs[p.ImportPath] = p
		}
		m := k.pol.ForPackage(p.ImportPath, p.Standard)
		if m.Mode == policy.Off {
			continue
		}
		base, _, _ := strings.Cut(p.ImportPath, " [")
		if p.ForTest != "" && base == p.ForTest+"_test" {
			base = p.ForTest
		}
		matches[base] = m
	}
	identity, err := cfg.identity()
	if err != nil {
		return nil, err
	}
	// The functions of a package whose rule names some (see
	// policy.Match.HashIn), read once.
	funcs := map[string]policy.Funcs{}
	funcsOf := func(path string, m policy.Match) policy.Funcs {
		if !m.NamesFunctions() {
			return nil
		}
		fns, ok := funcs[path]
		if !ok {
			if p := k.pkgs[path]; p != nil {
				fns = declaredFuncs(p)
			}
			funcs[path] = fns
		}
		return fns
	}
	// What each dependency instruments for detection, "" for nothing:
	// computed once, though most packages depend on it.
	detects := map[string]string{}
	detected := func(d string) string {
		sel, ok := detects[d]
		if !ok {
			if dp := k.pkgs[d]; dp != nil {
				if dm := k.pol.ForPackage(d, dp.Standard); dm.Mode == policy.Detect {
					sel = dm.SelectionHashIn(funcsOf(d, dm))
				}
			}
			detects[d] = sel
		}
		return sel
	}
	for path, m := range matches {
		h := sha256.New()
		fmt.Fprintf(h, "atomicx %s\nruntime %s\npackage %s %s\n", identity, gobuild.RuntimeCacheID(), path, m.HashIn(funcsOf(path, m)))
		// Calls of the functions that other packages instrument for
		// detection are injection points of the package.
		var deps []string
		if p := k.pkgs[path]; p != nil {
			deps = p.Deps
		}
		for _, d := range deps {
			if sel := detected(d); sel != "" {
				fmt.Fprintf(h, "detect %s %s\n", d, sel)
			}
		}
		k.keys[path] = hex.EncodeToString(h.Sum(nil))[:20]
	}
	return k, nil
}

// list runs go list with args and the packages, and decodes its output.
func (k *Keys) list(ctx context.Context, args, pkgs []string) ([]*pkgInfo, error) {
	cmd := exec.CommandContext(ctx, "go", append(args, pkgs...)...)
	cmd.Dir, cmd.Env = k.dir, k.cfg.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list %s: %v\n%s", strings.Join(pkgs, " "), err, stderr.Bytes())
	}
	var out []*pkgInfo
	dec := json.NewDecoder(&stdout)
	for {
		p := new(pkgInfo)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading go list output: %w", err)
		}
		out = append(out, p)
	}
}

// instrumented returns the import paths of the packages that get a key,
// sorted.
func (k *Keys) instrumented() []string {
	var paths []string
	for p := range k.keys {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// declaredFuncs returns the functions that the package's files declare,
// named as function patterns match them, or nil when a file does not
// parse (every pattern then counts in the package's key).
func declaredFuncs(p *pkgInfo) policy.Funcs {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		files = append(files, f)
	}
	aliases := funcname.LocalAliases(files)
	fns := policy.Funcs{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				fns[policy.NormalizeFuncName(funcname.Decl(fd, aliases))] = true
			}
		}
	}
	return fns
}
