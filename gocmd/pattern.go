package gocmd

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// A perPackage is one value of -gcflags: flags for the packages that its
// pattern matches, or, without a pattern, for the packages named on the
// command line. For a package, the last value that matches wins.
type perPackage struct {
	raw         string
	cmdlineOnly bool // no pattern: for the packages named on the command line
	matches     func(p *pkgInfo, cmdline bool) bool
	flags       []string
}

// parsePerPackage reads a value of -gcflags as the go command does; cwd
// is the directory relative patterns start from.
func parsePerPackage(v, cwd string) (perPackage, error) {
	pp := perPackage{raw: v, cmdlineOnly: true, matches: func(_ *pkgInfo, cmdline bool) bool { return cmdline }}
	v = strings.TrimSpace(v)
	if v != "" && !strings.HasPrefix(v, "-") {
		pp.cmdlineOnly = false
		pattern, rest, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(pattern) == "" {
			return pp, fmt.Errorf("-gcflags=%s: want [pattern=]flags", pp.raw)
		}
		pp.matches = matchPackage(strings.TrimSpace(pattern), cwd)
		v = rest
	}
	flags, err := splitQuoted(v)
	if err != nil {
		return pp, fmt.Errorf("-gcflags=%s: %v", pp.raw, err)
	}
	pp.flags = flags
	return pp, nil
}

// matchPackage is the go command's package pattern matching for per-package
// flags: "all", "std", "cmd", patterns relative to cwd that match
// directories, and import path patterns, where "..." matches anything.
func matchPackage(pattern, cwd string) func(p *pkgInfo, cmdline bool) bool {
	switch {
	case pattern == "." || pattern == ".." || strings.HasPrefix(pattern, "./") || strings.HasPrefix(pattern, "../"):
		dir, rest := pattern, ""
		if i := strings.Index(pattern, "..."); i >= 0 {
			j := strings.LastIndex(pattern[:i], "/")
			dir, rest = pattern[:j], pattern[j+1:]
		}
		dir = filepath.Join(cwd, dir)
		if rest == "" {
			return func(p *pkgInfo, _ bool) bool { return p.Dir == dir }
		}
		match := matchPattern(rest)
		return func(p *pkgInfo, _ bool) bool {
			rel, err := filepath.Rel(dir, p.Dir)
			if err != nil {
				return false
			}
			rel = filepath.ToSlash(rel)
			return rel != ".." && !strings.HasPrefix(rel, "../") && match(rel)
		}
	case pattern == "all":
		return func(*pkgInfo, bool) bool { return true }
	case pattern == "std":
		return func(p *pkgInfo, _ bool) bool { return p.Standard }
	case pattern == "cmd":
		return func(p *pkgInfo, _ bool) bool { return p.Standard && strings.HasPrefix(p.ImportPath, "cmd/") }
	}
	match := matchPattern(pattern)
	return func(p *pkgInfo, _ bool) bool { return match(p.ImportPath) }
}

// matchPattern matches slash-separated paths against a pattern where
// "..." matches any string, and a trailing "/..." also matches nothing
// (net/... matches net).
func matchPattern(pattern string) func(string) bool {
	re := regexp.QuoteMeta(pattern)
	switch {
	case strings.HasSuffix(re, `/\.\.\.`):
		re = strings.TrimSuffix(re, `/\.\.\.`) + `(/\.\.\.)?`
	case re == `\.\.\.`:
		re = `(\.\.\.)?`
	}
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	r := regexp.MustCompile(`^` + re + `$`)
	return r.MatchString
}
