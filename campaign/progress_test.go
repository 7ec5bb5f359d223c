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

// TestProgressAhead: the experiments of a batch count as they end (the
// records of those are then done without a step); ends counted that the
// whole log does not confirm are taken back.
func TestProgressAhead(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, experiments(6))
	// A batch's watch reads four ends, and another job's single run ends.
	for range 4 {
		p.ahead()
	}
	p.step()
	if p.done != 5 {
		t.Fatalf("after four ends read and a run done, %d counted, want 5", p.done)
	}
	// The batch's process ends: only three of its experiments ended.
	p.retract(4 - 3)
	if p.done != 4 {
		t.Fatalf("after the batch's end, %d counted, want 4", p.done)
	}
	// The experiment the process died in runs again, and the last one.
	p.step()
	p.step()
	if p.done != 6 {
		t.Errorf("at the end, %d counted, want 6", p.done)
	}
	if !strings.Contains(out.String(), "experiments 6/6 ") {
		t.Errorf("the last line does not say 6/6:\n%s", out.String())
	}
}

// TestProgressNoEarlyETA: before a fiftieth of the runs is done (and
// within the first seconds), the line gives no time left.
func TestProgressNoEarlyETA(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, experiments(100))
	p.step()
	p.print()
	if !strings.Contains(out.String(), "ETA ?") {
		t.Errorf("after 1 of 100 runs: %q, want no time left", out.String())
	}
	out.Reset()
	p.step()
	p.print()
	if strings.Contains(out.String(), "ETA ?") {
		t.Errorf("after 2 of 100 runs: %q, want a time left", out.String())
	}
}

// experiments are n records of experiments to do.
func experiments(n int) []*Record {
	todo := make([]*Record, n)
	for i := range todo {
		todo[i] = &Record{Kind: "experiment"}
	}
	return todo
}
