package campaign

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress reports experiments done, their rate and the time left: on a
// terminal as one line rewritten in place, otherwise as a plain line at
// most every ten seconds.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	what     string // the runs counted: "experiments", "natural reruns and experiments"
	label    string // starts each line: "shard 2/4: " or ""
	total    int
	done     int
	start    time.Time
	last     time.Time
}

func newProgress(w io.Writer, todo []*Record) *progress {
	p := &progress{w: w, what: kindsOf(todo), total: len(todo), start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

// step counts a run done.
func (p *progress) step() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count()
}

// ahead counts a run of a batch that ended while its process goes on:
// when the process ends, its record is done without a step.
func (p *progress) ahead() { p.step() }

// retract takes back n runs that ahead counted and whose records will
// have a step after all.
func (p *progress) retract(n int) {
	if p == nil || p.w == nil || n <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = max(p.done-n, 0)
}

func (p *progress) count() {
	p.done = min(p.done+1, p.total)
	every := 10 * time.Second
	if p.terminal {
		every = 200 * time.Millisecond
	}
	if now := time.Now(); now.Sub(p.last) >= every || p.done == p.total {
		p.last = now
		p.print()
	}
}

func (p *progress) print() {
	elapsed := time.Since(p.start)
	rate := float64(p.done) / elapsed.Seconds()
	eta := "?"
	// The first runs to end say little of the rate: those of batches end
	// together, and single runs first. No time left is shown before a
	// fiftieth of the runs is done, or a few seconds have passed.
	if rate > 0 && (p.done*50 >= p.total || elapsed >= 3*time.Second) {
		eta = (time.Duration(float64(p.total-p.done)/rate) * time.Second).Round(time.Second).String()
	}
	line := fmt.Sprintf("%s%s %d/%d  %.1f/s  ETA %s", p.label, p.what, p.done, p.total, rate, eta)
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

func (p *progress) finish() {
	if p.w != nil && p.terminal {
		fmt.Fprintln(p.w)
	}
}

// runNames are the names of the kinds of runs, as the report has them.
var runNames = []struct{ kind, name string }{
	{"profile", "profile runs"},
	{"natural", "natural reruns"},
	{"experiment", "experiments"},
	{"recheck", "rechecks"},
}

// kindsOf names the kinds of the runs, in the report's order:
// "natural reruns and experiments".
func kindsOf(runs []*Record) string {
	has := map[string]bool{}
	for _, r := range runs {
		has[r.Kind] = true
	}
	var names []string
	for _, k := range runNames {
		if has[k.kind] {
			names = append(names, k.name)
		}
	}
	switch len(names) {
	case 0:
		return "runs"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
