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
// dir, stopping after the directory that holds go.work or go.mod (the
// first of those met), so that a build never picks up the policy of an
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
	for d := abs; ; {
		policy := filepath.Join(d, FileName)
		switch ok, err := isFile(policy); {
		case err != nil:
			return "", fmt.Errorf("find %s: %w", FileName, err)
		case ok:
			return policy, nil
		}
		for _, root := range []string{"go.work", "go.mod"} {
			if ok, _ := isFile(filepath.Join(d, root)); ok {
				return "", nil
			}
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
