package campaign

import (
	"bytes"
	"strings"
)

// A GoroutineStack is one goroutine of a test binary stopped at its time
// limit, or killed by the runtime as deadlocked, as the Go runtime's dump
// showed it: what it waited
// for ("sync.Mutex.Lock", "chan receive") and the functions on its
// stack, innermost first, as the runtime names them.
type GoroutineStack struct {
	State string   `json:"state"`
	Funcs []string `json:"funcs"`
}

// Bounds of what a run keeps of a dump: a test binary has few
// goroutines, a server under test may have thousands.
const (
	maxStacks     = 64
	maxStackFuncs = 48
)

// stackScan reads, line by line, the goroutine dump the Go runtime
// writes when SIGQUIT stops a program ("SIGQUIT: quit"), or when it finds
// every goroutine asleep ("fatal error: all goroutines are asleep"), then
// blocks
// "goroutine 7 [sync.Mutex.Lock]:" followed by a function line and a
// file line per frame.
type stackScan struct {
	line    []byte // the line being written, its first 512 bytes
	dumping bool
	stacks  []GoroutineStack
}

func (s *stackScan) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		s.line = append(s.line, chunk[:min(len(chunk), max(512-len(s.line), 0))]...)
		if i < 0 {
			return
		}
		s.scanLine(string(s.line))
		s.line, p = s.line[:0], p[i+1:]
	}
}

func (s *stackScan) scanLine(line string) {
	if strings.HasPrefix(line, "SIGQUIT: quit") || strings.HasPrefix(line, "fatal error: all goroutines are asleep") {
		s.dumping, s.stacks = true, nil
		return
	}
	if !s.dumping || line == "" || strings.HasPrefix(line, "\t") {
		return
	}
	if rest, ok := strings.CutPrefix(line, "goroutine "); ok {
		open, close := strings.Index(rest, "["), strings.Index(rest, "]")
		if open < 0 || close < open || len(s.stacks) == maxStacks {
			return
		}
		state, _, _ := strings.Cut(rest[open+1:close], ",") // "sync.Mutex.Lock, 1 minutes"
		s.stacks = append(s.stacks, GoroutineStack{State: state})
		return
	}
	if len(s.stacks) == 0 || strings.HasPrefix(line, "created by ") {
		return
	}
	g := &s.stacks[len(s.stacks)-1]
	if paren := strings.LastIndex(line, "("); paren > 0 && len(g.Funcs) < maxStackFuncs {
		g.Funcs = append(g.Funcs, line[:paren])
	}
}
