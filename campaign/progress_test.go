package campaign

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressNamesItsRuns(t *testing.T) {
	runs := func(kinds ...string) []*Record {
		var out []*Record
		for _, k := range kinds {
			out = append(out, &Record{Kind: k})
		}
		return out
	}
	for _, tc := range []struct {
		todo []*Record
		want string
	}{
		{runs("experiment", "experiment"), "experiments 2/2 "},
		{runs("experiment", "natural", "experiment"), "natural reruns and experiments 3/3 "},
		{runs("recheck"), "rechecks 1/1 "},
		{runs("profile", "natural", "experiment", "recheck"), "profile runs, natural reruns, experiments and rechecks 4/4 "},
	} {
		var out bytes.Buffer
		p := newProgress(&out, tc.todo)
		for range tc.todo {
			p.step()
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.want) {
			t.Errorf("progress ended with %q, want it to begin with %q", last, tc.want)
		}
	}
}
