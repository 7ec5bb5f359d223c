package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/report"
)

// sources finds the files of a report's import-path positions from where
// the campaign ran, not from the working directory.
type sources struct {
	moduleRoot string            // positions are shown relative to it
	repoRoot   string            // SARIF's %SRCROOT%; "" when not in a repository
	modCache   string            // GOMODCACHE
	goRoot     string            // GOROOT
	dirs       map[string]string // import path → directory
	listed     string            // where go list ran, for warnings
}

// newSources lists the directories of the report's packages with the go
// command run in the campaign's module root (wd for a journal without a
// header).
func newSources(hdr *campaign.Header, wd string, rep *report.Report) *sources {
	s := &sources{moduleRoot: wd, dirs: map[string]string{}}
	if hdr != nil {
		s.moduleRoot, s.repoRoot = hdr.ModuleRoot, hdr.RepoRoot
	}
	s.listed = s.moduleRoot
	if out, err := goCommand(s.moduleRoot, "env", "GOMODCACHE", "GOROOT"); err == nil {
		if f := strings.Split(strings.TrimSpace(out), "\n"); len(f) == 2 {
			s.modCache, s.goRoot = f[0], f[1]
		}
	}
	pkgs := map[string]bool{}
	for _, f := range rep.Functions {
		if f.Pos != "" {
			pkgs[path.Dir(strings.SplitN(f.Pos, ":", 2)[0])] = true
		}
	}
	if len(pkgs) == 0 {
		return s
	}
	args := []string{"list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}", "--"}
	for p := range pkgs {
		args = append(args, p)
	}
	out, _ := goCommand(s.moduleRoot, args...)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if ip, d, ok := strings.Cut(line, "\t"); ok && d != "" {
			s.dirs[ip] = d
		}
	}
	return s
}

func goCommand(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return string(out), err
}

// absolute maps an import-path position to the file's absolute path; a
// position whose package was not found stays as it is.
func (s *sources) absolute(pos string) string {
	file, rest, _ := strings.Cut(pos, ":")
	d, ok := s.dirs[path.Dir(file)]
	if !ok {
		return pos
	}
	return filepath.Join(d, path.Base(file)) + ":" + rest
}

// display is absolute made relative to the module's root when the file
// is inside it.
func (s *sources) display(pos string) string {
	abs := s.absolute(pos)
	if !filepath.IsAbs(abs) {
		return abs
	}
	if r, err := filepath.Rel(s.moduleRoot, abs); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return abs
}

// roots are the SARIF base directories: the repository's root (the
// module's when it is in none), the module cache and GOROOT.
func (s *sources) roots() []report.SourceRoot {
	src := report.SourceRoot{ID: "%SRCROOT%", Dir: s.repoRoot, Description: "The root of the repository that holds the module."}
	if s.repoRoot == "" {
		src = report.SourceRoot{ID: "%SRCROOT%", Dir: s.moduleRoot, Description: "The module's root directory (it is in no repository)."}
	}
	roots := []report.SourceRoot{src}
	if s.modCache != "" {
		roots = append(roots, report.SourceRoot{ID: "GOMODCACHE", Dir: s.modCache, Description: "The Go module cache (go env GOMODCACHE)."})
	}
	if s.goRoot != "" {
		roots = append(roots, report.SourceRoot{ID: "GOROOT", Dir: s.goRoot, Description: "The Go installation (go env GOROOT)."})
	}
	return roots
}

// warnMissing writes a warning for each file of the report's functions
// that cannot be found: its package unknown to the go command in the
// module's root, or the file gone.
func (s *sources) warnMissing(w io.Writer, rep *report.Report) {
	missing := map[string]string{}
	for _, f := range rep.Functions {
		if f.Pos == "" {
			continue
		}
		file, _, _ := strings.Cut(f.Pos, ":")
		if _, ok := s.dirs[path.Dir(file)]; !ok {
			missing[file] = fmt.Sprintf("package %s not found from %s", path.Dir(file), s.listed)
			continue
		}
		abs, _, _ := strings.Cut(s.absolute(f.Pos), ":")
		if _, err := os.Stat(abs); err != nil {
			missing[file] = err.Error()
		}
	}
	files := make([]string, 0, len(missing))
	for f := range missing {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(w, "atomicx: warning: no source for %s (%s): the report shows its positions as they are\n", f, missing[f])
	}
}
