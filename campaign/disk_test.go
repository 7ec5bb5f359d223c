package campaign

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatchDisk(t *testing.T) {
	for _, tc := range []struct {
		name  string
		size  int64
		limit int64
		want  bool
	}{
		{"under the limit", 1000, 4096, false},
		{"over the limit", 8192, 4096, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o777); err != nil {
				t.Fatal(err)
			}
			// Split over two files, one in a subdirectory: the sum counts.
			for i, name := range []string{"events.jsonl", filepath.Join("sub", "tmpfile")} {
				if err := os.WriteFile(filepath.Join(dir, name), make([]byte, tc.size/2), 0o666); err != nil {
					t.Fatal(i, err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
			defer cancel()
			stopped := make(chan struct{})
			over := watchDisk(ctx, func() int64 { return diskUsage(dir) }, tc.limit, func() { close(stopped) })
			select {
			case <-stopped:
			case <-ctx.Done():
			}
			if got := over.Load(); got != tc.want {
				t.Errorf("over the limit = %v, want %v", got, tc.want)
			}
		})
	}
}
