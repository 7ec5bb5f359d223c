package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Crash is one way the test binary died in experiments without a test
// verdict: what it printed as it died, how many experiments, in which
// tests, and one of them to run again. A crash is seldom the injected
// fault's expected outcome: a panic on an error the code asserts to a
// type the fault is not, or a bug on an error path (unlocking a mutex
// that is not locked) that the campaign found and the test hid.
type Crash struct {
	Message     string   `json:"message"`     // "fatal error: sync: RUnlock of unlocked RWMutex"
	Experiments int      `json:"experiments"` // experiments that died so
	Tests       []string `json:"tests"`       // their tests, "pkg.TestX", sorted
	Injection   string   `json:"injection"`   // the fault of the first of them, ATOMICX_INJECT's form
	Reproduce   string   `json:"reproduce"`   // the command that runs it again
}

// occurrence is the end of an injected fault's text that says which reach
// of its point it failed (rt.InjectedFault.Error).
var occurrence = regexp.MustCompile(`, occurrence [0-9]+`)

// maxCrashTests bounds the tests a crash lists.
const maxCrashTests = 5

// crashes groups the crashed experiments of recs by their message, most
// frequent first.
func crashes(recs []*campaign.Record, hdr *campaign.Header) []*Crash {
	byMessage := map[string]*Crash{}
	var out []*Crash
	for _, rec := range recs {
		if rec.Kind != "experiment" || rec.Status != campaign.Crashed {
			continue
		}
		died := rec.Died
		if died == "" {
			died = campaign.DeathLine(rec.Output)
		}
		msg := shortMessage(strings.TrimSuffix(died, " [recovered]"))
		if died == "" {
			msg = lastOutputLine(rec.Output)
		}
		// The text of an injected fault names its occurrence: the crashes
		// of every occurrence of one point are one.
		msg = occurrence.ReplaceAllString(msg, "")
		c := byMessage[msg]
		if c == nil {
			ev := &Evidence{Package: rec.Package, Test: rec.Test, Exec: rec.Exec, Binary: rec.Binary}
			if rec.Arming.Inject.Site != "" {
				ev.injected(arm.Injection{Fault: rec.Arming.Inject.Fault, Occurrence: rec.Arming.Inject.Occurrence, Site: rec.Arming.Inject.Site})
			}
			c = &Crash{Message: msg, Injection: ev.Injection, Reproduce: reproduce(ev, hdr)}
			byMessage[msg] = c
			out = append(out, c)
		}
		c.Experiments++
		test := rec.Package + "." + rec.Test
		if rec.Exec != "" {
			test = rec.Exec
		}
		if !slices.Contains(c.Tests, test) {
			c.Tests = append(c.Tests, test)
		}
	}
	for _, c := range out {
		slices.Sort(c.Tests)
	}
	slices.SortStableFunc(out, func(a, b *Crash) int {
		if a.Experiments != b.Experiments {
			return b.Experiments - a.Experiments
		}
		return strings.Compare(a.Message, b.Message)
	})
	return out
}

// lastOutputLine is the last line of a dying binary's output that is not
// the go command's own, for a binary that printed no panic nor fatal
// error (os.Exit, a signal).
func lastOutputLine(output string) string {
	lines := strings.Split(output, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || l == "FAIL" || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "exit status ") {
			continue
		}
		return shortMessage(l)
	}
	return "(no output)"
}

// shortMessage cuts a message to a line of a report.
func shortMessage(s string) string {
	n := 200
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// writeCrashes writes the text report's list of crashes.
func writeCrashes(w io.Writer, cs []*Crash) {
	if len(cs) == 0 {
		return
	}
	n := 0
	for _, c := range cs {
		n += c.Experiments
	}
	fmt.Fprintf(w, "crashes (%d experiments died without a test verdict):\n", n)
	for _, c := range cs {
		tests := c.Tests
		more := ""
		if len(tests) > maxCrashTests {
			more = fmt.Sprintf(" and %d more", len(tests)-maxCrashTests)
			tests = tests[:maxCrashTests]
		}
		fmt.Fprintf(w, "%d× %s\n\tin %s%s\n\treproduce: %s\n", c.Experiments, c.Message, strings.Join(tests, ", "), more, c.Reproduce)
	}
	fmt.Fprintln(w)
}
