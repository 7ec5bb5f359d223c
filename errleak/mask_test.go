package errleak

import (
	"testing"

	"github.com/atomicx/atomicx/policy"
	"github.com/google/go-cmp/cmp"
)

func TestMaskReleases(t *testing.T) {
	got := MaskReleases([]policy.LeakResource{
		{Name: "pool connection", Acquire: []string{"example.com/pool.Get", "os.Open"}, Release: []string{"example.com/pool.Put", "Close"}, OnRollback: true},
		{Name: "lease", Acquire: []string{"example.com/lease.Take"}, Release: []string{"Return"}}, // not on_rollback
		{Name: "span", Acquire: []string{"example.com/trace.Start"}, Release: []string{"()"}},
	})
	tests := []struct {
		acquire string
		want    *MaskRelease // nil: not released by a rollback
	}{
		{"example.com/pool.Get", &MaskRelease{Resource: "pool connection", Method: "Close", Others: []string{"example.com/pool.Put"}}},
		{"os.Open", &MaskRelease{Resource: "pool connection", Method: "Close", Others: []string{"example.com/pool.Put"}}}, // the policy's table first
		{"os.Create", &MaskRelease{Resource: "file", Method: "Close"}},
		{"net/http.Get", &MaskRelease{Resource: "HTTP response body", Field: "Body", Method: "Close"}},
		{"(*database/sql.DB).Begin", &MaskRelease{Resource: "sql transaction", Method: "Rollback", Others: []string{"Commit"}}},
		{"time.NewTimer", &MaskRelease{Resource: "timer", Method: "Stop"}},
		{"example.com/trace.Start", nil},
		{"example.com/lease.Take", nil},
		{"(*sync.Mutex).Lock", nil},
		{"(*os/exec.Cmd).Start", nil},
		{"context.WithCancel", nil},
		{"os/signal.Notify", nil},
	}
	for _, tt := range tests {
		r, ok := got[tt.acquire]
		if tt.want == nil {
			if ok {
				t.Errorf("%s: released as %+v, want not released", tt.acquire, r)
			}
			continue
		}
		if diff := cmp.Diff(*tt.want, r); !ok || diff != "" {
			t.Errorf("%s (found %t): (-want +got)\n%s", tt.acquire, ok, diff)
		}
	}
}
