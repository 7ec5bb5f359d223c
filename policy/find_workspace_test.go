package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindInWorkspaceModule: from inside one module of a workspace, the
// policy beside go.work applies (the go command builds for the workspace),
// unless GOWORK=off; outside a workspace the walk still stops at go.mod.
func TestFindInWorkspaceModule(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("ws/go.work", "go 1.22\n\nuse ./app\n")
	write("ws/"+FileName, "")
	write("ws/app/go.mod", "module example.com/app\n")
	write("ws/app/sub/x.go", "package sub\n")
	write("solo/"+FileName, "")
	write("solo/mod/go.mod", "module example.com/solo\n")

	env := func(kv map[string]string) func(string) string {
		return func(k string) string { return kv[k] }
	}
	tests := []struct {
		dir  string
		env  map[string]string
		want string
	}{
		{"ws/app/sub", nil, "ws/" + FileName},
		{"ws/app", nil, "ws/" + FileName},
		{"ws/app", map[string]string{"GOWORK": "off"}, ""},
		{"solo/mod", nil, ""}, // no workspace: the policy above go.mod is another project's
	}
	for _, tt := range tests {
		got, err := Find(filepath.Join(root, tt.dir), env(tt.env))
		if err != nil {
			t.Fatalf("Find(%s): %v", tt.dir, err)
		}
		want := ""
		if tt.want != "" {
			want = filepath.Join(root, tt.want)
		}
		if got != want {
			t.Errorf("Find(%s, %v) = %q, want %q", tt.dir, tt.env, got, want)
		}
	}
}
