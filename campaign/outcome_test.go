package campaign

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestOutcomeHelper is the test binary's own test that the outcome test
// runs in a child process: it ends as $ATOMICX_OUTCOME_HELPER says.
func TestOutcomeHelper(t *testing.T) {
	switch os.Getenv("ATOMICX_OUTCOME_HELPER") {
	case "":
		t.Skip("run by TestOutcome in a child process")
	case "pass":
	case "fail":
		t.Fatal("the test failed")
	case "panic":
		panic("injected panic not recovered by the test")
	case "exit":
		os.Exit(3)
	case "goroutine-panic":
		go panic("a panic on a goroutine of its own")
		time.Sleep(time.Minute)
	case "kill":
		p, _ := os.FindProcess(os.Getpid())
		p.Kill()
		time.Sleep(time.Minute)
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		helper, want string
	}{
		{"pass", Passed},
		{"fail", Failed},
		{"panic", Failed}, // the testing package reports the test failed before it stops
		{"exit", Crashed},
		{"goroutine-panic", Crashed},
		{"kill", Crashed},
	} {
		t.Run(tc.helper, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestOutcomeHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "ATOMICX_OUTCOME_HELPER="+tc.helper)
			var out tailBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if got := runOutcome(err, false, out.sawTestFailure()); got != tc.want {
				t.Errorf("outcome = %q, want %q; the run ended with %v and printed:\n%s", got, tc.want, err, out.String())
			}
		})
	}
	if got := runOutcome(exec.Command("/nonexistent/binary").Run(), false, false); got != NotRun {
		t.Errorf("a binary that does not start: %q, want %q", got, NotRun)
	}
	// A program workload has no test verdict: its exit status is its
	// verdict, unless a signal killed it.
	if got := runOutcome(exec.Command("sh", "-c", "exit 2").Run(), true, false); got != Failed {
		t.Errorf("a program workload that exits 2: %q, want %q", got, Failed)
	}
}

func TestTailBufferSeesSplitFailureLine(t *testing.T) {
	var b tailBuffer
	for _, chunk := range []string{"=== RUN TestX\n--- F", "AIL: TestX (0.00s)\n"} {
		b.Write([]byte(chunk))
	}
	if !b.sawTestFailure() {
		t.Error("a failure line split between two writes was missed")
	}
	var long tailBuffer
	long.Write([]byte("--- FAIL: TestX\n"))
	long.Write([]byte(strings.Repeat("goroutine trace\n", 1000)))
	if !long.sawTestFailure() || len(long.String()) > 4096 {
		t.Errorf("failure line forgotten after 16 KiB of trace, or tail of %d bytes", len(long.String()))
	}
	var none tailBuffer
	none.Write([]byte("fatal error: all goroutines are asleep - deadlock!\n"))
	if none.sawTestFailure() {
		t.Error("a fatal error is not a test failure")
	}
}

// TestTailBufferKeepsDeath: the line on which the runtime reported a panic
// or a fatal error is kept whole, however the writes split it and however
// much the trace after it pushes out of the tail.
func TestTailBufferKeepsDeath(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"panic", []string{"=== RUN TestX\npan", "ic: boom\n\ngoroutine 7 [running]:\n"}, "panic: boom"},
		{"fatal error", []string{"fatal error: sync: RUnlock of unlocked RWMutex\n"}, "fatal error: sync: RUnlock of unlocked RWMutex"},
		{"first of two", []string{"panic: first [recovered]\n\tpanic: second\n"}, "panic: first [recovered]"},
		{"not at a line's start", []string{"log: a panic: in the text\n"}, ""},
	}
	for _, tt := range tests {
		var b tailBuffer
		for _, c := range tt.chunks {
			b.Write([]byte(c))
		}
		b.Write([]byte(strings.Repeat("goroutine trace line\n", 1000)))
		if got := b.death(); got != tt.want {
			t.Errorf("%s: death = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDeathLine: a whole output gives the line a record's Died holds,
// whether or not it ends with a newline.
func TestDeathLine(t *testing.T) {
	for output, want := range map[string]string{
		"=== RUN TestX\npanic: boom\n\ngoroutine 7 [running]:\n": "panic: boom",
		"fatal error: all goroutines are asleep":                 "fatal error: all goroutines are asleep",
		"=== RUN TestX\nexit status 3\nFAIL\tm\t0.01s\n":         "",
	} {
		if got := DeathLine(output); got != want {
			t.Errorf("DeathLine(%q) = %q, want %q", output, got, want)
		}
	}
}
