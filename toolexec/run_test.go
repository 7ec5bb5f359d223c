package toolexec

import (
	"bytes"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/instrument"
)

// TestCompileDiagnosticsReachBlame runs the real compiler on a file that
// does not compile, the way compile() runs it on an instrumented package,
// and checks that what compile() hands to blameHint holds the compiler's
// diagnostics, so that the hint names the function.
func TestCompileDiagnosticsReachBlame(t *testing.T) {
	out, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		t.Skipf("go env GOTOOLDIR: %v", err)
	}
	tool := filepath.Join(strings.TrimSpace(string(out)), "compile")
	dir := t.TempDir()
	src := filepath.Join(dir, "bad.go")
	if err := os.WriteFile(src, []byte("package p\n\nfunc Broken() int { return undefinedName }\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var stdout, captured bytes.Buffer
	r := &runner{cfg: Config{Stdout: &stdout, Stderr: io.Discard}, cmd: Command{ToolPath: tool, Tool: ToolCompile}}
	code, err := r.execCapture([]string{"-p", "p", "-o", filepath.Join(dir, "p.a"), src}, &captured)
	if err != nil || code == 0 {
		t.Fatalf("compiling a broken file: code %d, err %v", code, err)
	}
	if !strings.Contains(captured.String(), "undefinedName") {
		t.Errorf("the captured output %q lacks the compiler's diagnostic (standard output had %q)", captured.String(), stdout.String())
	}
	fns := []instrument.Function{{Name: "Broken", Pos: token.Position{Filename: src, Line: 3, Column: 6}}}
	if hint := blameHint("p", fns, captured.String()); !strings.Contains(hint, `exclude = ["Broken"]`) {
		t.Errorf("blameHint does not name the function: %s", hint)
	}
}
