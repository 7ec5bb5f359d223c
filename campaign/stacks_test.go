package campaign

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStackScan reads the goroutine dumps of a program stopped by SIGQUIT
// and of one the runtime found deadlocked, written in pieces.
func TestStackScan(t *testing.T) {
	quit := "=== RUN   TestSave\nSIGQUIT: quit\nPC=0x40816e m=0 sigcode=0\n\n" +
		"goroutine 0 gp=0x5471a0 m=0 mp=0x547f60 [idle]:\nruntime.mcall()\n\t/go/src/runtime/asm_amd64.s:496 +0x55\n\n" +
		"goroutine 7 gp=0x1051957181e0 m=nil [sync.Mutex.Lock, 1 minutes]:\n" +
		"sync.(*Mutex).Lock(...)\n\t/go/src/sync/mutex.go:46\n" +
		"example.com/m.(*DB).Get.func1()\n\t/m/db.go:9 +0x32\n" +
		"example.com/m.(*DB).Get(0x986e050c068?)\n\t/m/db.go:10 +0x7d\n" +
		"created by testing.(*T).Run in goroutine 1\n\t/go/src/testing/testing.go:1997 +0x6e\n"
	deadlock := "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n\t/m/main.go:13 +0x78\n"
	tests := []struct {
		name, out string
		want      []GoroutineStack
	}{
		{"SIGQUIT", quit, []GoroutineStack{
			{State: "idle", Funcs: []string{"runtime.mcall"}},
			{State: "sync.Mutex.Lock", Funcs: []string{"sync.(*Mutex).Lock", "example.com/m.(*DB).Get.func1", "example.com/m.(*DB).Get"}},
		}},
		{"deadlock", deadlock, []GoroutineStack{{State: "chan receive", Funcs: []string{"main.main"}}}},
		{"no dump", "goroutine 5 [running]:\nmain.main()\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s stackScan
			for out := tt.out; out != ""; {
				n := min(len(out), 7) // lines split between writes
				s.write([]byte(out[:n]))
				out = out[n:]
			}
			if diff := cmp.Diff(tt.want, s.stacks); diff != "" {
				t.Errorf("stacks (-want +got):\n%s", diff)
			}
		})
	}
}
