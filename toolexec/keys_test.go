package toolexec

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/internal/gobuild"
	"github.com/atomicx/atomicx/policy"
)

func TestTakeKey(t *testing.T) {
	args := []string{"-o", "x.a", "-atomicx=abc", "-p", "m", "-atomicx=def", "a.go"}
	rest, key := takeKey(args)
	if want := []string{"-o", "x.a", "-p", "m", "a.go"}; !slices.Equal(rest, want) || key != "def" {
		t.Errorf("takeKey = %q, %q; want %q, %q", rest, key, want, "def")
	}
	if args[2] != "-atomicx=abc" {
		t.Errorf("takeKey changed its argument: %q", args)
	}
}

// TestKeyedCompileRefusals checks that under the front-end a package that
// the policy instruments is not compiled without its key, nor under
// another policy than the one the keys were computed with: its archive
// would be cached under the key of a plain build, or of another policy.
func TestKeyedCompileRefusals(t *testing.T) {
	dir := t.TempDir()
	polPath := filepath.Join(dir, "atomicheck.toml")
	if err := os.WriteFile(polPath, []byte("[[rule]]\npackages = [\"example.com/m/a\"]\nmode = \"detect\"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Load(polPath)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "a.go")
	if err := os.WriteFile(src, []byte("package a\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, keyed, want string
	}{
		{"no key", pol.Hash(), "package example.com/m/a is instrumented (detect) but the go command gave it no atomicx build key"},
		{"another policy", strings.Repeat("0", 64), "the policy " + polPath + " changed during the build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(policy.EnvVar, polPath)
			t.Setenv(gobuild.KeyedEnv, tt.keyed)
			t.Setenv("TOOLEXEC_IMPORTPATH", "example.com/m/a")
			var stderr bytes.Buffer
			cmd := Command{Tool: ToolCompile, ToolPath: filepath.Join(dir, "compile"), Args: []string{
				"-o", filepath.Join(dir, "a.a"), "-p", "example.com/m/a", "-importcfg", filepath.Join(dir, "importcfg"), "-pack", src}}
			code := Run(Config{Stdout: &stderr, Stderr: &stderr}, cmd)
			if code == 0 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit code %d, output %q; want an error saying %q", code, stderr.String(), tt.want)
			}
		})
	}
}
