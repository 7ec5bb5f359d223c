package rt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAsWritten(t *testing.T) {
	log := filepath.Join(t.TempDir(), "events.jsonl")
	saved := config
	defer func() { config = saved }()
	table := "m.(*Grid).At\tm/grid.go:10:16\tw\nm.(*Grid).Set\tm/grid.go:14:16\t-\n"

	config.logPath = log
	AsWritten(table) // not asked: nothing
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("logged without being asked: %v", err)
	}

	config.listAsWritten = true
	AsWritten(table)
	eventLog.Lock()
	if eventLog.f != nil {
		eventLog.f.Close()
		eventLog.f = nil
	}
	eventLog.Unlock()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := []string{
		`"event":"as_written"`, `"func":"m.(*Grid).At","pos":"m/grid.go:10:16","whole_type":true}`,
		`"event":"as_written"`, `"func":"m.(*Grid).Set","pos":"m/grid.go:14:16","whole_type":false}`,
	}
	if len(lines) != 2 {
		t.Fatalf("logged %d lines, want 2:\n%s", len(lines), b)
	}
	for i, l := range lines {
		for _, w := range want[2*i : 2*i+2] {
			if !strings.Contains(l, w) {
				t.Errorf("line %d lacks %s: %s", i+1, w, l)
			}
		}
	}
}
