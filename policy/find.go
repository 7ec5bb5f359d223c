package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

const (
	// FileName is the name Find looks for.
	FileName = "atomicheck.toml"
	// EnvVar overrides the search: a policy file, or "off" or "none".
	EnvVar = "ATOMICX_POLICY"
)

// Find returns the policy file that applies to a go command running in dir:
// $ATOMICX_POLICY if set (relative to dir; "off" or "none" means no policy:
// return "", nil), else the first atomicheck.toml found walking up from
// dir, stopping after the directory that holds go.mod, or, when the go
// command uses a workspace (a go.work above, GOWORK not off), after the
// one that holds go.work; so that a build never picks up the policy of an
// unrelated project further up. It returns "" and nil when there is none.
// getenv is os.Getenv when nil.
func Find(dir string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", FileName, err)
	}
	if v := getenv(EnvVar); v != "" {
		return fromEnv(abs, v)
	}
	// Inside a module of a workspace, the go command builds for the whole
	// workspace: the walk then goes on past the module's go.mod, up to
	// the go.work that the go command uses (none with GOWORK=off).
	inWorkspace := workspaceAbove(abs, getenv)
	for d := abs; ; {
		policy := filepath.Join(d, FileName)
		switch ok, err := isFile(policy); {
		case err != nil:
			return "", fmt.Errorf("find %s: %w", FileName, err)
		case ok:
			return policy, nil
		}
		if ok, _ := isFile(filepath.Join(d, "go.work")); ok {
			return "", nil
		}
		if ok, _ := isFile(filepath.Join(d, "go.mod")); ok && !inWorkspace {
			return "", nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", nil
		}
		d = parent
	}
}

func fromEnv(dir, v string) (string, error) {
	if v == "off" || v == "none" {
		return "", nil
	}
	path := v
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	ok, err := isFile(path)
	if err == nil && !ok {
		err = errors.New("no such file, or not a regular file")
	}
	if err != nil {
		return "", fmt.Errorf("%s=%s: %w (set it to a policy file, or to off to build without a policy)", EnvVar, v, err)
	}
	return filepath.Clean(path), nil
}

// isFile reports whether path names a regular file (or a link to one). A
// missing file is not an error; any other failure to look is, because
// skipping a policy that exists would silently build the wrong way.
func isFile(path string) (bool, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return fi.Mode().IsRegular(), nil
}

// workspaceAbove reports whether the go command running in dir uses a
// go.work file: GOWORK names one, or (GOWORK unset) there is one in dir
// or above.
func workspaceAbove(dir string, getenv func(string) string) bool {
	switch w := getenv("GOWORK"); w {
	case "off":
		return false
	case "":
	default:
		return true
	}
	for d := dir; ; {
		if ok, _ := isFile(filepath.Join(d, "go.work")); ok {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}
