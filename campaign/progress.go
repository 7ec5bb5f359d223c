package campaign

import (
	"fmt"
	"io"
	"os"
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
	total    int
	done     int
	start    time.Time
	last     time.Time
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

func (p *progress) step() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
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
	if rate > 0 {
		eta = (time.Duration(float64(p.total-p.done)/rate) * time.Second).Round(time.Second).String()
	}
	line := fmt.Sprintf("experiments %d/%d  %.1f/s  ETA %s", p.done, p.total, rate, eta)
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
