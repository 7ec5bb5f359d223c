package toolexec

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
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

func TestToolchainHint(t *testing.T) {
	tests := []struct {
		tool, atomicx string
		newer         string // the version the hint names, or "" for no hint
	}{
		{"compile version go1.26.8", "go1.26.8", ""},
		{"compile version go1.26.9", "go1.26.8", ""}, // a patch release reads and writes the same
		{"compile version go1.25.3", "go1.26.8", ""},
		{"compile version go1.27.1", "go1.26.8", "go1.27.1"},
		{"compile version go1.27rc1", "go1.26.8", "go1.27rc1"},
		{"compile version go1.27.0 X:nocoverageredesign", "go1.26.8", "go1.27.0"},
		{"compile version devel go1.28-0a1b2c3d Tue Jan 5 10:00:00 2027 +0000", "go1.27.2", "go1.28"},
		{"compile version go1.27.1", "devel go1.27-abcdef 2027-01-01", ""},
		{"compile version go1.28.0", "devel go1.27-abcdef 2027-01-01", "go1.28.0"},
		{"compile version unknown", "go1.26.8", ""},
		{"", "go1.26.8", ""},
	}
	for _, tt := range tests {
		hint := toolchainHint(tt.tool, tt.atomicx)
		switch {
		case tt.newer == "" && hint != "":
			t.Errorf("toolchainHint(%q, %q) = %q, want none", tt.tool, tt.atomicx, hint)
		case tt.newer != "" && !strings.Contains(hint, "rebuild and reinstall atomicx with "+tt.newer):
			t.Errorf("toolchainHint(%q, %q) = %q, want it to say to rebuild atomicx with %s", tt.tool, tt.atomicx, hint, tt.newer)
		}
	}
}

func TestTypeCheckReason(t *testing.T) {
	one := errors.New(`vec.go:3:8: could not import strings (unsupported export data version)`)
	tests := []struct {
		errs []error
		want string
	}{
		{nil, "type errors"},
		{[]error{one}, one.Error()},
		{[]error{one, errors.New("b"), errors.New("c")}, one.Error() + " (and 2 more)"},
	}
	for _, tt := range tests {
		if got := typeCheckReason(&instrument.TypeError{Errors: tt.errs}); got != tt.want {
			t.Errorf("typeCheckReason(%d errors) = %q, want %q", len(tt.errs), got, tt.want)
		}
	}
}

// TestFuncErrorMessage checks what a build prints when atomicx fails to
// rewrite a function: the package, the function and its position, and how
// to leave the function out.
func TestFuncErrorMessage(t *testing.T) {
	fe := &instrument.FuncError{Func: "(*Vector).Alloc", Pos: token.Position{Filename: "/src/vec/vec.go", Line: 12, Column: 18}, Err: errors.New("overlapping rewrites of the source")}
	got := funcErrorMessage("example.com/m/vec", fe)
	for _, want := range []string{
		"instrumenting package example.com/m/vec: /src/vec/vec.go:12:18: (*Vector).Alloc: overlapping rewrites",
		"this is a bug in atomicx; please report it",
		`add exclude = ["(*Vector).Alloc"] to the rule for example.com/m/vec in atomicheck.toml`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
}

// TestFuncErrorMessageCrash: when the rewrite crashed, the stack comes
// after the message and its hint, so that the hint is not lost in it.
func TestFuncErrorMessageCrash(t *testing.T) {
	fe := &instrument.FuncError{Func: "(*Vector).Alloc", Pos: token.Position{Filename: "/src/vec/vec.go", Line: 12, Column: 18},
		Err: errors.New("atomicx crashed: boom"), Stack: "goroutine 1 [running]:\nmain.main()"}
	got := funcErrorMessage("example.com/m/vec", fe)
	hint := strings.Index(got, "To build anyway")
	stack := strings.Index(got, "goroutine 1 [running]:")
	if !strings.HasPrefix(got, "instrumenting package example.com/m/vec: /src/vec/vec.go:12:18: (*Vector).Alloc: atomicx crashed: boom\n") || hint < 0 || stack < hint {
		t.Errorf("message, hint and stack are not in that order:\n%s", got)
	}
}

// TestCompilerHeapFlags: the compiler of an instrumented package starts
// with a larger heap where it has the flag for it and starts one of its
// own, unless the user tuned its collector.
func TestCompilerHeapFlags(t *testing.T) {
	flag := fmt.Sprintf("-d=gcstart=%d", instrumentedStartHeap)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"go1.26, concurrent", nil, []string{"-goversion", "go1.26.8", "-c=2"}, flag},
		{"later toolchain", nil, []string{"-goversion", "go1.27rc1", "-c=4"}, flag},
		{"other debug flags", nil, []string{"-goversion", "go1.26.0", "-c=2", "-d=checkptr,ssa/check/on"}, flag},
		{"go1.25: no such flag", nil, []string{"-goversion", "go1.25.5", "-c=2"}, ""},
		{"development toolchain", nil, []string{"-goversion", "devel go1.27-abcdef", "-c=2"}, ""},
		{"no version", nil, []string{"-c=2"}, ""},
		{"one at a time", nil, []string{"-goversion", "go1.26.8", "-c=1"}, ""},
		{"no -c", nil, []string{"-goversion", "go1.26.8"}, ""},
		{"GOGC", map[string]string{"GOGC": "200"}, []string{"-goversion", "go1.26.8", "-c=2"}, ""},
		{"GOMEMLIMIT", map[string]string{"GOMEMLIMIT": "2GiB"}, []string{"-goversion", "go1.26.8", "-c=2"}, ""},
		{"user's own start", nil, []string{"-goversion", "go1.26.8", "-c=2", "-d=gcstart=64"}, ""},
		{"user's own start among others", nil, []string{"-goversion", "go1.26.8", "-c", "2", "-d", "checkptr,gcstart=64"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.env["GOGC"])
			t.Setenv("GOMEMLIMIT", tc.env["GOMEMLIMIT"])
			args := slices.Concat([]string{"-o", "out.a", "-p", "example.com/m"}, tc.args, []string{"a.go"})
			got := strings.Join(compilerHeapFlags(ParseCompile(Command{Tool: ToolCompile, Args: args})), " ")
			if got != tc.want {
				t.Errorf("compilerHeapFlags(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// TestCollectLess: a compile collects only past compileHeapLimit, unless
// the user tuned the collector.
func TestCollectLess(t *testing.T) {
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	for _, tc := range []struct {
		env       map[string]string
		collected bool // still collects at GOGC=100
	}{
		{map[string]string{"GOGC": "", "GOMEMLIMIT": ""}, false},
		{map[string]string{"GOGC": "50", "GOMEMLIMIT": ""}, true},
		{map[string]string{"GOGC": "", "GOMEMLIMIT": "1GiB"}, true},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		collectLess()
		gotPercent := debug.SetGCPercent(100)
		gotLimit := debug.SetMemoryLimit(math.MaxInt64)
		if tc.collected && (gotPercent != 100 || gotLimit != math.MaxInt64) {
			t.Errorf("%v: collector set to GOGC=%d, limit %d: want it as the user set it", tc.env, gotPercent, gotLimit)
		}
		if !tc.collected && (gotPercent != -1 || gotLimit != compileHeapLimit) {
			t.Errorf("%v: collector set to GOGC=%d, limit %d: want off up to %d", tc.env, gotPercent, gotLimit, compileHeapLimit)
		}
	}
}
