package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// moduleInfo says which module a policy file belongs to, for ./ patterns.
type moduleInfo struct {
	path    string // module path from go.mod's module line
	dirPath string // import path of the policy file's directory
	err     error  // why there is no module; reported at each ./ pattern
}

// errNoGoMod means no go.mod exists at or above the policy file.
var errNoGoMod = errors.New("no go.mod")

// findModule finds the nearest go.mod at or above dir. It reads only the
// module line, which is all a policy needs; pulling in a full go.mod parser
// for one line is not worth a dependency.
func findModule(dir string) moduleInfo {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return moduleInfo{err: err}
	}
	for d := abs; ; {
		gomod := filepath.Join(d, "go.mod")
		data, err := os.ReadFile(gomod)
		switch {
		case err == nil:
			mod := modulePath(data)
			if mod == "" {
				return moduleInfo{err: fmt.Errorf("%s has no module line", gomod)}
			}
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return moduleInfo{path: mod, err: err}
			}
			dirPath := mod
			if rel != "." {
				dirPath = mod + "/" + filepath.ToSlash(rel)
			}
			return moduleInfo{path: mod, dirPath: dirPath}
		case !errors.Is(err, fs.ErrNotExist):
			return moduleInfo{err: fmt.Errorf("cannot read %s: %w", gomod, err)}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return moduleInfo{err: errNoGoMod}
		}
		d = parent
	}
}

// modulePath returns the path on the module line of a go.mod file, in any
// of the forms the go command accepts (bare, quoted, or in a block), or ""
// if there is none.
func modulePath(gomod []byte) string {
	inBlock := false
	for _, line := range strings.Split(string(gomod), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case inBlock && fields[0] == ")":
			inBlock = false
			continue
		case inBlock:
			return unquoteModPath(fields[0])
		case fields[0] != "module":
			continue
		case len(fields) >= 2 && fields[1] == "(":
			inBlock = true
		case len(fields) >= 2:
			return unquoteModPath(fields[1])
		}
	}
	return ""
}

func unquoteModPath(s string) string {
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "`") {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return ""
	}
	return s
}
