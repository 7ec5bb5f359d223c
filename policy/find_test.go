package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree creates the files under a new temporary directory and returns it.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		path := filepath.Join(root, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestFind(t *testing.T) {
	root := tree(t,
		"mod/go.mod", "mod/atomicheck.toml", "mod/a/b/",
		"mod/nested/go.mod", "mod/nested/c/",
		"ws/atomicheck.toml", "ws/go.work", "ws/m/go.mod", "ws/m/p/", "ws/q/",
		"ws/own/atomicheck.toml", "ws/own/go.mod",
		"mod/dirpolicy/atomicheck.toml/",
		"custom/rules.toml", "custom/d/",
	)
	tests := []struct {
		name, dir string
		env       map[string]string
		want      string // relative to root; "" for none
	}{
		{"beside go.mod", "mod", nil, "mod/atomicheck.toml"},
		{"walk up", "mod/a/b", nil, "mod/atomicheck.toml"},
		{"stop at a nested go.mod", "mod/nested/c", nil, ""},
		{"module inside a workspace: the workspace policy", "ws/m/p", nil, "ws/atomicheck.toml"},
		{"go.work", "ws/q", nil, "ws/atomicheck.toml"},
		{"own module policy", "ws/own", nil, "ws/own/atomicheck.toml"},
		{"a directory is not a policy", "mod/dirpolicy", nil, "mod/atomicheck.toml"},
		{"env relative to dir", "custom/d", map[string]string{EnvVar: "../rules.toml"}, "custom/rules.toml"},
		{"env absolute", "mod", map[string]string{EnvVar: "ROOT/custom/rules.toml"}, "custom/rules.toml"},
		{"env off", "mod", map[string]string{EnvVar: "off"}, ""},
		{"env none", "mod", map[string]string{EnvVar: "none"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			for k, v := range tt.env {
				vars[k] = strings.Replace(v, "ROOT", root, 1)
			}
			got, err := Find(filepath.Join(root, tt.dir), env(vars))
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.want != "" {
				want = filepath.Join(root, filepath.FromSlash(tt.want))
			}
			if got != want {
				t.Errorf("Find = %q, want %q", got, want)
			}
		})
	}
}

func TestFindNone(t *testing.T) {
	root := tree(t, "a/b/")
	if m := findModule(root); m.err == nil {
		t.Skipf("a go.mod above %s stops the walk early", root)
	}
	got, err := Find(filepath.Join(root, "a", "b"), env(nil))
	if err != nil || got != "" {
		t.Errorf("Find = %q, %v; want none", got, err)
	}
}

func TestFindEnvMissing(t *testing.T) {
	root := tree(t, "go.mod", "atomicheck.toml", "dir/")
	for _, v := range []string{"missing.toml", "dir"} {
		_, err := Find(root, env(map[string]string{EnvVar: v}))
		want := EnvVar + "=" + v + ": no such file, or not a regular file (set it to a policy file, or to off to build without a policy)"
		if err == nil || err.Error() != want {
			t.Errorf("Find with %s=%s: error %v, want %q", EnvVar, v, err, want)
		}
	}
}
