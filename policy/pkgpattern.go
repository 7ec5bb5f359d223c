package policy

import (
	"fmt"
	"strings"
	"unicode"
)

// pkgPattern is a compiled entry of a rule's packages list.
type pkgPattern struct {
	written  string   // as in the file
	resolved string   // with a leading ./ replaced by an import path
	pieces   []string // resolved, split at each "..."
	dirForm  []string // pieces of "a" for "a/...", which also matches a itself
	exact    bool     // no "..." at all
	prefix   int      // literal bytes before the first "..."
	namesStd bool     // may match standard-library packages
	pos      Position
}

// isRelative reports whether a pattern is written relative to the policy
// file's directory.
func isRelative(pattern string) bool {
	return pattern == "." || strings.HasPrefix(pattern, "./")
}

// checkPkgPattern returns what is wrong with a package pattern as written,
// or "" if it is well formed.
func checkPkgPattern(s string) string {
	if s == "" {
		return `empty package pattern: write an import path such as "example.com/m/..." or "./..."`
	}
	if strings.Contains(s, `\`) {
		return fmt.Sprintf("package pattern %q contains a backslash: import paths use forward slashes", s)
	}
	if strings.HasPrefix(s, "/") || len(s) > 1 && s[1] == ':' {
		return fmt.Sprintf("package pattern %q is a file system path: write an import path, or ./... for the packages under this file's directory", s)
	}
	if s == ".." || strings.HasPrefix(s, "../") {
		return fmt.Sprintf("package pattern %q leaves the policy file's directory: write the full import path instead", s)
	}
	rest := s
	if isRelative(s) {
		if s == "." {
			return ""
		}
		rest = s[len("./"):]
	}
	if strings.Contains(rest, "*") {
		return fmt.Sprintf("package pattern %q contains \"*\": package patterns use ... as the wildcard, as the go command does (e.g. example.com/m/...)", s)
	}
	for _, elem := range strings.Split(rest, "/") {
		switch elem {
		case "":
			return fmt.Sprintf("package pattern %q has an empty path element: remove the doubled or trailing \"/\"", s)
		case ".", "..":
			return fmt.Sprintf("package pattern %q has a %q path element: write the path in clean form", s, elem)
		}
		for _, r := range elem {
			if unicode.IsSpace(r) || !unicode.IsGraphic(r) || strings.ContainsRune("!\"#$%&'()*,:;<=>?[]^`{|}", r) || r == unicode.ReplacementChar {
				return fmt.Sprintf("package pattern %q contains %q, which cannot appear in an import path", s, r)
			}
		}
	}
	return ""
}

// compilePkgPattern builds the matcher for a well-formed pattern whose
// relative form, if any, has already been resolved.
func compilePkgPattern(written, resolved string, pos Position) pkgPattern {
	p := pkgPattern{
		written:  written,
		resolved: resolved,
		pieces:   strings.Split(resolved, "..."),
		pos:      pos,
	}
	p.exact = len(p.pieces) == 1
	p.prefix = len(p.pieces[0])
	if strings.HasSuffix(resolved, "/...") {
		p.dirForm = strings.Split(strings.TrimSuffix(resolved, "/..."), "...")
	}
	first, _, _ := strings.Cut(resolved, "/")
	p.namesStd = !strings.HasPrefix(resolved, "...") && !strings.Contains(strings.ReplaceAll(first, "...", ""), ".")
	return p
}

// resolvePkgPattern replaces a leading "." of a relative pattern with the
// import path of the policy file's directory.
func resolvePkgPattern(s, dirPath string) string {
	if s == "." {
		return dirPath
	}
	return dirPath + "/" + strings.TrimPrefix(s, "./")
}

// matches reports whether the pattern matches importPath, following the
// go command: "..." matches any string, slashes included, and "a/..."
// matches a itself too. Standard-library packages match only patterns that
// name the standard library: a pattern whose first path element has no
// dot and which does not begin with "...". So "..." and "github.com/..."
// never reach into std, while "encoding/..." and "strings" do.
func (p *pkgPattern) matches(importPath string, std bool) bool {
	if std && !p.namesStd {
		return false
	}
	return matchPieces(p.pieces, importPath) ||
		p.dirForm != nil && matchPieces(p.dirForm, importPath)
}

// matchPieces reports whether s consists of pieces[0], then the other
// pieces in order with anything between them, and nothing after the last.
// It is the matcher for patterns whose only wildcard matches any run of
// characters; taking the leftmost occurrence of each middle piece is never
// worse than a later one, so it needs no backtracking.
func matchPieces(pieces []string, s string) bool {
	if len(pieces) == 1 {
		return s == pieces[0]
	}
	if !strings.HasPrefix(s, pieces[0]) {
		return false
	}
	s = s[len(pieces[0]):]
	last := pieces[len(pieces)-1]
	for _, piece := range pieces[1 : len(pieces)-1] {
		i := strings.Index(s, piece)
		if i < 0 {
			return false
		}
		s = s[i+len(piece):]
	}
	return strings.HasSuffix(s, last)
}
