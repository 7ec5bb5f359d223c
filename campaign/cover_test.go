package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCoverFlags(t *testing.T) {
	for _, tc := range []struct {
		build []string
		want  string
	}{
		{nil, "-cover -covermode=set -coverpkg=./a,./b/..."},
		{[]string{"-tags=x"}, "-cover -covermode=set -coverpkg=./a,./b/..."},
		{[]string{"-race"}, "-cover -covermode=atomic -coverpkg=./a,./b/..."},
	} {
		if got := strings.Join(coverFlags([]string{"./a", "./b/..."}, tc.build), " "); got != tc.want {
			t.Errorf("coverFlags(%q) = %s, want %s", tc.build, got, tc.want)
		}
	}
}

// TestKeepCounters: a profile run's files go to the tests' directory,
// another run's to the injected one's; other files stay.
func TestKeepCounters(t *testing.T) {
	journal := t.TempDir()
	tests, injected := CoverDirs(journal)
	for _, d := range []string{tests, injected} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range []string{"profile", "experiment"} {
		run := t.TempDir()
		for _, name := range []string{"covmeta.abc", "covcounters.abc.1." + kind, "events.jsonl"} {
			if err := os.WriteFile(filepath.Join(run, name), nil, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		keepCounters(run, journal, kind)
		to := injected
		if kind == "profile" {
			to = tests
		}
		for _, name := range []string{"covmeta.abc", "covcounters.abc.1." + kind} {
			if _, err := os.Stat(filepath.Join(to, name)); err != nil {
				t.Errorf("%s run: %v", kind, err)
			}
		}
		if _, err := os.Stat(filepath.Join(run, "events.jsonl")); err != nil {
			t.Errorf("%s run: events.jsonl moved: %v", kind, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tests, "covcounters.abc.1.experiment")); err == nil {
		t.Errorf("an experiment's counters are in the tests' directory")
	}
}
